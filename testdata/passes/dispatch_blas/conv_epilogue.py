# RUN: --passes=dispatch-blas,remove-unused
# A convolution with a per-channel bias and a ReLU runs as one mlc.blas.conv2d with its
# epilogue; the dense and the broadcast-free matmul go to their BLAS functions, the batched
# matmul whose right operand has other batch dimensions stays for legalize.
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 3, 8, 8), dtype="float32"), y: R.Tensor((4, 16), dtype="float32"), a: R.Tensor((2, 5, 6), dtype="float32"), b: R.Tensor((3, 6, 7), dtype="float32")):
        with R.dataflow():
            lv = R.nn.conv2d(x, metadata["relax.expr.Constant"][0], padding=[1, 1, 1, 1])
            lv1 = R.add(lv, metadata["relax.expr.Constant"][1])
            lv2 = R.nn.relu(lv1)
            lv3 = R.nn.dense(y, metadata["relax.expr.Constant"][2])
            lv4 = R.matmul(a, metadata["relax.expr.Constant"][3])
            lv5 = R.matmul(R.reshape(a, shape=[2, 1, 5, 6]), b)
            gv = (lv2, lv3, lv4, lv5)
            R.output(gv)
        return gv
# CHECK: def main(
# CHECK-NOT: R.nn.conv2d
# CHECK: R.call_dps_packed("mlc.blas.conv2d"
# CHECK-NOT: R.nn.relu
# CHECK: R.call_dps_packed("mlc.blas.dense"
# CHECK: R.call_dps_packed("mlc.blas.matmul"
# CHECK: R.matmul(
