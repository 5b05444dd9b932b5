# RUN: --passes=simplify-power
# Layer norm's variance as exporters write it: Pow(x - mean, 2) becomes a multiply; an exponent
# of 0.5 becomes sqrt; 3 stays a power.
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 8), dtype="float32")):
        with R.dataflow():
            m = R.mean(x, axis=[1], keepdims=True)
            d = R.subtract(x, m)
            sq = R.power(d, R.const(2.0, "float32"))
            r = R.power(sq, R.const(0.5, "float32"))
            gv = R.power(r, R.const(3.0, "float32"))
            R.output(gv)
        return gv
# CHECK: R.multiply(d, d)
# CHECK: R.sqrt(
# CHECK: R.power(
