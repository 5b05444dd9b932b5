# The bundled digits MLP with graph-level operators, as an importer would produce it:
# dense -> add -> relu -> dense -> add over the 360-image test split. The pipeline binds the
# weights from params.npz, then fuses, legalizes and compiles it.
@I.ir_module
class DigitsMLP:
    @R.function
    def main(x: R.Tensor((360, 64), "float32"), w0: R.Tensor((128, 64), "float32"),
             b0: R.Tensor((128,), "float32"), w1: R.Tensor((10, 128), "float32"),
             b1: R.Tensor((10,), "float32")) -> R.Tensor((360, 10), "float32"):
        with R.dataflow():
            lv0 = R.nn.dense(x, w0)
            lv1 = R.add(lv0, b0)
            lv2 = R.nn.relu(lv1)
            lv3 = R.nn.dense(lv2, w1)
            out = R.add(lv3, b1)
            R.output(out)
        return out
