# MODULE: mm_relu.py
# Lookups: the root's children, producers and consumers (then a split to show the handles work).
sch = tir.Schedule(mod)
root = sch.get_block("root", func_name="mm_relu")
y, c = sch.get_child_blocks(root)
p = sch.get_producers(c)
consumers = sch.get_consumers(y)
i, j = sch.get_loops(consumers)
j0, j1 = sch.split(j, factors=[None, 16])
