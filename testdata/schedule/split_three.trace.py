# MODULE: matmul_odd.py
# Three factors, one inferred, and an inner one that does not divide.
sch = tir.Schedule(mod)
c = sch.get_block("C", func_name="mm")
i, j = sch.get_loops(c)
j0, j1, j2 = sch.split(j, factors=[2, None, 10])
