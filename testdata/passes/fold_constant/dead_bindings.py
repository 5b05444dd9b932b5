# RUN: --passes=fold-constant
# Pure bindings nothing uses are dropped before folding, not folded (qdq-to-integer leaves each
# weight's dequantize unused: folding them cost an int8 ResNet-50 6 s): `unused` and the chain
# `scaled`, `unused_too` go, with no constant left for them; `c` is used and folds.
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        with R.dataflow():
            unused = R.add(R.const(1.5, "float32"), R.const(2.0, "float32"))
            scaled = R.multiply(R.const(3.0, "float32"), R.const(-2.0, "float32"))
            unused_too = R.nn.relu(scaled)
            c = R.multiply(R.const(0.5, "float32"), R.const(4.0, "float32"))
            y = R.add(x, c)
            R.output(y)
        return y
