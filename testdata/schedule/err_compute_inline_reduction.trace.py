# MODULE: matmul_odd.py
# ERROR: compute_inline: block Y: it is a reduction; only elementwise blocks can be inlined
sch = tir.Schedule(mod)
y = sch.get_block("Y", func_name="mm")
sch.compute_inline(y)
