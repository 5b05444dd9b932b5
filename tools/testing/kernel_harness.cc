/*! \file kernel_harness.cc */
#include "tools/testing/kernel_harness.h"

#include <cmath>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "ir/graph/op.h"
#include "ir/graph/printer.h"
#include "ir/te/call_te.h"
#include "passes/pass.h"

namespace mlc {
namespace testing_util {

using vm::NDArray;
using vm::Value;

NDArray Random(std::vector<int64_t> shape, std::mt19937* rng, float lo, float hi) {
  NDArray a = NDArray::Empty(shape, DLDataType{kDLFloat, 32, 1});
  std::uniform_real_distribution<float> dist(lo, hi);
  float* p = static_cast<float*>(a.data());
  for (int64_t i = 0; i < a.NumElements(); ++i) p[i] = dist(*rng);
  return a;
}

TensorData ToTensorData(const NDArray& a) { return TensorData(kF32, a.shape(), a.Bytes()); }
NDArray ToNDArray(const TensorData& t) {
  absl::StatusOr<NDArray> a = NDArray::FromBytes(
      t.shape(), DLDataType{static_cast<uint8_t>(t.dtype().code()), static_cast<uint8_t>(t.dtype().bits()), 1},
      t.bytes());
  EXPECT_TRUE(a.ok()) << a.status();
  return a.ok() ? *std::move(a) : NDArray();
}

namespace {
/*! \brief Element i of a float32, float64, int32 or int64 tensor. */
double ValueAt(const NDArray& a, int64_t i) {
  const DLDataType t = a.dtype();
  if (t.code == kDLInt && t.bits == 64) return static_cast<double>(static_cast<const int64_t*>(a.data())[i]);
  if (t.code == kDLInt && t.bits == 32) return static_cast<const int32_t*>(a.data())[i];
  if (t.code == kDLFloat && t.bits == 64) return static_cast<const double*>(a.data())[i];
  return F(a)[i];
}
}  // namespace

void ExpectClose(const NDArray& got, const std::vector<double>& want, double rtol, double atol) {
  ASSERT_EQ(got.NumElements(), static_cast<int64_t>(want.size()));
  double worst = 0;
  int64_t worst_i = -1;
  for (size_t i = 0; i < want.size(); ++i) {
    const double value = ValueAt(got, static_cast<int64_t>(i));
    // NaN where a number is wanted (or the reverse) fails: every comparison with NaN is false,
    // so the tolerance test below would let it through.
    if (std::isnan(value) != std::isnan(want[i])) {
      ADD_FAILURE() << "element " << i << ": got " << value << ", want " << want[i];
      return;
    }
    if (value == want[i] || std::isnan(value)) continue;  // equal (infinities too), or both NaN
    double err = std::abs(value - want[i]) - rtol * std::abs(want[i]);
    if (err > worst) {
      worst = err;
      worst_i = static_cast<int64_t>(i);
    }
  }
  EXPECT_LE(worst, atol) << "element " << worst_i << ": got " << ValueAt(got, worst_i) << ", want " << want[worst_i];
}

std::vector<int64_t> Strides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i) s[i] = s[i + 1] * shape[i + 1];
  return s;
}

Reference Elementwise(std::function<double(const std::vector<double>&)> f) {
  return [f](const std::vector<NDArray>& in, const std::vector<int64_t>& out_shape) {
    int64_t n = 1;
    for (int64_t d : out_shape) n *= d;
    std::vector<int64_t> os = Strides(out_shape);
    std::vector<double> out(n);
    for (int64_t flat = 0; flat < n; ++flat) {
      std::vector<double> vals;
      for (const NDArray& a : in) {
        std::vector<int64_t> as = Strides(a.shape());
        int64_t offset = 0, rank = static_cast<int64_t>(a.shape().size()),
                shift = static_cast<int64_t>(out_shape.size()) - rank;
        for (int64_t d = 0; d < rank; ++d) {
          int64_t idx = (flat / os[d + shift]) % out_shape[d + shift];
          offset += (a.shape()[d] == 1 ? 0 : idx) * as[d];
        }
        vals.push_back(F(a)[offset]);
      }
      out[flat] = f(vals);
    }
    return out;
  };
}

namespace {

/*! \brief Float32 parameters in0, in1, ... of the given shapes. */
std::vector<relax::Var> Params(const std::vector<std::vector<int64_t>>& shapes) {
  std::vector<relax::Var> params;
  for (size_t i = 0; i < shapes.size(); ++i) {
    params.push_back(relax::MakeVar(absl::StrCat("in", i), relax::TensorSInfo(shapes[i], kF32)));
  }
  return params;
}

std::vector<NDArray> RandomInputs(const std::vector<std::vector<int64_t>>& shapes, uint32_t seed, float lo, float hi) {
  std::mt19937 rng(seed);
  std::vector<NDArray> inputs;
  for (const auto& shape : shapes) inputs.push_back(Random(shape, &rng, lo, hi));
  return inputs;
}

/*! \brief Compiles `mod`, runs main on the inputs not marked constant (the module holds the
 *  others), compares with `reference` of all of them. */
void CheckOnInputs(const IRModule& mod, const std::vector<NDArray>& inputs, const std::vector<bool>& constant,
                   const Reference& reference, double rtol, double atol) {
  absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> vm = Compile(mod);
  ASSERT_TRUE(vm.ok()) << vm.status();
  std::vector<Value> values;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (i >= constant.size() || !constant[i]) values.push_back(inputs[i]);
  }
  absl::StatusOr<Value> result = (*vm)->Invoke("main", values);
  ASSERT_TRUE(result.ok()) << result.status();
  ExpectClose(result->tensor(), reference(inputs, result->tensor().shape()), rtol, atol);
}

/*! \brief Compiles `mod`, runs main on inputs drawn from `seed` in [lo, hi), compares with `reference`. */
void CheckOnRandomInputs(const IRModule& mod, const std::vector<std::vector<int64_t>>& shapes, uint32_t seed, float lo,
                         float hi, const Reference& reference, double rtol, double atol) {
  CheckOnInputs(mod, RandomInputs(shapes, seed, lo, hi), {}, reference, rtol, atol);
}

}  // namespace

void RunKernelCase(const KernelCase& c, double rtol, double atol) {
  SCOPED_TRACE(c.name);
  relax::BlockBuilder bb;
  std::vector<relax::Var> params = Params(c.inputs);
  ASSERT_TRUE(bb.BeginFunction("main", params).ok());
  absl::StatusOr<relax::Var> out =
      te::EmitTE(&bb, c.name, c.fte, std::vector<relax::Expr>(params.begin(), params.end()));
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_TRUE(bb.EmitFuncOutput(*out).ok());
  CheckOnRandomInputs(bb.Get(), c.inputs, 99, c.lo, c.hi, c.reference, rtol, atol);
  // The same kernel after the default schedule rules (tiled, packed, vectorized, parallel).
  SCOPED_TRACE("after default-schedule");
  absl::StatusOr<IRModule> scheduled = passes::RunPipeline(bb.Get(), *passes::ParsePipeline("default-schedule"));
  ASSERT_TRUE(scheduled.ok()) << scheduled.status();
  CheckOnRandomInputs(*scheduled, c.inputs, 99, c.lo, c.hi, c.reference, rtol, atol);
}

std::string RunOpCase(const std::string& op, const Attrs& attrs, const std::vector<std::vector<int64_t>>& inputs,
                      const std::string& pipeline, const Reference& reference, float lo, float hi) {
  return RunOpCaseWithConstants(op, attrs, inputs, {}, pipeline, reference, lo, hi);
}

std::string RunOpCaseWithConstants(const std::string& op, const Attrs& attrs,
                                   const std::vector<std::vector<int64_t>>& inputs, const std::vector<bool>& constant,
                                   const std::string& pipeline, const Reference& reference, float lo, float hi) {
  SCOPED_TRACE(absl::StrCat(op, " through ", pipeline));
  std::vector<NDArray> values = RandomInputs(inputs, 7, lo, hi);
  relax::BlockBuilder bb;
  std::vector<relax::Var> params;
  std::vector<relax::Expr> args;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (i < constant.size() && constant[i]) {
      args.push_back(relax::MakeConstant(ToTensorData(values[i])));
    } else {
      params.push_back(relax::MakeVar(absl::StrCat("in", i), relax::TensorSInfo(inputs[i], kF32)));
      args.push_back(params.back());
    }
  }
  EXPECT_TRUE(bb.BeginFunction("main", params).ok());
  absl::StatusOr<relax::Var> out = bb.Emit(relax::MakeCall(relax::GetOpOrDie(op), args, attrs));
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok()) return "";
  EXPECT_TRUE(bb.EmitFuncOutput(*out).ok());
  absl::StatusOr<std::vector<std::unique_ptr<passes::Pass>>> passes = passes::ParsePipeline(pipeline);
  EXPECT_TRUE(passes.ok()) << passes.status();
  if (!passes.ok()) return "";
  absl::StatusOr<IRModule> lowered = passes::RunPipeline(bb.Get(), *passes);
  EXPECT_TRUE(lowered.ok()) << lowered.status();
  if (!lowered.ok()) return "";
  CheckOnInputs(*lowered, values, constant, reference, 1e-5, 1e-5);
  if (absl::StrContains(pipeline, "legalize") && !absl::StrContains(pipeline, "default-schedule")) {
    SCOPED_TRACE("after default-schedule");
    absl::StatusOr<IRModule> scheduled = passes::RunPipeline(*lowered, *passes::ParsePipeline("default-schedule"));
    EXPECT_TRUE(scheduled.ok()) << scheduled.status();
    if (scheduled.ok()) CheckOnInputs(*scheduled, values, constant, reference, 1e-5, 1e-5);
  }
  return PrintModule(*lowered);
}

}  // namespace testing_util
}  // namespace mlc
