# RUN: --passes=fuse-ops
# A recurrent cell's gate: two elementwise chains, each used only by the multiply where they
# meet, are one group with it (one kernel, not two). A matrix product's epilogue takes in a side
# chain too (the rescale factor s), emitted before the product so that the epilogue can move
# under the product's loops.
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 64), dtype="float32"), y: R.Tensor((1, 64), dtype="float32"), w: R.Tensor((64, 64), dtype="float32"), k: R.Tensor((1, 64), dtype="float32")):
        with R.dataflow():
            a = R.sigmoid(x)
            b = R.tanh(y)
            c = R.add(b, k)
            g = R.multiply(a, c)
            m = R.matmul(g, w)
            s = R.multiply(x, k)
            gv = R.add(m, s)
            R.output(gv)
        return gv
# CHECK: def fused_matmul_multiply_add(
# CHECK: lv: R.Tensor((1, 64), dtype="float32") = R.multiply(x, k)
# CHECK-NEXT: lv1: R.Tensor((1, 64), dtype="float32") = R.matmul(g, w, out_dtype="void")
# CHECK-NEXT: gv: R.Tensor((1, 64), dtype="float32") = R.add(lv1, lv)
# CHECK: def fused_sigmoid_tanh_add_multiply(
# CHECK: lv: R.Tensor((1, 64), dtype="float32") = R.sigmoid(x)
# CHECK: g: R.Tensor((1, 64), dtype="float32") = cls.fused_sigmoid_tanh_add_multiply(x, y, k)
# CHECK-NEXT: gv: R.Tensor((1, 64), dtype="float32") = cls.fused_matmul_multiply_add(g, w, x, k)
