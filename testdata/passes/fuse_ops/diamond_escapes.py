# RUN: --passes=fuse-ops
# The same diamond, but the ReLU's result is also a result of the function: it cannot be an
# intermediate of a fused kernel, so the dense stays alone and the rest fuses from the ReLU.
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((16, 64), dtype="float32"), w: R.Tensor((32, 64), dtype="float32"), y: R.Tensor((16, 32), dtype="float32")):
        with R.dataflow():
            lv = R.nn.dense(x, w)
            lv1 = R.nn.relu(lv)
            lv2 = R.multiply(lv1, y)
            gv = R.add(lv2, lv)
            R.output(gv, lv1)
        return (gv, lv1)
# CHECK-NOT: fused_dense_relu_multiply_add
# CHECK: R.nn.dense(x, w)
