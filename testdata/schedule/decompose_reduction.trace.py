# MODULE: row_sum.py
sch = tir.Schedule(mod)
b = sch.get_block("B")
i, k = sch.get_loops(b)
init = sch.decompose_reduction(b, k)
