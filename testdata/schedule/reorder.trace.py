# MODULE: matmul_odd.py
sch = tir.Schedule(mod)
y = sch.get_block("Y", func_name="mm")
i, j, k = sch.get_loops(y)
sch.reorder(k, i, j)
