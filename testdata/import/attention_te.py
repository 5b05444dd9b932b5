# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def add(lv2: T.Buffer((T.int64(2), T.int64(10), T.int64(32)), "float32"), B: T.Buffer((T.int64(32),), "float32"), T_add: T.Buffer((T.int64(2), T.int64(10), T.int64(32)), "float32")):
        T.func_attr({"source_ops": "add", "tir.noalias": T.bool(True)})
        # with T.block("root"):
        for ax0, ax1, ax2 in T.grid(T.int64(2), T.int64(10), T.int64(32)):
            with T.block("T_add"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(lv2[v_ax0, v_ax1, v_ax2], B[v_ax2])
                T.writes(T_add[v_ax0, v_ax1, v_ax2])
                T_add[v_ax0, v_ax1, v_ax2] = lv2[v_ax0, v_ax1, v_ax2] + B[v_ax2]

    @T.prim_func(private=True)
    def add1(x: T.Buffer((T.int64(2), T.int64(10), T.int64(32)), "float32"), lv24: T.Buffer((T.int64(2), T.int64(10), T.int64(32)), "float32"), T_add: T.Buffer((T.int64(2), T.int64(10), T.int64(32)), "float32")):
        T.func_attr({"source_ops": "add", "tir.noalias": T.bool(True)})
        # with T.block("root"):
        for ax0, ax1, ax2 in T.grid(T.int64(2), T.int64(10), T.int64(32)):
            with T.block("T_add"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(x[v_ax0, v_ax1, v_ax2], lv24[v_ax0, v_ax1, v_ax2])
                T.writes(T_add[v_ax0, v_ax1, v_ax2])
                T_add[v_ax0, v_ax1, v_ax2] = x[v_ax0, v_ax1, v_ax2] + lv24[v_ax0, v_ax1, v_ax2]

    @T.prim_func(private=True)
    def add2(lv28: T.Buffer((T.int64(2), T.int64(10), T.int64(64)), "float32"), B: T.Buffer((T.int64(64),), "float32"), T_add: T.Buffer((T.int64(2), T.int64(10), T.int64(64)), "float32")):
        T.func_attr({"source_ops": "add", "tir.noalias": T.bool(True)})
        # with T.block("root"):
        for ax0, ax1, ax2 in T.grid(T.int64(2), T.int64(10), T.int64(64)):
            with T.block("T_add"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(lv28[v_ax0, v_ax1, v_ax2], B[v_ax2])
                T.writes(T_add[v_ax0, v_ax1, v_ax2])
                T_add[v_ax0, v_ax1, v_ax2] = lv28[v_ax0, v_ax1, v_ax2] + B[v_ax2]

    @T.prim_func(private=True)
    def add3(lv31: T.Buffer((T.int64(2), T.int64(10), T.int64(64)), "float32"), B: T.Buffer((), "float32"), T_add: T.Buffer((T.int64(2), T.int64(10), T.int64(64)), "float32")):
        T.func_attr({"source_ops": "add", "tir.noalias": T.bool(True)})
        # with T.block("root"):
        for ax0, ax1, ax2 in T.grid(T.int64(2), T.int64(10), T.int64(64)):
            with T.block("T_add"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(lv31[v_ax0, v_ax1, v_ax2], B[()])
                T.writes(T_add[v_ax0, v_ax1, v_ax2])
                T_add[v_ax0, v_ax1, v_ax2] = lv31[v_ax0, v_ax1, v_ax2] + B[()]

    @T.prim_func(private=True)
    def erf(lv30: T.Buffer((T.int64(2), T.int64(10), T.int64(64)), "float32"), compute: T.Buffer((T.int64(2), T.int64(10), T.int64(64)), "float32")):
        T.func_attr({"source_ops": "erf", "tir.noalias": T.bool(True)})
        # with T.block("root"):
        for i0, i1, i2 in T.grid(T.int64(2), T.int64(10), T.int64(64)):
            with T.block("compute"):
                v_i0, v_i1, v_i2 = T.axis.remap("SSS", [i0, i1, i2])
                T.reads(lv30[v_i0, v_i1, v_i2])
                T.writes(compute[v_i0, v_i1, v_i2])
                compute[v_i0, v_i1, v_i2] = T.erf(lv30[v_i0, v_i1, v_i2])

    @T.prim_func(private=True)
    def layer_norm(x: T.Buffer((T.int64(2), T.int64(10), T.int64(32)), "float32"), B: T.Buffer((T.int64(32),), "float32"), C: T.Buffer((T.int64(32),), "float32"), T_layer_norm: T.Buffer((T.int64(2), T.int64(10), T.int64(32)), "float32")):
        T.func_attr({"source_ops": "nn.layer_norm", "tir.noalias": T.bool(True)})
        # with T.block("root"):
        T_layer_norm_sum = T.alloc_buffer((T.int64(2), T.int64(10)))
        T_layer_norm_sqsum = T.alloc_buffer((T.int64(2), T.int64(10)))
        for i0, i1, k2 in T.grid(T.int64(2), T.int64(10), T.int64(32)):
            with T.block("T_layer_norm_sum"):
                v_i0, v_i1, v_k2 = T.axis.remap("SSR", [i0, i1, k2])
                T.reads(x[v_i0, v_i1, v_k2])
                T.writes(T_layer_norm_sum[v_i0, v_i1])
                with T.init():
                    T_layer_norm_sum[v_i0, v_i1] = T.float32(0.0)
                T_layer_norm_sum[v_i0, v_i1] = T_layer_norm_sum[v_i0, v_i1] + x[v_i0, v_i1, v_k2]
        for i0, i1, k2 in T.grid(T.int64(2), T.int64(10), T.int64(32)):
            with T.block("T_layer_norm_sqsum"):
                v_i0, v_i1, v_k2 = T.axis.remap("SSR", [i0, i1, k2])
                T.reads(x[v_i0, v_i1, v_k2], T_layer_norm_sum[v_i0, v_i1])
                T.writes(T_layer_norm_sqsum[v_i0, v_i1])
                with T.init():
                    T_layer_norm_sqsum[v_i0, v_i1] = T.float32(0.0)
                T_layer_norm_sqsum[v_i0, v_i1] = T_layer_norm_sqsum[v_i0, v_i1] + (x[v_i0, v_i1, v_k2] - T_layer_norm_sum[v_i0, v_i1] / T.float32(32.0)) * (x[v_i0, v_i1, v_k2] - T_layer_norm_sum[v_i0, v_i1] / T.float32(32.0))
        for i0, i1, i2 in T.grid(T.int64(2), T.int64(10), T.int64(32)):
            with T.block("T_layer_norm"):
                v_i0, v_i1, v_i2 = T.axis.remap("SSS", [i0, i1, i2])
                T.reads(x[v_i0, v_i1, v_i2], T_layer_norm_sum[v_i0, v_i1], T_layer_norm_sqsum[v_i0, v_i1], B[v_i2], C[v_i2])
                T.writes(T_layer_norm[v_i0, v_i1, v_i2])
                T_layer_norm[v_i0, v_i1, v_i2] = (x[v_i0, v_i1, v_i2] - T_layer_norm_sum[v_i0, v_i1] / T.float32(32.0)) * (T.float32(1.0) / T.sqrt(T_layer_norm_sqsum[v_i0, v_i1] / T.float32(32.0) + T.float32(1e-05))) * B[v_i2] + C[v_i2]

    @T.prim_func(private=True)
    def matmul(lv: T.Buffer((T.int64(2), T.int64(10), T.int64(32)), "float32"), lv1: T.Buffer((T.int64(32), T.int64(32)), "float32"), T_matmul: T.Buffer((T.int64(2), T.int64(10), T.int64(32)), "float32")):
        T.func_attr({"source_ops": "matmul", "tir.noalias": T.bool(True)})
        # with T.block("root"):
        for i0, i1, i2, k in T.grid(T.int64(2), T.int64(10), T.int64(32), T.int64(32)):
            with T.block("T_matmul"):
                v_i0, v_i1, v_i2, v_k = T.axis.remap("SSSR", [i0, i1, i2, k])
                T.reads(lv[v_i0, v_i1, v_k], lv1[v_k, v_i2])
                T.writes(T_matmul[v_i0, v_i1, v_i2])
                with T.init():
                    T_matmul[v_i0, v_i1, v_i2] = T.float32(0.0)
                T_matmul[v_i0, v_i1, v_i2] = T_matmul[v_i0, v_i1, v_i2] + lv[v_i0, v_i1, v_k] * lv1[v_k, v_i2]

    @T.prim_func(private=True)
    def matmul1(lv5: T.Buffer((T.int64(2), T.int64(4), T.int64(10), T.int64(8)), "float32"), lv10: T.Buffer((T.int64(2), T.int64(4), T.int64(8), T.int64(10)), "float32"), T_matmul: T.Buffer((T.int64(2), T.int64(4), T.int64(10), T.int64(10)), "float32")):
        T.func_attr({"source_ops": "matmul", "tir.noalias": T.bool(True)})
        # with T.block("root"):
        for i0, i1, i2, i3, k in T.grid(T.int64(2), T.int64(4), T.int64(10), T.int64(10), T.int64(8)):
            with T.block("T_matmul"):
                v_i0, v_i1, v_i2, v_i3, v_k = T.axis.remap("SSSSR", [i0, i1, i2, i3, k])
                T.reads(lv5[v_i0, v_i1, v_i2, v_k], lv10[v_i0, v_i1, v_k, v_i3])
                T.writes(T_matmul[v_i0, v_i1, v_i2, v_i3])
                with T.init():
                    T_matmul[v_i0, v_i1, v_i2, v_i3] = T.float32(0.0)
                T_matmul[v_i0, v_i1, v_i2, v_i3] = T_matmul[v_i0, v_i1, v_i2, v_i3] + lv5[v_i0, v_i1, v_i2, v_k] * lv10[v_i0, v_i1, v_k, v_i3]

    @T.prim_func(private=True)
    def matmul2(lv18: T.Buffer((T.int64(2), T.int64(4), T.int64(10), T.int64(10)), "float32"), lv15: T.Buffer((T.int64(2), T.int64(4), T.int64(10), T.int64(8)), "float32"), T_matmul: T.Buffer((T.int64(2), T.int64(4), T.int64(10), T.int64(8)), "float32")):
        T.func_attr({"source_ops": "matmul", "tir.noalias": T.bool(True)})
        # with T.block("root"):
        for i0, i1, i2, i3, k in T.grid(T.int64(2), T.int64(4), T.int64(10), T.int64(8), T.int64(10)):
            with T.block("T_matmul"):
                v_i0, v_i1, v_i2, v_i3, v_k = T.axis.remap("SSSSR", [i0, i1, i2, i3, k])
                T.reads(lv18[v_i0, v_i1, v_i2, v_k], lv15[v_i0, v_i1, v_k, v_i3])
                T.writes(T_matmul[v_i0, v_i1, v_i2, v_i3])
                with T.init():
                    T_matmul[v_i0, v_i1, v_i2, v_i3] = T.float32(0.0)
                T_matmul[v_i0, v_i1, v_i2, v_i3] = T_matmul[v_i0, v_i1, v_i2, v_i3] + lv18[v_i0, v_i1, v_i2, v_k] * lv15[v_i0, v_i1, v_k, v_i3]

    @T.prim_func(private=True)
    def matmul3(lv26: T.Buffer((T.int64(2), T.int64(10), T.int64(32)), "float32"), lv27: T.Buffer((T.int64(32), T.int64(64)), "float32"), T_matmul: T.Buffer((T.int64(2), T.int64(10), T.int64(64)), "float32")):
        T.func_attr({"source_ops": "matmul", "tir.noalias": T.bool(True)})
        # with T.block("root"):
        for i0, i1, i2, k in T.grid(T.int64(2), T.int64(10), T.int64(64), T.int64(32)):
            with T.block("T_matmul"):
                v_i0, v_i1, v_i2, v_k = T.axis.remap("SSSR", [i0, i1, i2, k])
                T.reads(lv26[v_i0, v_i1, v_k], lv27[v_k, v_i2])
                T.writes(T_matmul[v_i0, v_i1, v_i2])
                with T.init():
                    T_matmul[v_i0, v_i1, v_i2] = T.float32(0.0)
                T_matmul[v_i0, v_i1, v_i2] = T_matmul[v_i0, v_i1, v_i2] + lv26[v_i0, v_i1, v_k] * lv27[v_k, v_i2]

    @T.prim_func(private=True)
    def matmul4(lv34: T.Buffer((T.int64(2), T.int64(10), T.int64(64)), "float32"), lv35: T.Buffer((T.int64(64), T.int64(32)), "float32"), T_matmul: T.Buffer((T.int64(2), T.int64(10), T.int64(32)), "float32")):
        T.func_attr({"source_ops": "matmul", "tir.noalias": T.bool(True)})
        # with T.block("root"):
        for i0, i1, i2, k in T.grid(T.int64(2), T.int64(10), T.int64(32), T.int64(64)):
            with T.block("T_matmul"):
                v_i0, v_i1, v_i2, v_k = T.axis.remap("SSSR", [i0, i1, i2, k])
                T.reads(lv34[v_i0, v_i1, v_k], lv35[v_k, v_i2])
                T.writes(T_matmul[v_i0, v_i1, v_i2])
                with T.init():
                    T_matmul[v_i0, v_i1, v_i2] = T.float32(0.0)
                T_matmul[v_i0, v_i1, v_i2] = T_matmul[v_i0, v_i1, v_i2] + lv34[v_i0, v_i1, v_k] * lv35[v_k, v_i2]

    @T.prim_func(private=True)
    def mean(lv38: T.Buffer((T.int64(2), T.int64(10), T.int64(32)), "float32"), T_divide: T.Buffer((T.int64(2), T.int64(32)), "float32")):
        T.func_attr({"source_ops": "mean", "tir.noalias": T.bool(True)})
        # with T.block("root"):
        X_red_sum = T.alloc_buffer((T.int64(2), T.int64(32)))
        for i0, i1, k1 in T.grid(T.int64(2), T.int64(32), T.int64(10)):
            with T.block("X_red_sum"):
                v_i0, v_i1, v_k1 = T.axis.remap("SSR", [i0, i1, k1])
                T.reads(lv38[v_i0, v_k1, v_i1])
                T.writes(X_red_sum[v_i0, v_i1])
                with T.init():
                    X_red_sum[v_i0, v_i1] = T.float32(0.0)
                X_red_sum[v_i0, v_i1] = X_red_sum[v_i0, v_i1] + lv38[v_i0, v_k1, v_i1]
        for i0, i1 in T.grid(T.int64(2), T.int64(32)):
            with T.block("T_divide"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(X_red_sum[v_i0, v_i1])
                T.writes(T_divide[v_i0, v_i1])
                T_divide[v_i0, v_i1] = X_red_sum[v_i0, v_i1] / T.float32(10.0)

    @T.prim_func(private=True)
    def multiply(lv16: T.Buffer((T.int64(2), T.int64(4), T.int64(10), T.int64(10)), "float32"), B: T.Buffer((), "float32"), T_multiply: T.Buffer((T.int64(2), T.int64(4), T.int64(10), T.int64(10)), "float32")):
        T.func_attr({"source_ops": "multiply", "tir.noalias": T.bool(True)})
        # with T.block("root"):
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(2), T.int64(4), T.int64(10), T.int64(10)):
            with T.block("T_multiply"):
                v_ax0, v_ax1, v_ax2, v_ax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(lv16[v_ax0, v_ax1, v_ax2, v_ax3], B[()])
                T.writes(T_multiply[v_ax0, v_ax1, v_ax2, v_ax3])
                T_multiply[v_ax0, v_ax1, v_ax2, v_ax3] = lv16[v_ax0, v_ax1, v_ax2, v_ax3] * B[()]

    @T.prim_func(private=True)
    def multiply1(lv29: T.Buffer((T.int64(2), T.int64(10), T.int64(64)), "float32"), B: T.Buffer((), "float32"), T_multiply: T.Buffer((T.int64(2), T.int64(10), T.int64(64)), "float32")):
        T.func_attr({"source_ops": "multiply", "tir.noalias": T.bool(True)})
        # with T.block("root"):
        for ax0, ax1, ax2 in T.grid(T.int64(2), T.int64(10), T.int64(64)):
            with T.block("T_multiply"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(lv29[v_ax0, v_ax1, v_ax2], B[()])
                T.writes(T_multiply[v_ax0, v_ax1, v_ax2])
                T_multiply[v_ax0, v_ax1, v_ax2] = lv29[v_ax0, v_ax1, v_ax2] * B[()]

    @T.prim_func(private=True)
    def multiply2(lv29: T.Buffer((T.int64(2), T.int64(10), T.int64(64)), "float32"), lv33: T.Buffer((T.int64(2), T.int64(10), T.int64(64)), "float32"), T_multiply: T.Buffer((T.int64(2), T.int64(10), T.int64(64)), "float32")):
        T.func_attr({"source_ops": "multiply", "tir.noalias": T.bool(True)})
        # with T.block("root"):
        for ax0, ax1, ax2 in T.grid(T.int64(2), T.int64(10), T.int64(64)):
            with T.block("T_multiply"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(lv29[v_ax0, v_ax1, v_ax2], lv33[v_ax0, v_ax1, v_ax2])
                T.writes(T_multiply[v_ax0, v_ax1, v_ax2])
                T_multiply[v_ax0, v_ax1, v_ax2] = lv29[v_ax0, v_ax1, v_ax2] * lv33[v_ax0, v_ax1, v_ax2]

    @T.prim_func(private=True)
    def reshape(lv3: T.Buffer((T.int64(2), T.int64(10), T.int64(32)), "float32"), T_reshape: T.Buffer((T.int64(2), T.int64(10), T.int64(4), T.int64(8)), "float32")):
        T.func_attr({"source_ops": "reshape", "tir.noalias": T.bool(True)})
        # with T.block("root"):
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(2), T.int64(10), T.int64(4), T.int64(8)):
            with T.block("T_reshape"):
                v_ax0, v_ax1, v_ax2, v_ax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(lv3[((((T.int64(0) * T.int64(2) + v_ax0) * T.int64(10) + v_ax1) * T.int64(4) + v_ax2) * T.int64(8) + v_ax3) // T.int64(32) // T.int64(10), ((((T.int64(0) * T.int64(2) + v_ax0) * T.int64(10) + v_ax1) * T.int64(4) + v_ax2) * T.int64(8) + v_ax3) // T.int64(32) % T.int64(10), ((((T.int64(0) * T.int64(2) + v_ax0) * T.int64(10) + v_ax1) * T.int64(4) + v_ax2) * T.int64(8) + v_ax3) % T.int64(32)])
                T.writes(T_reshape[v_ax0, v_ax1, v_ax2, v_ax3])
                T_reshape[v_ax0, v_ax1, v_ax2, v_ax3] = lv3[((((T.int64(0) * T.int64(2) + v_ax0) * T.int64(10) + v_ax1) * T.int64(4) + v_ax2) * T.int64(8) + v_ax3) // T.int64(32) // T.int64(10), ((((T.int64(0) * T.int64(2) + v_ax0) * T.int64(10) + v_ax1) * T.int64(4) + v_ax2) * T.int64(8) + v_ax3) // T.int64(32) % T.int64(10), ((((T.int64(0) * T.int64(2) + v_ax0) * T.int64(10) + v_ax1) * T.int64(4) + v_ax2) * T.int64(8) + v_ax3) % T.int64(32)]

    @T.prim_func(private=True)
    def reshape1(lv20: T.Buffer((T.int64(2), T.int64(10), T.int64(4), T.int64(8)), "float32"), T_reshape: T.Buffer((T.int64(2), T.int64(10), T.int64(32)), "float32")):
        T.func_attr({"source_ops": "reshape", "tir.noalias": T.bool(True)})
        # with T.block("root"):
        for ax0, ax1, ax2 in T.grid(T.int64(2), T.int64(10), T.int64(32)):
            with T.block("T_reshape"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(lv20[(((T.int64(0) * T.int64(2) + v_ax0) * T.int64(10) + v_ax1) * T.int64(32) + v_ax2) // T.int64(8) // T.int64(4) // T.int64(10), (((T.int64(0) * T.int64(2) + v_ax0) * T.int64(10) + v_ax1) * T.int64(32) + v_ax2) // T.int64(8) // T.int64(4) % T.int64(10), (((T.int64(0) * T.int64(2) + v_ax0) * T.int64(10) + v_ax1) * T.int64(32) + v_ax2) // T.int64(8) % T.int64(4), (((T.int64(0) * T.int64(2) + v_ax0) * T.int64(10) + v_ax1) * T.int64(32) + v_ax2) % T.int64(8)])
                T.writes(T_reshape[v_ax0, v_ax1, v_ax2])
                T_reshape[v_ax0, v_ax1, v_ax2] = lv20[(((T.int64(0) * T.int64(2) + v_ax0) * T.int64(10) + v_ax1) * T.int64(32) + v_ax2) // T.int64(8) // T.int64(4) // T.int64(10), (((T.int64(0) * T.int64(2) + v_ax0) * T.int64(10) + v_ax1) * T.int64(32) + v_ax2) // T.int64(8) // T.int64(4) % T.int64(10), (((T.int64(0) * T.int64(2) + v_ax0) * T.int64(10) + v_ax1) * T.int64(32) + v_ax2) // T.int64(8) % T.int64(4), (((T.int64(0) * T.int64(2) + v_ax0) * T.int64(10) + v_ax1) * T.int64(32) + v_ax2) % T.int64(8)]

    @T.prim_func(private=True)
    def softmax(lv17: T.Buffer((T.int64(2), T.int64(4), T.int64(10), T.int64(10)), "float32"), T_softmax_norm: T.Buffer((T.int64(2), T.int64(4), T.int64(10), T.int64(10)), "float32")):
        T.func_attr({"source_ops": "nn.softmax", "tir.noalias": T.bool(True)})
        # with T.block("root"):
        T_softmax_maxelem = T.alloc_buffer((T.int64(2), T.int64(4), T.int64(10)))
        T_softmax_exp = T.alloc_buffer((T.int64(2), T.int64(4), T.int64(10), T.int64(10)))
        T_softmax_expsum = T.alloc_buffer((T.int64(2), T.int64(4), T.int64(10)))
        for i0, i1, i2, k in T.grid(T.int64(2), T.int64(4), T.int64(10), T.int64(10)):
            with T.block("T_softmax_maxelem"):
                v_i0, v_i1, v_i2, v_k = T.axis.remap("SSSR", [i0, i1, i2, k])
                T.reads(lv17[v_i0, v_i1, v_i2, v_k])
                T.writes(T_softmax_maxelem[v_i0, v_i1, v_i2])
                with T.init():
                    T_softmax_maxelem[v_i0, v_i1, v_i2] = T.float32("-inf")
                T_softmax_maxelem[v_i0, v_i1, v_i2] = T.max(T_softmax_maxelem[v_i0, v_i1, v_i2], lv17[v_i0, v_i1, v_i2, v_k])
        for i0, i1, i2, i3 in T.grid(T.int64(2), T.int64(4), T.int64(10), T.int64(10)):
            with T.block("T_softmax_exp"):
                v_i0, v_i1, v_i2, v_i3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
                T.reads(lv17[v_i0, v_i1, v_i2, v_i3], T_softmax_maxelem[v_i0, v_i1, v_i2])
                T.writes(T_softmax_exp[v_i0, v_i1, v_i2, v_i3])
                T_softmax_exp[v_i0, v_i1, v_i2, v_i3] = T.exp(lv17[v_i0, v_i1, v_i2, v_i3] - T_softmax_maxelem[v_i0, v_i1, v_i2])
        for i0, i1, i2, k in T.grid(T.int64(2), T.int64(4), T.int64(10), T.int64(10)):
            with T.block("T_softmax_expsum"):
                v_i0, v_i1, v_i2, v_k = T.axis.remap("SSSR", [i0, i1, i2, k])
                T.reads(T_softmax_exp[v_i0, v_i1, v_i2, v_k])
                T.writes(T_softmax_expsum[v_i0, v_i1, v_i2])
                with T.init():
                    T_softmax_expsum[v_i0, v_i1, v_i2] = T.float32(0.0)
                T_softmax_expsum[v_i0, v_i1, v_i2] = T_softmax_expsum[v_i0, v_i1, v_i2] + T_softmax_exp[v_i0, v_i1, v_i2, v_k]
        for i0, i1, i2, i3 in T.grid(T.int64(2), T.int64(4), T.int64(10), T.int64(10)):
            with T.block("T_softmax_norm"):
                v_i0, v_i1, v_i2, v_i3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
                T.reads(T_softmax_exp[v_i0, v_i1, v_i2, v_i3], T_softmax_expsum[v_i0, v_i1, v_i2])
                T.writes(T_softmax_norm[v_i0, v_i1, v_i2, v_i3])
                T_softmax_norm[v_i0, v_i1, v_i2, v_i3] = T_softmax_exp[v_i0, v_i1, v_i2, v_i3] / T_softmax_expsum[v_i0, v_i1, v_i2]

    @T.prim_func(private=True)
    def transpose(A: T.Buffer((T.int64(32), T.int64(32)), "float32"), T_transpose: T.Buffer((T.int64(32), T.int64(32)), "float32")):
        T.func_attr({"source_ops": "permute_dims", "tir.noalias": T.bool(True)})
        # with T.block("root"):
        for ax0, ax1 in T.grid(T.int64(32), T.int64(32)):
            with T.block("T_transpose"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(A[v_ax1, v_ax0])
                T.writes(T_transpose[v_ax0, v_ax1])
                T_transpose[v_ax0, v_ax1] = A[v_ax1, v_ax0]

    @T.prim_func(private=True)
    def transpose1(lv4: T.Buffer((T.int64(2), T.int64(10), T.int64(4), T.int64(8)), "float32"), T_transpose: T.Buffer((T.int64(2), T.int64(4), T.int64(10), T.int64(8)), "float32")):
        T.func_attr({"source_ops": "permute_dims", "tir.noalias": T.bool(True)})
        # with T.block("root"):
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(2), T.int64(4), T.int64(10), T.int64(8)):
            with T.block("T_transpose"):
                v_ax0, v_ax1, v_ax2, v_ax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(lv4[v_ax0, v_ax2, v_ax1, v_ax3])
                T.writes(T_transpose[v_ax0, v_ax1, v_ax2, v_ax3])
                T_transpose[v_ax0, v_ax1, v_ax2, v_ax3] = lv4[v_ax0, v_ax2, v_ax1, v_ax3]

    @T.prim_func(private=True)
    def transpose2(lv9: T.Buffer((T.int64(2), T.int64(10), T.int64(4), T.int64(8)), "float32"), T_transpose: T.Buffer((T.int64(2), T.int64(4), T.int64(8), T.int64(10)), "float32")):
        T.func_attr({"source_ops": "permute_dims", "tir.noalias": T.bool(True)})
        # with T.block("root"):
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(2), T.int64(4), T.int64(8), T.int64(10)):
            with T.block("T_transpose"):
                v_ax0, v_ax1, v_ax2, v_ax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(lv9[v_ax0, v_ax3, v_ax1, v_ax2])
                T.writes(T_transpose[v_ax0, v_ax1, v_ax2, v_ax3])
                T_transpose[v_ax0, v_ax1, v_ax2, v_ax3] = lv9[v_ax0, v_ax3, v_ax1, v_ax2]

    @T.prim_func(private=True)
    def transpose3(lv19: T.Buffer((T.int64(2), T.int64(4), T.int64(10), T.int64(8)), "float32"), T_transpose: T.Buffer((T.int64(2), T.int64(10), T.int64(4), T.int64(8)), "float32")):
        T.func_attr({"source_ops": "permute_dims", "tir.noalias": T.bool(True)})
        # with T.block("root"):
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(2), T.int64(10), T.int64(4), T.int64(8)):
            with T.block("T_transpose"):
                v_ax0, v_ax1, v_ax2, v_ax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(lv19[v_ax0, v_ax2, v_ax1, v_ax3])
                T.writes(T_transpose[v_ax0, v_ax1, v_ax2, v_ax3])
                T_transpose[v_ax0, v_ax1, v_ax2, v_ax3] = lv19[v_ax0, v_ax2, v_ax1, v_ax3]

    @T.prim_func(private=True)
    def transpose4(A: T.Buffer((T.int64(64), T.int64(32)), "float32"), T_transpose: T.Buffer((T.int64(32), T.int64(64)), "float32")):
        T.func_attr({"source_ops": "permute_dims", "tir.noalias": T.bool(True)})
        # with T.block("root"):
        for ax0, ax1 in T.grid(T.int64(32), T.int64(64)):
            with T.block("T_transpose"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(A[v_ax1, v_ax0])
                T.writes(T_transpose[v_ax0, v_ax1])
                T_transpose[v_ax0, v_ax1] = A[v_ax1, v_ax0]

    @T.prim_func(private=True)
    def transpose5(A: T.Buffer((T.int64(32), T.int64(64)), "float32"), T_transpose: T.Buffer((T.int64(64), T.int64(32)), "float32")):
        T.func_attr({"source_ops": "permute_dims", "tir.noalias": T.bool(True)})
        # with T.block("root"):
        for ax0, ax1 in T.grid(T.int64(64), T.int64(32)):
            with T.block("T_transpose"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(A[v_ax1, v_ax0])
                T.writes(T_transpose[v_ax0, v_ax1])
                T_transpose[v_ax0, v_ax1] = A[v_ax1, v_ax0]

    @R.function
    def main(x: R.Tensor((2, 10, 32), dtype="float32")) -> R.Tensor((2, 32), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.layer_norm, (x, metadata["relax.expr.Constant"][0], metadata["relax.expr.Constant"][1]), out_sinfo=R.Tensor((2, 10, 32), dtype="float32"))
            lv1 = R.call_tir(cls.transpose, (metadata["relax.expr.Constant"][2],), out_sinfo=R.Tensor((32, 32), dtype="float32"))
            lv2 = R.call_tir(cls.matmul, (lv, lv1), out_sinfo=R.Tensor((2, 10, 32), dtype="float32"))
            lv3 = R.call_tir(cls.add, (lv2, metadata["relax.expr.Constant"][3]), out_sinfo=R.Tensor((2, 10, 32), dtype="float32"))
            lv4 = R.call_tir(cls.reshape, (lv3,), out_sinfo=R.Tensor((2, 10, 4, 8), dtype="float32"))
            lv5 = R.call_tir(cls.transpose1, (lv4,), out_sinfo=R.Tensor((2, 4, 10, 8), dtype="float32"))
            lv6 = R.call_tir(cls.transpose, (metadata["relax.expr.Constant"][4],), out_sinfo=R.Tensor((32, 32), dtype="float32"))
            lv7 = R.call_tir(cls.matmul, (lv, lv6), out_sinfo=R.Tensor((2, 10, 32), dtype="float32"))
            lv8 = R.call_tir(cls.add, (lv7, metadata["relax.expr.Constant"][5]), out_sinfo=R.Tensor((2, 10, 32), dtype="float32"))
            lv9 = R.call_tir(cls.reshape, (lv8,), out_sinfo=R.Tensor((2, 10, 4, 8), dtype="float32"))
            lv10 = R.call_tir(cls.transpose2, (lv9,), out_sinfo=R.Tensor((2, 4, 8, 10), dtype="float32"))
            lv11 = R.call_tir(cls.transpose, (metadata["relax.expr.Constant"][6],), out_sinfo=R.Tensor((32, 32), dtype="float32"))
            lv12 = R.call_tir(cls.matmul, (lv, lv11), out_sinfo=R.Tensor((2, 10, 32), dtype="float32"))
            lv13 = R.call_tir(cls.add, (lv12, metadata["relax.expr.Constant"][7]), out_sinfo=R.Tensor((2, 10, 32), dtype="float32"))
            lv14 = R.call_tir(cls.reshape, (lv13,), out_sinfo=R.Tensor((2, 10, 4, 8), dtype="float32"))
            lv15 = R.call_tir(cls.transpose1, (lv14,), out_sinfo=R.Tensor((2, 4, 10, 8), dtype="float32"))
            lv16 = R.call_tir(cls.matmul1, (lv5, lv10), out_sinfo=R.Tensor((2, 4, 10, 10), dtype="float32"))
            lv17 = R.call_tir(cls.multiply, (lv16, metadata["relax.expr.Constant"][8]), out_sinfo=R.Tensor((2, 4, 10, 10), dtype="float32"))
            lv18 = R.call_tir(cls.softmax, (lv17,), out_sinfo=R.Tensor((2, 4, 10, 10), dtype="float32"))
            lv19 = R.call_tir(cls.matmul2, (lv18, lv15), out_sinfo=R.Tensor((2, 4, 10, 8), dtype="float32"))
            lv20 = R.call_tir(cls.transpose3, (lv19,), out_sinfo=R.Tensor((2, 10, 4, 8), dtype="float32"))
            lv21 = R.call_tir(cls.reshape1, (lv20,), out_sinfo=R.Tensor((2, 10, 32), dtype="float32"))
            lv22 = R.call_tir(cls.transpose, (metadata["relax.expr.Constant"][9],), out_sinfo=R.Tensor((32, 32), dtype="float32"))
            lv23 = R.call_tir(cls.matmul, (lv21, lv22), out_sinfo=R.Tensor((2, 10, 32), dtype="float32"))
            lv24 = R.call_tir(cls.add, (lv23, metadata["relax.expr.Constant"][10]), out_sinfo=R.Tensor((2, 10, 32), dtype="float32"))
            lv25 = R.call_tir(cls.add1, (x, lv24), out_sinfo=R.Tensor((2, 10, 32), dtype="float32"))
            lv26 = R.call_tir(cls.layer_norm, (lv25, metadata["relax.expr.Constant"][11], metadata["relax.expr.Constant"][12]), out_sinfo=R.Tensor((2, 10, 32), dtype="float32"))
            lv27 = R.call_tir(cls.transpose4, (metadata["relax.expr.Constant"][13],), out_sinfo=R.Tensor((32, 64), dtype="float32"))
            lv28 = R.call_tir(cls.matmul3, (lv26, lv27), out_sinfo=R.Tensor((2, 10, 64), dtype="float32"))
            lv29 = R.call_tir(cls.add2, (lv28, metadata["relax.expr.Constant"][14]), out_sinfo=R.Tensor((2, 10, 64), dtype="float32"))
            lv30 = R.call_tir(cls.multiply1, (lv29, metadata["relax.expr.Constant"][15]), out_sinfo=R.Tensor((2, 10, 64), dtype="float32"))
            lv31 = R.call_tir(cls.erf, (lv30,), out_sinfo=R.Tensor((2, 10, 64), dtype="float32"))
            lv32 = R.call_tir(cls.add3, (lv31, metadata["relax.expr.Constant"][16]), out_sinfo=R.Tensor((2, 10, 64), dtype="float32"))
            lv33 = R.call_tir(cls.multiply1, (lv32, metadata["relax.expr.Constant"][17]), out_sinfo=R.Tensor((2, 10, 64), dtype="float32"))
            lv34 = R.call_tir(cls.multiply2, (lv29, lv33), out_sinfo=R.Tensor((2, 10, 64), dtype="float32"))
            lv35 = R.call_tir(cls.transpose5, (metadata["relax.expr.Constant"][18],), out_sinfo=R.Tensor((64, 32), dtype="float32"))
            lv36 = R.call_tir(cls.matmul4, (lv34, lv35), out_sinfo=R.Tensor((2, 10, 32), dtype="float32"))
            lv37 = R.call_tir(cls.add, (lv36, metadata["relax.expr.Constant"][19]), out_sinfo=R.Tensor((2, 10, 32), dtype="float32"))
            lv38 = R.call_tir(cls.add1, (lv25, lv37), out_sinfo=R.Tensor((2, 10, 32), dtype="float32"))
            lv39 = R.call_tir(cls.mean, (lv38,), out_sinfo=R.Tensor((2, 32), dtype="float32"))
            gv: R.Tensor((2, 32), dtype="float32") = lv39
            R.output(gv)
        return gv

# Metadata omitted. Use show_meta=True in script() method to show it.
