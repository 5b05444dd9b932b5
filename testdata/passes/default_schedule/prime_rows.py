# RUN: --passes=fuse-ops,legalize,fuse-tir,default-schedule,remove-unused
# 197 rows (a ViT's tokens, a prime): no tile of 2 to 6 rows divides them, so the rule takes the
# tallest tile AVX2's 16 registers hold (6 rows x 2 vectors) and guards the last one, which
# computes min(6, 197 - 6 i) rows (T.gemm_tile_partial) rather than leaving the loops scalar.
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=x86-64-v3"})

    @R.function
    def main(x: R.Tensor((197, 64), dtype="float32"), w: R.Tensor((32, 64), dtype="float32")):
        with R.dataflow():
            gv = R.nn.dense(x, w)
            R.output(gv)
        return gv
# CHECK: T.gemm_tile_partial(
# CHECK-SAME: T.int64(6), T.int64(16)
