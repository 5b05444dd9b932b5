/*! \file bind_params.cc
 *  \brief Parameter binding.
 */
#include "passes/bind_params.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/graph/expr_functor.h"

namespace mlc {
namespace passes {

absl::StatusOr<IRModule> BindParams(const IRModule& mod, const std::string& func_name,
                                    const std::map<std::string, TensorData>& params) {
  relax::Function func = mod.LookupFunction(func_name);
  if (!func.defined()) return absl::NotFoundError(absl::StrCat("bind-params: no graph function @", func_name));
  std::vector<std::string> names;
  for (const relax::Var& p : func->params) names.push_back(p->name_hint);
  std::unordered_map<const Object*, relax::Expr> map;
  std::vector<relax::Var> kept;
  std::set<std::string> used;
  for (const relax::Var& p : func->params) {
    auto it = params.find(p->name_hint);
    if (it == params.end()) {
      kept.push_back(p);
      continue;
    }
    used.insert(p->name_hint);
    relax::Expr c = relax::MakeConstant(it->second);
    if (!relax::IsBaseOf(p->struct_info(), c->struct_info())) {
      return absl::InvalidArgumentError(absl::StrCat("bind-params: parameter ", p->name_hint, " of @", func_name,
                                                     " is ", relax::StructInfoToString(p->struct_info()),
                                                     ", the value given is ",
                                                     relax::StructInfoToString(c->struct_info())));
    }
    map[p.get()] = c;
  }
  for (const auto& [name, value] : params) {
    if (!used.count(name)) {
      return absl::InvalidArgumentError(absl::StrCat("bind-params: @", func_name, " has no parameter \"", name,
                                                     "\" (parameters: ", absl::StrJoin(names, ", "), ")"));
    }
  }
  absl::StatusOr<relax::Function> body = relax::SubstituteVars(func, map, mod);
  if (!body.ok()) return body.status();
  IRModule out = mod;
  out.Add(func_name, relax::MakeFunction(kept, (*body)->body, (*body)->ret_struct_info, (*body)->attrs));
  return out;
}

}  // namespace passes
}  // namespace mlc
