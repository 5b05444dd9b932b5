/*! \file symbolic_shape_test.cc
 *  \brief Symbolic dimensions as deep as data-dependent sizes make them (a chain of clamps,
 *         min(max(...)), past protobuf's default nesting limit of 100 messages) survive the
 *         executable's serialization and evaluate; deeper than kMaxDimExprDepth is refused.
 */
#include "vm/symbolic_shape.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "vm/executable_format.h"

namespace mlc {
namespace vm {
namespace {

using ::testing::HasSubstr;

// min(max(...min(max(n, 0), 1000)..., 0), 1000) + 1 with `clamps` clamps: n + 1 for n in [0, 1000].
proto::DimExpr ClampChain(int clamps) {
  proto::DimExpr e;
  e.set_var(0);
  for (int i = 0; i < clamps; ++i) {
    proto::DimExpr outer;
    proto::DimBinary* b = outer.mutable_binary();
    b->set_op(i % 2 == 0 ? proto::DimBinary::MAX : proto::DimBinary::MIN);
    *b->mutable_a() = std::move(e);
    b->mutable_b()->set_value(i % 2 == 0 ? 0 : 1000);
    e = std::move(outer);
  }
  proto::DimExpr sum;
  sum.mutable_binary()->set_op(proto::DimBinary::ADD);
  *sum.mutable_binary()->mutable_a() = std::move(e);
  sum.mutable_binary()->mutable_b()->set_value(1);
  return sum;
}

TEST(SymbolicShape, ADeepClampChainSurvivesTheExecutableAndEvaluates) {
  proto::Executable exe;
  exe.set_magic(kExecutableMagic);
  exe.set_format_version(kExecutableFormatVersion);
  proto::VMFunction* main = exe.add_functions();
  main->set_name("main");
  main->add_shape_vars("n");
  proto::TensorType* t = main->add_param_types()->mutable_tensor();
  *t->add_symbolic_dims() = ClampChain(300);  // 600 messages deep
  absl::StatusOr<proto::Executable> back = ParseExecutable(SerializeExecutable(exe), "deep.mlcx");
  ASSERT_TRUE(back.ok()) << back.status();
  const proto::DimExpr& dim = back->functions(0).param_types(0).tensor().symbolic_dims(0);
  absl::StatusOr<DimProgram> program = DimProgram::Decode(dim, 1);
  ASSERT_TRUE(program.ok()) << program.status();
  EXPECT_EQ(*program->Evaluate({41}), 42);
  EXPECT_EQ(*program->Evaluate({5000}), 1001);  // clamped at 1000
}

TEST(SymbolicShape, DeeperThanTheLimitIsRefused) {
  absl::StatusOr<DimProgram> program = DimProgram::Decode(ClampChain(kMaxDimExprDepth + 1), 1);
  ASSERT_FALSE(program.ok());
  EXPECT_THAT(program.status().message(), HasSubstr("nested too deeply"));
}

}  // namespace
}  // namespace vm
}  // namespace mlc
