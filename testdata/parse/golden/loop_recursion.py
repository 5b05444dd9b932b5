# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(private=True)
    def loop(i: R.Tensor((), dtype="int64"), n: R.Tensor((), dtype="int64"), one: R.Tensor((), dtype="int64"), acc: R.Tensor((4,), dtype="float32")) -> R.Tensor(dtype="float32", ndim=1):
        cls = Module
        with R.dataflow():
            go_on: R.Tensor((), dtype="bool") = R.less(i, n)
            R.output(go_on)
        if go_on:
            r: R.Tensor(dtype="float32", ndim=1) = cls.step(i, n, one, acc)
        else:
            r: R.Tensor(dtype="float32", ndim=1) = acc
        return r

    @R.function
    def main(zero: R.Tensor((), dtype="int64"), n: R.Tensor((), dtype="int64"), one: R.Tensor((), dtype="int64"), x: R.Tensor((4,), dtype="float32")) -> R.Tensor(dtype="float32", ndim=1):
        cls = Module
        r: R.Tensor(dtype="float32", ndim=1) = cls.loop(zero, n, one, x)
        return r

    @R.function(private=True)
    def step(i: R.Tensor((), dtype="int64"), n: R.Tensor((), dtype="int64"), one: R.Tensor((), dtype="int64"), acc: R.Tensor((4,), dtype="float32")) -> R.Tensor(dtype="float32", ndim=1):
        cls = Module
        with R.dataflow():
            next_i: R.Tensor((), dtype="int64") = R.add(i, one)
            doubled: R.Tensor((4,), dtype="float32") = R.add(acc, acc)
            R.output(next_i, doubled)
        r: R.Tensor(dtype="float32", ndim=1) = cls.loop(next_i, n, one, doubled)
        return r
