# MODULE: matmul_odd.py
# ERROR: decompose_reduction: block Y: loop k above loop i iterates the reduction
sch = tir.Schedule(mod)
y = sch.get_block("Y", func_name="mm")
i, j, k = sch.get_loops(y)
sch.reorder(k, i, j)
init = sch.decompose_reduction(y, i)
