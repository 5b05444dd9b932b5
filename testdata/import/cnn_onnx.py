# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 17, 15), dtype="float32")) -> R.Tensor((2, 5), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((2, 8, 17, 15), dtype="float32") = R.nn.conv2d(x, metadata["relax.expr.Constant"][0], strides=[1, 1], padding=[1, 1, 1, 1], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="OIHW", out_layout="")
            lv1: R.Tensor((2, 8, 17, 15), dtype="float32") = R.add(lv, metadata["relax.expr.Constant"][1])
            lv2: R.Tensor((2, 8, 17, 15), dtype="float32") = R.nn.relu(lv1)
            lv3: R.Tensor((2, 8, 9, 8), dtype="float32") = R.nn.max_pool2d(lv2, pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1], dilation=[1, 1], ceil_mode=False, count_include_pad=True, layout="NCHW")
            lv4: R.Tensor((2, 8, 5, 4), dtype="float32") = R.nn.conv2d(lv3, metadata["relax.expr.Constant"][2], strides=[2, 2], padding=[2, 2, 2, 2], dilation=[2, 2], groups=4, data_layout="NCHW", kernel_layout="OIHW", out_layout="")
            lv5: R.Tensor((2, 8, 5, 4), dtype="float32") = R.nn.relu(lv4)
            lv6: R.Tensor((2, 8, 5, 4), dtype="float32") = R.maximum(lv5, metadata["relax.expr.Constant"][3])
            lv7: R.Tensor((2, 8, 5, 4), dtype="float32") = R.minimum(lv6, metadata["relax.expr.Constant"][4])
            lv8: R.Tensor((2, 8, 7, 6), dtype="float32") = R.nn.pad(lv7, pad_width=[0, 0, 0, 0, 1, 1, 1, 1], pad_value=0.0, pad_mode="constant")
            lv9: R.Tensor((2, 8, 3, 3), dtype="float32") = R.nn.avg_pool2d(lv8, pool_size=[3, 3], strides=[2, 2], padding=[0, 0, 0, 0], dilation=[1, 1], ceil_mode=True, count_include_pad=False, layout="NCHW")
            lv10: R.Tensor((2, 8, 4, 6), dtype="float32") = R.nn.pad(lv9, pad_width=[0, 0, 0, 0, 0, 1, 1, 2], pad_value=0.25, pad_mode="constant")
            lv11: R.Tensor((2, 16, 4, 6), dtype="float32") = R.nn.conv2d(lv10, metadata["relax.expr.Constant"][5], strides=[1, 1], padding=[0, 0, 0, 0], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="OIHW", out_layout="")
            lv12: R.Tensor((2, 16, 4, 6), dtype="float32") = R.add(lv11, metadata["relax.expr.Constant"][6])
            lv13: R.Tensor((2, 16, 1, 1), dtype="float32") = R.nn.adaptive_avg_pool2d(lv12, output_size=[1, 1], layout="NCHW")
            lv14: R.Tensor((2, 16), dtype="float32") = R.reshape(lv13, shape=[2, -1])
            lv15: R.Tensor((2, 5), dtype="float32") = R.nn.dense(lv14, metadata["relax.expr.Constant"][7])
            lv16: R.Tensor((2, 5), dtype="float32") = R.add(lv15, metadata["relax.expr.Constant"][8])
            gv: R.Tensor((2, 5), dtype="float32") = lv16
            R.output(gv)
        return gv

# Metadata omitted. Use show_meta=True in script() method to show it.
