# MODULE: ewise.py
# Decision -1 is the root: compute_at there leaves B where it is.
sch = tir.Schedule(mod)
b = sch.get_block("B")
loc = sch.sample_compute_location(b, decision=-1)
sch.compute_at(b, loc)
