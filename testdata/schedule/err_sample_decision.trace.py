# MODULE: gemm.py
# ERROR: sample_perfect_tile: loop i: decision [5, 10] is not 2 factors of 48
sch = tir.Schedule(mod)
c = sch.get_block("C")
i, j, k = sch.get_loops(c)
t0, t1 = sch.sample_perfect_tile(i, n=2, max_innermost_factor=16, decision=[5, 10])
