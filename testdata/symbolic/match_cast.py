# R.match_cast: main takes tensors of unknown shape, checks them when it runs and binds n and m
# from them; the add's operands agree by construction.
# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(dtype="float32", ndim=2), y: R.Tensor(dtype="float32", ndim=2)) -> R.Tensor(dtype="float32", ndim=2):
        n = T.int64()
        m = T.int64()
        with R.dataflow():
            a = R.match_cast(x, R.Tensor((n, m), dtype="float32"))
            b = R.match_cast(y, R.Tensor((n, m), dtype="float32"))
            c: R.Tensor((n, m), dtype="float32") = R.add(a, b)
            s: R.Shape([n * 2, m]) = R.shape([n * 2, m])
            d: R.Tensor((n, m), dtype="float32") = R.nn.relu(c)
            R.output(d)
        return d
