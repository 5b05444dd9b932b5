# MODULE: reverse_compute_at_side_input.py
# ERROR: reverse_compute_at: block C: its producer block S (writing S) runs after loop i
sch = tir.Schedule(mod)
b = sch.get_block("B")
c = sch.get_block("C")
(i,) = sch.get_loops(b)
sch.reverse_compute_at(c, i)
