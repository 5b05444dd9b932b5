# MODULE: gemm.py
# ERROR: transform_layout: buffer B: it is a parameter of the function
sch = tir.Schedule(mod)
c = sch.get_block("C")
sch.transform_layout(c, ("read", 1), lambda k, j: (j, k))
