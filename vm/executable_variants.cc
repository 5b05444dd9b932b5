/*! \file executable_variants.cc
 *  \brief Merging single-target executables into one and choosing the variant to run.
 */
#include "vm/executable_variants.h"

#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "support/cpu_features.h"
#include "vm/executable_format.h"

namespace mlc {
namespace vm {
namespace {

// A function's interface as a caller sees it: its parameters' names and types.
std::string Interface(const proto::VMFunction& f) {
  std::string key = absl::StrJoin(f.param_names(), ",");
  for (const proto::ValueType& t : f.param_types()) absl::StrAppend(&key, "|", t.SerializeAsString());
  return key;
}

}  // namespace

absl::StatusOr<proto::Executable> MergeVariants(std::vector<proto::Executable> variants) {
  if (variants.empty()) return absl::InvalidArgumentError("no executables to merge");
  std::map<std::string, std::string> interface;  // function name -> Interface(), of the first
  for (const proto::VMFunction& f : variants[0].functions()) interface[f.name()] = Interface(f);
  std::set<std::string> targets;
  for (const proto::Executable& v : variants) {
    const std::string name = absl::StrCat("the executable for '", v.target(), "'");
    if (v.variants_size() > 0) return absl::InvalidArgumentError(absl::StrCat(name, " is itself multi-target"));
    if (v.magic() != kExecutableMagic || v.format_version() != kExecutableFormatVersion) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, " is not an executable of format version ", kExecutableFormatVersion));
    }
    if (!targets.insert(v.target()).second)
      return absl::InvalidArgumentError(absl::StrCat("two executables are for '", v.target(), "'"));
    std::set<std::string> seen;
    for (const proto::VMFunction& f : v.functions()) {
      auto it = interface.find(f.name());
      if (it == interface.end()) {
        return absl::InvalidArgumentError(absl::StrCat(name, " has a function ", f.name(), " that the executable for '",
                                                       variants[0].target(), "' lacks"));
      }
      if (it->second != Interface(f)) {
        return absl::InvalidArgumentError(absl::StrCat(name, ": function ", f.name(),
                                                       " takes other parameters than in the executable for '",
                                                       variants[0].target(), "'"));
      }
      seen.insert(f.name());
    }
    if (seen.size() != interface.size()) {
      for (const auto& [f, unused] : interface) {
        if (!seen.count(f)) return absl::InvalidArgumentError(absl::StrCat(name, " lacks the function ", f));
      }
    }
  }
  proto::Executable out;
  out.set_magic(kExecutableMagic);
  out.set_format_version(kExecutableFormatVersion);
  for (proto::Executable& v : variants) *out.add_variants() = std::move(v);
  return out;
}

std::vector<std::string> LackingCpuFeatures(const proto::Executable& exe) {
  std::vector<std::string> lacking;
  for (const std::string& f : exe.cpu_features()) {
    if (!HostHasCpuFeature(f)) lacking.push_back(f);
  }
  return lacking;
}

absl::StatusOr<int> SelectVariant(const proto::Executable& exe) {
  int best = -1;
  std::vector<std::string> refused;
  for (int i = 0; i < exe.variants_size(); ++i) {
    const proto::Executable& v = exe.variants(i);
    std::vector<std::string> lacking = LackingCpuFeatures(v);
    if (!lacking.empty()) {
      refused.push_back(absl::StrCat("'", v.target(), "' needs ", absl::StrJoin(lacking, ", ")));
      continue;
    }
    if (best < 0 || v.cpu_features_size() > exe.variants(best).cpu_features_size()) best = i;
  }
  if (best >= 0) return best;
  if (exe.variants_size() == 0) return absl::InvalidArgumentError("the executable has no variants");
  return absl::FailedPreconditionError(absl::StrCat("none of the executable's ", exe.variants_size(),
                                                    " targets runs on this CPU (", HostCpuName(),
                                                    "): ", absl::StrJoin(refused, "; ")));
}

}  // namespace vm
}  // namespace mlc
