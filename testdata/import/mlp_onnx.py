# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 784), dtype="float32")) -> R.Tensor((1, 10), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((1, 128), dtype="float32") = R.nn.dense(x, metadata["relax.expr.Constant"][0])
            lv1: R.Tensor((1, 128), dtype="float32") = R.add(lv, metadata["relax.expr.Constant"][1])
            lv2: R.Tensor((1, 128), dtype="float32") = R.nn.relu(lv1)
            lv3: R.Tensor((1, 10), dtype="float32") = R.nn.dense(lv2, metadata["relax.expr.Constant"][2])
            lv4: R.Tensor((1, 10), dtype="float32") = R.add(lv3, metadata["relax.expr.Constant"][3])
            gv: R.Tensor((1, 10), dtype="float32") = lv4
            R.output(gv)
        return gv

# Metadata omitted. Use show_meta=True in script() method to show it.
