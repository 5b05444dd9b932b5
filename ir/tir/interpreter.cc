/*! \file interpreter.cc
 *  \brief Loop-level interpreter.
 */
#include "ir/tir/interpreter.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/tir/intrinsics.h"
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

class Interpreter {
 public:
  explicit Interpreter(int64_t max_steps) : max_steps_(max_steps) {}

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
    const char* p = static_cast<const char*>(t->data()) + offset * t->dtype().bytes();
    DataType d = t->dtype();
    if (d.is_float()) {
      if (d.bits() == 32) return Make(d, *reinterpret_cast<const float*>(p));
      if (d.bits() == 64) return Make(d, *reinterpret_cast<const double*>(p));
      Fail("float16 is not supported by the interpreter");
      return Scalar();
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

  void Store(TensorData* t, int64_t offset, const Scalar& v) {
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
      case NodeKind::kCast: {
        Scalar v = Eval(e.as<tir::CastNode>()->value);
        if (e->dtype.is_bool()) return MakeInt(v.AsDouble() != 0);
        return Make(e->dtype, e->dtype.is_float() ? v.AsDouble() : static_cast<double>(v.AsInt()));
      }
      case NodeKind::kTirCall: {
        const auto* c = e.as<tir::TirCallNode>();
        if (c->name == "if_then_else" && c->args.size() == 3) return Eval(c->args[Eval(c->args[0]).AsInt() ? 1 : 2]);
        const IntrinsicInfo* info = LookupIntrinsic(c->name);
        constexpr size_t kMaxArgs = 8;  // of any intrinsic with an `eval`
        if (info == nullptr || static_cast<int>(c->args.size()) != info->num_args || info->eval == nullptr ||
            c->args.size() > kMaxArgs) {
          Fail(absl::StrCat("unknown intrinsic T.", c->name));
          return MakeInt(0);
        }
        double a[kMaxArgs];
        for (size_t i = 0; i < c->args.size(); ++i) a[i] = Eval(c->args[i]).AsDouble();
        double r = info->eval(a);
        if (info->result == IntrinsicInfo::Result::kBool) return MakeInt(r != 0);
        return Make(e->dtype, r);
      }
        MLC_BINARY_CASES {
          const auto* bin = static_cast<const tir::BinaryNode*>(e.get());
          Scalar a = Eval(bin->a), b = Eval(bin->b);
          bool fl = a.is_float || b.is_float;
          DataType t = bin->a->dtype;
          double x = a.AsDouble(), y = b.AsDouble();
          int64_t p = a.AsInt(), q = b.AsInt();
          switch (e->kind()) {
            case NodeKind::kAdd: return fl ? Make(t, x + y) : MakeInt(p + q);
            case NodeKind::kSub: return fl ? Make(t, x - y) : MakeInt(p - q);
            case NodeKind::kMul: return fl ? Make(t, x * y) : MakeInt(p * q);
            case NodeKind::kDiv:
              if (!fl && q == 0) {
                Fail("division by zero");
                return Scalar();
              }
              return fl ? Make(t, x / y) : MakeInt(p / q);
            case NodeKind::kMod:
              if (!fl && q == 0) {
                Fail("division by zero");
                return Scalar();
              }
              return fl ? Make(t, std::fmod(x, y)) : MakeInt(p % q);
            case NodeKind::kFloorDiv:
              if (!fl && q == 0) {
                Fail("division by zero");
                return Scalar();
              }
              return fl ? Make(t, std::floor(x / y)) : MakeInt(FloorDivI(p, q));
            case NodeKind::kFloorMod:
              if (!fl && q == 0) {
                Fail("division by zero");
                return Scalar();
              }
              return fl ? Make(t, x - std::floor(x / y) * y) : MakeInt(p - FloorDivI(p, q) * q);
            case NodeKind::kMin: return fl ? Make(t, std::fmin(x, y)) : MakeInt(std::min(p, q));
            case NodeKind::kMax: return fl ? Make(t, std::fmax(x, y)) : MakeInt(std::max(p, q));
            case NodeKind::kEQ: return MakeInt(fl ? x == y : p == q);
            case NodeKind::kNE: return MakeInt(fl ? x != y : p != q);
            case NodeKind::kLT: return MakeInt(fl ? x < y : p < q);
            case NodeKind::kLE: return MakeInt(fl ? x <= y : p <= q);
            case NodeKind::kGT: return MakeInt(fl ? x > y : p > q);
            case NodeKind::kGE: return MakeInt(fl ? x >= y : p >= q);
            case NodeKind::kAnd: return MakeInt(p && q);
            case NodeKind::kOr: return MakeInt(p || q); MLC_CASES_NOT_PRIM_EXPR
            case NodeKind::kIntImm:
            case NodeKind::kFloatImm:
            case NodeKind::kStringImm:
            case NodeKind::kTirVar:
            case NodeKind::kNot:
            case NodeKind::kSelect:
            case NodeKind::kCast:
            case NodeKind::kBufferLoad:
            case NodeKind::kTirCall: break;
          }
          Fail("unexpected expression");
          return Scalar();
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
  int64_t steps_ = 0, max_steps_;
  absl::Status status_;
};

}  // namespace

absl::Status InterpretPrimFunc(const tir::PrimFunc& func, const std::vector<TensorData*>& buffers, int64_t max_steps) {
  return Interpreter(max_steps).Run(func, buffers);
}

}  // namespace tir
}  // namespace mlc
