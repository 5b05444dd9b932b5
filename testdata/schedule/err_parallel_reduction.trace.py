# MODULE: matmul_odd.py
# ERROR: parallel: loop k: it is bound to the reduction variable vk of block Y; a reduction loop cannot be parallelized
sch = tir.Schedule(mod)
y = sch.get_block("Y", func_name="mm")
i, j, k = sch.get_loops(y)
sch.parallel(k)
