# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        with R.dataflow():
            c: R.Tensor((), dtype="float32") = metadata["relax.expr.Constant"][0]
            y: R.Tensor((2, 3), dtype="float32") = R.add(x, metadata["relax.expr.Constant"][0])
            R.output(y)
        return y

# Metadata omitted. Use show_meta=True in script() method to show it.
