# RUN: --passes=pad-gemm-columns
# On an AVX-512 target (16 lanes): a Swin window's attention scores, q [64, 3, 49, 32] against the
# keys' transpose [64, 3, 32, 49] (an activation), compute 64 columns: the keys padded with zero
# columns by an nn.pad (half again the work at most; fuse-ops puts it in the kernel that
# transposes the keys), and the 49 sliced back. Scores over 10 keys would pad to 16 (more than
# half again) and a product of 2 rows takes the few-row tile: both stay as they are.
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=x86-64-v4"})

    @R.function
    def main(q: R.Tensor((64, 3, 49, 32), dtype="float32"), k: R.Tensor((64, 3, 32, 49), dtype="float32"), k10: R.Tensor((64, 3, 32, 10), dtype="float32"), q2: R.Tensor((64, 3, 2, 32), dtype="float32")):
        with R.dataflow():
            s = R.matmul(q, k, out_dtype="void")
            s10 = R.matmul(q, k10, out_dtype="void")
            s2 = R.matmul(q2, k, out_dtype="void")
            gv = (s, s10, s2)
            R.output(gv)
        return gv
# CHECK: R.Tensor((64, 3, 32, 64), dtype="float32") = R.nn.pad(k,
# CHECK-SAME: pad_width=[0, 0, 0, 0, 0, 0, 0, 15]
# CHECK: R.Tensor((64, 3, 49, 64), dtype="float32") = R.matmul(q,
# CHECK: R.Tensor((64, 3, 49, 49), dtype="float32") = R.strided_slice(
# CHECK-SAME: axes=[3], begin=[0], end=[49]
# CHECK: R.Tensor((64, 3, 49, 10), dtype="float32") = R.matmul(q, k10
# CHECK: R.Tensor((64, 3, 2, 49), dtype="float32") = R.matmul(q2, k
