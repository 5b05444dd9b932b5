# RUN: --passes=fuse-ops
# A recurrent step: add(slice of the input projection, h @ R). The add's first operand is an
# elementwise chain, its second a matrix product; the add fuses as the product's epilogue and
# the slice joins as a side chain (one kernel per step), rather than the add joining the slice
# and leaving the product a kernel of its own.
@I.ir_module
class Module:
    @R.function
    def main(p: R.Tensor((8, 64), dtype="float32"), h: R.Tensor((1, 32), dtype="float32"), r: R.Tensor((32, 64), dtype="float32")):
        with R.dataflow():
            s = R.strided_slice(p, axes=[0], begin=[3], end=[4])
            m = R.matmul(h, r)
            gv = R.add(s, m)
            R.output(gv)
        return gv
# CHECK: def fused_strided_slice_matmul_add(
# CHECK: lv: R.Tensor((1, 64), dtype="float32") = R.strided_slice(p
# CHECK-NEXT: lv1: R.Tensor((1, 64), dtype="float32") = R.matmul(h, r
# CHECK-NEXT: gv: R.Tensor((1, 64), dtype="float32") = R.add(lv, lv1)
# CHECK: gv: R.Tensor((1, 64), dtype="float32") = cls.fused_strided_slice_matmul_add(p, h, r)
