# RUN: --passes=fuse-ops
# A GRU step: the step's input xt is read by every gate (a diamond, whose paths meet at the new
# state), and so is the recurrent product z, through three slices. The slices of z are side
# chains of the gates where they meet: one kernel for the gates and the slices (the product,
# with three readers, stays a kernel of its own), not four kernels per step.
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 1, 12), dtype="float32"), h: R.Tensor((1, 4), dtype="float32"), w: R.Tensor((4, 12), dtype="float32"), b: R.Tensor((1, 4), dtype="float32")):
        with R.dataflow():
            xs = R.strided_slice(x, axes=[0], begin=[1], end=[2], strides=None)
            xt = R.reshape(xs, shape=[1, 12])
            z = R.matmul(h, w)
            rh = R.strided_slice(z, axes=[1], begin=[0], end=[4], strides=None)
            rx = R.strided_slice(xt, axes=[1], begin=[0], end=[4], strides=None)
            ra = R.add(rx, rh)
            r = R.sigmoid(ra)
            uh = R.strided_slice(z, axes=[1], begin=[4], end=[8], strides=None)
            ux = R.strided_slice(xt, axes=[1], begin=[4], end=[8], strides=None)
            ua = R.add(ux, uh)
            u = R.sigmoid(ua)
            ns = R.strided_slice(z, axes=[1], begin=[8], end=[12], strides=None)
            nh = R.add(ns, b)
            un = R.multiply(u, nh)
            nx = R.strided_slice(xt, axes=[1], begin=[8], end=[12], strides=None)
            na = R.add(nx, un)
            n = R.tanh(na)
            d = R.subtract(h, n)
            rd = R.multiply(r, d)
            gv = R.add(n, rd)
            R.output(gv)
        return gv
# CHECK: def fused_strided_slice_reshape_strided_slice_strided_slice_add_sigmoid_
# CHECK: R.strided_slice(z, axes=[1], begin=[0], end=[4], strides=None)
# CHECK: R.strided_slice(z, axes=[1], begin=[4], end=[8], strides=None)
# CHECK: R.strided_slice(z, axes=[1], begin=[8], end=[12], strides=None)
# CHECK: def main(
# CHECK: z: R.Tensor((1, 12), dtype="float32") = R.matmul(h, w, out_dtype="void")
# CHECK-NEXT: gv: R.Tensor((1, 4), dtype="float32") = cls.fused_
