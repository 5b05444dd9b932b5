# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        with R.dataflow():
            y: R.Tensor((2, 3), dtype="float32") = R.add(x, metadata["relax.expr.Constant"][0])
            z: R.Tensor((2, 3), dtype="float32") = R.add(y, metadata["relax.expr.Constant"][1])
            R.output(z)
        return z

# Metadata omitted. Use show_meta=True in script() method to show it.
