# MODULE: matmul_odd.py
# 37 rows in tiles of 4: the last tile's rows are guarded, and tensorize makes it a
# T.gemm_tile_partial of min(4, 37 - 4 * i_0) rows (the columns, 129 = 3 x 43, divide).
sch = tir.Schedule(mod)
y = sch.get_block("Y", func_name="mm")
i, j, k = sch.get_loops(y)
i0, i1 = sch.split(i, factors=[None, 4])
j0, j1 = sch.split(j, factors=[None, 43])
sch.reorder(i0, j0, i1, j1, k)
init = sch.decompose_reduction(y, i1)
sch.tensorize(i1, "gemm_f32")
