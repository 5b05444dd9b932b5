# MODULE: mm_relu.py
# parallel outer loops, vectorize the innermost spatial loop, unroll a small loop.
sch = tir.Schedule(mod)
y = sch.get_block("Y", func_name="mm_relu")
i, j, k = sch.get_loops(y)
j0, j1 = sch.split(j, factors=[None, 8])
sch.reorder(i, j0, k, j1)
sch.parallel(i)
sch.vectorize(j1)
c = sch.get_block("C", func_name="mm_relu")
ci, cj = sch.get_loops(c)
cj0, cj1 = sch.split(cj, factors=[None, 4])
sch.unroll(cj1)
sch.parallel(ci)
