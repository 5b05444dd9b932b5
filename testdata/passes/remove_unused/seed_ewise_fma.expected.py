# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
        with R.dataflow():
            c: R.Tensor((3,), dtype="float32") = R.nn.relu(x)
            R.output(c)
        scratch: R.Tensor((3,), dtype="float32") = R.alloc_tensor(R.shape([3]), dtype="float32")
        return c
