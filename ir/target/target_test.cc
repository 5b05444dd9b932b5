#include "ir/target/target.h"

#include "gtest/gtest.h"
#include "support/cpu_features.h"

namespace mlc {
namespace {

TEST(Target, NamedCpusGiveTheirVectorShape) {
  absl::StatusOr<Target> v3 = Target::Parse("x86-64-v3");
  ASSERT_TRUE(v3.ok()) << v3.status();
  EXPECT_EQ(v3->str(), "llvm -mcpu=x86-64-v3");
  EXPECT_EQ(v3->float_lanes(), 8);
  EXPECT_EQ(v3->vector_registers, 16);
  EXPECT_TRUE(v3->has("fma"));
  EXPECT_FALSE(v3->has("avx512f"));

  absl::StatusOr<Target> zen4 = Target::Parse("llvm -mcpu=znver4");
  ASSERT_TRUE(zen4.ok()) << zen4.status();
  EXPECT_EQ(zen4->float_lanes(), 16);
  EXPECT_EQ(zen4->vector_registers, 32);
  EXPECT_EQ(zen4->l2_bytes, 1024 * 1024);
}

TEST(Target, MattrTurnsFeaturesOffAndOn) {
  absl::StatusOr<Target> t = Target::Parse("llvm -mcpu=znver4 -mattr=-avx512f,-avx512bw");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_FALSE(t->has("avx512f"));
  EXPECT_EQ(t->float_lanes(), 8);
  EXPECT_EQ(t->vector_registers, 16);
  EXPECT_EQ(t->str(), "llvm -mcpu=znver4 -mattr=-avx512f,-avx512bw");
}

TEST(Target, CanonicalSpellingRoundTrips) {
  for (const char* text :
       {"x86-64-v4", "llvm -mcpu=skylake -mattr=+avx512f,-fma", "native", "llvm -mcpu=native -mattr=-avx2"}) {
    absl::StatusOr<Target> t = Target::Parse(text);
    ASSERT_TRUE(t.ok()) << text << ": " << t.status();
    absl::StatusOr<Target> again = Target::Parse(t->str());
    ASSERT_TRUE(again.ok()) << t->str() << ": " << again.status();
    EXPECT_EQ(*t, *again) << text;
    EXPECT_EQ(t->str(), again->str()) << text;
    EXPECT_NE(t->mcpu, "native") << "native is resolved when parsed";
  }
}

TEST(Target, CacheSizesTravelInTheSpelling) {
  absl::StatusOr<Target> t = Target::Parse("llvm -mcpu=x86-64-v4 -l1d=48K -l2=2M");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->l1d_bytes, 48 * 1024);
  EXPECT_EQ(t->l2_bytes, 2 * 1024 * 1024);
  EXPECT_EQ(t->str(), "llvm -mcpu=x86-64-v4 -l1d=48K -l2=2M");
  // The named CPU's own sizes are not spelled out.
  EXPECT_EQ(Target::Parse("llvm -mcpu=x86-64-v4 -l2=1M")->str(), "llvm -mcpu=x86-64-v4");
  EXPECT_EQ(Target::Parse("x86-64-v3 -l1d=49152")->l1d_bytes, 49152);
  // A host resolved to a generic level keeps its own caches through str() and Parse().
  const Target host = Target::Host();
  const HostCacheSizes caches = HostCaches();
  if (caches.l1d_bytes > 0) EXPECT_EQ(host.l1d_bytes, caches.l1d_bytes);
  if (caches.l2_bytes > 0) EXPECT_EQ(host.l2_bytes, caches.l2_bytes);
  absl::StatusOr<Target> again = Target::Parse(host.str());
  ASSERT_TRUE(again.ok()) << host.str() << ": " << again.status();
  EXPECT_EQ(again->l1d_bytes, host.l1d_bytes) << host.str();
  EXPECT_EQ(again->l2_bytes, host.l2_bytes) << host.str();
  auto message = [](const char* text) { return std::string(Target::Parse(text).status().message()); };
  EXPECT_NE(message("x86-64-v4 -l2=big").find("bad cache size in '-l2=big'"), std::string::npos);
  EXPECT_NE(message("x86-64-v4 -l1d=0").find("bad cache size"), std::string::npos);
}

TEST(Target, NativeHasExactlyTheHostsFeatures) {
  Target host = Target::Host();
  EXPECT_EQ(host.features, HostCpuFeatures());
  EXPECT_EQ(host.float_lanes(), HostHasCpuFeature("avx512f") ? 16 : HostHasCpuFeature("avx") ? 8 : 4);
  absl::StatusOr<Target> no_avx2 = Target::Parse("llvm -mcpu=native -mattr=-avx2");
  ASSERT_TRUE(no_avx2.ok());
  EXPECT_FALSE(no_avx2->has("avx2"));
}

TEST(Target, BadSpellingsNameWhatIsWrong) {
  auto message = [](const char* text) { return std::string(Target::Parse(text).status().message()); };
  EXPECT_NE(message("cuda").find("unknown target kind 'cuda'"), std::string::npos);
  EXPECT_NE(message("llvm -mcpu=pentium9").find("unknown CPU 'pentium9'"), std::string::npos);
  EXPECT_NE(message("llvm -mcpu=znver4 -mattr=+avx1024").find("unknown CPU feature '+avx1024'"), std::string::npos);
  EXPECT_NE(message("llvm -mtune=znver4").find("unknown target option '-mtune=znver4'"), std::string::npos);
  EXPECT_NE(message("  ").find("empty target"), std::string::npos);
}

TEST(Target, ListsSplitBetweenTargetsNotInsideMattr) {
  absl::StatusOr<std::vector<Target>> two = ParseTargetList("llvm -mcpu=znver4 -mattr=-avx512f,-avx512bw, x86-64-v4");
  ASSERT_TRUE(two.ok()) << two.status();
  ASSERT_EQ(two->size(), 2u);
  EXPECT_EQ((*two)[0].str(), "llvm -mcpu=znver4 -mattr=-avx512f,-avx512bw");
  EXPECT_EQ((*two)[1].str(), "llvm -mcpu=x86-64-v4");
  absl::StatusOr<std::vector<Target>> one = ParseTargetList("x86-64-v3");
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->size(), 1u);
  auto message = [](const char* text) { return std::string(ParseTargetList(text).status().message()); };
  EXPECT_NE(message("x86-64-v3,pentium9").find("target 2 of 2 ('pentium9')"), std::string::npos)
      << message("x86-64-v3,pentium9");
  EXPECT_NE(message("x86-64-v3,llvm -mcpu=x86-64-v3").find("named twice"), std::string::npos);
  EXPECT_NE(message("x86-64-v3,").find("empty target"), std::string::npos);
}

TEST(Target, ModuleAttributeRecordsTheTarget) {
  Attrs attrs;
  absl::StatusOr<Target> none = TargetFromAttrs(attrs);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(*none, Target::Host());
  attrs[kTargetAttr] = AttrValue(std::string("x86-64-v3"));
  EXPECT_EQ(TargetFromAttrs(attrs)->mcpu, "x86-64-v3");
  attrs[kTargetAttr] = AttrValue(std::string("llvm -mcpu=pentium9"));
  EXPECT_NE(std::string(TargetFromAttrs(attrs).status().message()).find("module attribute \"target\""),
            std::string::npos);
}

}  // namespace
}  // namespace mlc
