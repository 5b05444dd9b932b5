# RUN: --emit=llvm --target=x86-64-v4 --passes=default-schedule
# A 48 x 256 @ 256 x 1056 product on AVX-512 (x86-64-v4: 32 KB of L1, 1 MB of L2). B (1.1 MB)
# is more than L2, and the six 8 x 32 row tiles run over one panel of B at a time with k in
# blocks of 128 (gemm.cc, PrefetchesNextWeights): each row tile prefetches its slice of the
# next chunk (the next k block of the panel, or the next panel's first) into L2. A chunk is
# 128 x 32 floats, 256 lines; the six tiles take 43 lines each (tile i from line 43 i), fewer
# than the 128 steps of their k loop, so a tile asks for its slice before that loop, in a loop
# of its own: one prefetch for locality 2 (i32 2: into L2) per line, clamped to the chunk's last
# line (255), and none inside the k loop (a test there at every step cost AVX2's tiles 15-18%).
# (B is a parameter here, packed in the kernel; a model's weights are packed when it compiles.)
@I.ir_module
class Module:
    @T.prim_func
    def matmul(x: T.Buffer((T.int64(48), T.int64(256)), "float32"), w: T.Buffer((T.int64(256), T.int64(1056)), "float32"), y: T.Buffer((T.int64(48), T.int64(1056)), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for i, j, k in T.grid(T.int64(48), T.int64(1056), T.int64(256)):
            with T.block("matmul"):
                v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    y[v_i, v_j] = T.float32(0.0)
                y[v_i, v_j] = y[v_i, v_j] + x[v_i, v_k] * w[v_k, v_j]

# CHECK: define internal void @matmul_impl_par0(
# CHECK: , 43
# CHECK: tile.k.body
# CHECK: @llvm.smin.i64(
# CHECK-SAME: , i64 255)
# CHECK: call void @llvm.prefetch.p0(
# CHECK-SAME: , i32 0, i32 2, i32 1)
# CHECK: tile.k.body2
# CHECK-NOT: call void @llvm.prefetch.p0(
# CHECK: tile.k.end3
