# A result whose size the data decide: a runtime function that allocates it
# (R.call_pure_packed), its size named by R.match_cast, then computed with like any dimension.
@I.ir_module
class DataDependentSizes:
    @R.function
    def main(x: R.Tensor((4, 5), "float32")):
        with R.dataflow():
            found = R.call_pure_packed("mlc.nonzero", (x,), out_sinfo=R.Tensor(dtype="int64", ndim=2))
            idx = R.match_cast(found, R.Tensor((2, n), "int64"))
            cols = R.permute_dims(idx, axes=[1, 0])
            out = R.add(cols, cols)
            R.output(out)
        return out
