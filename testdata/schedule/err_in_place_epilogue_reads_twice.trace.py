# MODULE: mm_relu_pad.py
# ERROR: in_place_epilogue: block P: it reads Y elsewhere than where it stores
sch = tir.Schedule(mod)
p = sch.get_block("P")
sch.in_place_epilogue(p)
