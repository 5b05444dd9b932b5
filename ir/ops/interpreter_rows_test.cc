/*! \file interpreter_rows_test.cc
 *  \brief The loop-level interpreter's row mode (ir/tir/interpreter.h) against its element-by-
 *         element walk, on the kernels of library operators: the same bits, the same errors,
 *         and rows taken exactly where a nest allows them.
 */
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "ir/graph/block_builder.h"
#include "ir/graph/op.h"
#include "ir/tir/interpreter.h"

namespace mlc {
namespace relax {
namespace {

/*! \brief A library operator applied to constants, lowered to the PrimFunc constant folding
 *  interprets, with its operands and a result tensor to run it on. */
struct LoweredCall {
  tir::PrimFunc prim;
  std::vector<TensorData> inputs;
  DataType out_dtype;
  std::vector<int64_t> out_shape;
};

LoweredCall Lower(const std::string& op, std::vector<TensorData> inputs, Attrs attrs = {}) {
  std::vector<Expr> args;
  for (const TensorData& t : inputs) args.push_back(MakeConstant(t));
  BlockBuilder bb;
  absl::StatusOr<Expr> call = bb.Normalize(MakeCall(GetOpOrDie(op), args, std::move(attrs)));
  EXPECT_TRUE(call.ok()) << call.status();
  const auto* c = call->as<CallNode>();
  const auto* out = c->struct_info().as<TensorStructInfoNode>();
  BlockBuilder scratch;
  absl::StatusOr<Expr> lowered = c->op.as<OpNode>()->info().legalize(&scratch, *c);
  EXPECT_TRUE(lowered.ok()) << lowered.status();
  const auto* call_tir = lowered->as<CallNode>();
  return {scratch.module().LookupPrimFunc(call_tir->args[0].as<GlobalVarNode>()->name), std::move(inputs), out->dtype,
          *out->shape};
}

struct Outcome {
  absl::Status status;
  TensorData result;
  tir::InterpretStats stats;
};

Outcome Interpret(const LoweredCall& l, bool rows, int64_t max_steps = int64_t{1} << 28) {
  std::vector<TensorData> tensors = l.inputs;
  tensors.emplace_back(l.out_dtype, l.out_shape);
  std::vector<TensorData*> ptrs;
  for (TensorData& t : tensors) ptrs.push_back(&t);
  tir::InterpretOptions options;
  options.max_steps = max_steps;
  options.rows = rows;
  Outcome run;
  run.status = tir::InterpretPrimFunc(l.prim, ptrs, options, &run.stats);
  run.result = tensors.back();
  return run;
}

TensorData Random(DataType dtype, std::vector<int64_t> shape, std::mt19937* rng, double lo = -3, double hi = 3) {
  TensorData t(dtype, std::move(shape));
  std::uniform_real_distribution<double> u(lo, hi);
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    const double v = u(*rng);
    char* p = static_cast<char*>(t.mutable_data()) + i * dtype.bytes();
    if (dtype == DataType::Float(32)) {
      const float f = static_cast<float>(v);
      std::memcpy(p, &f, 4);
    } else {
      const int64_t n = static_cast<int64_t>(std::llround(v));
      std::memcpy(p, &n, dtype.bytes());
    }
  }
  return t;
}

bool SameBytes(const TensorData& a, const TensorData& b) {
  return a.NumElements() == b.NumElements() && a.dtype() == b.dtype() &&
         std::memcmp(a.data(), b.data(), a.NumElements() * a.dtype().bytes()) == 0;
}

/*! \brief Runs `l` both ways: the same bytes, and rows for every iteration of its nest where
 *  `in_rows` (none otherwise). */
void ExpectRowsAsElements(const LoweredCall& l, bool in_rows, const std::string& what) {
  SCOPED_TRACE(what);
  Outcome elements = Interpret(l, /*rows=*/false), rows = Interpret(l, /*rows=*/true);
  ASSERT_TRUE(elements.status.ok()) << elements.status;
  ASSERT_TRUE(rows.status.ok()) << rows.status;
  EXPECT_TRUE(SameBytes(elements.result, rows.result));
  EXPECT_EQ(elements.stats.row_iterations, 0);
  const int64_t n = elements.result.NumElements();
  EXPECT_EQ(rows.stats.row_iterations, in_rows ? n : 0);
}

// Elementwise operators, broadcasts and data movement run in rows with the element walk's bits:
// a per-channel quantize (division, rounding half to even, saturation to int8), float32
// arithmetic rounded per operation, a broadcast, a transpose, a cast, a padding (a selection),
// integer arithmetic.
TEST(InterpreterRows, ElementwiseAndMovementGiveTheElementBits) {
  std::mt19937 rng(5);
  ExpectRowsAsElements(Lower("quantize",
                             {Random(DataType::Float(32), {16, 8, 3, 3}, &rng, -2, 2),
                              Random(DataType::Float(32), {16}, &rng, 0.004, 0.02), ScalarTensor(0, DataType::Int(8))},
                             {{"axis", int64_t{0}}, {"out_dtype", DataType::Int(8)}}),
                       true, "quantize per channel");
  ExpectRowsAsElements(
      Lower("divide", {Random(DataType::Float(32), {7, 50}, &rng), Random(DataType::Float(32), {7, 1}, &rng, 0.5, 3)}),
      true, "divide, broadcast");
  ExpectRowsAsElements(
      Lower("permute_dims", {Random(DataType::Float(32), {3, 40, 5}, &rng)}, {{"axes", std::vector<int64_t>{2, 0, 1}}}),
      true, "transpose");
  ExpectRowsAsElements(
      Lower("astype", {Random(DataType::Float(32), {300}, &rng, -300, 300)}, {{"dtype", DataType::Int(8)}}), true,
      "cast to int8");
  ExpectRowsAsElements(Lower("nn.pad", {Random(DataType::Float(32), {1, 2, 10, 10}, &rng)},
                             {{"pad_width", std::vector<int64_t>{0, 0, 0, 0, 1, 1, 2, 2}}}),
                       true, "pad");
  ExpectRowsAsElements(Lower("floor_mod", {Random(DataType::Int(32), {9, 20}, &rng, -50, 50),
                                           Random(DataType::Int(32), {20}, &rng, 1, 9)}),
                       true, "integer floor_mod");
}

// A matrix product and a running sum read the tensor they write (an accumulation, a scan):
// they stay element by element, with the same result.
TEST(InterpreterRows, NestsThatReadWhatTheyWriteRunElementByElement) {
  std::mt19937 rng(6);
  ExpectRowsAsElements(
      Lower("matmul", {Random(DataType::Float(32), {12, 9}, &rng), Random(DataType::Float(32), {9, 11}, &rng)}), false,
      "matmul");
  ExpectRowsAsElements(Lower("cumsum", {Random(DataType::Float(32), {4, 60}, &rng)}, {{"axis", int64_t{1}}}), false,
                       "cumsum");
}

// Failures are the element walk's: a division by zero with its message (the row gives up and
// the element path reports it), and the step limit at the same count.
TEST(InterpreterRows, FailuresAreTheElementWalks) {
  std::mt19937 rng(7);
  TensorData divisor = Random(DataType::Int(32), {20}, &rng, 1, 9);
  static_cast<int32_t*>(divisor.mutable_data())[13] = 0;
  LoweredCall by_zero = Lower("floor_mod", {Random(DataType::Int(32), {9, 20}, &rng, -50, 50), divisor});
  Outcome elements = Interpret(by_zero, false), rows = Interpret(by_zero, true);
  EXPECT_FALSE(elements.status.ok());
  EXPECT_EQ(rows.status, elements.status);
  // The nest of a 6 x 50 broadcast takes 6 + 300 loop steps and 300 stores.
  LoweredCall add = Lower("add", {Random(DataType::Float(32), {6, 50}, &rng), Random(DataType::Float(32), {50}, &rng)});
  for (int64_t limit : {605, 606}) {
    Outcome e = Interpret(add, false, limit), r = Interpret(add, true, limit);
    EXPECT_EQ(e.status.ok(), limit >= 606) << e.status;
    EXPECT_EQ(r.status, e.status) << "limit " << limit;
    if (e.status.ok()) {
      EXPECT_TRUE(SameBytes(e.result, r.result));
    }
  }
}

}  // namespace
}  // namespace relax
}  // namespace mlc
