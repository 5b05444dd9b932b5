# RUN: --passes=fuse-ops,legalize,fuse-tir,default-schedule,remove-unused
# Two products on AVX-512 with an Intel Xeon's caches (48 KB of L1, 2 MB of L2).
# - streams: 197 x 768 @ 768 x 3072 (ViT-B/16's MLP; 9.4 MB of weights, more than L2). A (605
#   KB) stays in L2, so the 8 x 32 row tiles (25, the last guarded) run over one panel of B at a
#   time, k in blocks of 192, and each chunk's first read comes from beyond L2: each row tile
#   prefetches a slice of the next chunk into L2 (block annotation prefetch_next_weights;
#   T.gemm_tile_nd with flags 36: 32, the next chunk, | 4, the guarded last tile).
# - blocks: 512 x 768 @ 768 x 3072. A (1.5 MB) does not stay in L2, so the columns go in
#   blocks of 24 panels (4 blocks, the parallel loop), each row tile meeting the block's panels in turn (loops k_0, i0_0,
#   i1_1): each call prefetches a slice of its own panel's next k block (codegen's
#   NextIteration steps k_0, keeps the panel, and shares the slices among the row tiles).
# - stays: 128 x 64 @ 64 x 256 (64 KB of weights, which stay in L2): the plain T.gemm_tile.
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=x86-64-v4 -l1d=48K -l2=2M"})

    @R.function
    def main(x: R.Tensor((197, 768), dtype="float32"), w: R.Tensor((768, 3072), dtype="float32"), y: R.Tensor((128, 64), dtype="float32"), z: R.Tensor((512, 768), dtype="float32"), v: R.Tensor((64, 256), dtype="float32")):
        with R.dataflow():
            streams = R.matmul(x, w)
            stays = R.matmul(y, v)
            blocks = R.matmul(z, w)
            R.output(streams, stays, blocks)
        return (streams, stays, blocks)
# CHECK: def matmul(
# CHECK: T.block_attr({"prefetch_next_weights": T.bool(True)})
# CHECK: for k_0, i0_0 in T.grid(T.int64(4), T.int64(25)):
# CHECK: T.gemm_tile_nd(
# CHECK-SAME: T.int64(8), T.int64(1), T.int64(32), T.int64(768), T.int64(3072), T.int64(0), T.int64(0), T.int64(36), T.int64(1), T.int64(192), T.int64(1), T.int64(32),
# CHECK: def matmul1(
# CHECK-NOT: prefetch_next_weights
# CHECK: T.gemm_tile(
# CHECK: def matmul2(
# CHECK: T.block_attr({"prefetch_next_weights": T.bool(True)})
# CHECK: for k_0, i0_0, i1_1 in T.grid(T.int64(4), T.int64(64), T.int64(24)):
# CHECK: T.gemm_tile_nd(
# CHECK-SAME: T.int64(8), T.int64(1), T.int64(32), T.int64(768), T.int64(3072), T.int64(0), T.int64(0), T.int64(32), T.int64(1), T.int64(192), T.int64(1), T.int64(32)
# CHECK: def main(
