/*! \file pack_constants.cc
 *  \brief pack-constants: layouts that schedules chose for constant operands (packed weight
 *         panels) are computed once, at compile time, instead of on every call.
 *
 *  A scheduled PrimFunc packs an operand with a copy block `P_global[f(v)] = P[v]` (cache_read
 *  + transform_layout). When every call passes a constant for P and the copy is P's only use,
 *  the copy is run here by the interpreter, the function takes the packed buffer as parameter
 *  instead (the copy block is removed), and the calls pass the packed constant.
 */
#include <map>

#include "absl/strings/str_cat.h"
#include "ir/graph/op.h"
#include "ir/graph/printer.h"
#include "ir/tir/tir_util.h"
#include "passes/constant_packing.h"
#include "passes/pass.h"
#include "passes/pattern.h"

namespace mlc {
namespace passes {
namespace {

class PackConstantsPass : public FunctionPass {
 public:
  std::string name() const override { return "pack-constants"; }
  std::string description() const override {
    return "Runs at compile time the copies that scheduled PrimFuncs make of constant operands into a packed layout "
           "(cache_read + transform_layout of a weight): the function takes the packed buffer as parameter and the "
           "call passes the packed constant. Run after default-schedule (or apply-trace).";
  }

 protected:
  bool skip_primitive() const override { return true; }
  absl::StatusOr<relax::Function> RunOnFunction(const relax::Function& func, relax::BlockBuilder* bb) override {
    absl::Status error;
    Pattern callee = Wildcard(), args = Wildcard();
    absl::StatusOr<relax::Function> out = Rewrite(
        IsOp("call_tir")({callee, args}), func,
        [&](const relax::Expr& matched, const Match& m, relax::BlockBuilder* builder) -> relax::Expr {
          const auto* gv = m[callee].as<relax::GlobalVarNode>();
          const auto* tuple = m[args].as<relax::TupleNode>();
          if (gv == nullptr || tuple == nullptr) return matched;
          tir::PrimFunc f = builder->module().LookupPrimFunc(gv->name);
          if (!f.defined()) return matched;
          std::vector<ConstantPacking> packings;
          for (const ConstantPacking& p : FindConstantPackings(f)) {
            if (p.param < static_cast<int>(tuple->fields.size()) && tuple->fields[p.param].as<relax::ConstantNode>()) {
              packings.push_back(p);
            }
          }
          if (packings.empty()) return matched;
          std::vector<relax::Expr> fields = tuple->fields;
          for (const ConstantPacking& p : packings) {
            absl::StatusOr<relax::Expr> packed = Packed(p, f, fields[p.param]);
            if (!packed.ok()) {
              error = absl::Status(packed.status().code(),
                                   absl::StrCat("pack-constants: @", gv->name, ": ", packed.status().message()));
              return matched;
            }
            fields[p.param] = *packed;
          }
          relax::GlobalVar packed_fn = builder->AddFunc(WithoutPackings(f, packings), gv->name + "_packed");
          const auto* call = matched.as<relax::CallNode>();
          return relax::MakeCall(call->op, {packed_fn, relax::MakeTuple(fields)}, call->attrs, call->sinfo_args);
        },
        bb);
    if (!error.ok()) return error;
    return out;
  }

 private:
  /*! \brief The constant packed by `p`, made once per constant and copy: kernels of the same
   *  layout in several functions (a decoder's main and @prefill) share the packed weight. */
  absl::StatusOr<relax::Expr> Packed(const ConstantPacking& p, const tir::PrimFunc& f, const relax::Expr& constant) {
    const std::vector<int64_t> shape = [&] {
      std::vector<int64_t> d;
      for (const tir::PrimExpr& e : p.packed->shape) d.push_back(*tir::AsConstInt(e));
      return d;
    }();
    // The layout: the copy reads P[v0, v1, ...] over the iteration domain (FindConstantPackings), so
    // the domain, the packed shape and the store's indices in canonical variables identify it,
    // whatever the kernels call their buffers and variables.
    const tir::BlockNode* b = p.realize->block.get();
    std::vector<std::pair<tir::Var, tir::PrimExpr>> canonical;
    std::string key = p.packed->dtype.ToString();
    for (size_t i = 0; i < b->iter_vars.size(); ++i) {
      canonical.push_back({b->iter_vars[i].var, tir::MakeVar(absl::StrCat("i", i), b->iter_vars[i].var->dtype)});
      key += absl::StrCat(";", PrintPrimExpr(b->iter_vars[i].dom.min), ":", PrintPrimExpr(b->iter_vars[i].dom.extent));
    }
    for (int64_t d : shape) key += absl::StrCat(",", d);
    for (const tir::PrimExpr& index : b->body.as<tir::BufferStoreNode>()->indices) {
      key += absl::StrCat("|", PrintPrimExpr(tir::Substitute(index, canonical)));
    }
    auto [it, added] = packed_.try_emplace({constant.get(), key});
    if (added) {
      absl::StatusOr<TensorData> value = PackConstant(p, f, constant.as<relax::ConstantNode>()->data);
      if (!value.ok()) {
        packed_.erase(it);
        return value.status();
      }
      it->second = {constant, relax::MakeConstant(*value)};
    }
    return it->second.second;
  }

  /*! \brief (source constant, copy) -> (the source, kept alive so its address stays its own; the packed constant). */
  std::map<std::pair<const Object*, std::string>, std::pair<relax::Expr, relax::Expr>> packed_;
};

MLC_REGISTER_PASS(PackConstantsPass);

}  // namespace
}  // namespace passes
}  // namespace mlc
