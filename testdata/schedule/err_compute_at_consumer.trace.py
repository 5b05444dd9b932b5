# MODULE: ewise.py
# ERROR: compute_at: block C: it does not come before loop i (compute_at moves a producer; use reverse_compute_at for a consumer)
sch = tir.Schedule(mod)
b = sch.get_block("B")
c = sch.get_block("C")
i, j = sch.get_loops(b)
sch.compute_at(c, i)
