# RUN: --passes=scatter-rows
# torchvision's MultiScaleRoIAlign exported to ONNX writes each level's pooled rows back with
# out.scatter(0, idx.view(-1, 1, 1).expand_as(rows), rows): along axis 0 with one index per
# row, it becomes a scatter of whole rows (ScatterND at idx[:, None]). Along axis 1 the same
# broadcast index is a column index per row: left as it is.
@I.ir_module
class Module:
    @R.function
    def main(data: R.Tensor((6, 4, 2), dtype="float32"), i: R.Tensor(("n",), dtype="int64"), rows: R.Tensor(("n", 4, 2), dtype="float32")):
        n = T.int64()
        with R.dataflow():
            r = R.reshape(i, shape=None, sinfo_args=R.Tensor((n, 1, 1), dtype="int64"))
            b = R.broadcast_to(r, shape=None, sinfo_args=R.Tensor((n, 4, 2), dtype="int64"))
            merged = R.call_dps_packed("mlc.scatter_elements", (data, b, rows, metadata["relax.expr.Constant"][0]), out_sinfo=R.Tensor((6, 4, 2), dtype="float32"))
            columns = R.call_dps_packed("mlc.scatter_elements", (merged, b, rows, metadata["relax.expr.Constant"][1]), out_sinfo=R.Tensor((6, 4, 2), dtype="float32"))
            R.output(columns)
        return columns
# CHECK: R.reshape(i, shape=None, sinfo_args=R.Tensor((n, 1), dtype="int64"))
# CHECK: R.call_dps_packed("mlc.scatter_nd", (data,
# CHECK: R.call_dps_packed("mlc.scatter_elements", (
