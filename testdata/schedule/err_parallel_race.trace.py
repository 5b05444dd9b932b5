# MODULE: repeat.py
# ERROR: parallel: loop t: block B writes the same elements in every iteration
sch = tir.Schedule(mod)
b = sch.get_block("B")
t, i = sch.get_loops(b)
sch.parallel(t)
