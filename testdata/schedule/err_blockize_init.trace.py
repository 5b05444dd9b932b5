# MODULE: gemm.py
# ERROR: blockize: loop k_1 of block C: the block has an init and reduces over loops outside: decompose_reduction first
sch = tir.Schedule(mod)
c = sch.get_block("C")
i, j, k = sch.get_loops(c)
k0, k1 = sch.split(k, factors=[None, 8])
sch.blockize(k1)
