# MODULE: gemm.py
# ERROR: no tensor intrinsic gemm_f64 (registered: gemm_f32)
sch = tir.Schedule(mod)
c = sch.get_block("C")
i, j, k = sch.get_loops(c)
init = sch.decompose_reduction(c, i)
sch.tensorize(i, "gemm_f64")
