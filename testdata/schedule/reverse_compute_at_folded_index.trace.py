# MODULE: reverse_compute_at_folded_index.py
# The consumer follows each row of its producer: one row of C per b (its index simplified to
# vb before it is solved), not all four rows under every b.
sch = tir.Schedule(mod)
b = sch.get_block("B")
c = sch.get_block("C")
bl, il = sch.get_loops(b)
sch.reverse_compute_at(c, bl)
