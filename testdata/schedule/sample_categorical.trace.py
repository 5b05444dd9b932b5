# MODULE: gemm.py
sch = tir.Schedule(mod)
c = sch.get_block("C")
i, j, k = sch.get_loops(c)
v = sch.sample_categorical(candidates=[4, 8, 16], probs=[0.25, 0.5, 0.25], decision=2)
j0, j1 = sch.split(j, factors=[None, v])
