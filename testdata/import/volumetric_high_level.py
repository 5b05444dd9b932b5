# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 2, 6, 11, 9), dtype="float32")) -> R.Tensor((2, 4), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((2, 6, 6, 11, 9), dtype="float32") = R.nn.conv3d(x, metadata["relax.expr.Constant"][0], strides=[1, 1, 1], padding=[1, 1, 1, 1, 1, 1], dilation=[1, 1, 1], groups=1, data_layout="NCDHW", kernel_layout="OIDHW", out_layout="")
            lv1: R.Tensor((2, 6, 6, 11, 9), dtype="float32") = R.add(lv, metadata["relax.expr.Constant"][1])
            lv2: R.Tensor((2, 6, 6, 11, 9), dtype="float32") = R.multiply(lv1, metadata["relax.expr.Constant"][2])
            lv3: R.Tensor((2, 6, 6, 11, 9), dtype="float32") = R.add(lv2, metadata["relax.expr.Constant"][3])
            lv4: R.Tensor((2, 6, 6, 11, 9), dtype="float32") = R.nn.relu(lv3)
            lv5: R.Tensor((2, 6, 3, 5, 4), dtype="float32") = R.nn.max_pool3d(lv4, pool_size=[2, 3, 3], strides=[2, 2, 2], padding=[0, 0, 0, 0, 0, 0], dilation=[1, 1, 1], ceil_mode=True, count_include_pad=True, layout="NCDHW")
            lv6: R.Tensor((2, 6, 3, 3, 4), dtype="float32") = R.nn.conv3d(lv5, metadata["relax.expr.Constant"][4], strides=[1, 2, 1], padding=[0, 2, 2, 0, 2, 2], dilation=[1, 2, 2], groups=3, data_layout="NCDHW", kernel_layout="OIDHW", out_layout="")
            lv7: R.Tensor((2, 6, 3, 3, 4), dtype="float32") = R.add(lv6, metadata["relax.expr.Constant"][5])
            lv8: R.Tensor((2, 6, 3, 3, 4), dtype="float32") = R.nn.avg_pool3d(lv7, pool_size=[3, 3, 3], strides=[1, 1, 1], padding=[1, 1, 1, 1, 1, 1], dilation=[1, 1, 1], ceil_mode=False, count_include_pad=False, layout="NCDHW")
            lv9: R.Tensor((2, 6), dtype="float32") = R.mean(lv8, axis=[2, 3, 4], keepdims=False)
            lv10: R.Tensor((6, 4), dtype="float32") = R.permute_dims(metadata["relax.expr.Constant"][6], axes=None)
            lv11: R.Tensor((2, 4), dtype="float32") = R.matmul(lv9, lv10, out_dtype="void")
            lv12: R.Tensor((2, 4), dtype="float32") = R.add(lv11, metadata["relax.expr.Constant"][7])
            gv: R.Tensor((2, 4), dtype="float32") = lv12
            R.output(gv)
        return gv

# Metadata omitted. Use show_meta=True in script() method to show it.
