/*! \file tensor_intrin.cc
 *  \brief The tensor intrinsic registry and the register-tile GEMM intrinsic.
 */
#include "passes/schedule/tensor_intrin.h"

#include <map>
#include <memory>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "ir/tir/intrinsics.h"
#include "ir/tir/prim_expr_ops.h"
#include "ir/tir/stmt_tree.h"
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
                                    const std::vector<std::pair<Var, PrimExpr>>& bind,
                                    const std::vector<const ForNode*>& loops, const Analyzer& a) {
  std::vector<PrimExpr> idx;
  for (const PrimExpr& i : indices) idx.push_back(a.Simplify(Substitute(i, bind)));
  PrimExpr flat = a.Simplify(FlatIndex(b, idx));
  AffineAccess out;
  std::vector<std::pair<Var, PrimExpr>> zero;
  for (const ForNode* f : loops) zero.push_back({f->loop_var, IntImm(f->loop_var->dtype, 0)});
  for (const PrimExpr& i : idx) out.origin.push_back(a.Simplify(Substitute(i, zero)));
  // The step of one iteration of each loop, proven constant over the loop's whole range
  // (a step that only looks constant over the first iterations, as (k + 1) // 3 - k // 3
  // does, is no step: the access is not affine then). A function whose step along every
  // loop is a constant everywhere is affine in them.
  for (const ForNode* f : loops) {
    const int64_t* ext = AsConstInt(f->extent);
    if (ext == nullptr)
      return absl::FailedPreconditionError(absl::StrCat("loop ", f->loop_var->name, " has no constant extent"));
    Analyzer stepping = a;
    stepping.Bind(f->loop_var, 0, *ext - 1);  // f + 1 stays in range
    PrimExpr next = Substitute(flat, {{f->loop_var, f->loop_var + IntImm(f->loop_var->dtype, 1)}});
    PrimExpr step = stepping.Simplify(next - flat);
    const int64_t* c = AsConstInt(step);
    if (c == nullptr) {
      return absl::FailedPreconditionError(
          absl::StrCat("the access to ", b->name, " is not affine in loop ", f->loop_var->name));
    }
    out.coef.push_back(*c);
  }
  // Affine in each loop alone is not enough: check the flat index is the sum of the parts.
  std::vector<std::pair<Var, PrimExpr>> ones;
  for (const ForNode* f : loops) ones.push_back({f->loop_var, IntImm(f->loop_var->dtype, 1)});
  std::vector<std::pair<Var, PrimExpr>> zeros = zero;
  PrimExpr all = a.Simplify(Substitute(flat, ones) - Substitute(flat, zeros));
  int64_t sum = 0;
  for (int64_t c : out.coef) sum += c;
  const int64_t* s = AsConstInt(all);
  if (s == nullptr || *s != sum)
    return absl::FailedPreconditionError(absl::StrCat("the access to ", b->name, " is not affine"));
  return out;
}

const BufferLoadNode* StripCast(const PrimExpr& e) {
  if (const auto* c = e.as<CastNode>()) return c->value.as<BufferLoadNode>();
  return e.as<BufferLoadNode>();
}

/*! \brief The tile's loops by role: m moves C and A (the rows: at most one, none for a one-row
 *  tile), n moves C and B (the columns: one, or a block loop then the contiguous lanes), k moves
 *  A and B (the reductions, outermost first). */
struct TileLoops {
  int m = -1;
  std::vector<int> n, k;
  bool a_lanes = false;  // the lanes loop moves A too (a depthwise convolution): A is loaded as vectors
  bool valid = true;
  bool ok() const { return valid && !n.empty() && n.size() <= 2 && (!a_lanes || n.size() == 1); }
};

TileLoops ClassifyTileLoops(const AffineAccess& c, const AffineAccess& a, const AffineAccess& b) {
  TileLoops t;
  for (size_t l = 0; l < c.coef.size(); ++l) {
    bool cc = c.coef[l] != 0, ca = a.coef[l] != 0, cb = b.coef[l] != 0;
    if (cc && ca && !cb && t.m < 0) {
      t.m = static_cast<int>(l);
    } else if (cc && !ca && cb) {
      t.n.push_back(static_cast<int>(l));
    } else if (!cc && ca && cb) {
      t.k.push_back(static_cast<int>(l));
    } else if (cc && ca && cb && c.coef[l] == 1 && a.coef[l] == 1 && b.coef[l] == 1 && !t.a_lanes) {
      t.n.push_back(static_cast<int>(l));  // contiguous lanes of all three
      t.a_lanes = true;
    } else {
      t.valid = false;
    }
  }
  // Two column loops: the contiguous one (lanes) last.
  if (t.n.size() == 2 && c.coef[t.n[0]] == 1 && b.coef[t.n[0]] == 1) std::swap(t.n[0], t.n[1]);
  return t;
}

/*! \brief The block's init sets C to zero: the tile (which holds every reduction loop, as
 *  blockize checked) then writes its sums over C instead of adding to it. */
bool InitIsZero(const BlockNode* block, const BufferStoreNode* update) {
  const auto* init = block->init.as<BufferStoreNode>();
  const auto* zero = init ? init->value.as<FloatImmNode>() : nullptr;
  if (zero == nullptr || zero->value != 0.0 || !init->buffer.same_as(update->buffer) ||
      init->indices.size() != update->indices.size()) {
    return false;
  }
  for (size_t d = 0; d < init->indices.size(); ++d) {
    if (!ExprDeepEqual(init->indices[d], update->indices[d])) return false;
  }
  return true;
}

absl::StatusOr<Stmt> GemmF32(const TensorizeInput& in) {
  const BlockNode* block = in.inner->block.get();
  // A predicate is only accepted as the tail guard of a split row loop (`base + m < rows`,
  // symbolic rows): the tile then computes its first min(MR, rows - base) rows.
  const int64_t* pred = AsConstInt(in.inner->predicate);
  PrimExpr guard;
  if (pred == nullptr) {
    guard = in.inner->predicate;
  } else if (*pred == 0) {
    return absl::FailedPreconditionError("the block never runs (predicate false)");
  }
  if (in.loops.size() < 2) {
    return absl::FailedPreconditionError(
        absl::StrCat("expected the tile's loops (rows, columns, reductions) inside, found ", in.loops.size()));
  }
  for (const ForNode* f : in.loops) {
    const int64_t* m = AsConstInt(f->min);
    if (AsConstInt(f->extent) == nullptr || m == nullptr || *m != 0) {
      return absl::FailedPreconditionError(
          absl::StrCat("loop ", f->loop_var->name, " does not have a constant extent from 0"));
    }
  }
  const auto* store = block->body.as<BufferStoreNode>();
  const auto* add = store ? store->value.as<AddNode>() : nullptr;
  if (store == nullptr || add == nullptr || store->buffer->dtype != DataType::Float32()) {
    return absl::FailedPreconditionError("the block is not a float32 C[...] = C[...] + A[...] * B[...]");
  }
  const bool overwrite = block->init.defined();
  if (overwrite && !InitIsZero(block, store))
    return absl::FailedPreconditionError("the block's init does not set C to zero");
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
  if (la == nullptr || lb == nullptr || la->buffer->dtype != DataType::Float32() ||
      lb->buffer->dtype != DataType::Float32()) {
    return absl::FailedPreconditionError("the block is not a float32 C[...] = C[...] + A[...] * B[...]");
  }
  // Loops of one iteration take no part (their variable is 0); the others are each a row (m),
  // column (n) or reduction (k) loop of the tile.
  std::vector<const ForNode*> loops;
  std::vector<std::pair<Var, PrimExpr>> unit;
  for (const ForNode* f : in.loops) {
    if (*AsConstInt(f->extent) > 1)
      loops.push_back(f);
    else
      unit.push_back({f->loop_var, IntImm(f->loop_var->dtype, 0)});
  }
  std::vector<std::pair<Var, PrimExpr>> bind;
  for (size_t i = 0; i < block->iter_vars.size(); ++i) {
    bind.push_back({block->iter_vars[i].var, Substitute(in.inner->iter_values[i], unit)});
  }
  absl::StatusOr<AffineAccess> c = Affine(store->buffer, store->indices, bind, loops, in.analyzer);
  if (!c.ok()) return c.status();
  absl::StatusOr<AffineAccess> a = Affine(la->buffer, la->indices, bind, loops, in.analyzer);
  if (!a.ok()) return a.status();
  absl::StatusOr<AffineAccess> b = Affine(lb->buffer, lb->indices, bind, loops, in.analyzer);
  if (!b.ok()) return b.status();
  // Which loop is which: m moves C and A, n moves C and B, k moves A and B.
  TileLoops roles = ClassifyTileLoops(*c, *a, *b);
  if (!roles.ok()) {
    // The operands may be the other way round (B[...] * A[...]).
    std::swap(a, b);
    std::swap(la, lb);
    roles = ClassifyTileLoops(*c, *a, *b);
  }
  if (!roles.ok()) {
    return absl::FailedPreconditionError(
        "the loops are not one row loop of C and A, column loops of C and B and reduction loops of A and B");
  }
  auto addr = [](const Buffer& buf, const std::vector<PrimExpr>& origin) {
    return PrimExpr(new TirCallNode(DataType::Handle(), "address_of", {Load(buf, origin)}));
  };
  auto ext = [&](int l) { return *AsConstInt(loops[l]->extent); };
  // A one-row tile has no row loop: MR 1, row strides 0.
  const int m = roles.m;
  const int64_t mr = m < 0 ? 1 : ext(m), a_m = m < 0 ? 0 : a->coef[m], c_m = m < 0 ? 0 : c->coef[m];
  // The rows a guarded tile computes: the guard is lhs < rhs, lhs = base + the m loop
  // (coefficient 1), no other tile loop in it: min(MR, max(0, rhs - base)).
  auto guarded_rows = [&]() -> absl::StatusOr<PrimExpr> {
    const auto* lt = guard.as<LTNode>();
    if (lt == nullptr)
      return absl::FailedPreconditionError("the block is guarded by a predicate that is not a row bound");
    if (m < 0) return absl::FailedPreconditionError("a guarded tile needs a row loop");
    std::vector<std::pair<Var, PrimExpr>> zeros, m_one;
    for (const ForNode* f : in.loops) {
      zeros.push_back({f->loop_var, IntImm(f->loop_var->dtype, 0)});
      m_one.push_back({f->loop_var, IntImm(f->loop_var->dtype, f == loops[m] ? 1 : 0)});
    }
    PrimExpr base = in.analyzer.Simplify(Substitute(lt->a, zeros));
    const PrimExpr step_expr = in.analyzer.Simplify(Substitute(lt->a, m_one) - base);  // AsConstInt points into it
    const int64_t* step = AsConstInt(step_expr);
    for (size_t l = 0; l < loops.size(); ++l) {
      if (static_cast<int>(l) == m) continue;
      if (UsesVar(lt->a, loops[l]->loop_var) || UsesVar(lt->b, loops[l]->loop_var)) {
        return absl::FailedPreconditionError("the predicate guards columns or the reduction, not rows");
      }
    }
    if (step == nullptr || *step != 1 || UsesVar(lt->b, loops[m]->loop_var)) {
      return absl::FailedPreconditionError("the predicate is not a bound on the tile's rows");
    }
    return in.analyzer.Simplify(
        Min(I64(mr), Max(I64(0), Cast(DataType::Int64(), lt->b) - Cast(DataType::Int64(), base))));
  };
  const bool prefetch_b = GetIntAttr(in.inner->block->annotations, kPrefetchWeightsAnnotation, 0) != 0;
  const bool prefetch_next_a = GetIntAttr(in.inner->block->annotations, kPrefetchNextDataAnnotation, 0) != 0;
  const bool prefetch_next_b = GetIntAttr(in.inner->block->annotations, kPrefetchNextWeightsAnnotation, 0) != 0;
  if (roles.n.size() != 1 || roles.k.size() != 1 || roles.a_lanes || overwrite || prefetch_b || prefetch_next_a ||
      prefetch_next_b) {
    // Column blocks, several reduction loops, A along the lanes (direct and depthwise
    // convolutions), the whole reduction with its init, or B to prefetch: T.gemm_tile_nd.
    int lanes = roles.n.back(), blocks = roles.n.size() == 2 ? roles.n.front() : -1;
    if (c->coef[lanes] != 1 || b->coef[lanes] != 1) {
      return absl::FailedPreconditionError("the innermost column loop is not contiguous in C and B");
    }
    std::vector<PrimExpr> args = {
        addr(store->buffer, c->origin),
        addr(la->buffer, a->origin),
        addr(lb->buffer, b->origin),
        I64(mr),
        I64(blocks < 0 ? 1 : ext(blocks)),
        I64(ext(lanes)),
        I64(a_m),
        I64(c_m),
        I64(blocks < 0 ? 0 : b->coef[blocks]),
        I64(blocks < 0 ? 0 : c->coef[blocks]),
        I64((roles.a_lanes ? kGemmTileVectorA : 0) | (overwrite ? kGemmTileOverwrite : 0) |
            (guard.defined() ? kGemmTilePartialRows : 0) | (prefetch_b ? kGemmTilePrefetchB : 0) |
            (prefetch_next_a ? kGemmTilePrefetchNextA : 0) | (prefetch_next_b ? kGemmTilePrefetchNextB : 0)),
        I64(static_cast<int64_t>(roles.k.size()))};
    for (int k : roles.k) args.insert(args.end(), {I64(ext(k)), I64(a->coef[k]), I64(b->coef[k])});
    // A guarded tile (a row of pixels no tile height divides) computes its first rows only.
    if (guard.defined()) {
      absl::StatusOr<PrimExpr> rows = guarded_rows();
      if (!rows.ok()) return rows.status();
      args.push_back(*rows);
    }
    return Stmt(new EvaluateNode(PrimExpr(new TirCallNode(DataType::Int32(), "gemm_tile_nd", args))));
  }
  const int n = roles.n[0], k = roles.k[0];
  std::vector<PrimExpr> args = {addr(store->buffer, c->origin),
                                addr(la->buffer, a->origin),
                                addr(lb->buffer, b->origin),
                                I64(ext(k)),
                                I64(mr),
                                I64(ext(n)),
                                I64(a_m),
                                I64(a->coef[k]),
                                I64(b->coef[k]),
                                I64(b->coef[n]),
                                I64(c_m),
                                I64(c->coef[n])};
  if (!guard.defined()) return Stmt(new EvaluateNode(PrimExpr(new TirCallNode(DataType::Int32(), "gemm_tile", args))));
  absl::StatusOr<PrimExpr> rows = guarded_rows();
  if (!rows.ok()) return rows.status();
  args.push_back(*rows);
  return Stmt(new EvaluateNode(PrimExpr(new TirCallNode(DataType::Int32(), "gemm_tile_partial", args))));
}

bool RegisterBuiltinIntrins() {
  RegisterTensorIntrin(
      {"gemm_f32",
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
