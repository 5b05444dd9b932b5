# RUN: --passes=fuse-ops,legalize,fuse-tir,apply-tuning-records{db=testdata/passes/apply_tuning_records/empty.tuning.pb}
# A database without a record for this kernel leaves it unscheduled, for default-schedule.
# (Records that apply, and ones that must not, are tested in //tools:tune_test, which makes
# them with the tuner.)
# EXPECT: no change
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=x86-64-v3"})

    @R.function
    def main(x: R.Tensor((16, 64), dtype="float32"), w: R.Tensor((32, 64), dtype="float32")):
        with R.dataflow():
            gv = R.nn.dense(x, w)
            R.output(gv)
        return gv
# CHECK-NOT: T.parallel
# CHECK-NOT: T.gemm_tile
