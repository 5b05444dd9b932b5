# A loop written as recursion, as the ONNX importer writes Loop: `loop` tests the condition and
# either calls `step` or returns; `step` does one iteration and calls `loop` again. Functions on a
# cycle of calls need a return annotation (their calls are converted before their bodies); both
# calls are tail calls, which the VM runs in constant depth.
@I.ir_module
class Loop:
    @R.function(private=True)
    def loop(i: R.Tensor((), "int64"), n: R.Tensor((), "int64"), one: R.Tensor((), "int64"), acc: R.Tensor((4,), "float32")) -> R.Tensor(dtype="float32", ndim=1):
        cls = Loop
        with R.dataflow():
            go_on = R.less(i, n)
            R.output(go_on)
        if go_on:
            r: R.Tensor(dtype="float32", ndim=1) = cls.step(i, n, one, acc)
        else:
            r: R.Tensor(dtype="float32", ndim=1) = acc
        return r

    @R.function(private=True)
    def step(i: R.Tensor((), "int64"), n: R.Tensor((), "int64"), one: R.Tensor((), "int64"), acc: R.Tensor((4,), "float32")) -> R.Tensor(dtype="float32", ndim=1):
        cls = Loop
        with R.dataflow():
            next_i = R.add(i, one)
            doubled = R.add(acc, acc)
            R.output(next_i, doubled)
        r = cls.loop(next_i, n, one, doubled)
        return r

    @R.function
    def main(zero: R.Tensor((), "int64"), n: R.Tensor((), "int64"), one: R.Tensor((), "int64"), x: R.Tensor((4,), "float32")):
        cls = Loop
        r = cls.loop(zero, n, one, x)
        return r
