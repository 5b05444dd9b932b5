# The seeds' high-level MLP with a symbolic batch: operators (not hand-written PrimFuncs), so
# shape inference, legalization, fusion and the default schedules all meet the symbolic n.
# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 784), dtype="float32"), w0: R.Tensor((128, 784), dtype="float32"), b0: R.Tensor((128,), dtype="float32"), w1: R.Tensor((10, 128), dtype="float32"), b1: R.Tensor((10,), dtype="float32")) -> R.Tensor(("n", 10), dtype="float32"):
        n = T.int64()
        with R.dataflow():
            lv0 = R.permute_dims(w0, axes=None)
            lv1 = R.matmul(x, lv0, out_dtype="void")
            lv2 = R.add(lv1, b0)
            lv3 = R.nn.relu(lv2)
            lv4 = R.permute_dims(w1, axes=None)
            lv5 = R.matmul(lv3, lv4, out_dtype="void")
            gv: R.Tensor((n, 10), dtype="float32") = R.add(lv5, b1)
            R.output(gv)
        return gv
