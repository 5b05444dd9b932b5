# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 128), dtype="float32")) -> R.Tensor((1, 128), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((1, 128), dtype="float32") = R.matmul(x, metadata["relax.expr.Constant"][0], out_dtype="void")
            lv1: R.Tensor((1, 128), dtype="float32") = R.nn.relu(lv)
            gv: R.Tensor((1, 128), dtype="float32") = lv1
            R.output(gv)
        return gv

# Metadata omitted. Use show_meta=True in script() method to show it.
