/*! \file executable_variants_test.cc
 *  \brief Multi-target executables: the VM runs the variant with the most CPU features this CPU
 *         has, refuses with every target's lack when none runs, stores weights the variants
 *         share once, and merging refuses variants that a caller could tell apart.
 */
#include "vm/executable_variants.h"

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/cpu_features.h"
#include "vm/executable_format.h"
#include "vm/virtual_machine.h"

namespace mlc {
namespace vm {
namespace {

using ::testing::HasSubstr;

proto::TensorProto FloatConstant(const std::vector<float>& values) {
  proto::TensorProto c;
  c.mutable_dtype()->set_code(kDLFloat);
  c.mutable_dtype()->set_bits(32);
  c.add_shape(static_cast<int64_t>(values.size()));
  c.set_data(std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float)));
  return c;
}

// An executable for `target` whose main(x) returns its constant 0, `marker`; constant 1 is
// `shared`, the same in every variant (a model's weights that no target-specific pass changed).
proto::Executable Variant(const std::string& target, const std::vector<std::string>& features, float marker,
                          const std::vector<float>& shared) {
  proto::Executable exe;
  exe.set_magic(kExecutableMagic);
  exe.set_format_version(kExecutableFormatVersion);
  exe.set_target(target);
  for (const std::string& f : features) exe.add_cpu_features(f);
  *exe.add_constants() = FloatConstant({marker});
  *exe.add_constants() = FloatConstant(shared);
  proto::VMFunction* main = exe.add_functions();
  main->set_name("main");
  main->add_param_names("x");
  main->add_param_types()->set_any(true);
  main->set_num_registers(1);
  proto::Instruction* ret = main->add_instructions();
  ret->set_opcode(proto::Instruction::RET);
  ret->add_args()->set_constant(0);
  ret->set_dst(-1);
  return exe;
}

// What main returns: the marker of the variant the VM chose.
float RunMarker(VirtualMachine& vm) {
  NDArray x = NDArray::Empty({1}, DLDataType{kDLFloat, 32, 1});
  absl::StatusOr<Value> out = vm.Invoke("main", {Value(x)});
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok()) return -1;
  return *static_cast<const float*>(out->tensor().data());
}

// A detectable feature this CPU lacks, or "" when it has all of them.
std::string AFeatureThisCpuLacks() {
  for (const std::string& f : DetectableCpuFeatures()) {
    if (!HostHasCpuFeature(f)) return f;
  }
  return "";
}

TEST(ExecutableVariants, TheVmRunsTheVariantWithTheMostFeaturesThisCpuHas) {
  const std::vector<float> weights(1 << 18, 0.5f);  // 1 MiB
  std::vector<std::string> host = HostCpuFeatures();
  std::vector<std::string> fewer(host.begin(), host.begin() + host.size() / 2);
  std::vector<proto::Executable> variants = {Variant("few", fewer, 1, weights), Variant("all", host, 2, weights)};
  const std::string lacking = AFeatureThisCpuLacks();
  if (!lacking.empty()) {
    std::vector<std::string> more = host;
    more.push_back(lacking);
    variants.push_back(Variant("more than this CPU", more, 3, weights));
  } else {
    std::printf("this CPU has every detectable feature: the variant it cannot run is not checked\n");
  }
  absl::StatusOr<proto::Executable> merged = MergeVariants(variants);
  ASSERT_TRUE(merged.ok()) << merged.status();
  absl::StatusOr<int> chosen = SelectVariant(*merged);
  ASSERT_TRUE(chosen.ok()) << chosen.status();
  EXPECT_EQ(*chosen, 1);

  const std::string bytes = SerializeExecutable(*merged);
  // The 1 MiB of weights is in the file once, not once per variant.
  EXPECT_LT(bytes.size(), weights.size() * sizeof(float) + 64 * 1024) << "bytes: " << bytes.size();
  absl::StatusOr<std::unique_ptr<VirtualMachine>> vm = VirtualMachine::LoadBytes(bytes, "three.mlcx");
  ASSERT_TRUE(vm.ok()) << vm.status();
  EXPECT_EQ((*vm)->executable().target(), "all");
  EXPECT_EQ(RunMarker(**vm), 2);
  // Every variant's constants read back whole, the shared ones from their one place.
  absl::StatusOr<proto::Executable> parsed = ParseExecutable(bytes, "three.mlcx");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  ASSERT_EQ(parsed->variants_size(), static_cast<int>(variants.size()));
  for (const proto::Executable& v : parsed->variants()) {
    EXPECT_EQ(v.constants(1).data(), variants[0].constants(1).data()) << v.target();
  }
  EXPECT_EQ(parsed->variants(0).constants(0).data(), variants[0].constants(0).data());
}

TEST(ExecutableVariants, NoneRunnableNamesEveryTargetAndWhatItNeeds) {
  const std::string lacking = AFeatureThisCpuLacks();
  if (lacking.empty()) GTEST_SKIP() << "this CPU has every detectable feature";
  absl::StatusOr<proto::Executable> merged =
      MergeVariants({Variant("t1", {lacking}, 1, {0}), Variant("t2", {lacking}, 2, {0})});
  ASSERT_TRUE(merged.ok()) << merged.status();
  absl::StatusOr<std::unique_ptr<VirtualMachine>> vm =
      VirtualMachine::LoadBytes(SerializeExecutable(*merged), "x.mlcx");
  ASSERT_FALSE(vm.ok());
  EXPECT_EQ(vm.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(vm.status().message()), HasSubstr("none of the executable's 2 targets runs on this CPU"));
  EXPECT_THAT(std::string(vm.status().message()), HasSubstr("'t2' needs " + lacking));
}

TEST(ExecutableVariants, MergingRefusesVariantsACallerCouldTellApart) {
  auto message = [](std::vector<proto::Executable> v) {
    return std::string(MergeVariants(std::move(v)).status().message());
  };
  proto::Executable renamed = Variant("b", {}, 2, {0});
  renamed.mutable_functions(0)->set_param_names(0, "y");
  EXPECT_THAT(message({Variant("a", {}, 1, {0}), renamed}), HasSubstr("'b': function main takes other parameters"));
  proto::Executable extra = Variant("b", {}, 2, {0});
  *extra.add_functions() = extra.functions(0);
  extra.mutable_functions(1)->set_name("decode");
  EXPECT_THAT(message({Variant("a", {}, 1, {0}), extra}),
              HasSubstr("has a function decode that the executable for 'a' lacks"));
  EXPECT_THAT(message({extra, Variant("a", {}, 1, {0})}), HasSubstr("'a' lacks the function decode"));
  EXPECT_THAT(message({Variant("a", {}, 1, {0}), Variant("a", {}, 2, {0})}), HasSubstr("two executables are for 'a'"));
  absl::StatusOr<proto::Executable> nested = MergeVariants({Variant("a", {}, 1, {0})});
  ASSERT_TRUE(nested.ok());
  nested->set_target("n");
  EXPECT_THAT(message({*nested}), HasSubstr("is itself multi-target"));
  EXPECT_THAT(message({}), HasSubstr("no executables"));
}

TEST(ExecutableVariants, AVariantsConstantOutsideTheDataSectionIsNamed) {
  absl::StatusOr<proto::Executable> merged = MergeVariants({Variant("a", {}, 1, {0}), Variant("b", {}, 2, {0})});
  ASSERT_TRUE(merged.ok());
  const std::string bytes = SerializeExecutable(*merged);
  absl::StatusOr<ExecutableSections> file = ReadExecutable(bytes, "two.mlcx");
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_TRUE(CheckConstantOffsets(file->exe, file->constant_data).ok());
  file->exe.mutable_variants(1)->set_constant_offsets(1, file->constant_data.size() + 64);
  EXPECT_THAT(std::string(CheckConstantOffsets(file->exe, file->constant_data).message()),
              HasSubstr("variant 1 ('b'): constant 1"));
}

}  // namespace
}  // namespace vm
}  // namespace mlc
