# RUN: --passes=fold-constant,remove-unused
# c0 + c1 and relu(c0) are computed at compile time; x + (folded) stays.
@I.ir_module
class Folding:
    @R.function
    def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        with R.dataflow():
            c = R.add(R.const(1.5, "float32"), R.const(2.0, "float32"))
            d = R.multiply(c, R.const(-2.0, "float32"))
            e = R.nn.relu(d)
            y = R.add(x, c)
            z = R.add(y, e)
            R.output(z)
        return z
