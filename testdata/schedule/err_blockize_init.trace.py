# MODULE: gemm.py
# ERROR: blockize: loop j of block C: the block has an init: decompose_reduction first
sch = tir.Schedule(mod)
c = sch.get_block("C")
i, j, k = sch.get_loops(c)
sch.blockize(j)
