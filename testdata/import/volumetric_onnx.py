# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 2, 6, 11, 9), dtype="float32")) -> R.Tensor((2, 4), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((2, 6, 6, 11, 9), dtype="float32") = R.nn.conv3d(x, metadata["relax.expr.Constant"][0], strides=[1, 1, 1], padding=[1, 1, 1, 1, 1, 1], dilation=[1, 1, 1], groups=1, data_layout="NCDHW", kernel_layout="OIDHW", out_layout="")
            lv1: R.Tensor((2, 6, 6, 11, 9), dtype="float32") = R.add(lv, metadata["relax.expr.Constant"][1])
            lv2: R.Tensor((2, 6, 6, 11, 9), dtype="float32") = R.nn.relu(lv1)
            lv3: R.Tensor((2, 6, 3, 5, 4), dtype="float32") = R.nn.max_pool3d(lv2, pool_size=[2, 3, 3], strides=[2, 2, 2], padding=[0, 0, 0, 0, 0, 0], dilation=[1, 1, 1], ceil_mode=True, count_include_pad=True, layout="NCDHW")
            lv4: R.Tensor((2, 6, 3, 3, 4), dtype="float32") = R.nn.conv3d(lv3, metadata["relax.expr.Constant"][2], strides=[1, 2, 1], padding=[0, 2, 2, 0, 2, 2], dilation=[1, 2, 2], groups=3, data_layout="NCDHW", kernel_layout="OIDHW", out_layout="")
            lv5: R.Tensor((2, 6, 3, 3, 4), dtype="float32") = R.add(lv4, metadata["relax.expr.Constant"][3])
            lv6: R.Tensor((2, 6, 3, 3, 4), dtype="float32") = R.nn.avg_pool3d(lv5, pool_size=[3, 3, 3], strides=[1, 1, 1], padding=[1, 1, 1, 1, 1, 1], dilation=[1, 1, 1], ceil_mode=False, count_include_pad=False, layout="NCDHW")
            lv7: R.Tensor((2, 6), dtype="float32") = R.mean(lv6, axis=[2, 3, 4], keepdims=False)
            lv8: R.Tensor((2, 4), dtype="float32") = R.nn.dense(lv7, metadata["relax.expr.Constant"][4])
            lv9: R.Tensor((2, 4), dtype="float32") = R.add(lv8, metadata["relax.expr.Constant"][5])
            gv: R.Tensor((2, 4), dtype="float32") = lv9
            R.output(gv)
        return gv

# Metadata omitted. Use show_meta=True in script() method to show it.
