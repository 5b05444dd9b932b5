# MODULE: ewise.py
sch = tir.Schedule(mod)
b = sch.get_block("B")
c = sch.get_block("C")
i, j = sch.get_loops(b)
j0, j1 = sch.split(j, factors=[None, 32])
sch.reverse_compute_at(c, j0)
