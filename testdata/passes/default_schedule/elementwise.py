# RUN: --passes=fuse-ops,legalize,fuse-tir,default-schedule,remove-unused
# add + relu on 64 x 256: one fused nest, its contiguous inner loop vectorized, its outer
# loop parallel (16K iterations); the add is inlined into the relu.
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=x86-64-v3"})

    @R.function
    def main(x: R.Tensor((64, 256), dtype="float32"), y: R.Tensor((64, 256), dtype="float32")):
        with R.dataflow():
            lv = R.add(x, y)
            gv = R.nn.relu(lv)
            R.output(gv)
        return gv
# CHECK: for i0 in T.parallel(T.int64(64)):
# CHECK-NEXT: for i1 in T.vectorized(T.int64(256)):
