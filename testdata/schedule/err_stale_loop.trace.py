# MODULE: ewise.py
# ERROR: loop j no longer exists (split, fused or removed by an earlier primitive)
sch = tir.Schedule(mod)
b = sch.get_block("B")
i, j = sch.get_loops(b)
j0, j1 = sch.split(j, factors=[None, 4])
sch.vectorize(j)
