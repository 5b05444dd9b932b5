/*! \file resource_check.cc */
#include "ir/graph/resource_check.h"

#include <unordered_set>

#include "absl/strings/str_cat.h"
#include "ir/graph/expr_functor.h"
#include "ir/graph/printer.h"
#include "ir/tir/prim_func.h"
#include "support/checked_math.h"
#include "support/resource_limits.h"

namespace mlc {
namespace {

absl::Status TooLarge(const std::string& where, const std::string& what, int64_t bytes) {
  return absl::ResourceExhaustedError(
      absl::StrCat(where, ": ", what, " needs ", HumanBytes(bytes), " (", LimitHint("max_tensor_bytes"), ")"));
}

/*! \brief Tensors of a graph-level function, and the constants it holds. */
class FunctionCheck : public relax::ExprVisitor {
 public:
  FunctionCheck(const std::string& name, std::unordered_set<const Object*>* constants_seen, int64_t* constant_bytes)
      : name_(name), constants_seen_(constants_seen), constant_bytes_(constant_bytes) {}

  absl::Status Check(const relax::FunctionNode* f) {
    for (const relax::Var& p : f->params) Sinfo(p->struct_info(), absl::StrCat("parameter ", p->name_hint));
    VisitFunction(f);
    return status_;
  }

 protected:
  void VisitBinding(const relax::VarBinding& b) override {
    Sinfo(b->var->struct_info(), absl::StrCat("binding ", b->var->name_hint));
    relax::ExprVisitor::VisitBinding(b);
  }
  void VisitExpr_(const relax::ConstantNode* op) override {
    if (!status_.ok() || !constants_seen_->insert(op).second) return;
    const int64_t bytes = static_cast<int64_t>(op->data.NumBytes());
    if (bytes > GetResourceLimits().max_tensor_bytes) {
      status_ = TooLarge(absl::StrCat("function @", name_), "a constant", bytes);
      return;
    }
    *constant_bytes_ = SaturatingAdd(*constant_bytes_, bytes);
  }

 private:
  void Sinfo(const relax::StructInfo& s, const std::string& what) {
    if (!status_.ok() || !s.defined()) return;
    if (const auto* t = s.as<relax::TensorStructInfoNode>()) {
      if (!t->shape || t->dtype.is_void()) return;
      const int64_t bytes = TensorBytes(*t->shape, t->dtype);
      if (bytes > GetResourceLimits().max_tensor_bytes) {
        status_ =
            TooLarge(absl::StrCat("function @", name_), absl::StrCat(what, " of type ", StructInfoToString(s)), bytes);
      }
    } else if (const auto* tuple = s.as<relax::TupleStructInfoNode>()) {
      for (const relax::StructInfo& f : tuple->fields) Sinfo(f, what);
    }
  }

  std::string name_;
  std::unordered_set<const Object*>* constants_seen_;
  int64_t* constant_bytes_;
  absl::Status status_;
};

/*! \brief Buffers and iteration counts of a PrimFunc. */
class PrimFuncCheck {
 public:
  explicit PrimFuncCheck(const std::string& name) : name_(name) {}

  absl::Status Check(const tir::PrimFuncNode* f) {
    for (const tir::Buffer& b : f->params) Buffer(b);
    Walk(f->body, 1);
    if (status_.ok() && iterations_ > GetResourceLimits().max_kernel_iterations) {
      status_ =
          absl::ResourceExhaustedError(absl::StrCat("PrimFunc @", name_, ": its loops run ", iterations_,
                                                    " statement instances (", LimitHint("max_kernel_iterations"), ")"));
    }
    return status_;
  }

 private:
  void Buffer(const tir::Buffer& b) {
    if (!status_.ok()) return;
    int64_t bytes = b->dtype.bytes();
    for (const tir::PrimExpr& e : b->shape) {
      const auto* imm = e.as<tir::IntImmNode>();
      if (imm == nullptr) return;  // a symbolic extent is checked when it is known
      bytes = SaturatingMul(bytes, imm->value);
    }
    if (bytes > GetResourceLimits().max_tensor_bytes) {
      status_ = TooLarge(absl::StrCat("PrimFunc @", name_), absl::StrCat("buffer ", b->name), bytes);
    }
  }

  // Adds to iterations_ the statement instances under `s`, entered `times` times.
  void Walk(const tir::Stmt& s, int64_t times) {
    if (!status_.ok() || !s.defined()) return;
    switch (s->kind()) {
      case NodeKind::kFor: {
        const auto* f = s.as<tir::ForNode>();
        const auto* extent = f->extent.as<tir::IntImmNode>();
        Walk(f->body, extent != nullptr ? SaturatingMul(times, std::max<int64_t>(extent->value, 0)) : times);
        return;
      }
      case NodeKind::kSeqStmt:
        for (const tir::Stmt& inner : s.as<tir::SeqStmtNode>()->seq) Walk(inner, times);
        return;
      case NodeKind::kIfThenElse: {
        const auto* ite = s.as<tir::IfThenElseNode>();
        Walk(ite->then_case, times);
        Walk(ite->else_case, times);
        return;
      }
      case NodeKind::kBlockRealize: Walk(s.as<tir::BlockRealizeNode>()->block, times); return;
      case NodeKind::kBlock: {
        const auto* b = s.as<tir::BlockNode>();
        for (const tir::Buffer& a : b->alloc_buffers) Buffer(a);
        Walk(b->init, times);
        Walk(b->body, times);
        return;
      }
      case NodeKind::kAllocate: {
        const auto* a = s.as<tir::AllocateNode>();
        Buffer(a->buffer);
        Walk(a->body, times);
        return;
      }
      default:  // a store, an evaluated call: one instance per entry
        iterations_ = SaturatingAdd(iterations_, times);
        return;
    }
  }

  std::string name_;
  int64_t iterations_ = 0;
  absl::Status status_;
};

}  // namespace

absl::Status CheckResourceLimits(const IRModule& mod) {
  std::unordered_set<const Object*> constants_seen;  // a constant shared by functions counts once
  int64_t constant_bytes = 0;
  for (const auto& [name, func] : mod.functions()) {
    absl::Status s;
    if (const auto* prim = func.as<tir::PrimFuncNode>()) {
      s = PrimFuncCheck(name).Check(prim);
    } else if (const auto* f = func.as<relax::FunctionNode>()) {
      s = FunctionCheck(name, &constants_seen, &constant_bytes).Check(f);
    }
    if (!s.ok()) return s;
  }
  if (constant_bytes > GetResourceLimits().max_constant_bytes) {
    return absl::ResourceExhaustedError(
        absl::StrCat("the module's constants need ", HumanBytes(constant_bytes), " (", LimitHint("max_constant_bytes"),
                     "; a .irpb holds less than 2 GiB: keep large weights as parameters, "
                     "e.g. import --keep_params_in_input)"));
  }
  return absl::OkStatus();
}

}  // namespace mlc
