# MODULE: mm_relu_pad.py
# The pad splits into the top row and the two right columns of zeros, and the interior at an
# offset of one row, reading Y at its own indices; in_place_epilogue then has the matmul
# accumulate in P's interior and the ReLU update it in place (Y is gone).
sch = tir.Schedule(mod)
p = sch.get_block("P")
sch.decompose_padding(p)
sch.in_place_epilogue(p)
