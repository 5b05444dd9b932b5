# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 5), dtype="float32")) -> R.Tensor(dtype="int64", ndim=2):
        n = T.int64()
        with R.dataflow():
            found = R.call_pure_packed("mlc.nonzero", (x,), out_sinfo=R.Tensor(dtype="int64", ndim=2))
            idx = R.match_cast(found, R.Tensor((2, n), dtype="int64"))
            cols: R.Tensor((n, 2), dtype="int64") = R.permute_dims(idx, axes=[1, 0])
            out: R.Tensor((n, 2), dtype="int64") = R.add(cols, cols)
            R.output(out)
        return out
