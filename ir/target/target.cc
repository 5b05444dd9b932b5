/*! \file target.cc */
#include "ir/target/target.h"

#include <algorithm>
#include <optional>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "support/cpu_features.h"

namespace mlc {
namespace {

/*! \brief One CPU LLVM knows by name: its features (of the detectable ones) and caches. */
struct CpuInfo {
  const char* name;
  std::vector<std::string> features;
  int64_t l1d_bytes, l2_bytes;
};

const std::vector<CpuInfo>& CpuTable() {
  static const std::vector<CpuInfo> table = [] {
    const std::vector<std::string> v2 = *X86LevelFeatures("x86-64-v2");
    const std::vector<std::string> v3 = *X86LevelFeatures("x86-64-v3");
    const std::vector<std::string> v4 = *X86LevelFeatures("x86-64-v4");
    std::vector<std::string> icelake = v4;
    icelake.insert(icelake.end(), {"avx512ifma", "avx512vbmi", "avx512vnni"});
    std::vector<std::string> znver4 = icelake;
    znver4.push_back("avx512bf16");
    std::vector<std::string> sapphire = znver4;
    sapphire.push_back("avxvnni");
    std::vector<std::string> cascade = v4;
    cascade.push_back("avx512vnni");
    constexpr int64_t K = 1024;
    return std::vector<CpuInfo>{
        {"x86-64", {}, 32 * K, 256 * K},
        {"x86-64-v2", v2, 32 * K, 256 * K},
        {"x86-64-v3", v3, 32 * K, 256 * K},
        {"x86-64-v4", v4, 32 * K, 1024 * K},
        {"haswell", v3, 32 * K, 256 * K},
        {"skylake", v3, 32 * K, 256 * K},
        {"skylake-avx512", v4, 32 * K, 1024 * K},
        {"cascadelake", cascade, 32 * K, 1024 * K},
        {"icelake-server", icelake, 48 * K, 1280 * K},
        {"sapphirerapids", sapphire, 48 * K, 2048 * K},
        {"znver1", v3, 32 * K, 512 * K},
        {"znver2", v3, 32 * K, 512 * K},
        {"znver3", v3, 32 * K, 512 * K},
        {"znver4", znver4, 32 * K, 1024 * K},
        {"znver5", sapphire, 48 * K, 1024 * K},
    };
  }();
  return table;
}

const CpuInfo* FindCpu(absl::string_view name) {
  for (const CpuInfo& c : CpuTable()) {
    if (name == c.name) return &c;
  }
  return nullptr;
}

/*! \brief Fills the derived fields from mcpu and mattr. */
absl::Status Resolve(Target* t, int64_t l1d_bytes, int64_t l2_bytes) {
  const CpuInfo* cpu = FindCpu(t->mcpu);
  if (cpu == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("unknown CPU '", t->mcpu, "' in -mcpu (known: native, ",
                                                   absl::StrJoin(KnownCpuNames(), ", "), ")"));
  }
  std::set<std::string> on(cpu->features.begin(), cpu->features.end());
  for (const std::string& a : t->mattr) {
    std::string name = a.substr(1);
    if (a.size() < 2 || (a[0] != '+' && a[0] != '-') || !IsDetectableCpuFeature(name)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown CPU feature '", a,
          "' in -mattr (expected +name or -name, names: ", absl::StrJoin(DetectableCpuFeatures(), ", "), ")"));
    }
    if (a[0] == '+') {
      on.insert(name);
    } else {
      on.erase(name);
    }
  }
  t->features.clear();
  for (const std::string& f : DetectableCpuFeatures()) {
    if (on.count(f)) t->features.push_back(f);
  }
  bool avx512 = on.count("avx512f") > 0;
  t->vector_bits = avx512 ? 512 : on.count("avx") ? 256 : 128;
  t->vector_registers = avx512 ? 32 : 16;
  t->l1d_bytes = l1d_bytes > 0 ? l1d_bytes : cpu->l1d_bytes;
  t->l2_bytes = l2_bytes > 0 ? l2_bytes : cpu->l2_bytes;
  return absl::OkStatus();
}

/*! \brief A cache size as the target string spells it: bytes, or whole K or M of them. */
std::string SizeText(int64_t bytes) {
  constexpr int64_t K = 1024;
  if (bytes > 0 && bytes % (K * K) == 0) return absl::StrCat(bytes / (K * K), "M");
  if (bytes > 0 && bytes % K == 0) return absl::StrCat(bytes / K, "K");
  return absl::StrCat(bytes);
}

std::optional<int64_t> ParseSize(absl::string_view text) {
  int64_t unit = 1;
  if (absl::ConsumeSuffix(&text, "K")) {
    unit = 1024;
  } else if (absl::ConsumeSuffix(&text, "M")) {
    unit = 1024 * 1024;
  }
  int64_t n = 0;
  if (!absl::SimpleAtoi(text, &n) || n <= 0 || n > (int64_t{1} << 40) / unit) return std::nullopt;
  return n * unit;
}

/*! \brief -mattr of the host: the features it has beyond (or lacks from) its named CPU's. */
std::vector<std::string> HostMattr(const std::string& mcpu) {
  const CpuInfo* cpu = FindCpu(mcpu);
  std::vector<std::string> host = HostCpuFeatures(), out;
  for (const std::string& f : DetectableCpuFeatures()) {
    bool named = cpu != nullptr && std::count(cpu->features.begin(), cpu->features.end(), f) > 0;
    bool has = std::count(host.begin(), host.end(), f) > 0;
    if (has && !named) out.push_back("+" + f);
    if (!has && named) out.push_back("-" + f);
  }
  return out;
}

}  // namespace

bool Target::has(absl::string_view feature) const {
  return std::find(features.begin(), features.end(), feature) != features.end();
}

std::string Target::str() const {
  std::string out = absl::StrCat(kind, " -mcpu=", mcpu);
  if (!mattr.empty()) absl::StrAppend(&out, " -mattr=", absl::StrJoin(mattr, ","));
  // Cache sizes only where they are not the named CPU's: a host resolved to a generic level
  // (x86-64-v4 on a CPU the table does not name) keeps its own in the stages it is handed to.
  const CpuInfo* cpu = FindCpu(mcpu);
  if (cpu == nullptr || l1d_bytes != cpu->l1d_bytes) absl::StrAppend(&out, " -l1d=", SizeText(l1d_bytes));
  if (cpu == nullptr || l2_bytes != cpu->l2_bytes) absl::StrAppend(&out, " -l2=", SizeText(l2_bytes));
  return out;
}

absl::StatusOr<Target> Target::Parse(absl::string_view text) {
  std::vector<std::string> words = absl::StrSplit(text, ' ', absl::SkipWhitespace());
  if (words.empty())
    return absl::InvalidArgumentError("empty target (expected e.g. 'llvm -mcpu=native' or 'x86-64-v3')");
  Target t;
  std::string mcpu = "native";
  int64_t l1d_given = 0, l2_given = 0;
  size_t first_option = 1;
  if (words[0] != "llvm") {
    if (words[0][0] == '-') {
      first_option = 0;
    } else if (words[0] == "native" || FindCpu(words[0]) != nullptr) {
      mcpu = words[0];
    } else {
      return absl::InvalidArgumentError(absl::StrCat("unknown target kind '", words[0],
                                                     "' (the backend is 'llvm'; a CPU name alone: native, ",
                                                     absl::StrJoin(KnownCpuNames(), ", "), ")"));
    }
  }
  for (size_t i = first_option; i < words.size(); ++i) {
    absl::string_view w = words[i];
    if (absl::ConsumePrefix(&w, "-mcpu=")) {
      mcpu = std::string(w);
    } else if (absl::ConsumePrefix(&w, "-mattr=")) {
      for (absl::string_view a : absl::StrSplit(w, ',', absl::SkipEmpty())) t.mattr.push_back(std::string(a));
    } else if (absl::ConsumePrefix(&w, "-l1d=") || absl::ConsumePrefix(&w, "-l2=")) {
      std::optional<int64_t> bytes = ParseSize(w);
      if (!bytes) {
        return absl::InvalidArgumentError(
            absl::StrCat("bad cache size in '", words[i], "' (expected bytes, or K or M of them: 49152, 48K, 2M)"));
      }
      (absl::StartsWith(words[i], "-l1d=") ? l1d_given : l2_given) = *bytes;
    } else {
      return absl::InvalidArgumentError(absl::StrCat("unknown target option '", words[i],
                                                     "' (options: -mcpu=NAME, -mattr=+f,-g, -l1d=SIZE, -l2=SIZE)"));
    }
  }
  int64_t l1 = 0, l2 = 0;
  if (mcpu == "native") {
    mcpu = HostCpuName();
    std::vector<std::string> host = HostMattr(mcpu);  // the user's -mattr comes after, so it wins
    t.mattr.insert(t.mattr.begin(), host.begin(), host.end());
    HostCacheSizes caches = HostCaches();
    l1 = caches.l1d_bytes;
    l2 = caches.l2_bytes;
  }
  if (l1d_given > 0) l1 = l1d_given;
  if (l2_given > 0) l2 = l2_given;
  t.mcpu = mcpu;
  // Canonical -mattr: one entry per feature, in the detectable order, last spelling wins.
  std::vector<std::string> canonical;
  for (const std::string& f : DetectableCpuFeatures()) {
    for (auto it = t.mattr.rbegin(); it != t.mattr.rend(); ++it) {
      if (it->size() > 1 && it->substr(1) == f) {
        canonical.push_back(*it);
        break;
      }
    }
  }
  for (const std::string& a : t.mattr) {
    if (a.size() < 2 || !IsDetectableCpuFeature(a.substr(1))) canonical.push_back(a);  // Resolve names it
  }
  t.mattr = canonical;
  if (absl::Status s = Resolve(&t, l1, l2); !s.ok()) return s;
  return t;
}

Target Target::Host() {
  absl::StatusOr<Target> t = Parse("llvm -mcpu=native");
  return t.ok() ? *t : Target();
}

bool operator==(const Target& a, const Target& b) {
  return a.kind == b.kind && a.mcpu == b.mcpu && a.features == b.features;
}

absl::StatusOr<Target> TargetFromAttrs(const Attrs& module_attrs) {
  auto it = module_attrs.find(kTargetAttr);
  if (it == module_attrs.end()) return Target::Host();
  if (!it->second.is<std::string>()) return absl::InvalidArgumentError("module attribute \"target\" must be a string");
  absl::StatusOr<Target> t = Target::Parse(it->second.get<std::string>());
  if (!t.ok()) return absl::InvalidArgumentError(absl::StrCat("module attribute \"target\": ", t.status().message()));
  return t;
}

absl::Status RecordTarget(Attrs* module_attrs, const Target& target) {
  auto it = module_attrs->find(kTargetAttr);
  if (it != module_attrs->end()) {
    absl::StatusOr<Target> recorded = TargetFromAttrs(*module_attrs);
    if (!recorded.ok()) return recorded.status();
    if (*recorded != target) {
      return absl::FailedPreconditionError(
          absl::StrCat("the module was compiled for target '", recorded->str(), "', not '", target.str(),
                       "' (its schedules and packed layouts are specific to it): compile it again from the model"));
    }
  }
  (*module_attrs)[kTargetAttr] = AttrValue(target.str());
  return absl::OkStatus();
}

absl::Status RecordTargetFlag(Attrs* module_attrs, absl::string_view flag) {
  if (flag.empty()) return absl::OkStatus();
  absl::StatusOr<Target> target = Target::Parse(flag);
  if (!target.ok()) return absl::InvalidArgumentError(absl::StrCat("--target: ", target.status().message()));
  return RecordTarget(module_attrs, *target);
}

absl::StatusOr<std::vector<Target>> ParseTargetList(absl::string_view text) {
  std::vector<std::string> specs;
  for (absl::string_view piece : absl::StrSplit(text, ',')) {
    absl::string_view word = absl::StripAsciiWhitespace(piece);
    const bool continues_mattr = !specs.empty() && !word.empty() && (word[0] == '+' || word[0] == '-');
    if (continues_mattr) {
      absl::StrAppend(&specs.back(), ",", word);
    } else {
      specs.emplace_back(word);
    }
  }
  std::vector<Target> targets;
  for (size_t i = 0; i < specs.size(); ++i) {
    absl::StatusOr<Target> target = Target::Parse(specs[i]);
    if (!target.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("target ", i + 1, " of ", specs.size(), " ('", specs[i], "'): ", target.status().message()));
    }
    for (const Target& earlier : targets) {
      if (earlier == *target)
        return absl::InvalidArgumentError(absl::StrCat("target '", target->str(), "' is named twice"));
    }
    targets.push_back(*std::move(target));
  }
  return targets;
}

std::vector<std::string> KnownCpuNames() {
  std::vector<std::string> names;
  for (const CpuInfo& c : CpuTable()) names.push_back(c.name);
  return names;
}

}  // namespace mlc
