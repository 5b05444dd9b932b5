# MODULE: ewise.py
# ERROR: decompose_reduction: block B: it has no init
sch = tir.Schedule(mod)
b = sch.get_block("B")
i, j = sch.get_loops(b)
sch.decompose_reduction(b, i)
