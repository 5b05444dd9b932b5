# MODULE: ewise.py
sch = tir.Schedule(mod)
c = sch.get_block("C")
sch.reverse_compute_inline(c)
