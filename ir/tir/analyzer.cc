/*! \file analyzer.cc
 *  \brief Linear canonical forms, bounds and simplification of integer index expressions.
 */
#include "ir/tir/analyzer.h"

#include <algorithm>
#include <numeric>
#include <optional>

#include "ir/tir/prim_expr_ops.h"
#include "ir/tir/tir_functor.h"

namespace mlc {
namespace tir {
namespace {

constexpr int64_t kInf = ConstIntBound::kPosInf;

int64_t Clamp(__int128 v) {
  if (v >= kInf) return kInf;
  if (v <= -kInf) return -kInf;
  return static_cast<int64_t>(v);
}
int64_t SatAdd(int64_t a, int64_t b) {
  if (a >= kInf || b >= kInf) return (a <= -kInf || b <= -kInf) ? 0 : kInf;
  if (a <= -kInf || b <= -kInf) return -kInf;
  return Clamp(static_cast<__int128>(a) + b);
}
int64_t SatMul(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  bool neg = (a < 0) != (b < 0);
  if (a >= kInf || a <= -kInf || b >= kInf || b <= -kInf) return neg ? -kInf : kInf;
  return Clamp(static_cast<__int128>(a) * b);
}
int64_t FloorDivInt(int64_t a, int64_t b) {
  if (a >= kInf || a <= -kInf) return (a > 0) == (b > 0) ? kInf : -kInf;
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
int64_t FloorModInt(int64_t a, int64_t b) { return a - FloorDivInt(a, b) * b; }

bool IsIntExpr(const PrimExpr& e) { return e->dtype.is_int() || e->dtype.is_uint(); }

/*! \brief sum(coef * atom) + constant, all of `dtype`. */
struct Linear {
  struct Term {
    PrimExpr atom;
    int64_t coef;
  };
  std::vector<Term> terms;
  int64_t constant = 0;
  DataType dtype;

  void Add(const PrimExpr& atom, int64_t coef) {
    if (coef == 0) return;
    for (Term& t : terms) {
      if (ExprDeepEqual(t.atom, atom)) {
        t.coef += coef;
        return;
      }
    }
    terms.push_back({atom, coef});
  }
  void Add(const Linear& other, int64_t scale) {
    for (const Term& t : other.terms) Add(t.atom, t.coef * scale);
    constant += other.constant * scale;
  }
  void DropZeros() {
    terms.erase(std::remove_if(terms.begin(), terms.end(), [](const Term& t) { return t.coef == 0; }), terms.end());
  }
  bool IsConst() const { return terms.empty(); }
};

Linear ToLinear(const PrimExpr& e);

/*! \brief Adds scale x e's linear form to *l (whose dtype is e's): a sum is added term by term
 *  into the one accumulator, not built per node and merged (a sum of 90 shape variables, a
 *  detector's concatenation of per-class boxes, took seconds to simplify that way). */
void AddLinear(const PrimExpr& e, int64_t scale, Linear* l) {
  switch (e->kind()) {
    case NodeKind::kIntImm: l->constant += e.as<IntImmNode>()->value * scale; return;
    case NodeKind::kAdd:
    case NodeKind::kSub: {
      const auto* b = e.as<BinaryNode>();
      AddLinear(b->a, scale, l);
      AddLinear(b->b, e->kind() == NodeKind::kAdd ? scale : -scale, l);
      return;
    }
    case NodeKind::kMul: {
      const auto* b = e.as<BinaryNode>();
      if (const auto* c = b->b.as<IntImmNode>()) return AddLinear(b->a, scale * c->value, l);
      if (const auto* c = b->a.as<IntImmNode>()) return AddLinear(b->b, scale * c->value, l);
      Linear x = ToLinear(b->a), y = ToLinear(b->b);
      if (y.IsConst()) {
        l->Add(x, y.constant * scale);
      } else if (x.IsConst()) {
        l->Add(y, x.constant * scale);
      } else {
        l->Add(e, scale);
      }
      return;
    }
    case NodeKind::kCast: {
      // A widening integer cast distributes over the sum.
      const auto* c = e.as<CastNode>();
      if (IsIntExpr(c->value) && IsIntExpr(e) && c->value->dtype.bits() <= e->dtype.bits()) {
        Linear inner = ToLinear(c->value);
        for (const Linear::Term& t : inner.terms) l->Add(Cast(e->dtype, t.atom), t.coef * scale);
        l->constant += inner.constant * scale;
        return;
      }
      l->Add(e, scale);
      return;
    }
    default:  // anything else is an opaque term of the sum
      l->Add(e, scale);
  }
}

Linear ToLinear(const PrimExpr& e) {
  Linear l;
  l.dtype = e->dtype;
  AddLinear(e, 1, &l);
  l.DropZeros();
  return l;
}

PrimExpr FromLinear(const Linear& l) {
  PrimExpr out;
  for (const Linear::Term& t : l.terms) {
    int64_t c = t.coef < 0 ? -t.coef : t.coef;
    PrimExpr term = c == 1 ? t.atom : MakeBinary(NodeKind::kMul, t.atom, IntImm(l.dtype, c));
    if (!out.defined()) {
      out = t.coef < 0 ? MakeBinary(NodeKind::kMul, t.atom, IntImm(l.dtype, t.coef)) : term;
    } else {
      out = MakeBinary(t.coef < 0 ? NodeKind::kSub : NodeKind::kAdd, out, term);
    }
  }
  if (!out.defined()) return IntImm(l.dtype, l.constant);
  if (l.constant > 0) out = MakeBinary(NodeKind::kAdd, out, IntImm(l.dtype, l.constant));
  if (l.constant < 0) out = MakeBinary(NodeKind::kSub, out, IntImm(l.dtype, -l.constant));
  return out;
}

bool ContainsVar(const PrimExpr& e, const std::unordered_map<const Object*, Range>& vars) {
  class Finder : public StmtExprVisitor {
   public:
    explicit Finder(const std::unordered_map<const Object*, Range>& v) : vars(v) {}
    const std::unordered_map<const Object*, Range>& vars;
    bool found = false;

   protected:
    void VisitExpr_(const TirVarNode* op) override { found |= vars.count(op) > 0; }
  };
  Finder f(vars);
  f.VisitExpr(e);
  return f.found;
}

}  // namespace

bool ExprDeepEqual(const PrimExpr& a, const PrimExpr& b) {
  if (a.same_as(b)) return true;
  if (!a.defined() || !b.defined() || a->kind() != b->kind() || a->dtype != b->dtype) return false;
  switch (a->kind()) {
    case NodeKind::kIntImm: return a.as<IntImmNode>()->value == b.as<IntImmNode>()->value;
    case NodeKind::kFloatImm: return a.as<FloatImmNode>()->value == b.as<FloatImmNode>()->value;
    case NodeKind::kStringImm: return a.as<StringImmNode>()->value == b.as<StringImmNode>()->value;
    case NodeKind::kTirVar: return false;  // identity only
    case NodeKind::kNot: return ExprDeepEqual(a.as<NotNode>()->a, b.as<NotNode>()->a);
    case NodeKind::kSelect: {
      const auto *x = a.as<SelectNode>(), *y = b.as<SelectNode>();
      return ExprDeepEqual(x->condition, y->condition) && ExprDeepEqual(x->true_value, y->true_value) &&
             ExprDeepEqual(x->false_value, y->false_value);
    }
    case NodeKind::kCast: return ExprDeepEqual(a.as<CastNode>()->value, b.as<CastNode>()->value);
    case NodeKind::kBufferLoad: {
      const auto *x = a.as<BufferLoadNode>(), *y = b.as<BufferLoadNode>();
      if (!x->buffer.same_as(y->buffer) || x->indices.size() != y->indices.size()) return false;
      for (size_t i = 0; i < x->indices.size(); ++i) {
        if (!ExprDeepEqual(x->indices[i], y->indices[i])) return false;
      }
      return true;
    }
    case NodeKind::kTirCall: {
      const auto *x = a.as<TirCallNode>(), *y = b.as<TirCallNode>();
      if (x->name != y->name || x->args.size() != y->args.size()) return false;
      for (size_t i = 0; i < x->args.size(); ++i) {
        if (!ExprDeepEqual(x->args[i], y->args[i])) return false;
      }
      return true;
    }
      MLC_BINARY_CASES {
        const auto *x = a.as<BinaryNode>(), *y = b.as<BinaryNode>();
        return ExprDeepEqual(x->a, y->a) && ExprDeepEqual(x->b, y->b);
      }
      MLC_CASES_NOT_PRIM_EXPR
      return false;
  }
  return false;
}

void Analyzer::Bind(const Var& var, int64_t min, int64_t extent) {
  bounds_[var.get()] = ConstIntBound{min, extent > 0 ? min + extent - 1 : min};
}

void Analyzer::Bind(const Var& var, const Range& range) {
  const int64_t* min = AsConstInt(range.min);
  const int64_t* extent = AsConstInt(range.extent);
  if (min != nullptr && extent != nullptr) Bind(var, *min, *extent);
}

const ConstIntBound* Analyzer::BoundOf(const Var& var) const {
  auto it = bounds_.find(var.get());
  return it == bounds_.end() ? nullptr : &it->second;
}

ConstIntBound Analyzer::Bound(const PrimExpr& e) const {
  if (!IsIntExpr(e) && !e->dtype.is_bool()) return {};
  switch (e->kind()) {
    case NodeKind::kIntImm: {
      int64_t v = e.as<IntImmNode>()->value;
      return {v, v};
    }
    case NodeKind::kTirVar: {
      auto it = bounds_.find(e.get());
      if (it != bounds_.end()) return it->second;
      if (e->dtype.is_uint()) return {0, kInf};
      return {};
    }
    case NodeKind::kAdd:
    case NodeKind::kSub:
    case NodeKind::kMul: {
      // Through the linear form, so that x - x is 0 and 2 * x - x is x.
      Linear l = ToLinear(e);
      if (l.terms.size() == 1 && l.terms[0].coef == 1 && l.constant == 0 && l.terms[0].atom.same_as(e)) {
        // A product of two non-constants.
        const auto* b = e.as<BinaryNode>();
        ConstIntBound x = Bound(b->a), y = Bound(b->b);
        int64_t c[4] = {SatMul(x.min, y.min), SatMul(x.min, y.max), SatMul(x.max, y.min), SatMul(x.max, y.max)};
        return {*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
      }
      ConstIntBound r{l.constant, l.constant};
      for (const Linear::Term& t : l.terms) {
        ConstIntBound a = Bound(t.atom);
        int64_t lo = SatMul(a.min, t.coef), hi = SatMul(a.max, t.coef);
        if (t.coef < 0) std::swap(lo, hi);
        r.min = SatAdd(r.min, lo);
        r.max = SatAdd(r.max, hi);
      }
      return r;
    }
    case NodeKind::kFloorDiv:
    case NodeKind::kDiv: {
      const auto* b = e.as<BinaryNode>();
      ConstIntBound x = Bound(b->a), y = Bound(b->b);
      if (!y.is_const() || y.min <= 0) return {};
      if (e->kind() == NodeKind::kDiv && x.min < 0) return {};
      return {FloorDivInt(x.min, y.min), FloorDivInt(x.max, y.min)};
    }
    case NodeKind::kFloorMod:
    case NodeKind::kMod: {
      const auto* b = e.as<BinaryNode>();
      ConstIntBound x = Bound(b->a), y = Bound(b->b);
      if (!y.is_const() || y.min <= 0) return {};
      if (e->kind() == NodeKind::kMod && x.min < 0) return {};
      if (x.min >= 0 && x.max < y.min) return x;
      if (x.bounded() && FloorDivInt(x.min, y.min) == FloorDivInt(x.max, y.min)) {
        return {FloorModInt(x.min, y.min), FloorModInt(x.max, y.min)};
      }
      return {0, y.min - 1};
    }
    case NodeKind::kMin:
    case NodeKind::kMax: {
      const auto* b = e.as<BinaryNode>();
      ConstIntBound x = Bound(b->a), y = Bound(b->b);
      if (e->kind() == NodeKind::kMin) return {std::min(x.min, y.min), std::min(x.max, y.max)};
      return {std::max(x.min, y.min), std::max(x.max, y.max)};
    }
    case NodeKind::kCast: {
      const auto* c = e.as<CastNode>();
      if (IsIntExpr(c->value) || c->value->dtype.is_bool()) return Bound(c->value);
      return {};
    }
    case NodeKind::kSelect: {
      const auto* s = e.as<SelectNode>();
      ConstIntBound x = Bound(s->true_value), y = Bound(s->false_value);
      return {std::min(x.min, y.min), std::max(x.max, y.max)};
    }
    case NodeKind::kEQ:
    case NodeKind::kNE:
    case NodeKind::kLT:
    case NodeKind::kLE:
    case NodeKind::kGT:
    case NodeKind::kGE:
    case NodeKind::kAnd:
    case NodeKind::kOr:
    case NodeKind::kNot: {
      PrimExpr s = Simplify(e);
      if (const int64_t* v = AsConstInt(s)) return {*v, *v};
      return {0, 1};
    }
    case NodeKind::kFloatImm:
    case NodeKind::kStringImm:
    case NodeKind::kBufferLoad:
    case NodeKind::kTirCall: MLC_CASES_NOT_PRIM_EXPR return {};
  }
  return {};
}

bool Analyzer::CanProve(const PrimExpr& cond) const {
  PrimExpr s = Simplify(cond);
  const int64_t* v = AsConstInt(s);
  return v != nullptr && *v != 0;
}

bool Analyzer::CanProveEqual(const PrimExpr& a, const PrimExpr& b) const {
  if (!IsIntExpr(a) || !IsIntExpr(b)) return ExprDeepEqual(a, b);
  PrimExpr x = a, y = b;
  MatchTypes(&x, &y);
  ConstIntBound d = Bound(Simplify(MakeBinary(NodeKind::kSub, x, y)));
  return d.min == 0 && d.max == 0;
}

namespace {

class Simplifier : public StmtExprMutator {
 public:
  explicit Simplifier(const Analyzer* analyzer) : analyzer_(analyzer) {}

 protected:
  PrimExpr VisitExpr_(const BinaryNode* op, const PrimExpr& self) override {
    PrimExpr e = StmtExprMutator::VisitExpr_(op, self);
    const auto* b = e.as<BinaryNode>();
    if (b == nullptr) return e;
    NodeKind k = e->kind();
    const int64_t* ca = AsConstInt(b->a);
    const int64_t* cb = AsConstInt(b->b);
    bool ints = IsIntExpr(b->a) && IsIntExpr(b->b);
    switch (k) {
      case NodeKind::kAdd:
      case NodeKind::kSub:
      case NodeKind::kMul: {
        if (!ints) return e;
        Linear l = ToLinear(e);
        FoldDivModPairs(&l);
        return FromLinear(l);
      }
      case NodeKind::kFloorDiv:
      case NodeKind::kFloorMod:
        if (ints && cb != nullptr && *cb > 0) return DivMod(b->a, *cb, k == NodeKind::kFloorDiv, e);
        return e;
      case NodeKind::kDiv:
      case NodeKind::kMod:
        // Truncating division equals floor division when the dividend is non-negative.
        if (ints && cb != nullptr && *cb > 0 && analyzer_->Bound(b->a).min >= 0) {
          return DivMod(b->a, *cb, k == NodeKind::kDiv, e);
        }
        if (ca && cb && *cb != 0) return IntImm(e->dtype, k == NodeKind::kDiv ? *ca / *cb : *ca % *cb);
        return e;
      case NodeKind::kMin:
      case NodeKind::kMax: {
        if (!ints) return e;
        ConstIntBound x = analyzer_->Bound(b->a), y = analyzer_->Bound(b->b);
        bool a_le_b = x.max <= y.min, b_le_a = y.max <= x.min;
        if (!a_le_b && !b_le_a) {
          // The operands' own bounds overlap (min(i, i + 1), max(i * 4, i * 4 + 3)); the bound
          // of their difference may still decide.
          PrimExpr xa = b->a, yb = b->b;
          MatchTypes(&xa, &yb);
          ConstIntBound d = analyzer_->Bound(FromLinear(ToLinear(MakeBinary(NodeKind::kSub, xa, yb))));
          a_le_b = d.max <= 0;
          b_le_a = d.min >= 0;
        }
        if (k == NodeKind::kMin) {
          if (a_le_b) return b->a;
          if (b_le_a) return b->b;
        } else {
          if (a_le_b) return b->b;
          if (b_le_a) return b->a;
        }
        return e;
      }
      case NodeKind::kEQ:
      case NodeKind::kNE:
      case NodeKind::kLT:
      case NodeKind::kLE:
      case NodeKind::kGT:
      case NodeKind::kGE: {
        if (!ints) {
          if (ca && cb) return Const(DataType::Bool(), Compare(k, *ca, *cb));
          return e;
        }
        // Decide a - b against 0.
        PrimExpr x = b->a, y = b->b;
        MatchTypes(&x, &y);
        PrimExpr diff = FromLinear(ToLinear(MakeBinary(NodeKind::kSub, x, y)));
        ConstIntBound d = analyzer_->Bound(diff);
        std::optional<bool> r;
        switch (k) {
          case NodeKind::kEQ:
            if (d.min == 0 && d.max == 0)
              r = true;
            else if (d.min > 0 || d.max < 0)
              r = false;
            break;
          case NodeKind::kNE:
            if (d.min == 0 && d.max == 0)
              r = false;
            else if (d.min > 0 || d.max < 0)
              r = true;
            break;
          case NodeKind::kLT:
            if (d.max < 0)
              r = true;
            else if (d.min >= 0)
              r = false;
            break;
          case NodeKind::kLE:
            if (d.max <= 0)
              r = true;
            else if (d.min > 0)
              r = false;
            break;
          case NodeKind::kGT:
            if (d.min > 0)
              r = true;
            else if (d.max <= 0)
              r = false;
            break;
          case NodeKind::kGE:
            if (d.min >= 0)
              r = true;
            else if (d.max < 0)
              r = false;
            break;
          default: break;
        }
        if (r) return IntImm(DataType::Bool(), *r);
        return e;
      }
      case NodeKind::kAnd:
      case NodeKind::kOr:
        if (ca) return k == NodeKind::kAnd ? (*ca ? b->b : b->a) : (*ca ? b->a : b->b);
        if (cb) return k == NodeKind::kAnd ? (*cb ? b->a : b->b) : (*cb ? b->b : b->a);
        return e;
        MLC_CASES_NOT_BINARY
        return e;
    }
    return e;
  }

  PrimExpr VisitExpr_(const CastNode* op, const PrimExpr& self) override {
    PrimExpr e = StmtExprMutator::VisitExpr_(op, self);
    const auto* c = e.as<CastNode>();
    if (c == nullptr) return e;
    if (c->value->dtype == c->dtype) return c->value;
    if (const int64_t* v = AsConstInt(c->value)) {
      if (c->dtype.is_integer()) return IntImm(c->dtype, *v);
      if (c->dtype.is_float()) return FloatImm(c->dtype, static_cast<double>(*v));
    }
    return e;
  }

  PrimExpr VisitExpr_(const NotNode* op, const PrimExpr& self) override {
    PrimExpr e = StmtExprMutator::VisitExpr_(op, self);
    const auto* n = e.as<NotNode>();
    if (n != nullptr) {
      if (const int64_t* v = AsConstInt(n->a)) return IntImm(DataType::Bool(), !*v);
    }
    return e;
  }

  PrimExpr VisitExpr_(const SelectNode* op, const PrimExpr& self) override {
    PrimExpr e = StmtExprMutator::VisitExpr_(op, self);
    const auto* s = e.as<SelectNode>();
    if (s != nullptr) {
      if (const int64_t* v = AsConstInt(s->condition)) return *v ? s->true_value : s->false_value;
    }
    return e;
  }

 private:
  static bool Compare(NodeKind k, int64_t a, int64_t b) {
    switch (k) {
      case NodeKind::kEQ: return a == b;
      case NodeKind::kNE: return a != b;
      case NodeKind::kLT: return a < b;
      case NodeKind::kLE: return a <= b;
      case NodeKind::kGT: return a > b;
      case NodeKind::kGE: return a >= b;
      default: return false;
    }
  }

  /*! \brief m * c * floordiv(x, c) + m * floormod(x, c) = m * x: an index taken apart by a
   *  reshape (or im2col) and flattened again is the index it started as. */
  static void FoldDivModPairs(Linear* l) {
    for (bool changed = true; changed;) {
      changed = false;
      for (size_t i = 0; i < l->terms.size() && !changed; ++i) {
        // The symbolic divisor form: floordiv(x, n) * n + floormod(x, n) = x (a batch of
        // symbolic size flattened with the rows).
        if (const auto* mul = l->terms[i].atom.as<BinaryNode>(); mul != nullptr && mul->kind() == NodeKind::kMul) {
          for (int side = 0; side < 2 && !changed; ++side) {
            const auto* d = (side == 0 ? mul->a : mul->b).as<BinaryNode>();
            const PrimExpr& other = side == 0 ? mul->b : mul->a;
            if (d != nullptr && d->kind() == NodeKind::kFloorDiv && AsConstInt(d->b) == nullptr &&
                ExprDeepEqual(d->b, other)) {
              changed = FoldPair(l, i, d->a, other, 1);
            }
          }
          if (changed) break;
        }
        const auto* div = l->terms[i].atom.as<BinaryNode>();
        if (div == nullptr || div->kind() != NodeKind::kFloorDiv) continue;
        const int64_t* c = AsConstInt(div->b);
        if (c == nullptr || *c <= 0) continue;
        changed = FoldPair(l, i, div->a, div->b, *c);
      }
    }
  }

  /*! \brief With term i standing for scale * m * floordiv(x, n) * (n / scale) (its coefficient
   *  scale times m), finds the term m * floormod(x, n) and replaces both by m * x. */
  static bool FoldPair(Linear* l, size_t i, const PrimExpr& x, const PrimExpr& n, int64_t scale) {
    for (size_t j = 0; j < l->terms.size(); ++j) {
      const auto* mod = l->terms[j].atom.as<BinaryNode>();
      if (j == i || mod == nullptr || mod->kind() != NodeKind::kFloorMod || !ExprDeepEqual(mod->b, n) ||
          !ExprDeepEqual(mod->a, x) || l->terms[i].coef != scale * l->terms[j].coef) {
        continue;
      }
      int64_t m = l->terms[j].coef;
      PrimExpr dividend = x;
      l->terms.erase(l->terms.begin() + std::max(i, j));
      l->terms.erase(l->terms.begin() + std::min(i, j));
      l->Add(ToLinear(dividend), m);
      l->DropZeros();
      return true;
    }
    return false;
  }

  /*! \brief floordiv / floormod of `a` by c > 0: a = c * q + r with the terms divisible by c in
   *  q, so floordiv(a, c) = q + floordiv(r, c) and floormod(a, c) = floormod(r, c); r's bounds
   *  then often settle floordiv(r, c) and floormod(r, c). */
  PrimExpr DivMod(const PrimExpr& a, int64_t c, bool div, const PrimExpr& original) {
    Linear l = ToLinear(a);
    Linear q, r;
    q.dtype = r.dtype = l.dtype;
    for (const Linear::Term& t : l.terms) {
      if (t.coef % c == 0) {
        q.Add(t.atom, t.coef / c);
      } else {
        r.Add(t.atom, t.coef);
      }
    }
    q.constant = FloorDivInt(l.constant, c);
    r.constant = FloorModInt(l.constant, c);
    if (std::optional<PrimExpr> split = SplitByCommonFactor(r, c, div)) {
      if (!div) return *split;
      Linear out = q;
      out.Add(*split, 1);
      return FromLinear(out);
    }
    PrimExpr rest = FromLinear(r);
    ConstIntBound rb = analyzer_->Bound(rest);
    if (div) {
      if (rb.min >= 0 && rb.max < kInf && FloorDivInt(rb.min, c) == FloorDivInt(rb.max, c)) {
        q.constant += FloorDivInt(rb.min, c);
        return FromLinear(q);
      }
      if (q.IsConst() && q.constant == 0) return MakeBinary(NodeKind::kFloorDiv, rest, IntImm(l.dtype, c));
      Linear out = q;
      out.Add(MakeBinary(NodeKind::kFloorDiv, rest, IntImm(l.dtype, c)), 1);
      return FromLinear(out);
    }
    if (rb.min >= 0 && rb.max < kInf && FloorDivInt(rb.min, c) == FloorDivInt(rb.max, c)) {
      Linear out = r;
      out.constant -= FloorDivInt(rb.min, c) * c;
      return FromLinear(out);
    }
    (void)original;
    return MakeBinary(NodeKind::kFloorMod, rest, IntImm(l.dtype, c));
  }

  /*! \brief r = g * x + y with g dividing c and y within [0, g) (a fused loop split by g, as in
   *  (o * 7 + i) with i < 7 over 14): floordiv(r, c) = floordiv(x, c / g) and floormod(r, c) =
   *  floormod(x, c / g) * g + y. Tries the factors g that c shares with r's coefficients,
   *  largest first; nullopt when none splits r so. */
  std::optional<PrimExpr> SplitByCommonFactor(const Linear& r, int64_t c, bool div) {
    std::vector<int64_t> factors;
    for (const Linear::Term& t : r.terms) {
      int64_t g = std::gcd(t.coef < 0 ? -t.coef : t.coef, c);
      if (g > 1 && g < c && std::find(factors.begin(), factors.end(), g) == factors.end()) factors.push_back(g);
    }
    std::sort(factors.rbegin(), factors.rend());
    for (int64_t g : factors) {
      Linear x, y;
      x.dtype = y.dtype = r.dtype;
      for (const Linear::Term& t : r.terms) {
        if (t.coef % g == 0)
          x.Add(t.atom, t.coef / g);
        else
          y.Add(t.atom, t.coef);
      }
      y.constant = r.constant;
      if (x.terms.empty() || y.terms.empty()) continue;  // no inner part: nothing to separate
      PrimExpr low = FromLinear(y);
      ConstIntBound yb = analyzer_->Bound(low);
      if (yb.min < 0 || yb.max >= g) continue;
      PrimExpr high = FromLinear(x);
      if (div) return DivMod(high, c / g, true, MakeBinary(NodeKind::kFloorDiv, high, IntImm(r.dtype, c / g)));
      Linear out = ToLinear(DivMod(high, c / g, false, MakeBinary(NodeKind::kFloorMod, high, IntImm(r.dtype, c / g))));
      Linear scaled;
      scaled.dtype = r.dtype;
      scaled.Add(out, g);
      scaled.Add(y, 1);
      return FromLinear(scaled);
    }
    return std::nullopt;
  }

  const Analyzer* analyzer_;
};

}  // namespace

PrimExpr Analyzer::Simplify(const PrimExpr& e) const { return Simplifier(this).VisitExpr(e); }

namespace {

class LoopRangeSimplifier : public StmtExprMutator {
 public:
  explicit LoopRangeSimplifier(Analyzer analyzer) : analyzer_(std::move(analyzer)) {}

  PrimExpr VisitExpr(const PrimExpr& e) override { return analyzer_.Simplify(e); }

 protected:
  Stmt VisitStmt_(const ForNode* op, const Stmt& self) override {
    PrimExpr min = VisitExpr(op->min), extent = VisitExpr(op->extent);
    Analyzer saved = analyzer_;
    analyzer_.Bind(op->loop_var, Range{min, extent});
    Stmt body = VisitStmt(op->body);
    analyzer_ = std::move(saved);
    if (min.same_as(op->min) && extent.same_as(op->extent) && body.same_as(op->body)) return self;
    return Stmt(new ForNode(op->loop_var, min, extent, op->for_kind, body, op->annotations));
  }
  /*! Inside a block its iteration variables range over their domains (what the loops bind
   *  them to is checked by the schedule, not assumed here). */
  Stmt VisitStmt_(const BlockNode* op, const Stmt& self) override {
    Analyzer saved = analyzer_;
    for (const IterVar& iv : op->iter_vars) analyzer_.Bind(iv.var, iv.dom);
    Stmt out = StmtExprMutator::VisitStmt_(op, self);
    analyzer_ = std::move(saved);
    return out;
  }
  Stmt VisitStmt_(const IfThenElseNode* op, const Stmt& self) override {
    PrimExpr cond = VisitExpr(op->condition);
    if (const int64_t* c = AsConstInt(cond)) {
      if (*c != 0) return VisitStmt(op->then_case);
      return op->else_case.defined() ? VisitStmt(op->else_case) : Stmt(new EvaluateNode(IntImm(DataType::Int32(), 0)));
    }
    Stmt then_case = VisitStmt(op->then_case);
    Stmt else_case = op->else_case.defined() ? VisitStmt(op->else_case) : Stmt();
    return Stmt(new IfThenElseNode(cond, then_case, else_case));
  }

 private:
  Analyzer analyzer_;
};

}  // namespace

Stmt SimplifyWithLoopRanges(const Stmt& stmt, const Analyzer& outer) {
  return LoopRangeSimplifier(outer).VisitStmt(stmt);
}

IntRange Analyzer::EvalRange(const PrimExpr& e, const std::unordered_map<const Object*, Range>& relaxed) const {
  if (!ContainsVar(e, relaxed)) {
    PrimExpr s = Simplify(e);
    return {s, s};
  }
  if (!IsIntExpr(e)) return {};
  Linear l = ToLinear(Simplify(e));
  Linear lo, hi;
  lo.dtype = hi.dtype = l.dtype;
  lo.constant = hi.constant = l.constant;
  for (const Linear::Term& t : l.terms) {
    IntRange r;
    auto it = t.atom.as<TirVarNode>() ? relaxed.find(t.atom.get()) : relaxed.end();
    if (it != relaxed.end()) {
      PrimExpr last = Simplify(MakeBinary(NodeKind::kSub, MakeBinary(NodeKind::kAdd, it->second.min, it->second.extent),
                                          IntImm(it->second.min->dtype, 1)));
      PrimExpr mn = it->second.min;
      if (mn->dtype != l.dtype) mn = Cast(l.dtype, mn);
      if (last->dtype != l.dtype) last = Cast(l.dtype, last);
      r = {mn, last};
    } else if (!ContainsVar(t.atom, relaxed)) {
      r = {t.atom, t.atom};
    } else if (const auto* b = t.atom.as<BinaryNode>(); b != nullptr && t.atom->kind() == NodeKind::kFloorDiv) {
      const int64_t* c = AsConstInt(b->b);
      IntRange inner = EvalRange(b->a, relaxed);
      if (c == nullptr || *c <= 0 || !inner.min.defined()) return {};
      r = {Simplify(MakeBinary(NodeKind::kFloorDiv, inner.min, b->b)),
           Simplify(MakeBinary(NodeKind::kFloorDiv, inner.max, b->b))};
    } else if (b != nullptr && t.atom->kind() == NodeKind::kFloorMod) {
      const int64_t* c = AsConstInt(b->b);
      if (c == nullptr || *c <= 0) return {};
      r = {IntImm(l.dtype, 0), IntImm(l.dtype, *c - 1)};
    } else if (b != nullptr && (t.atom->kind() == NodeKind::kMin || t.atom->kind() == NodeKind::kMax)) {
      IntRange x = EvalRange(b->a, relaxed), y = EvalRange(b->b, relaxed);
      if (!x.min.defined() || !y.min.defined()) return {};
      NodeKind k = t.atom->kind();
      r = {Simplify(MakeBinary(k, x.min, y.min)), Simplify(MakeBinary(k, x.max, y.max))};
    } else if (const auto* c = t.atom.as<CastNode>();
               c != nullptr && IsIntExpr(c->value) && c->dtype.bits() >= c->value->dtype.bits()) {
      // A widening integer cast (int32 loop variables indexing an int64 layout) keeps the order.
      IntRange inner = EvalRange(c->value, relaxed);
      if (!inner.min.defined()) return {};
      r = {Simplify(Cast(c->dtype, inner.min)), Simplify(Cast(c->dtype, inner.max))};
    } else {
      return {};
    }
    if (t.coef > 0) {
      lo.Add(ToLinear(r.min), t.coef);
      hi.Add(ToLinear(r.max), t.coef);
    } else {
      lo.Add(ToLinear(r.max), t.coef);
      hi.Add(ToLinear(r.min), t.coef);
    }
  }
  lo.DropZeros();
  hi.DropZeros();
  return {Simplify(FromLinear(lo)), Simplify(FromLinear(hi))};
}

}  // namespace tir
}  // namespace mlc
