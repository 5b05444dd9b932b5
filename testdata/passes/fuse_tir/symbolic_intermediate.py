# RUN: --passes=fuse-ops,legalize,fuse-tir,remove-unused
# Mask R-CNN's padding around a pasted mask: rows of three data-sized pieces concatenated, then
# cut at the image's edge. The concat's result inside the fused kernel is (a + b + c, w): it
# keeps that expression of the sizes the parameters bind (a fresh variable for it would be bound
# by nothing), while the kernel's result, min(320, a + b + c), gets the variable its buffer binds.
@I.ir_module
class Module:
    @R.function
    def main(top: R.Tensor(("a", "w"), dtype="float32"), mid: R.Tensor(("b", "w"), dtype="float32"), bottom: R.Tensor(("c", "w"), dtype="float32")):
        a = T.int64()
        b = T.int64()
        c = T.int64()
        w = T.int64()
        with R.dataflow():
            rows = R.concat(top, mid, bottom, axis=0)
            gv = R.strided_slice(rows, axes=[0], begin=[0], end=[320])
            R.output(gv)
        return gv
# CHECK: T_concat = T.alloc_buffer((a + b + c, w))
