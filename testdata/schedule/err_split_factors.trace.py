# MODULE: matmul_odd.py
# ERROR: split: loop j: factors [4, 8] multiply to 32, less than the extent 129
sch = tir.Schedule(mod)
y = sch.get_block("Y", func_name="mm")
i, j, k = sch.get_loops(y)
j0, j1 = sch.split(j, factors=[4, 8])
