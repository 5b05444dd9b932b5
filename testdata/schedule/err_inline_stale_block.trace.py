# MODULE: ewise.py
# ERROR: get_loops: block B
sch = tir.Schedule(mod)
b = sch.get_block("B")
sch.compute_inline(b)
sch.get_loops(b)
