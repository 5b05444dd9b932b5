/*! \file tensor_intrin.cc
 *  \brief The tensor intrinsic registry and the register-tile GEMM intrinsic.
 */
#include "ir/tir/schedule/tensor_intrin.h"

#include <map>
#include <memory>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "ir/tir/prim_expr_ops.h"
#include "ir/tir/schedule/state.h"
#include "ir/tir/tir_util.h"

namespace mlc {
namespace tir {
namespace {

std::map<std::string, TensorIntrin>& Registry() {
  static auto* r = new std::map<std::string, TensorIntrin>();
  return *r;
}

/*! \brief The row-major flat offset of an access. */
PrimExpr FlatIndex(const Buffer& b, const std::vector<PrimExpr>& idx) {
  PrimExpr off;
  for (size_t d = 0; d < idx.size(); ++d) {
    PrimExpr i = Cast(DataType::Int64(), idx[d]);
    off = off.defined() ? off * Cast(DataType::Int64(), b->shape[d]) + i : i;
  }
  return off.defined() ? off : I64(0);
}

/*! \brief An access as base + sum(coef_l * loop_l): coefficients per loop, or an error when
 *  it is not affine in the loops. */
struct AffineAccess {
  std::vector<int64_t> coef;
  std::vector<PrimExpr> origin;  // the multi-dimensional index with every loop at 0
};

absl::StatusOr<AffineAccess> Affine(const Buffer& b, const std::vector<PrimExpr>& indices,
                                    const std::vector<std::pair<Var, PrimExpr>>& bind, const std::vector<const ForNode*>& loops,
                                    const Analyzer& a) {
  std::vector<PrimExpr> idx;
  for (const PrimExpr& i : indices) idx.push_back(a.Simplify(Substitute(i, bind)));
  PrimExpr flat = a.Simplify(FlatIndex(b, idx));
  AffineAccess out;
  std::vector<std::pair<Var, PrimExpr>> zero;
  for (const ForNode* f : loops) zero.push_back({f->loop_var, IntImm(f->loop_var->dtype, 0)});
  for (const PrimExpr& i : idx) out.origin.push_back(a.Simplify(Substitute(i, zero)));
  for (const ForNode* f : loops) {
    auto at = [&](int64_t v) {
      std::vector<std::pair<Var, PrimExpr>> m;
      for (const ForNode* g : loops) m.push_back({g->loop_var, IntImm(g->loop_var->dtype, g == f ? v : 0)});
      return a.Simplify(Substitute(flat, m));
    };
    PrimExpr d1 = a.Simplify(at(1) - at(0)), d2 = a.Simplify(at(2) - at(1));
    const int64_t* c1 = AsConstInt(d1);
    const int64_t* c2 = AsConstInt(d2);
    const int64_t* ext = AsConstInt(f->extent);
    if (c1 == nullptr || (ext && *ext > 2 && (c2 == nullptr || *c2 != *c1))) {
      return absl::FailedPreconditionError(absl::StrCat("the access to ", b->name, " is not affine in loop ", f->loop_var->name));
    }
    out.coef.push_back(*c1);
  }
  // Affine in each loop alone is not enough: check the flat index is the sum of the parts.
  std::vector<std::pair<Var, PrimExpr>> ones;
  for (const ForNode* f : loops) ones.push_back({f->loop_var, IntImm(f->loop_var->dtype, 1)});
  std::vector<std::pair<Var, PrimExpr>> zeros = zero;
  PrimExpr all = a.Simplify(Substitute(flat, ones) - Substitute(flat, zeros));
  int64_t sum = 0;
  for (int64_t c : out.coef) sum += c;
  const int64_t* s = AsConstInt(all);
  if (s == nullptr || *s != sum) return absl::FailedPreconditionError(absl::StrCat("the access to ", b->name, " is not affine"));
  return out;
}

const BufferLoadNode* StripCast(const PrimExpr& e) {
  if (const auto* c = e.as<CastNode>()) return c->value.as<BufferLoadNode>();
  return e.as<BufferLoadNode>();
}

absl::StatusOr<Stmt> GemmF32(const TensorizeInput& in) {
  const BlockNode* block = in.inner->block.get();
  if (block->init.defined()) return absl::FailedPreconditionError("the block still has its init (decompose_reduction first)");
  // A predicate is only accepted as the tail guard of a split row loop (`base + m < rows`,
  // symbolic rows): the tile then computes its first min(MR, rows - base) rows.
  const int64_t* pred = AsConstInt(in.inner->predicate);
  PrimExpr guard;
  if (pred == nullptr) {
    guard = in.inner->predicate;
  } else if (*pred == 0) {
    return absl::FailedPreconditionError("the block never runs (predicate false)");
  }
  if (in.loops.size() != 3) {
    return absl::FailedPreconditionError(absl::StrCat("expected 3 loops (m, n, k) inside, found ", in.loops.size()));
  }
  for (const ForNode* f : in.loops) {
    const int64_t* m = AsConstInt(f->min);
    if (AsConstInt(f->extent) == nullptr || m == nullptr || *m != 0) {
      return absl::FailedPreconditionError(absl::StrCat("loop ", f->loop_var->name, " does not have a constant extent from 0"));
    }
  }
  const auto* store = block->body.as<BufferStoreNode>();
  const auto* add = store ? store->value.as<AddNode>() : nullptr;
  if (store == nullptr || add == nullptr || store->buffer->dtype != DataType::Float32()) {
    return absl::FailedPreconditionError("the block is not a float32 C[...] = C[...] + A[...] * B[...]");
  }
  auto is_self = [&](const PrimExpr& e) {
    const auto* l = e.as<BufferLoadNode>();
    if (l == nullptr || !l->buffer.same_as(store->buffer) || l->indices.size() != store->indices.size()) return false;
    for (size_t d = 0; d < l->indices.size(); ++d) {
      if (!ExprDeepEqual(l->indices[d], store->indices[d])) return false;
    }
    return true;
  };
  PrimExpr product = is_self(add->a) ? add->b : (is_self(add->b) ? add->a : PrimExpr());
  const auto* mul = product.defined() ? product.as<MulNode>() : nullptr;
  const BufferLoadNode* la = mul ? StripCast(mul->a) : nullptr;
  const BufferLoadNode* lb = mul ? StripCast(mul->b) : nullptr;
  if (la == nullptr || lb == nullptr || la->buffer->dtype != DataType::Float32() || lb->buffer->dtype != DataType::Float32()) {
    return absl::FailedPreconditionError("the block is not a float32 C[...] = C[...] + A[...] * B[...]");
  }
  std::vector<std::pair<Var, PrimExpr>> bind;
  for (size_t i = 0; i < block->iter_vars.size(); ++i) bind.push_back({block->iter_vars[i].var, in.inner->iter_values[i]});
  absl::StatusOr<AffineAccess> c = Affine(store->buffer, store->indices, bind, in.loops, in.analyzer);
  if (!c.ok()) return c.status();
  absl::StatusOr<AffineAccess> a = Affine(la->buffer, la->indices, bind, in.loops, in.analyzer);
  if (!a.ok()) return a.status();
  absl::StatusOr<AffineAccess> b = Affine(lb->buffer, lb->indices, bind, in.loops, in.analyzer);
  if (!b.ok()) return b.status();
  // Which loop is which: m moves C and A, n moves C and B, k moves A and B.
  int m = -1, n = -1, k = -1;
  for (int l = 0; l < 3; ++l) {
    bool cc = c->coef[l] != 0, ca = a->coef[l] != 0, cb = b->coef[l] != 0;
    if (cc && ca && !cb) m = l;
    else if (cc && !ca && cb) n = l;
    else if (!cc && ca && cb) k = l;
  }
  if (m < 0 || n < 0 || k < 0) {
    // The operands may be the other way round (B[...] * A[...]).
    std::swap(a, b);
    std::swap(la, lb);
    m = n = k = -1;
    for (int l = 0; l < 3; ++l) {
      bool cc = c->coef[l] != 0, ca = a->coef[l] != 0, cb = b->coef[l] != 0;
      if (cc && ca && !cb) m = l;
      else if (cc && !ca && cb) n = l;
      else if (!cc && ca && cb) k = l;
    }
  }
  if (m < 0 || n < 0 || k < 0) {
    return absl::FailedPreconditionError("the loops are not one row loop of C and A, one column loop of C and B and one reduction loop of A and B");
  }
  auto ext = [&](int l) { return *AsConstInt(in.loops[l]->extent); };
  auto addr = [](const Buffer& buf, const std::vector<PrimExpr>& origin) {
    return PrimExpr(new TirCallNode(DataType::Handle(), "address_of", {Load(buf, origin)}));
  };
  std::vector<PrimExpr> args = {addr(store->buffer, c->origin), addr(la->buffer, a->origin), addr(lb->buffer, b->origin),
                                I64(ext(k)), I64(ext(m)), I64(ext(n)),
                                I64(a->coef[m]), I64(a->coef[k]), I64(b->coef[k]), I64(b->coef[n]),
                                I64(c->coef[m]), I64(c->coef[n])};
  if (!guard.defined()) return Stmt(new EvaluateNode(PrimExpr(new TirCallNode(DataType::Int32(), "gemm_tile", args))));
  // guard: lhs < rhs, lhs = base + the m loop (coefficient 1), the n and k loops absent.
  const auto* lt = guard.as<LTNode>();
  if (lt == nullptr) return absl::FailedPreconditionError("the block is guarded by a predicate that is not a row bound");
  std::vector<std::pair<Var, PrimExpr>> zeros, m_one;
  for (size_t l = 0; l < in.loops.size(); ++l) {
    zeros.push_back({in.loops[l]->loop_var, IntImm(in.loops[l]->loop_var->dtype, 0)});
    m_one.push_back({in.loops[l]->loop_var, IntImm(in.loops[l]->loop_var->dtype, static_cast<int>(l) == m ? 1 : 0)});
  }
  PrimExpr base = in.analyzer.Simplify(Substitute(lt->a, zeros));
  const PrimExpr step_expr = in.analyzer.Simplify(Substitute(lt->a, m_one) - base);  // AsConstInt points into it
  const int64_t* step = AsConstInt(step_expr);
  for (int l : {n, k}) {
    if (UsesVar(lt->a, in.loops[l]->loop_var) || UsesVar(lt->b, in.loops[l]->loop_var)) {
      return absl::FailedPreconditionError("the predicate guards columns or the reduction, not rows");
    }
  }
  if (step == nullptr || *step != 1 || UsesVar(lt->b, in.loops[m]->loop_var)) {
    return absl::FailedPreconditionError("the predicate is not a bound on the tile's rows");
  }
  PrimExpr rows = Min(I64(ext(m)), Max(I64(0), Cast(DataType::Int64(), lt->b) - Cast(DataType::Int64(), base)));
  args.push_back(in.analyzer.Simplify(rows));
  return Stmt(new EvaluateNode(PrimExpr(new TirCallNode(DataType::Int32(), "gemm_tile_partial", args))));
}

bool RegisterBuiltinIntrins() {
  RegisterTensorIntrin({"gemm_f32",
                        "float32 register-tile GEMM: C[m, n] += A[m, k] * B[k, n] over the three loops of the block, any strides "
                        "(vector loads of B and stores of C where their n stride is 1)",
                        GemmF32});
  return true;
}

}  // namespace

void RegisterTensorIntrin(TensorIntrin intrin) {
  std::string name = intrin.name;
  Registry()[name] = std::move(intrin);
}

const TensorIntrin* FindTensorIntrin(const std::string& name) {
  static const bool registered = RegisterBuiltinIntrins();
  (void)registered;
  auto it = Registry().find(name);
  return it == Registry().end() ? nullptr : &it->second;
}

std::vector<std::string> TensorIntrinNames() {
  FindTensorIntrin("");
  std::vector<std::string> out;
  for (const auto& [n, i] : Registry()) out.push_back(n);
  return out;
}

}  // namespace tir
}  // namespace mlc
