# MODULE: ewise.py
# ERROR: tensorize: block C_o: gemm_f32 does not apply: expected the tile's loops (rows, columns, reductions) inside, found 1
sch = tir.Schedule(mod)
c = sch.get_block("C")
i, j = sch.get_loops(c)
sch.tensorize(j, "gemm_f32")
