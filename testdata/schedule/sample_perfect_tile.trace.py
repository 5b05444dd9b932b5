# MODULE: gemm.py
# A fixed decision replays exactly.
sch = tir.Schedule(mod)
c = sch.get_block("C")
i, j, k = sch.get_loops(c)
t0, t1, t2 = sch.sample_perfect_tile(i, n=3, max_innermost_factor=8, decision=[2, 3, 8])
i0, i1, i2 = sch.split(i, factors=[t0, t1, t2])
