/*! \file op.cc
 *  \brief The operator registry and call struct-info inference.
 */
#include "ir/graph/op.h"

#include <cstdlib>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/graph/module.h"
#include "ir/tir/analyzer.h"
#include "ir/tir/tir_util.h"

namespace mlc {
namespace relax {

const char* OpPatternName(OpPattern pattern) {
  switch (pattern) {
    case OpPattern::kElemWise: return "elemwise";
    case OpPattern::kBroadcast: return "broadcast";
    case OpPattern::kInjective: return "injective";
    case OpPattern::kCommReduce: return "reduce";
    case OpPattern::kOutEWiseFusable: return "out-elemwise-fusable";
    case OpPattern::kTuple: return "tuple";
    case OpPattern::kOpaque: return "opaque";
  }
  return "opaque";
}

OpRegistry& OpRegistry::Global() {
  static OpRegistry* registry = [] {
    auto* r = new OpRegistry();
    RegisterBuiltinOps(*r);
    return r;
  }();
  return *registry;
}

OpInfo& OpRegistry::Register(const std::string& name) {
  auto& slot = ops_[name];
  if (slot != nullptr) {
    std::cerr << "operator \"" << name << "\" registered twice\n";
    std::abort();
  }
  slot = std::make_unique<OpInfo>();
  slot->name = name;
  slot->node = Op(new OpNode(slot.get()));
  return *slot;
}

const OpInfo* OpRegistry::Find(const std::string& name) const {
  auto it = ops_.find(name);
  return it == ops_.end() ? nullptr : it->second.get();
}

std::vector<std::string> OpRegistry::ListNames() const {
  std::vector<std::string> names;
  for (const auto& [name, info] : ops_) names.push_back(name);
  return names;
}

OpInfo* OpRegistry::FindMutable(const std::string& name) {
  auto it = ops_.find(name);
  return it == ops_.end() ? nullptr : it->second.get();
}

absl::StatusOr<Op> GetOp(const std::string& name) {
  const OpInfo* info = OpRegistry::Global().Find(name);
  if (info == nullptr) {
    return absl::NotFoundError(absl::StrCat(
        "unknown operator \"", name, "\"; known operators: ", absl::StrJoin(OpRegistry::Global().ListNames(), ", ")));
  }
  return info->node;
}

Op GetOpOrDie(const std::string& name) {
  absl::StatusOr<Op> op = GetOp(name);
  if (!op.ok()) {
    std::cerr << op.status() << "\n";
    std::abort();
  }
  return *op;
}

namespace {

/*! \brief Each shape variable of `func`'s signature that a parameter dimension is by itself,
 *         with the caller's dimension there. */
std::vector<std::pair<tir::Var, tir::PrimExpr>> BindCalleeShapeVars(const FunctionNode& func, const CallNode& call) {
  std::vector<std::pair<tir::Var, tir::PrimExpr>> binding;
  for (size_t i = 0; i < func.params.size() && i < call.args.size(); ++i) {
    const auto* p = func.params[i]->struct_info().as<TensorStructInfoNode>();
    const auto* a = call.args[i]->struct_info().as<TensorStructInfoNode>();
    if (p == nullptr || a == nullptr || !p->IsSymbolic() || !a->HasKnownShape() || a->ndim != p->ndim) continue;
    std::vector<tir::PrimExpr> dims = a->Dims();
    for (size_t d = 0; d < dims.size(); ++d) {
      const auto* v = (*p->symbolic_dims)[d].as<tir::TirVarNode>();
      if (v == nullptr) continue;
      bool known = false;
      for (const auto& [var, value] : binding) known = known || var.get() == v;
      if (!known) binding.push_back({tir::Var(v), dims[d]});
    }
  }
  return binding;
}

StructInfo SubstituteShapeVars(const StructInfo& sinfo,
                               const std::vector<std::pair<tir::Var, tir::PrimExpr>>& binding) {
  if (binding.empty()) return sinfo;
  if (const auto* t = sinfo.as<TensorStructInfoNode>()) {
    if (!t->IsSymbolic()) return sinfo;
    std::vector<tir::PrimExpr> dims;
    for (const tir::PrimExpr& d : *t->symbolic_dims)
      dims.push_back(tir::Analyzer().Simplify(tir::Substitute(d, binding)));
    return TensorSInfoOfDims(dims, t->dtype);
  }
  if (const auto* tuple = sinfo.as<TupleStructInfoNode>()) {
    std::vector<StructInfo> fields;
    for (const StructInfo& f : tuple->fields) fields.push_back(SubstituteShapeVars(f, binding));
    return TupleSInfo(fields);
  }
  return sinfo;
}

}  // namespace

absl::StatusOr<StructInfo> InferCallStructInfo(const CallNode& call, const IRModule* mod) {
  if (const OpNode* op = call.op.as<OpNode>()) {
    const OpInfo& info = op->info();
    if (info.num_inputs >= 0 && static_cast<int>(call.args.size()) != info.num_inputs) {
      return absl::InvalidArgumentError(
          absl::StrCat("operator ", info.name, " takes ", info.num_inputs, " arguments, got ", call.args.size()));
    }
    for (size_t i = 0; i < call.args.size(); ++i) {
      if (!call.args[i]->struct_info().defined()) {
        return absl::InvalidArgumentError(
            absl::StrCat("operator ", info.name, ": argument ", i, " has no struct info (not normalized)"));
      }
    }
    if (info.check_attrs) {
      if (absl::Status s = info.check_attrs(call.attrs); !s.ok()) {
        return absl::Status(s.code(), absl::StrCat(info.name, ": ", s.message()));
      }
    }
    if (!info.infer) return ObjectSInfo();
    absl::StatusOr<StructInfo> result = info.infer(call);
    if (!result.ok()) {
      return absl::Status(result.status().code(), absl::StrCat(info.name, ": ", result.status().message()));
    }
    return result;
  }
  if (const GlobalVarNode* gv = call.op.as<GlobalVarNode>()) {
    if (mod == nullptr) return ObjectSInfo();
    BaseFunc callee = mod->Lookup(gv->name);
    if (!callee.defined()) return absl::NotFoundError(absl::StrCat("call of unknown function @", gv->name));
    const auto* func = callee.as<FunctionNode>();
    if (func == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("@", gv->name, " is a PrimFunc; call it through R.call_tir, not directly"));
    }
    if (func->params.size() != call.args.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("@", gv->name, " takes ", func->params.size(), " arguments, got ", call.args.size()));
    }
    // The callee's shape variables take the caller's dimensions (n := b * 2), so its signature
    // and result read in the caller's terms.
    std::vector<std::pair<tir::Var, tir::PrimExpr>> binding = BindCalleeShapeVars(*func, call);
    for (size_t i = 0; i < call.args.size(); ++i) {
      StructInfo expected = SubstituteShapeVars(func->params[i]->struct_info(), binding);
      if (!IsBaseOf(expected, call.args[i]->struct_info())) {
        return absl::InvalidArgumentError(
            absl::StrCat("@", gv->name, ": argument ", i, " (parameter ", func->params[i]->name_hint, ") expects ",
                         StructInfoToString(expected), ", got ", StructInfoToString(call.args[i]->struct_info())));
      }
    }
    // A variable no parameter dimension is by itself (seq of a fused function's (seq * batch,
    // 256)) stays as it is: fused functions share their caller's variables.
    return SubstituteShapeVars(func->ret_struct_info, binding);
  }
  if (!call.sinfo_args.empty()) return call.sinfo_args[0];
  return ObjectSInfo();
}

bool IsPureCall(const CallNode& call) {
  if (const OpNode* op = call.op.as<OpNode>()) return op->info().pure;
  // Graph-level functions in a module are pure computations; extern calls are assumed
  // impure unless they go through call_dps_packed.
  return call.op.as<GlobalVarNode>() != nullptr;
}

}  // namespace relax
}  // namespace mlc
