#include "support/resource_limits.h"

#include "gtest/gtest.h"

namespace mlc {
namespace {

TEST(ResourceLimits, ParsesSuffixesAndPowersOfTwo) {
  ResourceLimits limits;
  ASSERT_TRUE(
      ParseResourceLimits("max_tensor_bytes=2G, max_kernel_iterations=2^20,max_nesting_depth=300", &limits).ok());
  EXPECT_EQ(limits.max_tensor_bytes, int64_t{2} << 30);
  EXPECT_EQ(limits.max_kernel_iterations, int64_t{1} << 20);
  EXPECT_EQ(limits.max_nesting_depth, 300);
  EXPECT_EQ(limits.max_fold_steps, ResourceLimits().max_fold_steps);  // untouched
}

TEST(ResourceLimits, RejectsUnknownNamesAndBadValues) {
  ResourceLimits limits;
  absl::Status s = ParseResourceLimits("max_tensor_size=1", &limits);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("unknown limit 'max_tensor_size'"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("max_tensor_bytes"), std::string::npos) << "lists the known limits: " << s.message();
  for (const char* bad : {"max_nesting_depth=0", "max_nesting_depth=-3", "max_nesting_depth=ten",
                          "max_nesting_depth=2^99", "max_nesting_depth"}) {
    s = ParseResourceLimits(bad, &limits);
    EXPECT_FALSE(s.ok()) << bad;
    EXPECT_NE(s.message().find("max_nesting_depth takes a positive integer"), std::string::npos) << s.message();
  }
}

TEST(ResourceLimits, HugeValuesSaturateInsteadOfWrapping) {
  ResourceLimits limits;
  ASSERT_TRUE(ParseResourceLimits("max_tensor_bytes=9000000000000T", &limits).ok());
  EXPECT_EQ(limits.max_tensor_bytes, std::numeric_limits<int64_t>::max());
}

TEST(ResourceLimits, HintNamesTheLimitItsValueAndTheFlag) {
  ResourceLimits saved = GetResourceLimits();
  ResourceLimits limits;
  limits.max_tensor_bytes = int64_t{3} << 30;
  SetResourceLimits(limits);
  EXPECT_EQ(LimitHint("max_tensor_bytes"),
            "limit max_tensor_bytes = 3 GiB; change it with --limits=max_tensor_bytes=...");
  SetResourceLimits(saved);
  EXPECT_EQ(HumanBytes(int64_t{3} << 29), "1.5 GiB");
  EXPECT_EQ(HumanBytes(100), "100 B");
  EXPECT_NE(DescribeResourceLimits(ResourceLimits()).find("max_kernel_iterations  2^38"), std::string::npos)
      << DescribeResourceLimits(ResourceLimits());
}

}  // namespace
}  // namespace mlc
