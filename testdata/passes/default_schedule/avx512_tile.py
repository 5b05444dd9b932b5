# RUN: --passes=fuse-ops,legalize,fuse-tir,default-schedule,remove-unused
# dense_epilogue.py for an AVX-512 target: 32 vector registers of 16 lanes give an 8 x 32
# register tile (two vectors wide), so the weight is packed in 32-column panels.
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=znver4"})

    @R.function
    def main(x: R.Tensor((16, 64), dtype="float32"), w: R.Tensor((32, 64), dtype="float32"), b: R.Tensor((32,), dtype="float32")):
        with R.dataflow():
            lv = R.nn.dense(x, w)
            lv1 = R.add(lv, b)
            gv = R.nn.relu(lv1)
            R.output(gv)
        return gv
# CHECK: I.module_attrs({"target": "llvm -mcpu=znver4"})
# CHECK: T.vectorized(T.int64(32))
# CHECK: T.int64(64), T.int64(8), T.int64(32)
