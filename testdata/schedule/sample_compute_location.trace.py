# MODULE: ewise.py
sch = tir.Schedule(mod)
b = sch.get_block("B")
loc = sch.sample_compute_location(b, decision=0)
sch.compute_at(b, loc)
