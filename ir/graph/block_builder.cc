/*! \file block_builder.cc
 *  \brief BlockBuilder.
 */
#include "ir/graph/block_builder.h"

#include "absl/strings/str_cat.h"
#include "ir/graph/op.h"
#include "ir/graph/printer.h"
#include "ir/graph/shape_util.h"
#include "ir/graph/structural_equal.h"
#include "ir/tir/analyzer.h"

namespace mlc {
namespace relax {

absl::Status BlockBuilder::RequireFunction(const char* what) const {
  if (!func_) return absl::FailedPreconditionError(absl::StrCat(what, " outside a function: call BeginFunction first"));
  return absl::OkStatus();
}

absl::Status BlockBuilder::BeginFunction(const std::string& name, std::optional<std::vector<Var>> params, Attrs attrs) {
  if (func_) {
    return absl::FailedPreconditionError(absl::StrCat("BeginFunction(\"", name, "\") inside function \"", func_->name,
                                                      "\": end it with EmitFuncOutput first"));
  }
  FunctionFrame frame;
  frame.name = name;
  frame.attrs = std::move(attrs);
  if (params) {
    for (const Var& p : *params) frame.names.insert(p->name_hint);
  }
  frame.params = std::move(params);
  func_ = std::move(frame);
  return absl::OkStatus();
}

absl::Status BlockBuilder::BeginDataflow() {
  if (absl::Status s = RequireFunction("BeginDataflow"); !s.ok()) return s;
  if (func_->in_dataflow) return absl::FailedPreconditionError("BeginDataflow inside a dataflow block");
  FlushBlock();
  func_->in_dataflow = true;
  return absl::OkStatus();
}

absl::Status BlockBuilder::EndDataflow() {
  if (absl::Status s = RequireFunction("EndDataflow"); !s.ok()) return s;
  if (!func_->in_dataflow) return absl::FailedPreconditionError("EndDataflow without BeginDataflow");
  FlushBlock();
  func_->in_dataflow = false;
  return absl::OkStatus();
}

void BlockBuilder::FlushBlock() {
  if (func_->current.empty()) return;
  func_->blocks.push_back(BindingBlock(new BindingBlockNode(std::move(func_->current), func_->in_dataflow)));
  func_->current.clear();
}

std::string BlockBuilder::FreshName(const std::string& hint) {
  std::string name = hint;
  int& next = func_->next_suffix[hint];
  if (next == 0) next = 1;
  while (func_->names.count(name)) name = absl::StrCat(hint, next++);
  func_->names.insert(name);
  return name;
}

absl::StatusOr<Expr> BlockBuilder::Normalize(Expr expr) {
  switch (expr->kind()) {
    case NodeKind::kCall: {
      const CallNode* call = expr.as<CallNode>();
      bool changed = false;
      std::vector<Expr> args;
      for (const Expr& a : call->args) {
        absl::StatusOr<Expr> n = Normalize(a);
        if (!n.ok()) return n.status();
        // Arguments are leaves in normal form: a nested call is bound first.
        if ((*n)->kind() == NodeKind::kCall && func_) {
          absl::StatusOr<Var> v = Emit(*n);
          if (!v.ok()) return v.status();
          n = Expr(*v);
        }
        changed = changed || !n->same_as(a);
        args.push_back(*n);
      }
      Call out = changed ? MakeCall(call->op, args, call->attrs, call->sinfo_args) : expr.as_ref<Call>();
      if (!out->struct_info().defined()) {
        absl::StatusOr<StructInfo> sinfo;
        std::vector<DimAssumptions::Equality> assumed;
        {
          DimAssumptions scope;
          sinfo = InferCallStructInfo(*out, &mod_);
          assumed = scope.assumed();
        }
        if (!sinfo.ok()) return sinfo.status();
        if (!assumed.empty()) {
          absl::StatusOr<Call> checked = CastToAssumedShapes(out, assumed);
          if (!checked.ok()) return checked.status();
          out = *checked;
          sinfo = InferCallStructInfo(*out, &mod_);  // the shapes agree now; nothing to assume
          if (!sinfo.ok()) return sinfo.status();
        }
        out->SetStructInfoOnce(*sinfo);
      }
      return Expr(out);
    }
    case NodeKind::kTuple: {
      const TupleNode* tuple = expr.as<TupleNode>();
      bool changed = false;
      std::vector<Expr> fields;
      for (const Expr& f : tuple->fields) {
        absl::StatusOr<Expr> n = Normalize(f);
        if (!n.ok()) return n.status();
        changed = changed || !n->same_as(f);
        fields.push_back(*n);
      }
      if (!changed && expr->struct_info().defined()) return expr;
      return MakeTuple(fields);
    }
    // Leaves carry their struct info from construction; a TupleGetItem takes its field's.
    case NodeKind::kVar:
    case NodeKind::kDataflowVar:
    case NodeKind::kConstant:
    case NodeKind::kTupleGetItem:
    case NodeKind::kShapeExpr:
    case NodeKind::kGlobalVar:
    case NodeKind::kExternFunc:
    case NodeKind::kOp:
    case NodeKind::kSeqExpr:
    case NodeKind::kIf:  // its branches are normalized where they are made
      MLC_CASES_NOT_EXPR
      return expr;
  }
}

absl::StatusOr<Call> BlockBuilder::CastToAssumedShapes(const Call& call,
                                                       const std::vector<DimAssumptions::Equality>& assumed) {
  if (!func_) {
    return absl::FailedPreconditionError(absl::StrCat(PrintExpr(call),
                                                      ": shapes that agree only at run time need a function ",
                                                      "to check them in (call BeginFunction first)"));
  }
  std::vector<Expr> args;
  for (const Expr& a : call->args) {
    const auto* t = a->struct_info().as<TensorStructInfoNode>();
    if (t == nullptr || !t->IsSymbolic()) {
      args.push_back(a);
      continue;
    }
    std::vector<tir::PrimExpr> dims = t->Dims();
    bool cast = false;
    for (tir::PrimExpr& d : dims) {
      for (const DimAssumptions::Equality& e : assumed) {
        if (tir::ExprDeepEqual(d, e.replaced)) {
          d = e.kept;
          cast = true;
        }
      }
    }
    if (!cast) {
      args.push_back(a);
      continue;
    }
    // R.match_cast checks, when the program runs, the equality inference assumed.
    absl::StatusOr<Var> v = Emit(MakeCall(GetOpOrDie("match_cast"), {a}, {}, {TensorSInfoOfDims(dims, t->dtype)}));
    if (!v.ok()) return v.status();
    args.push_back(*v);
  }
  return MakeCall(call->op, args, call->attrs, call->sinfo_args);
}

absl::StatusOr<Var> BlockBuilder::EmitBinding(Expr value, bool dataflow_var, const std::string& name) {
  absl::StatusOr<Expr> normalized = Normalize(std::move(value));
  if (!normalized.ok()) return normalized.status();
  const StructInfo& sinfo = (*normalized)->struct_info();
  Var var = dataflow_var ? MakeDataflowVar(name, sinfo) : MakeVar(name, sinfo);
  func_->current.push_back(VarBinding(new VarBindingNode(var, *normalized)));
  return var;
}

absl::StatusOr<Var> BlockBuilder::Emit(Expr value, const std::string& name_hint) {
  if (absl::Status s = RequireFunction("Emit"); !s.ok()) return s;
  return EmitBinding(std::move(value), func_->in_dataflow, FreshName(name_hint.empty() ? "lv" : name_hint));
}

absl::StatusOr<Var> BlockBuilder::EmitOutput(Expr value, const std::string& name_hint) {
  if (absl::Status s = RequireFunction("EmitOutput"); !s.ok()) return s;
  if (!func_->in_dataflow) return absl::FailedPreconditionError("EmitOutput outside a dataflow block");
  return EmitBinding(std::move(value), false, FreshName(name_hint.empty() ? "gv" : name_hint));
}

absl::StatusOr<GlobalVar> BlockBuilder::EmitFuncOutput(Expr result, std::optional<std::vector<Var>> params) {
  if (absl::Status s = RequireFunction("EmitFuncOutput"); !s.ok()) return s;
  if (func_->in_dataflow) {
    return absl::FailedPreconditionError("EmitFuncOutput inside a dataflow block: call EndDataflow first");
  }
  if (params && func_->params) {
    return absl::FailedPreconditionError(
        absl::StrCat("function ", func_->name, ": parameters were given to BeginFunction and again to EmitFuncOutput"));
  }
  if (result->kind() == NodeKind::kDataflowVar) {
    return absl::FailedPreconditionError(
        absl::StrCat("function ", func_->name, " would return DataflowVar ", result.as<VarNode>()->name_hint,
                     ", which is local to its dataflow block; return the Var from EmitOutput instead"));
  }
  absl::StatusOr<Expr> body = Normalize(std::move(result));
  if (!body.ok()) return body.status();
  FlushBlock();
  std::vector<Var> fn_params = params ? *params : func_->params.value_or(std::vector<Var>{});
  Attrs attrs = func_->attrs;
  if (!attrs.count("global_symbol")) attrs["global_symbol"] = func_->name;
  Function func = MakeFunction(fn_params, SeqExpr(new SeqExprNode(func_->blocks, *body)), nullptr, attrs);
  std::string name = UniqueFunctionName(func_->name);
  if (name != func_->name) {
    Attrs renamed = func->attrs;
    renamed["global_symbol"] = name;
    func = Function(new FunctionNode(func->params, func->body, func->ret_struct_info, renamed));
  }
  mod_.Add(name, func);
  func_.reset();
  return MakeGlobalVar(name);
}

void BlockBuilder::PrimIndex::Insert(const std::string& name, const BaseFunc& f) {
  if (f->kind() != NodeKind::kPrimFunc) return;
  size_t hash = StructuralHash(f);
  by_hash.emplace(hash, name);
  hash_of[name] = hash;
}

void BlockBuilder::PrimIndex::Erase(const std::string& name) {
  auto h = hash_of.find(name);
  if (h == hash_of.end()) return;
  auto [begin, end] = by_hash.equal_range(h->second);
  for (auto it = begin; it != end; ++it) {
    if (it->second == name) {
      by_hash.erase(it);
      break;
    }
  }
  hash_of.erase(h);
}

BlockBuilder::PrimIndex& BlockBuilder::Index() {
  if (!prim_index_) {
    prim_index_.emplace();
    for (const auto& [name, f] : mod_.functions()) prim_index_->Insert(name, f);
  }
  return *prim_index_;
}

GlobalVar BlockBuilder::AddFunc(BaseFunc func, const std::string& name_hint) {
  if (func->kind() == NodeKind::kPrimFunc) {
    auto [begin, end] = Index().by_hash.equal_range(StructuralHash(func));
    for (auto it = begin; it != end; ++it) {
      if (StructuralEqual(mod_.Lookup(it->second), func)) return MakeGlobalVar(it->second);
    }
  }
  std::string name = UniqueFunctionName(name_hint);
  mod_.Add(name, func);
  if (prim_index_) prim_index_->Insert(name, func);
  added_.push_back(name);
  return MakeGlobalVar(name);
}

std::string BlockBuilder::UniqueFunctionName(const std::string& hint) {
  if (!mod_.Contains(hint)) return hint;
  int& next = next_function_suffix_[hint];
  if (next == 0) next = 1;
  std::string name;
  do {
    name = absl::StrCat(hint, next++);
  } while (mod_.Contains(name));
  return name;
}

absl::Status BlockBuilder::UpdateFunc(const std::string& name, BaseFunc func) {
  if (!mod_.Contains(name)) return absl::NotFoundError(absl::StrCat("UpdateFunc: no function @", name));
  if (prim_index_) {
    prim_index_->Erase(name);
    prim_index_->Insert(name, func);
  }
  mod_.Add(name, std::move(func));
  return absl::OkStatus();
}

}  // namespace relax
}  // namespace mlc
