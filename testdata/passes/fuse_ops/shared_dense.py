# RUN: --passes=fuse-ops
# One dense feeding two adds: fusing it into both would compute it twice, so fuse-ops leaves it
# alone; the relu after each add still fuses with that add.
@I.ir_module
class SharedDense:
    @R.function
    def main(x: R.Tensor((4, 16), "float32"), w: R.Tensor((8, 16), "float32"),
             b0: R.Tensor((8,), "float32"), b1: R.Tensor((8,), "float32")) -> R.Tuple(R.Tensor((4, 8), "float32"), R.Tensor((4, 8), "float32")):
        with R.dataflow():
            d = R.nn.dense(x, w)
            a0 = R.add(d, b0)
            r0 = R.nn.relu(a0)
            a1 = R.add(d, b1)
            r1 = R.nn.relu(a1)
            out = (r0, r1)
            R.output(out)
        return out
