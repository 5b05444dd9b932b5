/*! \file cpu_features.cc */
#include "support/cpu_features.h"

#include <cpuid.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace mlc {
namespace {

/*! \brief The x86-64 micro-architecture levels of the psABI, each with the detectable features
 *  it adds to the level before it. */
struct X86Level {
  const char* name;
  std::vector<const char*> adds;
};

const std::vector<X86Level>& X86Levels() {
  static const std::vector<X86Level> levels = {
      {"x86-64", {}},
      {"x86-64-v2", {"sse4.2", "popcnt"}},
      {"x86-64-v3", {"avx", "fma", "f16c", "bmi", "avx2", "bmi2"}},
      {"x86-64-v4", {"avx512f", "avx512dq", "avx512cd", "avx512bw", "avx512vl"}},
  };
  return levels;
}

/*! \brief The cap MLC_MAX_ISA sets: a level's name and its features. Host detection reports
 *  nothing above it, so an AVX-512 machine can build and test as an AVX2 one would. An unknown
 *  name ends the process: silently ignoring it would test the wrong thing. */
struct IsaCap {
  std::string level;  // "" when MLC_MAX_ISA is unset
  std::vector<std::string> features;
};

const IsaCap& MaxIsa() {
  static const IsaCap cap = [] {
    const char* env = std::getenv("MLC_MAX_ISA");
    if (env == nullptr || *env == '\0') return IsaCap{};
    absl::StatusOr<std::vector<std::string>> features = X86LevelFeatures(env);
    if (!features.ok()) {
      std::fprintf(stderr, "MLC_MAX_ISA: %s\n", std::string(features.status().message()).c_str());
      std::exit(2);
    }
    return IsaCap{env, *std::move(features)};
  }();
  return cap;
}

enum Reg { kEax, kEbx, kEcx, kEdx };

/*! \brief Where CPUID reports a feature, and which XCR0 state bits the OS must enable for it. */
struct FeatureBit {
  const char* name;
  unsigned leaf, subleaf;
  Reg reg;
  int bit;
  uint64_t xcr0_mask;  // 0: no OS-managed register state needed
};

constexpr uint64_t kAvxState = 0x6;      // XMM and YMM
constexpr uint64_t kAvx512State = 0xe6;  // + opmask, ZMM_Hi256, Hi16_ZMM

constexpr FeatureBit kFeatures[] = {
    {"sse4.2", 1, 0, kEcx, 20, 0},
    {"popcnt", 1, 0, kEcx, 23, 0},
    {"avx", 1, 0, kEcx, 28, kAvxState},
    {"fma", 1, 0, kEcx, 12, kAvxState},
    {"f16c", 1, 0, kEcx, 29, kAvxState},
    {"bmi", 7, 0, kEbx, 3, 0},
    {"avx2", 7, 0, kEbx, 5, kAvxState},
    {"bmi2", 7, 0, kEbx, 8, 0},
    {"avx512f", 7, 0, kEbx, 16, kAvx512State},
    {"avx512dq", 7, 0, kEbx, 17, kAvx512State},
    {"avx512ifma", 7, 0, kEbx, 21, kAvx512State},
    {"avx512cd", 7, 0, kEbx, 28, kAvx512State},
    {"avx512bw", 7, 0, kEbx, 30, kAvx512State},
    {"avx512vl", 7, 0, kEbx, 31, kAvx512State},
    {"avx512vbmi", 7, 0, kEcx, 1, kAvx512State},
    {"avx512vnni", 7, 0, kEcx, 11, kAvx512State},
    {"avxvnni", 7, 1, kEax, 4, kAvxState},
    {"avx512bf16", 7, 1, kEax, 5, kAvx512State},
};

uint64_t EnabledStateBits() {
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 27))) return 0;  // no OSXSAVE
  uint32_t lo, hi;
  __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (static_cast<uint64_t>(hi) << 32) | lo;
}

bool Detect(const FeatureBit& f) {
  unsigned regs[4] = {0, 0, 0, 0};
  if (!__get_cpuid_count(f.leaf, f.subleaf, &regs[0], &regs[1], &regs[2], &regs[3])) return false;
  if (!(regs[f.reg] & (1u << f.bit))) return false;
  static const uint64_t state = EnabledStateBits();
  if ((state & f.xcr0_mask) != f.xcr0_mask) return false;
  const IsaCap& cap = MaxIsa();
  return cap.level.empty() || std::count(cap.features.begin(), cap.features.end(), f.name) > 0;
}

}  // namespace

absl::StatusOr<std::vector<std::string>> X86LevelFeatures(absl::string_view level) {
  std::vector<std::string> features, known;
  for (const X86Level& l : X86Levels()) {
    features.insert(features.end(), l.adds.begin(), l.adds.end());
    if (level == l.name) return features;
    known.push_back(l.name);
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown x86-64 level '", level, "' (known: ", absl::StrJoin(known, ", "), ")"));
}

std::string MaxIsaLevel() { return MaxIsa().level; }

const std::vector<std::string>& DetectableCpuFeatures() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const FeatureBit& f : kFeatures) v.push_back(f.name);
    return v;
  }();
  return names;
}

bool IsDetectableCpuFeature(absl::string_view feature) {
  const auto& all = DetectableCpuFeatures();
  return std::find(all.begin(), all.end(), feature) != all.end();
}

bool HostHasCpuFeature(absl::string_view feature) {
  for (const FeatureBit& f : kFeatures) {
    if (feature == f.name) return Detect(f);
  }
  return false;
}

std::vector<std::string> HostCpuFeatures() {
  std::vector<std::string> out;
  for (const FeatureBit& f : kFeatures) {
    if (Detect(f)) out.push_back(f.name);
  }
  return out;
}

std::string HostCpuName() {
  if (!MaxIsa().level.empty()) return MaxIsa().level;  // a capped host is its level, not its model
  unsigned a, b, c, d;
  char vendor[13] = {};
  if (__get_cpuid(0, &a, &b, &c, &d)) {
    std::copy_n(reinterpret_cast<char*>(&b), 4, vendor);
    std::copy_n(reinterpret_cast<char*>(&d), 4, vendor + 4);
    std::copy_n(reinterpret_cast<char*>(&c), 4, vendor + 8);
  }
  if (std::string(vendor) == "AuthenticAMD" && __get_cpuid(1, &a, &b, &c, &d)) {
    unsigned family = ((a >> 8) & 0xf) + ((a >> 20) & 0xff);
    unsigned model = ((a >> 4) & 0xf) | (((a >> 16) & 0xf) << 4);
    if (family == 0x1a) return "znver5";
    if (family == 0x19) {
      bool zen4 =
          (model >= 0x10 && model <= 0x1f) || (model >= 0x60 && model <= 0x7f) || (model >= 0xa0 && model <= 0xaf);
      return zen4 ? "znver4" : "znver3";
    }
    if (family == 0x17) return model >= 0x30 ? "znver2" : "znver1";
  }
  std::string best;
  for (const X86Level& l : X86Levels()) {
    bool reached = std::all_of(l.adds.begin(), l.adds.end(), [](const char* f) { return HostHasCpuFeature(f); });
    if (!reached) break;
    best = l.name;
  }
  return best;
}

bool HostHasAmxInt8() {
  static const bool has = [] {
    if (!MaxIsa().level.empty()) return false;
    unsigned a, b, c, d;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
    const bool tile = d & (1u << 24), int8 = d & (1u << 25);
    constexpr uint64_t kTileState = uint64_t{3} << 17;  // XTILECFG and XTILEDATA
    return tile && int8 && (EnabledStateBits() & kTileState) == kTileState;
  }();
  return has;
}

bool HostMayUseAmxInt8() {
  static const bool may = [] {
    if (!HostHasAmxInt8()) return false;
    // Linux hands the tile state to processes that ask (5.16 on); older kernels refuse.
    constexpr long kReqXcompPerm = 0x1023, kXfeatureTileData = 18;
    return syscall(SYS_arch_prctl, kReqXcompPerm, kXfeatureTileData) == 0;
  }();
  return may;
}

HostCacheSizes HostCaches() {
  HostCacheSizes c;
  long l1 = sysconf(_SC_LEVEL1_DCACHE_SIZE), l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
  c.l1d_bytes = l1 > 0 ? l1 : 0;
  c.l2_bytes = l2 > 0 ? l2 : 0;
  return c;
}

}  // namespace mlc
