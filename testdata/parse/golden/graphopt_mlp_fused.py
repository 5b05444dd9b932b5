# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def fused_dense_add0(x: R.Tensor((1, 784), dtype="float32"), w: R.Tensor((128, 784), dtype="float32"), b: R.Tensor((128,), dtype="float32")) -> R.Tensor((1, 128), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((1, 128), dtype="float32") = R.nn.dense(x, w)
            gv: R.Tensor((1, 128), dtype="float32") = R.add(lv, b)
            R.output(gv)
        return gv

    @R.function
    def fused_dense_add1(x1: R.Tensor((1, 128), dtype="float32"), w1: R.Tensor((10, 128), dtype="float32"), b1: R.Tensor((10,), dtype="float32")) -> R.Tensor((1, 10), dtype="float32"):
        with R.dataflow():
            lv1: R.Tensor((1, 10), dtype="float32") = R.nn.dense(x1, w1)
            gv1: R.Tensor((1, 10), dtype="float32") = R.add(lv1, b1)
            R.output(gv1)
        return gv1

    @R.function
    def main(x2: R.Tensor((1, 784), dtype="float32")) -> R.Tensor((1, 10), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv11: R.Tensor((1, 128), dtype="float32") = cls.fused_dense_add0(x2, metadata["relax.expr.Constant"][0], metadata["relax.expr.Constant"][1])
            lv2: R.Tensor((1, 128), dtype="float32") = R.nn.relu(lv11)
            lv4: R.Tensor((1, 10), dtype="float32") = cls.fused_dense_add1(lv2, metadata["relax.expr.Constant"][2], metadata["relax.expr.Constant"][3])
            gv2: R.Tensor((1, 10), dtype="float32") = lv4
            R.output(gv2)
        return gv2

# Metadata omitted. Use show_meta=True in script() method to show it.
