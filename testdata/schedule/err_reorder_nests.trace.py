# MODULE: ewise.py
# ERROR: reorder: loop j: not in the same loop nest as loop
sch = tir.Schedule(mod)
b = sch.get_block("B")
c = sch.get_block("C")
bi, bj = sch.get_loops(b)
ci, cj = sch.get_loops(c)
sch.reorder(cj, bj)
