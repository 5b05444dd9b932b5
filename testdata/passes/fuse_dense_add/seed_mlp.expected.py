# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(private=True)
    def fused_dense_add0(x: R.Tensor((1, 784), dtype="float32"), w: R.Tensor((128, 784), dtype="float32"), b: R.Tensor((128,), dtype="float32")) -> R.Tensor((1, 128), dtype="float32"):
        R.func_attr({"Primitive": 1})
        with R.dataflow():
            lv: R.Tensor((1, 128), dtype="float32") = R.nn.dense(x, w)
            gv: R.Tensor((1, 128), dtype="float32") = R.add(lv, b)
            R.output(gv)
        return gv

    @R.function(private=True)
    def fused_dense_add1(x: R.Tensor((1, 128), dtype="float32"), w: R.Tensor((10, 128), dtype="float32"), b: R.Tensor((10,), dtype="float32")) -> R.Tensor((1, 10), dtype="float32"):
        R.func_attr({"Primitive": 1})
        with R.dataflow():
            lv: R.Tensor((1, 10), dtype="float32") = R.nn.dense(x, w)
            gv: R.Tensor((1, 10), dtype="float32") = R.add(lv, b)
            R.output(gv)
        return gv

    @R.function
    def main(x: R.Tensor((1, 784), dtype="float32")) -> R.Tensor((1, 10), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv1: R.Tensor((1, 128), dtype="float32") = cls.fused_dense_add0(x, metadata["relax.expr.Constant"][0], metadata["relax.expr.Constant"][1])
            lv2: R.Tensor((1, 128), dtype="float32") = R.nn.relu(lv1)
            lv4: R.Tensor((1, 10), dtype="float32") = cls.fused_dense_add1(lv2, metadata["relax.expr.Constant"][2], metadata["relax.expr.Constant"][3])
            gv: R.Tensor((1, 10), dtype="float32") = lv4
            R.output(gv)
        return gv

# Metadata omitted. Use show_meta=True in script() method to show it.
