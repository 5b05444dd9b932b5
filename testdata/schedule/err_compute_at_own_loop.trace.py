# MODULE: ewise.py
# ERROR: compute_at: block B: it is already under loop i
sch = tir.Schedule(mod)
b = sch.get_block("B")
i, j = sch.get_loops(b)
sch.compute_at(b, i)
