# MODULE: ewise.py
# ERROR: tensorize: block C_o: gemm_f32 does not apply: expected 3 loops (m, n, k) inside, found 1
sch = tir.Schedule(mod)
c = sch.get_block("C")
i, j = sch.get_loops(c)
sch.tensorize(j, "gemm_f32")
