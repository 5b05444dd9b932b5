# MODULE: matmul_odd.py
# Both splits leave remainders: the guard bounds columns as well as rows, which no register tile takes.
# ERROR: tensorize: block Y_update_o: gemm_f32 does not apply: the block is guarded by a predicate that is not a row bound
sch = tir.Schedule(mod)
y = sch.get_block("Y", func_name="mm")
i, j, k = sch.get_loops(y)
i0, i1 = sch.split(i, factors=[None, 4])
j0, j1 = sch.split(j, factors=[None, 16])
sch.reorder(i0, j0, i1, j1, k)
init = sch.decompose_reduction(y, i1)
sch.tensorize(i1, "gemm_f32")
