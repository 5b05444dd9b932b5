# MODULE: row_sum.py
# Partial sums over the inner part of k, then summed: the rf block's k_1 is data-parallel.
sch = tir.Schedule(mod)
b = sch.get_block("B")
i, k = sch.get_loops(b)
k0, k1 = sch.split(k, factors=[None, 4])
rf = sch.rfactor(k1, 1)
