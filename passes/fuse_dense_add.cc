/*! \file fuse_dense_add.cc
 *  \brief fuse-dense-add: the seeds' DenseAddFusor, written with the pattern language.
 *
 *  Each `add(nn.dense(x, w), b)` becomes a call of a new sub-function
 *  `fused_dense_add<N>(x, w, b)` (attribute Primitive = 1) whose body is the dense and the add
 *  in a dataflow block; the dense bindings left unused are for remove-unused. Fused functions
 *  are skipped.
 *  A dense whose result has other users is still fused (it is computed again inside the
 *  sub-function, as the seed does); fuse-ops is the pass that never duplicates.
 */
#include "absl/strings/str_cat.h"
#include "ir/graph/op.h"
#include "passes/pass.h"
#include "passes/pattern.h"

namespace mlc {
namespace passes {
namespace {

class FuseDenseAddPass : public FunctionPass {
 public:
  std::string name() const override { return "fuse-dense-add"; }
  std::string description() const override {
    return "Fuses add(nn.dense(x, w), b) into calls of new Primitive sub-functions fused_dense_add0, "
           "fused_dense_add1, ... (the seeds' DenseAddFusor); the dense bindings left unused are for remove-unused.";
  }

 protected:
  bool skip_primitive() const override { return true; }
  absl::StatusOr<relax::Function> RunOnFunction(const relax::Function& f, relax::BlockBuilder* bb) override {
    Pattern x = Wildcard(), w = Wildcard(), b = Wildcard();
    Pattern pattern = IsOp("add")({IsOp("nn.dense")({x, w}), b});
    absl::Status error;
    absl::StatusOr<relax::Function> rewritten = Rewrite(
        pattern, f,
        [&](const relax::Expr& matched, const Match& m, relax::BlockBuilder* inner) -> relax::Expr {
          absl::StatusOr<relax::Expr> call = MakeFused(m[x], m[w], m[b], inner);
          if (!call.ok()) {
            error = call.status();
            return matched;
          }
          return *call;
        },
        bb);
    if (!error.ok()) return error;
    return rewritten;
  }

 private:
  static absl::StatusOr<relax::Expr> MakeFused(const relax::Expr& x, const relax::Expr& w, const relax::Expr& b,
                                               relax::BlockBuilder* bb) {
    relax::Var px = relax::MakeVar("x", x->struct_info());
    relax::Var pw = relax::MakeVar("w", w->struct_info());
    relax::Var pb = relax::MakeVar("b", b->struct_info());
    // fused_dense_add0, fused_dense_add1, ... as the seeds print them.
    int index = 0;
    while (bb->module().Contains(absl::StrCat("fused_dense_add", index))) ++index;
    std::string fn_name = absl::StrCat("fused_dense_add", index);
    relax::BlockBuilder sub;
    if (absl::Status s = sub.BeginFunction(fn_name, std::vector<relax::Var>{px, pw, pb}, {{"Primitive", int64_t{1}}});
        !s.ok())
      return s;
    if (absl::Status s = sub.BeginDataflow(); !s.ok()) return s;
    absl::StatusOr<relax::Var> lv = sub.Emit(relax::MakeCall(relax::GetOpOrDie("nn.dense"), {px, pw}));
    if (!lv.ok()) return lv.status();
    absl::StatusOr<relax::Var> gv = sub.EmitOutput(relax::MakeCall(relax::GetOpOrDie("add"), {*lv, pb}));
    if (!gv.ok()) return gv.status();
    if (absl::Status s = sub.EndDataflow(); !s.ok()) return s;
    if (absl::StatusOr<relax::GlobalVar> g = sub.EmitFuncOutput(*gv); !g.ok()) return g.status();
    // Fused sub-functions are private (no global_symbol), as in TVM.
    relax::Function fused = sub.Get().LookupFunction(fn_name);
    Attrs attrs = fused->attrs;
    attrs.erase("global_symbol");
    fused = relax::MakeFunction(fused->params, fused->body, fused->ret_struct_info, attrs);
    relax::GlobalVar gvar = bb->AddFunc(fused, fn_name);
    return relax::Expr(relax::MakeCall(gvar, {x, w, b}));
  }
};

MLC_REGISTER_PASS(FuseDenseAddPass);

}  // namespace

}  // namespace passes
}  // namespace mlc
