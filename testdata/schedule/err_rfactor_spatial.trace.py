# MODULE: row_sum.py
# ERROR: rfactor: loop i of block B: the loop is bound to a spatial variable
sch = tir.Schedule(mod)
b = sch.get_block("B")
i, k = sch.get_loops(b)
rf = sch.rfactor(i, 0)
