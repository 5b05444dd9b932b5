# MODULE: matmul_odd.py
# The matmul computed per 8-wide column tile of the ReLU (the last tile is partial).
sch = tir.Schedule(mod)
y = sch.get_block("Y", func_name="mm")
c = sch.get_block("C", func_name="mm")
i, j = sch.get_loops(c)
j0, j1 = sch.split(j, factors=[None, 8])
sch.compute_at(y, j0)
