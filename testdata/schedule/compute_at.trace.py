# MODULE: ewise.py
# B is computed row by row inside C's row loop.
sch = tir.Schedule(mod)
b = sch.get_block("B")
c = sch.get_block("C")
i, j = sch.get_loops(c)
sch.compute_at(b, i)
