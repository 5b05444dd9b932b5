# RUN: --passes=default-schedule,remove-unused
# An instance norm's mean over H and W reads channel-blocked data (NCHW16c, its layout transform
# fused in) into a plain [n, c, 1, 1] result. The channel loop, which the loads take apart by 16,
# is split by 16 and its lanes move inside the reduction loops, vectorized: each load is a
# contiguous vector of 16 channels and the sums are whole vectors. (As a plain nest, each
# channel read every 16th float of the data.)
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=znver4"})

    @T.prim_func(private=True)
    def mean_blocked(x: T.Buffer((T.int64(1), T.int64(2), T.int64(64), T.int64(64), T.int64(16)), "float32"), T_divide: T.Buffer((T.int64(1), T.int64(32), T.int64(1), T.int64(1)), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        T_layout_trans = T.alloc_buffer((T.int64(1), T.int64(32), T.int64(64), T.int64(64)))
        X_red_sum = T.alloc_buffer((T.int64(1), T.int64(32), T.int64(1), T.int64(1)))
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(1), T.int64(32), T.int64(64), T.int64(64)):
            with T.block("T_layout_trans"):
                v_ax0, v_ax1, v_ax2, v_ax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(x[v_ax0, v_ax1 // T.int64(16), v_ax2, v_ax3, v_ax1 % T.int64(16)])
                T.writes(T_layout_trans[v_ax0, v_ax1, v_ax2, v_ax3])
                T_layout_trans[v_ax0, v_ax1, v_ax2, v_ax3] = x[v_ax0, v_ax1 // T.int64(16), v_ax2, v_ax3, v_ax1 % T.int64(16)]
        for i0, i1, i2, i3, k2, k3 in T.grid(T.int64(1), T.int64(32), T.int64(1), T.int64(1), T.int64(64), T.int64(64)):
            with T.block("X_red_sum"):
                v_i0, v_i1, v_i2, v_i3, v_k2, v_k3 = T.axis.remap("SSSSRR", [i0, i1, i2, i3, k2, k3])
                T.reads(T_layout_trans[v_i0, v_i1, v_k2, v_k3])
                T.writes(X_red_sum[v_i0, v_i1, v_i2, v_i3])
                with T.init():
                    X_red_sum[v_i0, v_i1, v_i2, v_i3] = T.float32(0.0)
                X_red_sum[v_i0, v_i1, v_i2, v_i3] = X_red_sum[v_i0, v_i1, v_i2, v_i3] + T_layout_trans[v_i0, v_i1, v_k2, v_k3]
        for i0, i1, i2, i3 in T.grid(T.int64(1), T.int64(32), T.int64(1), T.int64(1)):
            with T.block("T_divide"):
                v_i0, v_i1, v_i2, v_i3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
                T.reads(X_red_sum[v_i0, v_i1, v_i2, v_i3])
                T.writes(T_divide[v_i0, v_i1, v_i2, v_i3])
                T_divide[v_i0, v_i1, v_i2, v_i3] = X_red_sum[v_i0, v_i1, v_i2, v_i3] / T.float32(4096.0)

    @R.function
    def main(x: R.Tensor((1, 2, 64, 64, 16), dtype="float32")):
        cls = Module
        with R.dataflow():
            gv = R.call_tir(cls.mean_blocked, (x,), out_sinfo=R.Tensor((1, 32, 1, 1), dtype="float32"))
            R.output(gv)
        return gv
# CHECK: for k2, k3 in T.grid(
# CHECK: T.vectorized(T.int64(16)):
# CHECK-NEXT: with T.block("X_red_sum_update"):
