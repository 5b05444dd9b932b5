# MODULE: ewise.py
# ERROR: reverse_compute_at: block B: it does not come after loop i
sch = tir.Schedule(mod)
b = sch.get_block("B")
c = sch.get_block("C")
i, j = sch.get_loops(c)
sch.reverse_compute_at(b, i)
