# MODULE: ewise.py
sch = tir.Schedule(mod)
c = sch.get_block("C")
i, j = sch.get_loops(c)
sch.annotate(j, "pragma_unroll_explicit", 1)
sch.annotate(c, "meta_schedule.tiling_structure", "SSR")
