# MODULE: ewise.py
sch = tir.Schedule(mod)
c = sch.get_block("C")
i, j = sch.get_loops(c)
f = sch.fuse(i, j)
f0, f1 = sch.split(f, factors=[None, 16])
