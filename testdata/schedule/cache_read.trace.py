# MODULE: matmul_odd.py
# A copy of A's rows read by each row of the matmul.
sch = tir.Schedule(mod)
y = sch.get_block("Y", func_name="mm")
a_local = sch.cache_read(y, 0, "local")
i, j, k = sch.get_loops(y)
sch.compute_at(a_local, i)
