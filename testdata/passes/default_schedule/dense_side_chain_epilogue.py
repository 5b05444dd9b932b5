# RUN: --passes=fuse-ops,legalize,fuse-tir,default-schedule,remove-unused
# A dense layer whose epilogue also reads a side computation (s = sx * sw, as an int8 layer's
# rescale factor): fuse-ops puts s before the product in the fused function, so the epilogue
# still moves under the product's panels instead of running as a second pass over the result,
# and s is computed once, before the panels.
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=x86-64-v3"})

    @R.function
    def main(x: R.Tensor((16, 64), dtype="float32"), w: R.Tensor((32, 64), dtype="float32"), sx: R.Tensor((32,), dtype="float32"), sw: R.Tensor((32,), dtype="float32")):
        with R.dataflow():
            lv = R.nn.dense(x, w)
            s = R.multiply(sx, sw)
            gv = R.multiply(lv, s)
            R.output(gv)
        return gv
# CHECK: with T.block("T_multiply"):
# CHECK-NEXT: v_ax0 = T.axis.spatial(T.int64(32), ax0)
# CHECK: for i1_0 in T.parallel(T.int64(2)):
# CHECK: T.gemm_tile_partial(
# CHECK-NEXT: for ax0 in range(
# CHECK-NEXT: for ax1 in T.vectorized(T.int64(16)):
# CHECK-NEXT: with T.block("T_multiply_1"):
# CHECK: T_multiply[v_ax0, v_ax1] = T_matmul_NT[v_ax0, v_ax1] * T_multiply_1[v_ax1]
