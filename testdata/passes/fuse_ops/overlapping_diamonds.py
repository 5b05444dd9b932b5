# RUN: --passes=fuse-ops
# Two diamonds that share their ends: relu(x)'s users meet at gv, and so do the matmul's, whose
# region (e, f, gv) lies inside relu's. The first region found keeps its bindings; were the
# matmul's to take e, f and gv from it, relu's group would keep c and d, and e (now in the
# matmul's group) would read c, an intermediate of another group (a recurrent cell's gates did).
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 8), dtype="float32"), h: R.Tensor((4, 8), dtype="float32"), w: R.Tensor((8, 8), dtype="float32")):
        with R.dataflow():
            p = R.nn.relu(x)
            q = R.matmul(h, w)
            c = R.exp(p)
            e = R.add(c, q)
            d = R.tanh(p)
            f = R.multiply(q, d)
            gv = R.add(e, f)
            R.output(gv)
        return gv
# CHECK: def fused_relu_exp_add_tanh_multiply_add(
# CHECK: q: R.Tensor((4, 8), dtype="float32") = R.matmul(h, w, out_dtype="void")
# CHECK: gv: R.Tensor((4, 8), dtype="float32") = cls.fused_relu_exp_add_tanh_multiply_add(x, q)
