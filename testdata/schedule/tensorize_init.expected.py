# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def gemm(A: T.Buffer((48, 40), "float32"), B: T.Buffer((40, 64), "float32"), C: T.Buffer((48, 64), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        # with T.block("root"):
        for i_0, j_0 in T.grid(12, 4):
            with T.block("C_o"):
                vi_o, vj_o = T.axis.remap("SS", [i_0, j_0])
                T.reads(A[vi_o * 4:vi_o * 4 + 4, 0:40], B[0:40, vj_o * 16:vj_o * 16 + 16])
                T.writes(C[vi_o * 4:vi_o * 4 + 4, vj_o * 16:vj_o * 16 + 16])
                T.evaluate(T.gemm_tile_nd(T.address_of(C[vi_o * 4, vj_o * 16]), T.address_of(A[vi_o * 4, 0]), T.address_of(B[0, vj_o * 16]), T.int64(4), T.int64(1), T.int64(16), T.int64(40), T.int64(64), T.int64(0), T.int64(0), T.int64(2), T.int64(1), T.int64(40), T.int64(1), T.int64(64)))
