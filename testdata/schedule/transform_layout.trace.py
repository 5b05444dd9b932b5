# MODULE: gemm.py
# B copied into 16-column panels (k, j) -> (j // 16, k, j % 16), read by the GEMM.
sch = tir.Schedule(mod)
c = sch.get_block("C")
pack = sch.cache_read(c, 1, "global")
sch.transform_layout(c, ("read", 1), lambda k, j: (j // 16, k, j % 16))
