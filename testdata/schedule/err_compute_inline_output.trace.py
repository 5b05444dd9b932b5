# MODULE: ewise.py
# ERROR: compute_inline: block C: it writes C, a parameter of the function
sch = tir.Schedule(mod)
c = sch.get_block("C")
sch.compute_inline(c)
