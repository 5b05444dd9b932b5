# MODULE: ewise.py
# ERROR: split: loop j: factor 0 is not positive
sch = tir.Schedule(mod)
b = sch.get_block("B")
i, j = sch.get_loops(b)
sch.split(j, factors=[None, 0])
