# MODULE: ewise.py
# ERROR: split: loop j: at most one factor may be None
sch = tir.Schedule(mod)
b = sch.get_block("B")
i, j = sch.get_loops(b)
sch.split(j, factors=[None, None, 4])
