# MODULE: matmul_odd.py
# ERROR: fuse: loop i: loop k is not its only child
sch = tir.Schedule(mod)
y = sch.get_block("Y", func_name="mm")
i, j, k = sch.get_loops(y)
f = sch.fuse(i, k)
