# MODULE: matmul_odd.py
# ERROR: reverse_compute_inline: block C: its producer Y is a reduction
sch = tir.Schedule(mod)
c = sch.get_block("C", func_name="mm")
sch.reverse_compute_inline(c)
