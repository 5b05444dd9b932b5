# RUN: --passes=fuse-ops,fuse-tir,remove-unused
# Loop programs a user wrote, called with call_tir (as after legalize): fuse-ops reads each
# PrimFunc's pattern kind off its blocks (the matmul is a sum of products: out-elementwise-
# fusable; the bias add broadcasts; the ReLU is elementwise), groups them, and fuse-tir merges
# the group into one loop program. The transpose after them (injective) does not join a group
# whose result it shares with another user.
@I.ir_module
class Module:
    @T.prim_func
    def mm(A: T.Buffer((8, 16), "float32"), B: T.Buffer((16, 32), "float32"), C: T.Buffer((8, 32), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for i, j, k in T.grid(8, 32, 16):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0.0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

    @T.prim_func
    def bias(X: T.Buffer((8, 32), "float32"), b: T.Buffer((32,), "float32"), Y: T.Buffer((8, 32), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for i, j in T.grid(8, 32):
            with T.block("Y"):
                vi, vj = T.axis.remap("SS", [i, j])
                Y[vi, vj] = X[vi, vj] + b[vj]

    @T.prim_func
    def relu(X: T.Buffer((8, 32), "float32"), Y: T.Buffer((8, 32), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for i, j in T.grid(8, 32):
            with T.block("Y"):
                vi, vj = T.axis.remap("SS", [i, j])
                Y[vi, vj] = T.max(X[vi, vj], T.float32(0.0))

    @R.function
    def main(a: R.Tensor((8, 16), dtype="float32"), w: R.Tensor((16, 32), dtype="float32"), b: R.Tensor((32,), dtype="float32")):
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.mm, (a, w), out_sinfo=R.Tensor((8, 32), dtype="float32"))
            lv1 = R.call_tir(cls.bias, (lv, b), out_sinfo=R.Tensor((8, 32), dtype="float32"))
            gv = R.call_tir(cls.relu, (lv1,), out_sinfo=R.Tensor((8, 32), dtype="float32"))
            R.output(gv)
        return gv
# CHECK: def fused_mm_bias_relu(
# CHECK: T.block("C")
# CHECK: T.block("Y")
# CHECK: T.block("Y_1")
# CHECK-NOT: def mm(
# CHECK: gv = R.call_tir(cls.fused_mm_bias_relu, (a, w, b)
