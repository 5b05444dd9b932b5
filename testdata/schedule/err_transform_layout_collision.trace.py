# MODULE: gemm.py
# ERROR: transform_layout: buffer B_global: the map sends two elements to the same place (not one-to-one)
sch = tir.Schedule(mod)
c = sch.get_block("C")
pack = sch.cache_read(c, 1, "global")
sch.transform_layout(c, ("read", 1), lambda k, j: (j // 2, k))
