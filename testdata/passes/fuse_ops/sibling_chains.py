# RUN: --passes=fuse-ops
# A recurrent cell's gate: two elementwise chains, each used only by the multiply where they
# meet, are one group with it (one kernel, not two). A matrix product's epilogue does not take
# in a side chain (its schedule expects a single chain after the product): the rescale factor
# s stays its own kernel.
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
# CHECK: def fused_matmul_add(
# CHECK: def fused_sigmoid_tanh_add_multiply(
# CHECK: g: R.Tensor((1, 64), dtype="float32") = cls.fused_sigmoid_tanh_add_multiply(x, y, k)
# CHECK-NEXT: s: R.Tensor((1, 64), dtype="float32") = R.multiply(x, k)
# CHECK-NEXT: gv: R.Tensor((1, 64), dtype="float32") = cls.fused_matmul_add(g, w, s)
