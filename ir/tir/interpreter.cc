/*! \file interpreter.cc
 *  \brief Loop-level interpreter.
 */
#include "ir/tir/interpreter.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/tir/intrinsics.h"
#include "ir/tir/tir_functor.h"
#include "support/checked_math.h"

namespace mlc {
namespace tir {
namespace {

struct Scalar {
  double f = 0;
  int64_t i = 0;
  bool is_float = false;
  double AsDouble() const { return is_float ? f : static_cast<double>(i); }
  // Saturating: fuzzing found constants like 1e33 cast to an index (a plain cast is undefined).
  int64_t AsInt() const { return is_float ? SaturatingInt64(f) : i; }
};

Scalar Make(DataType t, double v) {
  Scalar s;
  s.is_float = t.is_float();
  if (s.is_float) {
    s.f = t.bits() == 32 ? static_cast<double>(static_cast<float>(v)) : v;
  } else {
    s.i = SaturatingInt64(v);
  }
  return s;
}
Scalar MakeInt(int64_t v) {
  Scalar s;
  s.i = v;
  return s;
}

int64_t FloorDivI(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/*! \brief `a` op `b` for a binary expression of kind `kind` whose first operand has type `t`,
 *  into `out`; false for an integer division (or modulo) by zero. The one definition of the
 *  interpreter's arithmetic: elements and rows (below) go through it alike. */
inline bool ApplyBinary(NodeKind kind, DataType t, const Scalar& a, const Scalar& b, Scalar* out) {
  const bool fl = a.is_float || b.is_float;
  const double x = a.AsDouble(), y = b.AsDouble();
  const int64_t p = a.AsInt(), q = b.AsInt();
  const bool divides =
      kind == NodeKind::kDiv || kind == NodeKind::kMod || kind == NodeKind::kFloorDiv || kind == NodeKind::kFloorMod;
  if (divides && !fl && q == 0) return false;
  switch (kind) {
    case NodeKind::kAdd: *out = fl ? Make(t, x + y) : MakeInt(p + q); break;
    case NodeKind::kSub: *out = fl ? Make(t, x - y) : MakeInt(p - q); break;
    case NodeKind::kMul: *out = fl ? Make(t, x * y) : MakeInt(p * q); break;
    case NodeKind::kDiv: *out = fl ? Make(t, x / y) : MakeInt(p / q); break;
    case NodeKind::kMod: *out = fl ? Make(t, std::fmod(x, y)) : MakeInt(p % q); break;
    case NodeKind::kFloorDiv: *out = fl ? Make(t, std::floor(x / y)) : MakeInt(FloorDivI(p, q)); break;
    case NodeKind::kFloorMod: *out = fl ? Make(t, x - std::floor(x / y) * y) : MakeInt(p - FloorDivI(p, q) * q); break;
    case NodeKind::kMin: *out = fl ? Make(t, std::fmin(x, y)) : MakeInt(std::min(p, q)); break;
    case NodeKind::kMax: *out = fl ? Make(t, std::fmax(x, y)) : MakeInt(std::max(p, q)); break;
    case NodeKind::kEQ: *out = MakeInt(fl ? x == y : p == q); break;
    case NodeKind::kNE: *out = MakeInt(fl ? x != y : p != q); break;
    case NodeKind::kLT: *out = MakeInt(fl ? x < y : p < q); break;
    case NodeKind::kLE: *out = MakeInt(fl ? x <= y : p <= q); break;
    case NodeKind::kGT: *out = MakeInt(fl ? x > y : p > q); break;
    case NodeKind::kGE: *out = MakeInt(fl ? x >= y : p >= q); break;
    case NodeKind::kAnd: *out = MakeInt(p && q); break;
    case NodeKind::kOr: *out = MakeInt(p || q); break;
    default: *out = Scalar(); break;
  }
  return true;
}

/*! \brief `v` converted to `to` (a cast). */
inline Scalar ApplyCast(DataType to, const Scalar& v) {
  if (to.is_bool()) return MakeInt(v.AsDouble() != 0);
  return Make(to, to.is_float() ? v.AsDouble() : static_cast<double>(v.AsInt()));
}

/*! \brief An intrinsic's double result `r` as a value of the call's type `t`. */
Scalar IntrinsicResult(const IntrinsicInfo& info, DataType t, double r) {
  if (info.result == IntrinsicInfo::Result::kBool) return MakeInt(r != 0);
  return Make(t, r);
}

/*! \brief The intrinsic a call names, if the interpreter can evaluate it with these arguments. */
constexpr size_t kMaxIntrinsicArgs = 8;  // of any intrinsic with an `eval`
const IntrinsicInfo* EvaluableIntrinsic(const tir::TirCallNode& c) {
  const IntrinsicInfo* info = LookupIntrinsic(c.name);
  if (info == nullptr || static_cast<int>(c.args.size()) != info->num_args || info->eval == nullptr ||
      c.args.size() > kMaxIntrinsicArgs) {
    return nullptr;
  }
  return info;
}

/*! \brief Whether the interpreter reads and writes elements of type `d` (not float16). */
bool Representable(DataType d) { return !d.is_float() || d.bits() == 32 || d.bits() == 64; }

/*! \brief Element `offset` of `t` (of a Representable type). */
Scalar LoadElement(const TensorData* t, int64_t offset) {
  const char* p = static_cast<const char*>(t->data()) + offset * t->dtype().bytes();
  DataType d = t->dtype();
  if (d.is_float()) {
    if (d.bits() == 32) return Make(d, *reinterpret_cast<const float*>(p));
    return Make(d, *reinterpret_cast<const double*>(p));
  }
  int64_t v = 0;
  switch (d.bytes()) {
    case 1:
      v = d.is_uint() || d.is_bool() ? *reinterpret_cast<const uint8_t*>(p) : *reinterpret_cast<const int8_t*>(p);
      break;
    case 2: v = *reinterpret_cast<const int16_t*>(p); break;
    case 4: v = *reinterpret_cast<const int32_t*>(p); break;
    default: v = *reinterpret_cast<const int64_t*>(p); break;
  }
  return MakeInt(v);
}

/*! \brief Writes `v` to element `offset` of `t` (of a Representable type). */
void StoreElement(TensorData* t, int64_t offset, const Scalar& v) {
  char* p = static_cast<char*>(t->mutable_data()) + offset * t->dtype().bytes();
  DataType d = t->dtype();
  if (d.is_float()) {
    if (d.bits() == 32)
      *reinterpret_cast<float*>(p) = static_cast<float>(v.AsDouble());
    else
      *reinterpret_cast<double*>(p) = v.AsDouble();
    return;
  }
  int64_t i = v.AsInt();
  std::memcpy(p, &i, d.bytes());
}

/*! \brief What the variables (or buffers) in scope are bound to, innermost last: scopes nest, so
 *  a stack searched from its top finds the innermost binding, and the few dozen entries at most
 *  (a loop nest's and its blocks' iteration variables) make that faster than a tree. Its code is
 *  also this file's alone: a std::map<const Object*, int64_t>'s out-of-line members resolved to
 *  another library's unoptimized copy (the sanitizer build compiles the passes at -O0), which
 *  made interpreted kernels 70x slower there.
 */
template <typename T>
class ScopedBindings {
 public:
  const T* Find(const Object* key) const {
    for (size_t i = entries_.size(); i-- > 0;)
      if (entries_[i].key == key) return &entries_[i].value;
    return nullptr;
  }
  /*! \brief Binds `key` in a new innermost scope; returns the binding's place for Set. */
  size_t Push(const Object* key, T value) {
    entries_.push_back(Entry{key, value});
    return entries_.size() - 1;
  }
  void Set(size_t place, T value) { entries_[place].value = value; }
  size_t size() const { return entries_.size(); }
  /*! \brief Ends the scopes pushed since size() was `size`. */
  void PopTo(size_t size) { entries_.resize(std::min(size, entries_.size())); }

 private:
  struct Entry {  // of this file, and so are the vector's members
    const Object* key;
    T value;
  };
  std::vector<Entry> entries_;
};

/*! \brief The buffers an expression loads from. */
struct LoadedBuffers : StmtExprVisitor {
  void VisitExpr_(const BufferLoadNode* op) override {
    buffers.push_back(op->buffer.get());
    StmtExprVisitor::VisitExpr_(op);
  }
  std::vector<const BufferNode*> buffers;
};

/*! \brief Buffers reused from row to row: freeing a row's temporaries after each row made glibc
 *  give their pages back and fault them in again (a third of the time in the kernel). */
template <typename T>
class ScratchPool {
 public:
  std::vector<T>* Take() {
    if (free_.empty()) {
      owned_.push_back(std::make_unique<std::vector<T>>());
      return owned_.back().get();
    }
    std::vector<T>* v = free_.back();
    free_.pop_back();
    return v;
  }
  void Give(std::vector<T>* v) { free_.push_back(v); }

 private:
  std::vector<std::unique_ptr<std::vector<T>>> owned_;
  std::vector<std::vector<T>*> free_;
};

/*! \brief A buffer of a ScratchPool for one scope. */
template <typename T>
class Scratch {
 public:
  explicit Scratch(ScratchPool<T>* pool) : pool_(pool), v_(pool->Take()) {}
  ~Scratch() { pool_->Give(v_); }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  std::vector<T>& operator*() { return *v_; }
  std::vector<T>* get() { return v_; }

 private:
  ScratchPool<T>* pool_;
  std::vector<T>* v_;
};

class Interpreter {
 public:
  explicit Interpreter(const InterpretOptions& options) : max_steps_(options.max_steps), rows_(options.rows) {}
  const InterpretStats& stats() const { return stats_; }

  absl::Status Run(const tir::PrimFunc& func, const std::vector<TensorData*>& buffers) {
    if (buffers.size() != func->params.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("interpreter: ", func->params.size(), " buffers expected, got ", buffers.size()));
    }
    for (size_t i = 0; i < buffers.size(); ++i) {
      const tir::Buffer& b = func->params[i];
      if (buffers[i]->dtype() != b->dtype || buffers[i]->shape().size() != b->shape.size()) {
        return absl::InvalidArgumentError(absl::StrCat("interpreter: buffer ", b->name, " does not match its tensor"));
      }
      storage_.Push(b.get(), buffers[i]);
    }
    Exec(func->body);
    return status_;
  }

 private:
  void Fail(const std::string& msg) {
    if (status_.ok()) status_ = absl::InvalidArgumentError(absl::StrCat("interpreter: ", msg));
  }

  int64_t Offset(const tir::Buffer& b, const std::vector<tir::PrimExpr>& indices, TensorData** t) {
    TensorData* const* storage = storage_.Find(b.get());
    if (storage == nullptr) {
      Fail(absl::StrCat("buffer ", b->name, " has no storage"));
      return -1;
    }
    *t = *storage;
    int64_t offset = 0;
    for (size_t d = 0; d < indices.size(); ++d) {
      int64_t idx = Eval(indices[d]).AsInt();
      int64_t extent = (*t)->shape()[d];
      if (idx < 0 || idx >= extent) {
        Fail(
            absl::StrCat("index ", idx, " out of bounds for dimension ", d, " of ", b->name, " (extent ", extent, ")"));
        return -1;
      }
      offset = offset * extent + idx;
    }
    return offset;
  }

  Scalar Load(const TensorData* t, int64_t offset) {
    if (!Representable(t->dtype())) {
      Fail("float16 is not supported by the interpreter");
      return Scalar();
    }
    return LoadElement(t, offset);
  }

  void Store(TensorData* t, int64_t offset, const Scalar& v) {
    if (!Representable(t->dtype())) return Fail("float16 is not supported by the interpreter");
    StoreElement(t, offset, v);
  }

  Scalar Eval(const tir::PrimExpr& e) {
    switch (e->kind()) {
      case NodeKind::kIntImm: return MakeInt(e.as<tir::IntImmNode>()->value);
      case NodeKind::kFloatImm: return Make(e->dtype, e.as<tir::FloatImmNode>()->value);
      case NodeKind::kStringImm: Fail("string immediates have no value"); return Scalar();
      case NodeKind::kTirVar: {
        const int64_t* value = vars_.Find(e.get());
        if (value == nullptr) {
          Fail(absl::StrCat("unbound variable ", e.as<tir::TirVarNode>()->name));
          return Scalar();
        }
        return MakeInt(*value);
      }
      case NodeKind::kBufferLoad: {
        const auto* l = e.as<tir::BufferLoadNode>();
        TensorData* t = nullptr;
        int64_t off = Offset(l->buffer, l->indices, &t);
        return off < 0 ? Scalar() : Load(t, off);
      }
      case NodeKind::kNot: return MakeInt(!Eval(e.as<tir::NotNode>()->a).AsInt());
      case NodeKind::kSelect: {
        const auto* s = e.as<tir::SelectNode>();
        return Eval(s->condition).AsInt() ? Eval(s->true_value) : Eval(s->false_value);
      }
      case NodeKind::kCast: return ApplyCast(e->dtype, Eval(e.as<tir::CastNode>()->value));
      case NodeKind::kTirCall: {
        const auto* c = e.as<tir::TirCallNode>();
        if (c->name == "if_then_else" && c->args.size() == 3) return Eval(c->args[Eval(c->args[0]).AsInt() ? 1 : 2]);
        const IntrinsicInfo* info = EvaluableIntrinsic(*c);
        if (info == nullptr) {
          Fail(absl::StrCat("unknown intrinsic T.", c->name));
          return MakeInt(0);
        }
        double a[kMaxIntrinsicArgs];
        for (size_t i = 0; i < c->args.size(); ++i) a[i] = Eval(c->args[i]).AsDouble();
        return IntrinsicResult(*info, e->dtype, info->eval(a));
      }
        MLC_BINARY_CASES {
          const auto* bin = static_cast<const tir::BinaryNode*>(e.get());
          Scalar a = Eval(bin->a), b = Eval(bin->b), out;
          if (!ApplyBinary(e->kind(), bin->a->dtype, a, b, &out)) {
            Fail("division by zero");
            return Scalar();
          }
          return out;
        }
        MLC_CASES_NOT_PRIM_EXPR
        Fail("unexpected expression");
        return Scalar();
    }
  }

  void Exec(const tir::Stmt& s) {
    if (!status_.ok() || !s.defined()) return;
    switch (s->kind()) {
      case NodeKind::kBufferStore: {
        if (++steps_ > max_steps_) return Fail("step limit exceeded");
        const auto* st = s.as<tir::BufferStoreNode>();
        TensorData* t = nullptr;
        int64_t off = Offset(st->buffer, st->indices, &t);
        if (off >= 0) Store(t, off, Eval(st->value));
        return;
      }
      case NodeKind::kFor: {
        const auto* f = s.as<tir::ForNode>();
        int64_t lo = Eval(f->min).AsInt(), end = SaturatingAdd(lo, Eval(f->extent).AsInt());
        if (rows_ && status_.ok() && ExecNestInRows(*f, lo, end)) return;
        size_t place = vars_.Push(f->loop_var.get(), lo);
        for (int64_t i = lo; i < end && status_.ok(); ++i) {
          // Iterations count as steps too: loops around empty ones (a zero extent inside) would
          // otherwise run unbounded (fuzzing found an ONNX Gemm folded that way).
          if (++steps_ > max_steps_) return Fail("step limit exceeded");
          vars_.Set(place, i);
          Exec(f->body);
        }
        vars_.PopTo(place);
        return;
      }
      case NodeKind::kSeqStmt:
        for (const tir::Stmt& x : s.as<tir::SeqStmtNode>()->seq) Exec(x);
        return;
      case NodeKind::kIfThenElse: {
        const auto* ite = s.as<tir::IfThenElseNode>();
        if (Eval(ite->condition).AsInt())
          Exec(ite->then_case);
        else
          Exec(ite->else_case);
        return;
      }
      case NodeKind::kEvaluate: Eval(s.as<tir::EvaluateNode>()->value); return;
      case NodeKind::kBlockRealize: {
        const auto* r = s.as<tir::BlockRealizeNode>();
        if (!Eval(r->predicate).AsInt()) return;
        const tir::BlockNode* b = r->block.get();
        size_t scope = vars_.size();
        bool first = true;
        for (size_t i = 0; i < b->iter_vars.size(); ++i) {
          int64_t v = Eval(r->iter_values[i]).AsInt();
          vars_.Push(b->iter_vars[i].var.get(), v);
          if (b->iter_vars[i].kind == tir::IterKind::kReduce && v != Eval(b->iter_vars[i].dom.min).AsInt())
            first = false;
        }
        ExecBlock(b, first);
        vars_.PopTo(scope);
        return;
      }
      case NodeKind::kBlock: return ExecBlock(s.as<tir::BlockNode>(), true);
      case NodeKind::kAllocate: {
        const auto* a = s.as<tir::AllocateNode>();
        return WithBuffers({a->buffer}, [&] { Exec(a->body); });
      }
        MLC_CASES_NOT_STMT
        return Fail("unexpected statement");
    }
  }

  // Row mode. A perfect loop nest around one store of values that do not read the stored
  // tensor (an elementwise operator, a transpose, a broadcast: most of what constant folding
  // meets) runs a row of iterations at a time: each expression is evaluated for the whole row
  // by a loop over the same element operations (ApplyBinary, ApplyCast, ...), not by a walk of
  // the tree per element. The results are the element-by-element ones bit for bit. Anything the
  // row evaluator does not take (a failure, a reduction, a store the values read, loop bounds
  // that are not constants) leaves the nest to the element-by-element path, which starts it
  // again from its first iteration (the stores it repeats write the same values: the nest does
  // not read what it writes) and fails with its own message where it fails.

  using Row = std::vector<Scalar>;
  static constexpr int64_t kRowLength = 1024;       // iterations per row: the rows stay in L1/L2
  static constexpr int64_t kMinRowIterations = 64;  // fewer: the element path is as fast

  /*! \brief Runs the nest from `f` (its iterations [lo, end)) in rows; false when it does not
   *  apply or fails (nothing observable done but idempotent stores; steps not counted). */
  bool ExecNestInRows(const tir::ForNode& f, int64_t lo, int64_t end) {
    // The nest: inner loops with constant bounds, down to a store or a block holding only one.
    std::vector<std::pair<const Object*, std::pair<int64_t, int64_t>>> loops = {{f.loop_var.get(), {lo, end - lo}}};
    const Stmt* body = &f.body;
    while ((*body)->kind() == NodeKind::kFor) {
      const auto* inner = body->as<tir::ForNode>();
      const int64_t* min = AsConstInt(inner->min);
      const int64_t* extent = AsConstInt(inner->extent);
      if (min == nullptr || extent == nullptr) return false;
      loops.push_back({inner->loop_var.get(), {*min, *extent}});
      body = &inner->body;
    }
    const tir::BlockRealizeNode* realize = nullptr;
    const tir::BufferStoreNode* store = body->as<tir::BufferStoreNode>();
    if (store == nullptr) {
      realize = body->as<tir::BlockRealizeNode>();
      if (realize == nullptr) return false;
      const tir::BlockNode& b = *realize->block;
      if (b.init.defined() || !b.alloc_buffers.empty() || b.iter_vars.size() != realize->iter_values.size())
        return false;
      store = b.body.as<tir::BufferStoreNode>();
      if (store == nullptr) return false;
    }
    // Steps as the element path counts them: each loop level's iterations, and the stores.
    int64_t iterations = 1, loop_steps = 0;
    for (const auto& loop : loops) {
      const int64_t extent = loop.second.second;
      if (extent <= 0 || iterations > (int64_t{1} << 40) / extent) return false;
      iterations *= extent;
      loop_steps += iterations;
    }
    if (iterations < kMinRowIterations || steps_ + loop_steps + iterations > max_steps_) return false;
    // The stored tensor must not be read by the nest, and every tensor must be one the
    // interpreter reads.
    TensorData* const* target = storage_.Find(store->buffer.get());
    if (target == nullptr || !Representable((*target)->dtype())) return false;
    std::vector<const PrimExpr*> exprs = {&store->value};
    for (const PrimExpr& i : store->indices) exprs.push_back(&i);
    if (realize != nullptr) {
      exprs.push_back(&realize->predicate);
      for (const PrimExpr& v : realize->iter_values) exprs.push_back(&v);
    }
    LoadedBuffers loaded;
    for (const PrimExpr* e : exprs) loaded.VisitExpr(*e);
    for (const tir::BufferNode* b : loaded.buffers) {
      TensorData* const* read = storage_.Find(b);
      if (read == nullptr || *read == *target || !Representable((*read)->dtype())) return false;
    }
    int64_t stores = 0;
    Scratch<Scalar> predicate(&value_rows_), values(&value_rows_), v(&value_rows_);
    Scratch<int64_t> offsets(&offsets_);
    // The loops' indices of the next iteration, innermost last, counted on from row to row.
    std::vector<int64_t> digit(loops.size(), 0);
    for (int64_t first = 0; first < iterations; first += kRowLength) {
      const int64_t n = std::min(kRowLength, iterations - first);
      row_var_count_ = 0;
      for (const auto& loop : loops) BindRowVar(loop.first, n);
      for (int64_t j = 0; j < n; ++j) {
        for (size_t k = 0; k < loops.size(); ++k) row_vars_[k].second[j] = loops[k].second.first + digit[k];
        for (size_t k = loops.size(); k-- > 0 && ++digit[k] == loops[k].second.second;) digit[k] = 0;
      }
      if (realize != nullptr) {
        if (!EvalRow(realize->predicate, n, predicate.get())) return AbandonRows();
        // Block variables bound one by one from their values, as the element path binds them.
        for (size_t i = 0; i < realize->iter_values.size(); ++i) {
          if (!EvalRow(realize->iter_values[i], n, v.get())) return AbandonRows();
          std::vector<int64_t>& row = BindRowVar(realize->block->iter_vars[i].var.get(), n);
          for (int64_t j = 0; j < n; ++j) row[j] = (*v)[j].AsInt();
        }
      }
      if (!RowOffsets(store->buffer, store->indices, n, offsets.get()) || !EvalRow(store->value, n, values.get()))
        return AbandonRows();
      for (int64_t j = 0; j < n; ++j) {
        if (realize != nullptr && !(*predicate)[j].AsInt()) continue;
        StoreElement(*target, (*offsets)[j], (*values)[j]);
        ++stores;
      }
    }
    row_var_count_ = 0;
    steps_ += loop_steps + stores;
    stats_.row_iterations += iterations;
    return true;
  }

  bool AbandonRows() {
    row_var_count_ = 0;
    return false;
  }

  /*! \brief A row variable bound (the next slot, its buffer reused) to `n` values to fill. */
  std::vector<int64_t>& BindRowVar(const Object* var, int64_t n) {
    if (row_var_count_ == row_vars_.size()) row_vars_.emplace_back();
    auto& slot = row_vars_[row_var_count_++];
    slot.first = var;
    slot.second.resize(n);
    return slot.second;
  }

  /*! \brief The element offsets of `indices` into `b` over a row; false where one is out of
   *  bounds (or cannot be evaluated). */
  bool RowOffsets(const tir::Buffer& b, const std::vector<PrimExpr>& indices, int64_t n,
                  std::vector<int64_t>* offsets) {
    TensorData* const* t = storage_.Find(b.get());
    if (t == nullptr) return false;
    offsets->assign(n, 0);
    Scratch<Scalar> index(&value_rows_);
    for (size_t d = 0; d < indices.size(); ++d) {
      if (!EvalRow(indices[d], n, index.get())) return false;
      const int64_t extent = (*t)->shape()[d];
      for (int64_t j = 0; j < n; ++j) {
        const int64_t i = (*index)[j].AsInt();
        if (i < 0 || i >= extent) return false;
        (*offsets)[j] = (*offsets)[j] * extent + i;
      }
    }
    return true;
  }

  /*! \brief `e` over a row of n iterations, into `out`; false where the element path would fail
   *  somewhere in the row or the row evaluator does not take the expression. */
  bool EvalRow(const PrimExpr& e, int64_t n, Row* out) {
    out->resize(n);
    Row& r = *out;
    switch (e->kind()) {
      case NodeKind::kIntImm: std::fill(r.begin(), r.end(), MakeInt(e.as<tir::IntImmNode>()->value)); return true;
      case NodeKind::kFloatImm:
        std::fill(r.begin(), r.end(), Make(e->dtype, e.as<tir::FloatImmNode>()->value));
        return true;
      case NodeKind::kTirVar: {
        for (size_t i = row_var_count_; i-- > 0;) {
          if (row_vars_[i].first != e.get()) continue;
          for (int64_t j = 0; j < n; ++j) r[j] = MakeInt(row_vars_[i].second[j]);
          return true;
        }
        const int64_t* value = vars_.Find(e.get());
        if (value == nullptr) return false;
        std::fill(r.begin(), r.end(), MakeInt(*value));
        return true;
      }
      case NodeKind::kBufferLoad: {
        const auto* l = e.as<tir::BufferLoadNode>();
        Scratch<int64_t> offsets(&offsets_);
        if (!RowOffsets(l->buffer, l->indices, n, offsets.get())) return false;
        const TensorData* t = *storage_.Find(l->buffer.get());
        for (int64_t j = 0; j < n; ++j) r[j] = LoadElement(t, (*offsets)[j]);
        return true;
      }
      case NodeKind::kNot:
        if (!EvalRow(e.as<tir::NotNode>()->a, n, out)) return false;
        for (Scalar& v : r) v = MakeInt(!v.AsInt());
        return true;
      case NodeKind::kSelect: {
        const auto* sel = e.as<tir::SelectNode>();
        return SelectRow(sel->condition, sel->true_value, sel->false_value, n, out);
      }
      case NodeKind::kCast: {
        if (!EvalRow(e.as<tir::CastNode>()->value, n, out)) return false;
        for (Scalar& v : r) v = ApplyCast(e->dtype, v);
        return true;
      }
      case NodeKind::kTirCall: {
        const auto* c = e.as<tir::TirCallNode>();
        if (c->name == "if_then_else" && c->args.size() == 3)
          return SelectRow(c->args[0], c->args[1], c->args[2], n, out);
        const IntrinsicInfo* info = EvaluableIntrinsic(*c);
        if (info == nullptr) return false;
        std::optional<Scratch<Scalar>> args[kMaxIntrinsicArgs];
        for (size_t i = 0; i < c->args.size(); ++i) {
          args[i].emplace(&value_rows_);
          if (!EvalRow(c->args[i], n, args[i]->get())) return false;
        }
        double a[kMaxIntrinsicArgs];
        for (int64_t j = 0; j < n; ++j) {
          for (size_t i = 0; i < c->args.size(); ++i) a[i] = (**args[i])[j].AsDouble();
          r[j] = IntrinsicResult(*info, e->dtype, info->eval(a));
        }
        return true;
      }
        MLC_BINARY_CASES {
          const auto* bin = static_cast<const tir::BinaryNode*>(e.get());
          Scratch<Scalar> b(&value_rows_);
          if (!EvalRow(bin->a, n, out) || !EvalRow(bin->b, n, b.get())) return false;
          for (int64_t j = 0; j < n; ++j) {
            if (!ApplyBinary(e->kind(), bin->a->dtype, r[j], (*b)[j], &r[j])) return false;
          }
          return true;
        }
      default: return false;
    }
  }

  /*! \brief cond ? a : b over a row. Both sides are evaluated for the whole row, so a side that
   *  would fail where it is not chosen (a padding's out-of-bounds read) sends the nest to the
   *  element path. */
  bool SelectRow(const PrimExpr& cond, const PrimExpr& a, const PrimExpr& b, int64_t n, Row* out) {
    Scratch<Scalar> c(&value_rows_), other(&value_rows_);
    if (!EvalRow(cond, n, c.get()) || !EvalRow(a, n, out) || !EvalRow(b, n, other.get())) return false;
    for (int64_t j = 0; j < n; ++j) {
      if (!(*c)[j].AsInt()) (*out)[j] = (*other)[j];
    }
    return true;
  }

  void ExecBlock(const tir::BlockNode* b, bool run_init) {
    WithBuffers(b->alloc_buffers, [&] {
      if (b->init.defined() && run_init) Exec(b->init);
      Exec(b->body);
    });
  }

  template <typename F>
  void WithBuffers(const std::vector<tir::Buffer>& buffers, F body) {
    std::vector<std::unique_ptr<TensorData>> owned;
    size_t scope = storage_.size();
    for (const tir::Buffer& b : buffers) {
      std::vector<int64_t> shape;
      for (const tir::PrimExpr& d : b->shape) shape.push_back(Eval(d).AsInt());
      owned.push_back(std::make_unique<TensorData>(b->dtype, shape));
      storage_.Push(b.get(), owned.back().get());
    }
    body();
    storage_.PopTo(scope);
  }

  ScopedBindings<int64_t> vars_;
  ScopedBindings<TensorData*> storage_;
  // Row mode's variables: the first row_var_count_ are bound, each to one value per iteration
  // of the row, innermost last (slots and their buffers reused from row to row).
  std::vector<std::pair<const Object*, std::vector<int64_t>>> row_vars_;
  size_t row_var_count_ = 0;
  ScratchPool<Scalar> value_rows_;  // rows of values
  ScratchPool<int64_t> offsets_;    // rows of element offsets
  int64_t steps_ = 0, max_steps_;
  bool rows_;
  InterpretStats stats_;
  absl::Status status_;
};

}  // namespace

absl::Status InterpretPrimFunc(const tir::PrimFunc& func, const std::vector<TensorData*>& buffers,
                               const InterpretOptions& options, InterpretStats* stats) {
  Interpreter interpreter(options);
  absl::Status s = interpreter.Run(func, buffers);
  if (stats != nullptr) *stats = interpreter.stats();
  return s;
}

}  // namespace tir
}  // namespace mlc
