# RUN: --passes=fuse-ops,legalize,fuse-tir,default-schedule,remove-unused
# A dense layer with bias and ReLU: the GEMM becomes the 4 x 16 register-tile micro-kernel
# over packed 16-column panels of the weight, the epilogue runs per panel, vectorized, and
# the panels are parallel.
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=x86-64-v3"})

    @R.function
    def main(x: R.Tensor((16, 64), dtype="float32"), w: R.Tensor((32, 64), dtype="float32"), b: R.Tensor((32,), dtype="float32")):
        with R.dataflow():
            lv = R.nn.dense(x, w)
            lv1 = R.add(lv, b)
            gv = R.nn.relu(lv1)
            R.output(gv)
        return gv
# CHECK: T.parallel(
# CHECK: T.block("w_global")
# CHECK: T.gemm_tile(
# CHECK: T.vectorized(T.int64(16))
# CHECK: T.max(
