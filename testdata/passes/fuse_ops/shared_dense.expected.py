# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(private=True)
    def fused_add_relu(d: R.Tensor((4, 8), dtype="float32"), b0: R.Tensor((8,), dtype="float32")) -> R.Tensor((4, 8), dtype="float32"):
        R.func_attr({"Primitive": 1})
        with R.dataflow():
            lv: R.Tensor((4, 8), dtype="float32") = R.add(d, b0)
            gv: R.Tensor((4, 8), dtype="float32") = R.nn.relu(lv)
            R.output(gv)
        return gv

    @R.function(private=True)
    def fused_add_relu1(d: R.Tensor((4, 8), dtype="float32"), b1: R.Tensor((8,), dtype="float32")) -> R.Tensor((4, 8), dtype="float32"):
        R.func_attr({"Primitive": 1})
        with R.dataflow():
            lv: R.Tensor((4, 8), dtype="float32") = R.add(d, b1)
            gv: R.Tensor((4, 8), dtype="float32") = R.nn.relu(lv)
            R.output(gv)
        return gv

    @R.function
    def main(x: R.Tensor((4, 16), dtype="float32"), w: R.Tensor((8, 16), dtype="float32"), b0: R.Tensor((8,), dtype="float32"), b1: R.Tensor((8,), dtype="float32")) -> R.Tuple(R.Tensor((4, 8), dtype="float32"), R.Tensor((4, 8), dtype="float32")):
        cls = Module
        with R.dataflow():
            d: R.Tensor((4, 8), dtype="float32") = R.nn.dense(x, w)
            r0: R.Tensor((4, 8), dtype="float32") = cls.fused_add_relu(d, b0)
            r1: R.Tensor((4, 8), dtype="float32") = cls.fused_add_relu1(d, b1)
            out: R.Tuple(R.Tensor((4, 8), dtype="float32"), R.Tensor((4, 8), dtype="float32")) = (r0, r1)
            R.output(out)
        return out
