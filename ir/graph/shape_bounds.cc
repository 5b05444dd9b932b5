/*! \file shape_bounds.cc */
#include "ir/graph/shape_bounds.h"

#include <set>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace mlc {

namespace {
constexpr char kPrefix[] = "tir_var_upper_bound.";
}  // namespace

std::string UpperBoundAttrKey(const std::string& var_name) { return absl::StrCat(kPrefix, var_name); }

std::map<std::string, int64_t> ShapeVarUpperBounds(const relax::FunctionNode& func) {
  std::map<std::string, int64_t> out;
  for (const auto& [key, value] : func.attrs) {
    absl::string_view name = key;
    if (absl::ConsumePrefix(&name, kPrefix) && value.is<int64_t>()) out[std::string(name)] = value.get<int64_t>();
  }
  return out;
}

absl::StatusOr<std::map<std::string, int64_t>> ParseUpperBounds(const std::string& spec) {
  std::map<std::string, int64_t> out;
  for (absl::string_view item : absl::StrSplit(spec, ',', absl::SkipWhitespace())) {
    std::pair<absl::string_view, absl::string_view> kv = absl::StrSplit(item, absl::MaxSplits('=', 1));
    std::string name(absl::StripAsciiWhitespace(kv.first));
    int64_t bound;
    if (name.empty() || !absl::SimpleAtoi(absl::StripAsciiWhitespace(kv.second), &bound) || bound <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("upper bound '", item, "': expected name=positive integer, e.g. n=64"));
    }
    if (!out.emplace(name, bound).second)
      return absl::InvalidArgumentError(absl::StrCat("upper bound for ", name, " given twice"));
  }
  return out;
}

absl::StatusOr<IRModule> SetShapeUpperBounds(const IRModule& mod, const std::map<std::string, int64_t>& bounds) {
  IRModule out = mod;
  std::set<std::string> seen, all;
  for (const auto& [name, func] : mod.functions()) {
    const auto* f = func.as<relax::FunctionNode>();
    if (f == nullptr) continue;
    relax::Function updated(f);
    for (const tir::Var& v : f->ShapeVars()) {
      all.insert(v->name);
      auto it = bounds.find(v->name);
      if (it == bounds.end()) continue;
      updated = relax::WithAttr(updated, UpperBoundAttrKey(v->name), it->second);
      seen.insert(v->name);
    }
    out.Add(name, updated);
  }
  for (const auto& [name, bound] : bounds) {
    if (!seen.count(name)) {
      return absl::InvalidArgumentError(
          absl::StrCat("upper bound ", name, "=", bound, ": no graph function has a shape variable ", name,
                       all.empty() ? " (none has any)" : absl::StrCat(" (there are: ", absl::StrJoin(all, ", "), ")")));
    }
  }
  return out;
}

}  // namespace mlc
