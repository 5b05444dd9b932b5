# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(c: R.Tensor((), dtype="bool"), x: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
        cls = Module
        if c:
            y: R.Tensor((3,), dtype="float32") = cls.scaled(x)
        else:
            y: R.Tensor((3,), dtype="float32") = R.negative(x)
        with R.dataflow():
            out: R.Tensor((3,), dtype="float32") = R.exp(y)
            R.output(out)
        return out

    @R.function(private=True)
    def scaled(x: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
        with R.dataflow():
            y: R.Tensor((3,), dtype="float32") = R.add(x, x)
            z: R.Tensor((3,), dtype="float32") = R.multiply(y, x)
            R.output(z)
        return z
