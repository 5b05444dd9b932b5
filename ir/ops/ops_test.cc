/*! \file ops_test.cc
 *  \brief The operator library's registrations: typed attributes (defaults, types, lengths,
 *         unknown names), that every operator can be legalized, and the generated operator and
 *         intrinsic reference (docs/operators_reference.md) kept in sync with the registries.
 */
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/graph/op.h"
#include "ir/ops/op_attrs.h"
#include "ir/testing/golden.h"
#include "ir/tir/intrinsics.h"

namespace mlc {
namespace relax {
namespace {

using ::testing::HasSubstr;

TEST(TypedAttrs, DefaultsComeFromTheDeclaration) {
  absl::StatusOr<Conv2DAttrs> a = ParseAttrs<Conv2DAttrs>({});
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->strides, (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(a->padding, (std::vector<int64_t>{0, 0, 0, 0}));
  EXPECT_EQ(a->groups, 1);
  // A single value repeats to the declared length.
  a = ParseAttrs<Conv2DAttrs>({{"strides", int64_t{2}}, {"padding", std::vector<int64_t>{1}}});
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->strides, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(a->padding, (std::vector<int64_t>{1, 1, 1, 1}));
}

TEST(TypedAttrs, BadAttributesAreErrorsThatNameThem) {
  absl::StatusOr<Conv2DAttrs> a = ParseAttrs<Conv2DAttrs>({{"stride", std::vector<int64_t>{2, 2}}});
  ASSERT_FALSE(a.ok());
  EXPECT_THAT(std::string(a.status().message()),
              HasSubstr("unknown attribute stride (attributes: data_layout, dilation, groups, kernel_layout, "
                        "out_layout, padding, strides)"));
  a = ParseAttrs<Conv2DAttrs>({{"groups", 1.5}});
  ASSERT_FALSE(a.ok());
  EXPECT_THAT(std::string(a.status().message()), HasSubstr("attribute groups must be int, got 1.5"));
  a = ParseAttrs<Conv2DAttrs>({{"padding", std::vector<int64_t>{1, 2, 3}}});
  ASSERT_FALSE(a.ok());
  EXPECT_THAT(std::string(a.status().message()), HasSubstr("attribute padding needs 4 values, got 3"));
  absl::StatusOr<Pool2DAttrs> p = ParseAttrs<Pool2DAttrs>({});
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(std::string(p.status().message()), HasSubstr("attribute pool_size is required"));
}

TEST(TypedAttrs, ToAttrsLeavesDefaultsOut) {
  Conv2DAttrs a = *ParseAttrs<Conv2DAttrs>({});
  EXPECT_TRUE(ToAttrs(a).empty());
  a.groups = 4;
  Attrs written = ToAttrs(a);
  ASSERT_EQ(written.size(), 1u);
  EXPECT_EQ(written.at("groups").get<int64_t>(), 4);
  ReduceAttrs r{{}, true};
  EXPECT_EQ(ToAttrs(r).count("axis"), 0u);  // optional and empty: None
}

TEST(Operators, EveryLibraryOperatorHasInferenceAndALegalization) {
  for (const std::string& name : OpRegistry::Global().ListNames()) {
    const OpInfo* op = OpRegistry::Global().Find(name);
    EXPECT_TRUE(op->infer) << name << " has no struct-info inference";
    if (op->builtin) continue;
    EXPECT_TRUE(op->legalize) << name << " has no legalization";
    EXPECT_FALSE(op->description.empty()) << name;
  }
}

std::string Describe() {
  std::string out =
      "# Operator and intrinsic reference\n\n"
      "Generated from the operator registry (`//ir/ops`, `ir/graph/builtin_ops.cc`) and the intrinsic table "
      "(`ir/tir/intrinsics.cc`); `//ir/ops:ops_test` keeps it in sync (rewrite with "
      "`UPDATE_GOLDENS=1 ./bazelw test //ir/ops:ops_test`).\n\n## Graph-level operators\n\n";
  for (const std::string& name : OpRegistry::Global().ListNames()) {
    const OpInfo* op = OpRegistry::Global().Find(name);
    std::string inputs = op->num_inputs < 0 ? absl::StrCat(absl::StrJoin(op->arg_names, ", "), " (variadic)")
                                            : absl::StrJoin(op->arg_names, ", ");
    absl::StrAppend(&out, "### `R.", name, "(", inputs, ")`\n\n", op->description,
                    ".\n\n- pattern: ", OpPatternName(op->pattern),
                    op->pure ? "" : "; has an effect (not allowed in dataflow blocks)",
                    "\n- legalization: ", op->legalize ? "yes" : "none (lowered by code generation)", "\n\n");
    if (!op->attrs.empty()) {
      absl::StrAppend(&out, "| attribute | type | default | meaning |\n|---|---|---|---|\n");
      for (const OpAttrSpec& a : op->attrs) {
        std::string def;
        if (a.required) {
          def = "required";
        } else if (a.default_value.is_none()) {
          def = "None";
        } else if (a.default_value.is<std::vector<int64_t>>()) {
          def = absl::StrCat("`[", absl::StrJoin(a.default_value.get<std::vector<int64_t>>(), ", "), "]`");
        } else if (a.default_value.is<int64_t>()) {
          def = absl::StrCat("`", a.default_value.get<int64_t>(), "`");
        } else if (a.default_value.is<double>()) {
          def = absl::StrCat("`", a.default_value.get<double>(), "`");
        } else if (a.default_value.is<bool>()) {
          def = a.default_value.get<bool>() ? "`True`" : "`False`";
        } else if (a.default_value.is<std::string>()) {
          def = absl::StrCat("`\"", a.default_value.get<std::string>(), "\"`");
        } else if (a.default_value.is<DataType>()) {
          def = absl::StrCat("`", a.default_value.get<DataType>().ToString(), "`");
        }
        absl::StrAppend(&out, "| `", a.name, "` | ", a.type, " | ", def, " | ", a.doc, " |\n");
      }
      out += "\n";
    }
  }
  absl::StrAppend(&out,
                  "## Loop-level intrinsics (`T.<name>`)\n\n| intrinsic | arguments | meaning | native code "
                  "|\n|---|---|---|---|\n");
  for (const tir::IntrinsicInfo& i : tir::AllIntrinsics()) {
    std::string how = i.llvm_intrinsic ? absl::StrCat("`", i.llvm_intrinsic, "`")
                      : i.libm         ? absl::StrCat("libm `", i.libm, "`")
                      : i.expand       ? "expanded"
                                       : "emitted by the code generator";
    absl::StrAppend(&out, "| `", i.name, "` | ", i.num_args, " | ", i.description, " | ", how, " |\n");
  }
  return out;
}

TEST(Operators, ReferenceDocIsInSyncWithTheRegistries) {
  absl::Status s = testing::CheckGolden("docs/operators_reference.md", Describe());
  EXPECT_TRUE(s.ok()) << s;
}

}  // namespace
}  // namespace relax
}  // namespace mlc
