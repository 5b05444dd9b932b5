# RUN: --passes=fuse-ops
# relu(x) * y + x after a dense: the dense's result has two users whose paths meet again at the
# add (a diamond), so the whole region is one group, one kernel (TVM's post-dominator rule).
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((16, 64), dtype="float32"), w: R.Tensor((32, 64), dtype="float32"), y: R.Tensor((16, 32), dtype="float32")):
        with R.dataflow():
            lv = R.nn.dense(x, w)
            lv1 = R.nn.relu(lv)
            lv2 = R.multiply(lv1, y)
            gv = R.add(lv2, lv)
            R.output(gv)
        return gv
# CHECK: def fused_dense_relu_multiply_add(
# CHECK: gv: R.Tensor((16, 32), dtype="float32") = cls.fused_dense_relu_multiply_add(x, w, y)
