# MODULE: row_sum.py
# ERROR: vectorize: loop k: it is bound to the reduction variable vk of block B; a reduction loop cannot be vectorized
sch = tir.Schedule(mod)
b = sch.get_block("B")
i, k = sch.get_loops(b)
sch.vectorize(k)
