# The digits MLP in the form of the seeds' MyModule (chapter "End to End Model Execution"):
# linear0 / relu0 / linear1 as TensorIR, main calling them with R.call_tir. Shapes are the
# digits model's: a batch of 360 images of 64 pixels -> 128 hidden units -> 10 classes.
# Weights come from params.npz (bind-params) or as arguments.
@I.ir_module
class DigitsMLP:
    @T.prim_func
    def relu0(X: T.Buffer((360, 128), "float32"), Y: T.Buffer((360, 128), "float32")):
        T.func_attr({"global_symbol": "relu0", "tir.noalias": True})
        for i, j in T.grid(360, 128):
            with T.block("Y"):
                vi, vj = T.axis.remap("SS", [i, j])
                Y[vi, vj] = T.max(X[vi, vj], T.float32(0))

    @T.prim_func
    def linear0(X: T.Buffer((360, 64), "float32"), W: T.Buffer((128, 64), "float32"),
                B: T.Buffer((128,), "float32"), Z: T.Buffer((360, 128), "float32")):
        T.func_attr({"global_symbol": "linear0", "tir.noalias": True})
        Y = T.alloc_buffer((360, 128), "float32")
        for i, j, k in T.grid(360, 128, 64):
            with T.block("Y"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + X[vi, vk] * W[vj, vk]
        for i, j in T.grid(360, 128):
            with T.block("Z"):
                vi, vj = T.axis.remap("SS", [i, j])
                Z[vi, vj] = Y[vi, vj] + B[vj]

    @T.prim_func
    def linear1(X: T.Buffer((360, 128), "float32"), W: T.Buffer((10, 128), "float32"),
                B: T.Buffer((10,), "float32"), Z: T.Buffer((360, 10), "float32")):
        T.func_attr({"global_symbol": "linear1", "tir.noalias": True})
        Y = T.alloc_buffer((360, 10), "float32")
        for i, j, k in T.grid(360, 10, 128):
            with T.block("Y"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + X[vi, vk] * W[vj, vk]
        for i, j in T.grid(360, 10):
            with T.block("Z"):
                vi, vj = T.axis.remap("SS", [i, j])
                Z[vi, vj] = Y[vi, vj] + B[vj]

    @R.function
    def main(x: R.Tensor((360, 64), "float32"), w0: R.Tensor((128, 64), "float32"),
             b0: R.Tensor((128,), "float32"), w1: R.Tensor((10, 128), "float32"),
             b1: R.Tensor((10,), "float32")) -> R.Tensor((360, 10), "float32"):
        with R.dataflow():
            lv0 = R.call_tir(linear0, (x, w0, b0), out_sinfo=R.Tensor((360, 128), "float32"))
            lv1 = R.call_tir(relu0, (lv0,), out_sinfo=R.Tensor((360, 128), "float32"))
            out = R.call_tir(linear1, (lv1, w1, b1), out_sinfo=R.Tensor((360, 10), "float32"))
            R.output(out)
        return out
