# MODULE: matmul_odd.py
# 129 = 17 * 8 - 7: the split guards the remainder with T.where.
sch = tir.Schedule(mod)
y = sch.get_block("Y", func_name="mm")
i, j, k = sch.get_loops(y)
j0, j1 = sch.split(j, factors=[None, 8])
