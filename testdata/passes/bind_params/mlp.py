# RUN: --passes=bind-params{params=testdata/passes/bind_params/mlp_params.npz}
# The seeds' BindParams("main", params): w0 and b0 become constants and leave the signature.
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 4), dtype="float32"), w0: R.Tensor((3, 4), dtype="float32"), b0: R.Tensor((3,), dtype="float32")):
        with R.dataflow():
            lv = R.nn.dense(x, w0)
            lv1 = R.add(lv, b0)
            R.output(lv1)
        return lv1
# CHECK: def main(x: R.Tensor((1, 4), dtype="float32"))
# CHECK: R.nn.dense(x, metadata["relax.expr.Constant"][0])
# CHECK: R.add(lv, metadata["relax.expr.Constant"][1])
