# MODULE: ewise.py
# ERROR: get_block: no block D in @ewise (blocks: B, C)
sch = tir.Schedule(mod)
d = sch.get_block("D")
