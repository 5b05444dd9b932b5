# A graph-level if (TVMScript's spelling): each branch binds the same variable, by one call; a
# branch of several steps is a function of its own. Only the branch taken runs.
@I.ir_module
class IfElse:
    @R.function(private=True)
    def scaled(x: R.Tensor((3,), "float32")):
        with R.dataflow():
            y = R.add(x, x)
            z = R.multiply(y, x)
            R.output(z)
        return z

    @R.function
    def main(c: R.Tensor((), "bool"), x: R.Tensor((3,), "float32")):
        cls = IfElse
        if c:
            y: R.Tensor((3,), "float32") = cls.scaled(x)
        else:
            y: R.Tensor((3,), "float32") = R.negative(x)
        with R.dataflow():
            out = R.exp(y)
            R.output(out)
        return out
