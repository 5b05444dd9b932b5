# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def adaptive_avg_pool2d(lv12: T.Buffer((T.int64(2), T.int64(16), T.int64(4), T.int64(6)), "float32"), adaptive_pool_avg: T.Buffer((T.int64(2), T.int64(16), T.int64(1), T.int64(1)), "float32")):
        T.func_attr({"source_ops": "nn.adaptive_avg_pool2d", "tir.noalias": T.bool(True)})
        # with T.block("root"):
        adaptive_pool_sum = T.alloc_buffer((T.int64(2), T.int64(16), T.int64(1), T.int64(1)))
        for ax0, ax1, ax2, ax3, rv0, rv1 in T.grid(T.int64(2), T.int64(16), T.int64(1), T.int64(1), T.int64(4), T.int64(6)):
            with T.block("adaptive_pool_sum"):
                v_ax0, v_ax1, v_ax2, v_ax3, v_rv0, v_rv1 = T.axis.remap("SSSSRR", [ax0, ax1, ax2, ax3, rv0, rv1])
                T.reads(lv12[v_ax0, v_ax1, v_rv0, v_rv1])
                T.writes(adaptive_pool_sum[v_ax0, v_ax1, v_ax2, v_ax3])
                with T.init():
                    adaptive_pool_sum[v_ax0, v_ax1, v_ax2, v_ax3] = T.float32(0.0)
                adaptive_pool_sum[v_ax0, v_ax1, v_ax2, v_ax3] = adaptive_pool_sum[v_ax0, v_ax1, v_ax2, v_ax3] + lv12[v_ax0, v_ax1, v_rv0, v_rv1]
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(2), T.int64(16), T.int64(1), T.int64(1)):
            with T.block("adaptive_pool_avg"):
                v_ax0, v_ax1, v_ax2, v_ax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(adaptive_pool_sum[v_ax0, v_ax1, v_ax2, v_ax3])
                T.writes(adaptive_pool_avg[v_ax0, v_ax1, v_ax2, v_ax3])
                adaptive_pool_avg[v_ax0, v_ax1, v_ax2, v_ax3] = adaptive_pool_sum[v_ax0, v_ax1, v_ax2, v_ax3] / T.float32(24.0)

    @T.prim_func(private=True)
    def add(lv: T.Buffer((T.int64(2), T.int64(8), T.int64(17), T.int64(15)), "float32"), B: T.Buffer((T.int64(8), T.int64(1), T.int64(1)), "float32"), T_add: T.Buffer((T.int64(2), T.int64(8), T.int64(17), T.int64(15)), "float32")):
        T.func_attr({"source_ops": "add", "tir.noalias": T.bool(True)})
        # with T.block("root"):
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(2), T.int64(8), T.int64(17), T.int64(15)):
            with T.block("T_add"):
                v_ax0, v_ax1, v_ax2, v_ax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(lv[v_ax0, v_ax1, v_ax2, v_ax3], B[v_ax1, T.int64(0), T.int64(0)])
                T.writes(T_add[v_ax0, v_ax1, v_ax2, v_ax3])
                T_add[v_ax0, v_ax1, v_ax2, v_ax3] = lv[v_ax0, v_ax1, v_ax2, v_ax3] + B[v_ax1, T.int64(0), T.int64(0)]

    @T.prim_func(private=True)
    def add1(lv11: T.Buffer((T.int64(2), T.int64(16), T.int64(4), T.int64(6)), "float32"), B: T.Buffer((T.int64(16), T.int64(1), T.int64(1)), "float32"), T_add: T.Buffer((T.int64(2), T.int64(16), T.int64(4), T.int64(6)), "float32")):
        T.func_attr({"source_ops": "add", "tir.noalias": T.bool(True)})
        # with T.block("root"):
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(2), T.int64(16), T.int64(4), T.int64(6)):
            with T.block("T_add"):
                v_ax0, v_ax1, v_ax2, v_ax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(lv11[v_ax0, v_ax1, v_ax2, v_ax3], B[v_ax1, T.int64(0), T.int64(0)])
                T.writes(T_add[v_ax0, v_ax1, v_ax2, v_ax3])
                T_add[v_ax0, v_ax1, v_ax2, v_ax3] = lv11[v_ax0, v_ax1, v_ax2, v_ax3] + B[v_ax1, T.int64(0), T.int64(0)]

    @T.prim_func(private=True)
    def add2(lv16: T.Buffer((T.int64(2), T.int64(5)), "float32"), B: T.Buffer((T.int64(5),), "float32"), T_add: T.Buffer((T.int64(2), T.int64(5)), "float32")):
        T.func_attr({"source_ops": "add", "tir.noalias": T.bool(True)})
        # with T.block("root"):
        for ax0, ax1 in T.grid(T.int64(2), T.int64(5)):
            with T.block("T_add"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(lv16[v_ax0, v_ax1], B[v_ax1])
                T.writes(T_add[v_ax0, v_ax1])
                T_add[v_ax0, v_ax1] = lv16[v_ax0, v_ax1] + B[v_ax1]

    @T.prim_func(private=True)
    def avg_pool2d(lv8: T.Buffer((T.int64(2), T.int64(8), T.int64(5), T.int64(4)), "float32"), pool_avg: T.Buffer((T.int64(2), T.int64(8), T.int64(3), T.int64(3)), "float32")):
        T.func_attr({"source_ops": "nn.avg_pool2d", "tir.noalias": T.bool(True)})
        # with T.block("root"):
        pad_temp = T.alloc_buffer((T.int64(2), T.int64(8), T.int64(7), T.int64(7)))
        pool_sum = T.alloc_buffer((T.int64(2), T.int64(8), T.int64(3), T.int64(3)))
        for i0, i1, i2, i3 in T.grid(T.int64(2), T.int64(8), T.int64(7), T.int64(7)):
            with T.block("pad_temp"):
                v_i0, v_i1, v_i2, v_i3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
                T.reads(lv8[v_i0, v_i1, T.min(T.max(v_i2 - T.int64(1), T.int64(0)), T.int64(4)), T.min(T.max(v_i3 - T.int64(1), T.int64(0)), T.int64(3))])
                T.writes(pad_temp[v_i0, v_i1, v_i2, v_i3])
                pad_temp[v_i0, v_i1, v_i2, v_i3] = T.Select(v_i2 - T.int64(1) >= T.int64(0) and v_i2 - T.int64(1) < T.int64(5) and (v_i3 - T.int64(1) >= T.int64(0) and v_i3 - T.int64(1) < T.int64(4)), lv8[v_i0, v_i1, T.min(T.max(v_i2 - T.int64(1), T.int64(0)), T.int64(4)), T.min(T.max(v_i3 - T.int64(1), T.int64(0)), T.int64(3))], T.float32(0.0))
        for ax0, ax1, ax2, ax3, rv0, rv1 in T.grid(T.int64(2), T.int64(8), T.int64(3), T.int64(3), T.int64(3), T.int64(3)):
            with T.block("pool_sum"):
                v_ax0, v_ax1, v_ax2, v_ax3, v_rv0, v_rv1 = T.axis.remap("SSSSRR", [ax0, ax1, ax2, ax3, rv0, rv1])
                T.reads(pad_temp[v_ax0, v_ax1, v_ax2 * T.int64(2) + v_rv0 * T.int64(1), v_ax3 * T.int64(2) + v_rv1 * T.int64(1)])
                T.writes(pool_sum[v_ax0, v_ax1, v_ax2, v_ax3])
                with T.init():
                    pool_sum[v_ax0, v_ax1, v_ax2, v_ax3] = T.float32(0.0)
                pool_sum[v_ax0, v_ax1, v_ax2, v_ax3] = pool_sum[v_ax0, v_ax1, v_ax2, v_ax3] + pad_temp[v_ax0, v_ax1, v_ax2 * T.int64(2) + v_rv0 * T.int64(1), v_ax3 * T.int64(2) + v_rv1 * T.int64(1)]
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(2), T.int64(8), T.int64(3), T.int64(3)):
            with T.block("pool_avg"):
                v_ax0, v_ax1, v_ax2, v_ax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(pool_sum[v_ax0, v_ax1, v_ax2, v_ax3])
                T.writes(pool_avg[v_ax0, v_ax1, v_ax2, v_ax3])
                pool_avg[v_ax0, v_ax1, v_ax2, v_ax3] = pool_sum[v_ax0, v_ax1, v_ax2, v_ax3] / T.Cast("float32", ((T.min(v_ax2 * T.int64(2) - T.int64(1) + T.int64(3), T.int64(6)) - (v_ax2 * T.int64(2) - T.int64(1)) + T.int64(0)) // T.int64(1) - (T.max(v_ax2 * T.int64(2) - T.int64(1), T.int64(-1)) - (v_ax2 * T.int64(2) - T.int64(1)) + T.int64(0)) // T.int64(1)) * ((T.min(v_ax3 * T.int64(2) - T.int64(1) + T.int64(3), T.int64(5)) - (v_ax3 * T.int64(2) - T.int64(1)) + T.int64(0)) // T.int64(1) - (T.max(v_ax3 * T.int64(2) - T.int64(1), T.int64(-1)) - (v_ax3 * T.int64(2) - T.int64(1)) + T.int64(0)) // T.int64(1)))

    @T.prim_func(private=True)
    def conv2d(x: T.Buffer((T.int64(2), T.int64(3), T.int64(17), T.int64(15)), "float32"), B: T.Buffer((T.int64(8), T.int64(3), T.int64(3), T.int64(3)), "float32"), conv2d_nchw: T.Buffer((T.int64(2), T.int64(8), T.int64(17), T.int64(15)), "float32")):
        T.func_attr({"source_ops": "nn.conv2d", "tir.noalias": T.bool(True)})
        # with T.block("root"):
        pad_temp = T.alloc_buffer((T.int64(2), T.int64(3), T.int64(19), T.int64(17)))
        for i0, i1, i2, i3 in T.grid(T.int64(2), T.int64(3), T.int64(19), T.int64(17)):
            with T.block("pad_temp"):
                v_i0, v_i1, v_i2, v_i3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
                T.reads(x[v_i0, v_i1, T.min(T.max(v_i2 - T.int64(1), T.int64(0)), T.int64(16)), T.min(T.max(v_i3 - T.int64(1), T.int64(0)), T.int64(14))])
                T.writes(pad_temp[v_i0, v_i1, v_i2, v_i3])
                pad_temp[v_i0, v_i1, v_i2, v_i3] = T.Select(v_i2 - T.int64(1) >= T.int64(0) and v_i2 - T.int64(1) < T.int64(17) and (v_i3 - T.int64(1) >= T.int64(0) and v_i3 - T.int64(1) < T.int64(15)), x[v_i0, v_i1, T.min(T.max(v_i2 - T.int64(1), T.int64(0)), T.int64(16)), T.min(T.max(v_i3 - T.int64(1), T.int64(0)), T.int64(14))], T.float32(0.0))
        for nn, ff, yy, xx, rc, ry, rx in T.grid(T.int64(2), T.int64(8), T.int64(17), T.int64(15), T.int64(3), T.int64(3), T.int64(3)):
            with T.block("conv2d_nchw"):
                v_nn, v_ff, v_yy, v_xx, v_rc, v_ry, v_rx = T.axis.remap("SSSSRRR", [nn, ff, yy, xx, rc, ry, rx])
                T.reads(pad_temp[v_nn, v_rc, v_yy * T.int64(1) + v_ry * T.int64(1), v_xx * T.int64(1) + v_rx * T.int64(1)], B[v_ff, v_rc, v_ry, v_rx])
                T.writes(conv2d_nchw[v_nn, v_ff, v_yy, v_xx])
                with T.init():
                    conv2d_nchw[v_nn, v_ff, v_yy, v_xx] = T.float32(0.0)
                conv2d_nchw[v_nn, v_ff, v_yy, v_xx] = conv2d_nchw[v_nn, v_ff, v_yy, v_xx] + pad_temp[v_nn, v_rc, v_yy * T.int64(1) + v_ry * T.int64(1), v_xx * T.int64(1) + v_rx * T.int64(1)] * B[v_ff, v_rc, v_ry, v_rx]

    @T.prim_func(private=True)
    def conv2d1(lv5: T.Buffer((T.int64(2), T.int64(8), T.int64(9), T.int64(8)), "float32"), B: T.Buffer((T.int64(8), T.int64(2), T.int64(3), T.int64(3)), "float32"), conv2d_nchw: T.Buffer((T.int64(2), T.int64(8), T.int64(5), T.int64(4)), "float32")):
        T.func_attr({"source_ops": "nn.conv2d", "tir.noalias": T.bool(True)})
        # with T.block("root"):
        pad_temp = T.alloc_buffer((T.int64(2), T.int64(8), T.int64(13), T.int64(12)))
        for i0, i1, i2, i3 in T.grid(T.int64(2), T.int64(8), T.int64(13), T.int64(12)):
            with T.block("pad_temp"):
                v_i0, v_i1, v_i2, v_i3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
                T.reads(lv5[v_i0, v_i1, T.min(T.max(v_i2 - T.int64(2), T.int64(0)), T.int64(8)), T.min(T.max(v_i3 - T.int64(2), T.int64(0)), T.int64(7))])
                T.writes(pad_temp[v_i0, v_i1, v_i2, v_i3])
                pad_temp[v_i0, v_i1, v_i2, v_i3] = T.Select(v_i2 - T.int64(2) >= T.int64(0) and v_i2 - T.int64(2) < T.int64(9) and (v_i3 - T.int64(2) >= T.int64(0) and v_i3 - T.int64(2) < T.int64(8)), lv5[v_i0, v_i1, T.min(T.max(v_i2 - T.int64(2), T.int64(0)), T.int64(8)), T.min(T.max(v_i3 - T.int64(2), T.int64(0)), T.int64(7))], T.float32(0.0))
        for nn, ff, yy, xx, rc, ry, rx in T.grid(T.int64(2), T.int64(8), T.int64(5), T.int64(4), T.int64(2), T.int64(3), T.int64(3)):
            with T.block("conv2d_nchw"):
                v_nn, v_ff, v_yy, v_xx, v_rc, v_ry, v_rx = T.axis.remap("SSSSRRR", [nn, ff, yy, xx, rc, ry, rx])
                T.reads(pad_temp[v_nn, v_ff // T.int64(2) * T.int64(2) + v_rc, v_yy * T.int64(2) + v_ry * T.int64(2), v_xx * T.int64(2) + v_rx * T.int64(2)], B[v_ff, v_rc, v_ry, v_rx])
                T.writes(conv2d_nchw[v_nn, v_ff, v_yy, v_xx])
                with T.init():
                    conv2d_nchw[v_nn, v_ff, v_yy, v_xx] = T.float32(0.0)
                conv2d_nchw[v_nn, v_ff, v_yy, v_xx] = conv2d_nchw[v_nn, v_ff, v_yy, v_xx] + pad_temp[v_nn, v_ff // T.int64(2) * T.int64(2) + v_rc, v_yy * T.int64(2) + v_ry * T.int64(2), v_xx * T.int64(2) + v_rx * T.int64(2)] * B[v_ff, v_rc, v_ry, v_rx]

    @T.prim_func(private=True)
    def conv2d2(lv10: T.Buffer((T.int64(2), T.int64(8), T.int64(4), T.int64(6)), "float32"), B: T.Buffer((T.int64(16), T.int64(8), T.int64(1), T.int64(1)), "float32"), conv2d_nchw: T.Buffer((T.int64(2), T.int64(16), T.int64(4), T.int64(6)), "float32")):
        T.func_attr({"source_ops": "nn.conv2d", "tir.noalias": T.bool(True)})
        # with T.block("root"):
        for nn, ff, yy, xx, rc, ry, rx in T.grid(T.int64(2), T.int64(16), T.int64(4), T.int64(6), T.int64(8), T.int64(1), T.int64(1)):
            with T.block("conv2d_nchw"):
                v_nn, v_ff, v_yy, v_xx, v_rc, v_ry, v_rx = T.axis.remap("SSSSRRR", [nn, ff, yy, xx, rc, ry, rx])
                T.reads(lv10[v_nn, v_rc, v_yy * T.int64(1) + v_ry * T.int64(1), v_xx * T.int64(1) + v_rx * T.int64(1)], B[v_ff, v_rc, v_ry, v_rx])
                T.writes(conv2d_nchw[v_nn, v_ff, v_yy, v_xx])
                with T.init():
                    conv2d_nchw[v_nn, v_ff, v_yy, v_xx] = T.float32(0.0)
                conv2d_nchw[v_nn, v_ff, v_yy, v_xx] = conv2d_nchw[v_nn, v_ff, v_yy, v_xx] + lv10[v_nn, v_rc, v_yy * T.int64(1) + v_ry * T.int64(1), v_xx * T.int64(1) + v_rx * T.int64(1)] * B[v_ff, v_rc, v_ry, v_rx]

    @T.prim_func(private=True)
    def matmul(lv14: T.Buffer((T.int64(2), T.int64(16)), "float32"), lv15: T.Buffer((T.int64(16), T.int64(5)), "float32"), T_matmul: T.Buffer((T.int64(2), T.int64(5)), "float32")):
        T.func_attr({"source_ops": "matmul", "tir.noalias": T.bool(True)})
        # with T.block("root"):
        for i0, i1, k in T.grid(T.int64(2), T.int64(5), T.int64(16)):
            with T.block("T_matmul"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                T.reads(lv14[v_i0, v_k], lv15[v_k, v_i1])
                T.writes(T_matmul[v_i0, v_i1])
                with T.init():
                    T_matmul[v_i0, v_i1] = T.float32(0.0)
                T_matmul[v_i0, v_i1] = T_matmul[v_i0, v_i1] + lv14[v_i0, v_k] * lv15[v_k, v_i1]

    @T.prim_func(private=True)
    def max_pool2d(lv4: T.Buffer((T.int64(2), T.int64(8), T.int64(17), T.int64(15)), "float32"), pool_max: T.Buffer((T.int64(2), T.int64(8), T.int64(9), T.int64(8)), "float32")):
        T.func_attr({"source_ops": "nn.max_pool2d", "tir.noalias": T.bool(True)})
        # with T.block("root"):
        pad_temp = T.alloc_buffer((T.int64(2), T.int64(8), T.int64(19), T.int64(17)))
        for i0, i1, i2, i3 in T.grid(T.int64(2), T.int64(8), T.int64(19), T.int64(17)):
            with T.block("pad_temp"):
                v_i0, v_i1, v_i2, v_i3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
                T.reads(lv4[v_i0, v_i1, T.min(T.max(v_i2 - T.int64(1), T.int64(0)), T.int64(16)), T.min(T.max(v_i3 - T.int64(1), T.int64(0)), T.int64(14))])
                T.writes(pad_temp[v_i0, v_i1, v_i2, v_i3])
                pad_temp[v_i0, v_i1, v_i2, v_i3] = T.Select(v_i2 - T.int64(1) >= T.int64(0) and v_i2 - T.int64(1) < T.int64(17) and (v_i3 - T.int64(1) >= T.int64(0) and v_i3 - T.int64(1) < T.int64(15)), lv4[v_i0, v_i1, T.min(T.max(v_i2 - T.int64(1), T.int64(0)), T.int64(16)), T.min(T.max(v_i3 - T.int64(1), T.int64(0)), T.int64(14))], T.float32("-inf"))
        for ax0, ax1, ax2, ax3, rv0, rv1 in T.grid(T.int64(2), T.int64(8), T.int64(9), T.int64(8), T.int64(3), T.int64(3)):
            with T.block("pool_max"):
                v_ax0, v_ax1, v_ax2, v_ax3, v_rv0, v_rv1 = T.axis.remap("SSSSRR", [ax0, ax1, ax2, ax3, rv0, rv1])
                T.reads(pad_temp[v_ax0, v_ax1, v_ax2 * T.int64(2) + v_rv0 * T.int64(1), v_ax3 * T.int64(2) + v_rv1 * T.int64(1)])
                T.writes(pool_max[v_ax0, v_ax1, v_ax2, v_ax3])
                with T.init():
                    pool_max[v_ax0, v_ax1, v_ax2, v_ax3] = T.float32("-inf")
                pool_max[v_ax0, v_ax1, v_ax2, v_ax3] = T.max(pool_max[v_ax0, v_ax1, v_ax2, v_ax3], pad_temp[v_ax0, v_ax1, v_ax2 * T.int64(2) + v_rv0 * T.int64(1), v_ax3 * T.int64(2) + v_rv1 * T.int64(1)])

    @T.prim_func(private=True)
    def maximum(lv6: T.Buffer((T.int64(2), T.int64(8), T.int64(5), T.int64(4)), "float32"), B: T.Buffer((), "float32"), T_maximum: T.Buffer((T.int64(2), T.int64(8), T.int64(5), T.int64(4)), "float32")):
        T.func_attr({"source_ops": "maximum", "tir.noalias": T.bool(True)})
        # with T.block("root"):
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(2), T.int64(8), T.int64(5), T.int64(4)):
            with T.block("T_maximum"):
                v_ax0, v_ax1, v_ax2, v_ax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(lv6[v_ax0, v_ax1, v_ax2, v_ax3], B[()])
                T.writes(T_maximum[v_ax0, v_ax1, v_ax2, v_ax3])
                T_maximum[v_ax0, v_ax1, v_ax2, v_ax3] = T.max(lv6[v_ax0, v_ax1, v_ax2, v_ax3], B[()])

    @T.prim_func(private=True)
    def minimum(lv7: T.Buffer((T.int64(2), T.int64(8), T.int64(5), T.int64(4)), "float32"), B: T.Buffer((), "float32"), T_minimum: T.Buffer((T.int64(2), T.int64(8), T.int64(5), T.int64(4)), "float32")):
        T.func_attr({"source_ops": "minimum", "tir.noalias": T.bool(True)})
        # with T.block("root"):
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(2), T.int64(8), T.int64(5), T.int64(4)):
            with T.block("T_minimum"):
                v_ax0, v_ax1, v_ax2, v_ax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(lv7[v_ax0, v_ax1, v_ax2, v_ax3], B[()])
                T.writes(T_minimum[v_ax0, v_ax1, v_ax2, v_ax3])
                T_minimum[v_ax0, v_ax1, v_ax2, v_ax3] = T.min(lv7[v_ax0, v_ax1, v_ax2, v_ax3], B[()])

    @T.prim_func(private=True)
    def multiply(lv1: T.Buffer((T.int64(2), T.int64(8), T.int64(17), T.int64(15)), "float32"), B: T.Buffer((T.int64(8), T.int64(1), T.int64(1)), "float32"), T_multiply: T.Buffer((T.int64(2), T.int64(8), T.int64(17), T.int64(15)), "float32")):
        T.func_attr({"source_ops": "multiply", "tir.noalias": T.bool(True)})
        # with T.block("root"):
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(2), T.int64(8), T.int64(17), T.int64(15)):
            with T.block("T_multiply"):
                v_ax0, v_ax1, v_ax2, v_ax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(lv1[v_ax0, v_ax1, v_ax2, v_ax3], B[v_ax1, T.int64(0), T.int64(0)])
                T.writes(T_multiply[v_ax0, v_ax1, v_ax2, v_ax3])
                T_multiply[v_ax0, v_ax1, v_ax2, v_ax3] = lv1[v_ax0, v_ax1, v_ax2, v_ax3] * B[v_ax1, T.int64(0), T.int64(0)]

    @T.prim_func(private=True)
    def pad(lv9: T.Buffer((T.int64(2), T.int64(8), T.int64(3), T.int64(3)), "float32"), pad_temp: T.Buffer((T.int64(2), T.int64(8), T.int64(4), T.int64(6)), "float32")):
        T.func_attr({"source_ops": "nn.pad", "tir.noalias": T.bool(True)})
        # with T.block("root"):
        for i0, i1, i2, i3 in T.grid(T.int64(2), T.int64(8), T.int64(4), T.int64(6)):
            with T.block("pad_temp"):
                v_i0, v_i1, v_i2, v_i3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
                T.reads(lv9[v_i0, v_i1, T.min(T.max(v_i2 - T.int64(0), T.int64(0)), T.int64(2)), T.min(T.max(v_i3 - T.int64(1), T.int64(0)), T.int64(2))])
                T.writes(pad_temp[v_i0, v_i1, v_i2, v_i3])
                pad_temp[v_i0, v_i1, v_i2, v_i3] = T.Select(v_i2 - T.int64(0) >= T.int64(0) and v_i2 - T.int64(0) < T.int64(3) and (v_i3 - T.int64(1) >= T.int64(0) and v_i3 - T.int64(1) < T.int64(3)), lv9[v_i0, v_i1, T.min(T.max(v_i2 - T.int64(0), T.int64(0)), T.int64(2)), T.min(T.max(v_i3 - T.int64(1), T.int64(0)), T.int64(2))], T.float32(0.25))

    @T.prim_func(private=True)
    def relu(lv3: T.Buffer((T.int64(2), T.int64(8), T.int64(17), T.int64(15)), "float32"), compute: T.Buffer((T.int64(2), T.int64(8), T.int64(17), T.int64(15)), "float32")):
        T.func_attr({"source_ops": "nn.relu", "tir.noalias": T.bool(True)})
        # with T.block("root"):
        for i0, i1, i2, i3 in T.grid(T.int64(2), T.int64(8), T.int64(17), T.int64(15)):
            with T.block("compute"):
                v_i0, v_i1, v_i2, v_i3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
                T.reads(lv3[v_i0, v_i1, v_i2, v_i3])
                T.writes(compute[v_i0, v_i1, v_i2, v_i3])
                compute[v_i0, v_i1, v_i2, v_i3] = T.max(lv3[v_i0, v_i1, v_i2, v_i3], T.float32(0.0))

    @T.prim_func(private=True)
    def reshape(lv13: T.Buffer((T.int64(2), T.int64(16), T.int64(1), T.int64(1)), "float32"), T_reshape: T.Buffer((T.int64(2), T.int64(16)), "float32")):
        T.func_attr({"source_ops": "reshape", "tir.noalias": T.bool(True)})
        # with T.block("root"):
        for ax0, ax1 in T.grid(T.int64(2), T.int64(16)):
            with T.block("T_reshape"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(lv13[((T.int64(0) * T.int64(2) + v_ax0) * T.int64(16) + v_ax1) // T.int64(1) // T.int64(1) // T.int64(16), ((T.int64(0) * T.int64(2) + v_ax0) * T.int64(16) + v_ax1) // T.int64(1) // T.int64(1) % T.int64(16), ((T.int64(0) * T.int64(2) + v_ax0) * T.int64(16) + v_ax1) // T.int64(1) % T.int64(1), ((T.int64(0) * T.int64(2) + v_ax0) * T.int64(16) + v_ax1) % T.int64(1)])
                T.writes(T_reshape[v_ax0, v_ax1])
                T_reshape[v_ax0, v_ax1] = lv13[((T.int64(0) * T.int64(2) + v_ax0) * T.int64(16) + v_ax1) // T.int64(1) // T.int64(1) // T.int64(16), ((T.int64(0) * T.int64(2) + v_ax0) * T.int64(16) + v_ax1) // T.int64(1) // T.int64(1) % T.int64(16), ((T.int64(0) * T.int64(2) + v_ax0) * T.int64(16) + v_ax1) // T.int64(1) % T.int64(1), ((T.int64(0) * T.int64(2) + v_ax0) * T.int64(16) + v_ax1) % T.int64(1)]

    @T.prim_func(private=True)
    def transpose(A: T.Buffer((T.int64(5), T.int64(16)), "float32"), T_transpose: T.Buffer((T.int64(16), T.int64(5)), "float32")):
        T.func_attr({"source_ops": "permute_dims", "tir.noalias": T.bool(True)})
        # with T.block("root"):
        for ax0, ax1 in T.grid(T.int64(16), T.int64(5)):
            with T.block("T_transpose"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(A[v_ax1, v_ax0])
                T.writes(T_transpose[v_ax0, v_ax1])
                T_transpose[v_ax0, v_ax1] = A[v_ax1, v_ax0]

    @R.function
    def main(x: R.Tensor((2, 3, 17, 15), dtype="float32")) -> R.Tensor((2, 5), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.conv2d, (x, metadata["relax.expr.Constant"][0]), out_sinfo=R.Tensor((2, 8, 17, 15), dtype="float32"))
            lv1 = R.call_tir(cls.add, (lv, metadata["relax.expr.Constant"][1]), out_sinfo=R.Tensor((2, 8, 17, 15), dtype="float32"))
            lv2 = R.call_tir(cls.multiply, (lv1, metadata["relax.expr.Constant"][2]), out_sinfo=R.Tensor((2, 8, 17, 15), dtype="float32"))
            lv3 = R.call_tir(cls.add, (lv2, metadata["relax.expr.Constant"][3]), out_sinfo=R.Tensor((2, 8, 17, 15), dtype="float32"))
            lv4 = R.call_tir(cls.relu, (lv3,), out_sinfo=R.Tensor((2, 8, 17, 15), dtype="float32"))
            lv5 = R.call_tir(cls.max_pool2d, (lv4,), out_sinfo=R.Tensor((2, 8, 9, 8), dtype="float32"))
            lv6 = R.call_tir(cls.conv2d1, (lv5, metadata["relax.expr.Constant"][4]), out_sinfo=R.Tensor((2, 8, 5, 4), dtype="float32"))
            lv7 = R.call_tir(cls.maximum, (lv6, metadata["relax.expr.Constant"][5]), out_sinfo=R.Tensor((2, 8, 5, 4), dtype="float32"))
            lv8 = R.call_tir(cls.minimum, (lv7, metadata["relax.expr.Constant"][6]), out_sinfo=R.Tensor((2, 8, 5, 4), dtype="float32"))
            lv9 = R.call_tir(cls.avg_pool2d, (lv8,), out_sinfo=R.Tensor((2, 8, 3, 3), dtype="float32"))
            lv10 = R.call_tir(cls.pad, (lv9,), out_sinfo=R.Tensor((2, 8, 4, 6), dtype="float32"))
            lv11 = R.call_tir(cls.conv2d2, (lv10, metadata["relax.expr.Constant"][7]), out_sinfo=R.Tensor((2, 16, 4, 6), dtype="float32"))
            lv12 = R.call_tir(cls.add1, (lv11, metadata["relax.expr.Constant"][8]), out_sinfo=R.Tensor((2, 16, 4, 6), dtype="float32"))
            lv13 = R.call_tir(cls.adaptive_avg_pool2d, (lv12,), out_sinfo=R.Tensor((2, 16, 1, 1), dtype="float32"))
            lv14 = R.call_tir(cls.reshape, (lv13,), out_sinfo=R.Tensor((2, 16), dtype="float32"))
            lv15 = R.call_tir(cls.transpose, (metadata["relax.expr.Constant"][9],), out_sinfo=R.Tensor((16, 5), dtype="float32"))
            lv16 = R.call_tir(cls.matmul, (lv14, lv15), out_sinfo=R.Tensor((2, 5), dtype="float32"))
            lv17 = R.call_tir(cls.add2, (lv16, metadata["relax.expr.Constant"][10]), out_sinfo=R.Tensor((2, 5), dtype="float32"))
            gv: R.Tensor((2, 5), dtype="float32") = lv17
            R.output(gv)
        return gv

# Metadata omitted. Use show_meta=True in script() method to show it.
