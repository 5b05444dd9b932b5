# MODULE: mm_relu.py
# ERROR: decompose_padding: block C: it is not out[v] = Select(condition, value, constant)
sch = tir.Schedule(mod)
c = sch.get_block("C")
sch.decompose_padding(c)
