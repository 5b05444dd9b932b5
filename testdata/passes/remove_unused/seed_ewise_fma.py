# RUN: --passes=remove-unused
# An unused chain (a -> b) and an unreachable private function disappear; the impure
# alloc_tensor stays even though unused.
@I.ir_module
class Unused:
    @R.function(private=True)
    def helper(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        with R.dataflow():
            y = R.nn.relu(x)
            R.output(y)
        return y

    @R.function
    def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        with R.dataflow():
            a = R.exp(x)
            b = R.add(a, x)
            c = R.nn.relu(x)
            R.output(c)
        scratch = R.alloc_tensor((3,), dtype="float32")
        return c
