# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 10, 32), dtype="float32")) -> R.Tensor((2, 32), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((2, 10, 1), dtype="float32") = R.mean(x, axis=[-1], keepdims=True)
            lv1: R.Tensor((2, 10, 32), dtype="float32") = R.subtract(x, lv)
            lv2: R.Tensor((2, 10, 32), dtype="float32") = R.power(lv1, metadata["relax.expr.Constant"][0])
            lv3: R.Tensor((2, 10, 1), dtype="float32") = R.mean(lv2, axis=[-1], keepdims=True)
            lv4: R.Tensor((2, 10, 1), dtype="float32") = R.add(lv3, metadata["relax.expr.Constant"][1])
            lv5: R.Tensor((2, 10, 1), dtype="float32") = R.sqrt(lv4)
            lv6: R.Tensor((2, 10, 32), dtype="float32") = R.divide(lv1, lv5)
            lv7: R.Tensor((2, 10, 32), dtype="float32") = R.multiply(lv6, metadata["relax.expr.Constant"][2])
            lv8: R.Tensor((2, 10, 32), dtype="float32") = R.add(lv7, metadata["relax.expr.Constant"][3])
            lv9: R.Tensor((2, 10, 32), dtype="float32") = R.matmul(lv8, metadata["relax.expr.Constant"][4], out_dtype="void")
            lv10: R.Tensor((2, 10, 32), dtype="float32") = R.add(metadata["relax.expr.Constant"][5], lv9)
            lv11: R.Tensor((2, 10, 4, 8), dtype="float32") = R.reshape(lv10, shape=[2, 10, 4, 8])
            lv12: R.Tensor((2, 4, 10, 8), dtype="float32") = R.permute_dims(lv11, axes=[0, 2, 1, 3])
            lv13: R.Tensor((2, 10, 32), dtype="float32") = R.matmul(lv8, metadata["relax.expr.Constant"][6], out_dtype="void")
            lv14: R.Tensor((2, 10, 32), dtype="float32") = R.add(metadata["relax.expr.Constant"][7], lv13)
            lv15: R.Tensor((2, 10, 4, 8), dtype="float32") = R.reshape(lv14, shape=[2, 10, 4, 8])
            lv16: R.Tensor((2, 4, 8, 10), dtype="float32") = R.permute_dims(lv15, axes=[0, 2, 3, 1])
            lv17: R.Tensor((2, 10, 32), dtype="float32") = R.matmul(lv8, metadata["relax.expr.Constant"][8], out_dtype="void")
            lv18: R.Tensor((2, 10, 32), dtype="float32") = R.add(metadata["relax.expr.Constant"][9], lv17)
            lv19: R.Tensor((2, 10, 4, 8), dtype="float32") = R.reshape(lv18, shape=[2, 10, 4, 8])
            lv20: R.Tensor((2, 4, 10, 8), dtype="float32") = R.permute_dims(lv19, axes=[0, 2, 1, 3])
            lv21: R.Tensor((2, 4, 10, 10), dtype="float32") = R.matmul(lv12, lv16, out_dtype="void")
            lv22: R.Tensor((2, 4, 10, 10), dtype="float32") = R.multiply(lv21, metadata["relax.expr.Constant"][10])
            lv23: R.Tensor((2, 4, 10, 10), dtype="float32") = R.nn.softmax(lv22, axis=3)
            lv24: R.Tensor((2, 4, 10, 8), dtype="float32") = R.matmul(lv23, lv20, out_dtype="void")
            lv25: R.Tensor((2, 10, 4, 8), dtype="float32") = R.permute_dims(lv24, axes=[0, 2, 1, 3])
            lv26: R.Tensor((2, 10, 32), dtype="float32") = R.reshape(lv25, shape=[2, 10, 32])
            lv27: R.Tensor((2, 10, 32), dtype="float32") = R.matmul(lv26, metadata["relax.expr.Constant"][11], out_dtype="void")
            lv28: R.Tensor((2, 10, 32), dtype="float32") = R.add(metadata["relax.expr.Constant"][12], lv27)
            lv29: R.Tensor((2, 10, 32), dtype="float32") = R.add(x, lv28)
            lv30: R.Tensor((2, 10, 1), dtype="float32") = R.mean(lv29, axis=[-1], keepdims=True)
            lv31: R.Tensor((2, 10, 32), dtype="float32") = R.subtract(lv29, lv30)
            lv32: R.Tensor((2, 10, 32), dtype="float32") = R.power(lv31, metadata["relax.expr.Constant"][13])
            lv33: R.Tensor((2, 10, 1), dtype="float32") = R.mean(lv32, axis=[-1], keepdims=True)
            lv34: R.Tensor((2, 10, 1), dtype="float32") = R.add(lv33, metadata["relax.expr.Constant"][14])
            lv35: R.Tensor((2, 10, 1), dtype="float32") = R.sqrt(lv34)
            lv36: R.Tensor((2, 10, 32), dtype="float32") = R.divide(lv31, lv35)
            lv37: R.Tensor((2, 10, 32), dtype="float32") = R.multiply(lv36, metadata["relax.expr.Constant"][2])
            lv38: R.Tensor((2, 10, 32), dtype="float32") = R.add(lv37, metadata["relax.expr.Constant"][3])
            lv39: R.Tensor((2, 10, 64), dtype="float32") = R.matmul(lv38, metadata["relax.expr.Constant"][15], out_dtype="void")
            lv40: R.Tensor((2, 10, 64), dtype="float32") = R.add(metadata["relax.expr.Constant"][16], lv39)
            lv41: R.Tensor((2, 10, 64), dtype="float32") = R.divide(lv40, metadata["relax.expr.Constant"][17])
            lv42: R.Tensor((2, 10, 64), dtype="float32") = R.erf(lv41)
            lv43: R.Tensor((2, 10, 64), dtype="float32") = R.add(lv42, metadata["relax.expr.Constant"][18])
            lv44: R.Tensor((2, 10, 64), dtype="float32") = R.multiply(lv40, lv43)
            lv45: R.Tensor((2, 10, 64), dtype="float32") = R.multiply(lv44, metadata["relax.expr.Constant"][19])
            lv46: R.Tensor((2, 10, 32), dtype="float32") = R.matmul(lv45, metadata["relax.expr.Constant"][20], out_dtype="void")
            lv47: R.Tensor((2, 10, 32), dtype="float32") = R.add(metadata["relax.expr.Constant"][21], lv46)
            lv48: R.Tensor((2, 10, 32), dtype="float32") = R.add(lv29, lv47)
            lv49: R.Tensor((2, 32), dtype="float32") = R.mean(lv48, axis=[1], keepdims=False)
            gv: R.Tensor((2, 32), dtype="float32") = lv49
            R.output(gv)
        return gv

# Metadata omitted. Use show_meta=True in script() method to show it.
