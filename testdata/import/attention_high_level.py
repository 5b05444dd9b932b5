# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 10, 32), dtype="float32")) -> R.Tensor((2, 32), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((2, 10, 32), dtype="float32") = R.nn.layer_norm(x, metadata["relax.expr.Constant"][0], metadata["relax.expr.Constant"][1], epsilon=1e-05)
            lv1: R.Tensor((32, 32), dtype="float32") = R.permute_dims(metadata["relax.expr.Constant"][2], axes=None)
            lv2: R.Tensor((2, 10, 32), dtype="float32") = R.matmul(lv, lv1, out_dtype="void")
            lv3: R.Tensor((2, 10, 32), dtype="float32") = R.add(lv2, metadata["relax.expr.Constant"][3])
            lv4: R.Tensor((2, 10, 4, 8), dtype="float32") = R.reshape(lv3, shape=[2, 10, 4, 8])
            lv5: R.Tensor((2, 4, 10, 8), dtype="float32") = R.permute_dims(lv4, axes=[0, 2, 1, 3])
            lv6: R.Tensor((32, 32), dtype="float32") = R.permute_dims(metadata["relax.expr.Constant"][4], axes=None)
            lv7: R.Tensor((2, 10, 32), dtype="float32") = R.matmul(lv, lv6, out_dtype="void")
            lv8: R.Tensor((2, 10, 32), dtype="float32") = R.add(lv7, metadata["relax.expr.Constant"][5])
            lv9: R.Tensor((2, 10, 4, 8), dtype="float32") = R.reshape(lv8, shape=[2, 10, 4, 8])
            lv10: R.Tensor((2, 4, 8, 10), dtype="float32") = R.permute_dims(lv9, axes=[0, 2, 3, 1])
            lv11: R.Tensor((32, 32), dtype="float32") = R.permute_dims(metadata["relax.expr.Constant"][6], axes=None)
            lv12: R.Tensor((2, 10, 32), dtype="float32") = R.matmul(lv, lv11, out_dtype="void")
            lv13: R.Tensor((2, 10, 32), dtype="float32") = R.add(lv12, metadata["relax.expr.Constant"][7])
            lv14: R.Tensor((2, 10, 4, 8), dtype="float32") = R.reshape(lv13, shape=[2, 10, 4, 8])
            lv15: R.Tensor((2, 4, 10, 8), dtype="float32") = R.permute_dims(lv14, axes=[0, 2, 1, 3])
            lv16: R.Tensor((2, 4, 10, 10), dtype="float32") = R.matmul(lv5, lv10, out_dtype="void")
            lv17: R.Tensor((2, 4, 10, 10), dtype="float32") = R.multiply(lv16, metadata["relax.expr.Constant"][8])
            lv18: R.Tensor((2, 4, 10, 10), dtype="float32") = R.nn.softmax(lv17, axis=-1)
            lv19: R.Tensor((2, 4, 10, 8), dtype="float32") = R.matmul(lv18, lv15, out_dtype="void")
            lv20: R.Tensor((2, 10, 4, 8), dtype="float32") = R.permute_dims(lv19, axes=[0, 2, 1, 3])
            lv21: R.Tensor((2, 10, 32), dtype="float32") = R.reshape(lv20, shape=[2, 10, 32])
            lv22: R.Tensor((32, 32), dtype="float32") = R.permute_dims(metadata["relax.expr.Constant"][9], axes=None)
            lv23: R.Tensor((2, 10, 32), dtype="float32") = R.matmul(lv21, lv22, out_dtype="void")
            lv24: R.Tensor((2, 10, 32), dtype="float32") = R.add(lv23, metadata["relax.expr.Constant"][10])
            lv25: R.Tensor((2, 10, 32), dtype="float32") = R.add(x, lv24)
            lv26: R.Tensor((2, 10, 32), dtype="float32") = R.nn.layer_norm(lv25, metadata["relax.expr.Constant"][11], metadata["relax.expr.Constant"][12], epsilon=1e-05)
            lv27: R.Tensor((32, 64), dtype="float32") = R.permute_dims(metadata["relax.expr.Constant"][13], axes=None)
            lv28: R.Tensor((2, 10, 64), dtype="float32") = R.matmul(lv26, lv27, out_dtype="void")
            lv29: R.Tensor((2, 10, 64), dtype="float32") = R.add(lv28, metadata["relax.expr.Constant"][14])
            lv30: R.Tensor((2, 10, 64), dtype="float32") = R.multiply(lv29, metadata["relax.expr.Constant"][15])
            lv31: R.Tensor((2, 10, 64), dtype="float32") = R.erf(lv30)
            lv32: R.Tensor((2, 10, 64), dtype="float32") = R.add(lv31, metadata["relax.expr.Constant"][16])
            lv33: R.Tensor((2, 10, 64), dtype="float32") = R.multiply(lv32, metadata["relax.expr.Constant"][17])
            lv34: R.Tensor((2, 10, 64), dtype="float32") = R.multiply(lv29, lv33)
            lv35: R.Tensor((64, 32), dtype="float32") = R.permute_dims(metadata["relax.expr.Constant"][18], axes=None)
            lv36: R.Tensor((2, 10, 32), dtype="float32") = R.matmul(lv34, lv35, out_dtype="void")
            lv37: R.Tensor((2, 10, 32), dtype="float32") = R.add(lv36, metadata["relax.expr.Constant"][19])
            lv38: R.Tensor((2, 10, 32), dtype="float32") = R.add(lv25, lv37)
            lv39: R.Tensor((2, 32), dtype="float32") = R.mean(lv38, axis=[1], keepdims=False)
            gv: R.Tensor((2, 32), dtype="float32") = lv39
            R.output(gv)
        return gv

# Metadata omitted. Use show_meta=True in script() method to show it.
