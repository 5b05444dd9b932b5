/*! \file constant_packing.cc */
#include "passes/constant_packing.h"

#include <algorithm>
#include <cstring>
#include <optional>

#include "ir/graph/expr_functor.h"
#include "ir/graph/op.h"
#include "ir/tir/interpreter.h"
#include "ir/tir/stmt_tree.h"
#include "ir/tir/tir_util.h"

namespace mlc {
namespace passes {
namespace {

/*! \brief How often each buffer is accessed (loads and stores) in `s`. */
std::map<const Object*, int> BufferUses(const tir::Stmt& s) {
  std::map<const Object*, int> uses;
  for (const tir::BlockRealizeNode* r : tir::AllBlocks(s)) {
    for (const tir::BufferRegion& rd : r->block->reads) ++uses[rd.buffer.get()];
    for (const tir::BufferRegion& w : r->block->writes) ++uses[w.buffer.get()];
  }
  return uses;
}

/*! \brief The integer value of `e` with `var` = `value`, when `e` is built of integer
 *  arithmetic on `var` and constants alone. */
std::optional<int64_t> EvalIndex(const tir::PrimExpr& e, const tir::Var& var, int64_t value) {
  if (const auto* imm = e.as<tir::IntImmNode>()) return imm->value;
  if (e.same_as(var)) return value;
  if (const auto* cast = e.as<tir::CastNode>()) {
    return cast->dtype.is_integer() ? EvalIndex(cast->value, var, value) : std::nullopt;
  }
  const auto* bin = e.as<tir::BinaryNode>();
  if (bin == nullptr) return std::nullopt;
  std::optional<int64_t> a = EvalIndex(bin->a, var, value), b = EvalIndex(bin->b, var, value);
  if (!a || !b) return std::nullopt;
  switch (e->kind()) {
    case NodeKind::kAdd: return *a + *b;
    case NodeKind::kSub: return *a - *b;
    case NodeKind::kMul: return *a * *b;
    case NodeKind::kMin: return std::min(*a, *b);
    case NodeKind::kMax: return std::max(*a, *b);
    case NodeKind::kFloorDiv:
      if (*b == 0) return std::nullopt;
      return *a / *b - ((*a % *b != 0) && ((*a < 0) != (*b < 0)) ? 1 : 0);
    case NodeKind::kFloorMod: {
      if (*b == 0) return std::nullopt;
      int64_t m = *a % *b;
      return m != 0 && ((m < 0) != (*b < 0)) ? m + *b : m;
    }
    default: return std::nullopt;
  }
}

/*! \brief The copy run as a gather, when every index of the store depends on at most one
 *  iteration variable (a layout change: v0 // 40, v1, v0 % 40): the flat offset it stores to is
 *  then a sum of one table entry per variable, and the copy moves memory at memory speed
 *  (packing a language model's weights through the interpreter took minutes). nullopt when the
 *  store is not of that form; the interpreter runs it then. */
std::optional<TensorData> PackSeparable(const ConstantPacking& p, const TensorData& value,
                                        const std::vector<int64_t>& shape) {
  const tir::BlockNode* b = p.realize->block.get();
  const auto* store = b->body.as<tir::BufferStoreNode>();
  const size_t rank = b->iter_vars.size();
  std::vector<int64_t> extent(rank), min(rank);
  for (size_t j = 0; j < rank; ++j) {
    const int64_t* lo = tir::AsConstInt(b->iter_vars[j].dom.min);
    const int64_t* n = tir::AsConstInt(b->iter_vars[j].dom.extent);
    if (lo == nullptr || n == nullptr || *lo != 0) return std::nullopt;  // P[v] is read from 0 on
    min[j] = *lo;
    extent[j] = *n;
  }
  if (value.shape() != extent) return std::nullopt;
  std::vector<int64_t> stride(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) stride[i - 1] = stride[i] * shape[i];
  if (store->indices.size() != shape.size()) return std::nullopt;
  // offset[j][x]: what variable j at value min + x adds to the flat store offset.
  std::vector<std::vector<int64_t>> offset(rank);
  for (size_t j = 0; j < rank; ++j) offset[j].assign(static_cast<size_t>(extent[j]), 0);
  int64_t base = 0;
  for (size_t i = 0; i < store->indices.size(); ++i) {
    const tir::PrimExpr& index = store->indices[i];
    int user = -1;
    for (size_t j = 0; j < rank; ++j) {
      if (!tir::UsesVar(index, b->iter_vars[j].var)) continue;
      if (user >= 0) return std::nullopt;  // two variables in one index
      user = static_cast<int>(j);
    }
    if (user < 0) {
      std::optional<int64_t> c = EvalIndex(index, tir::Var(), 0);
      if (!c || *c < 0 || *c >= shape[i]) return std::nullopt;
      base += *c * stride[i];
      continue;
    }
    for (int64_t x = 0; x < extent[user]; ++x) {
      std::optional<int64_t> v = EvalIndex(index, b->iter_vars[user].var, min[user] + x);
      if (!v || *v < 0 || *v >= shape[i]) return std::nullopt;  // out of bounds: let the interpreter say so
      offset[user][x] += *v * stride[i];
    }
  }
  TensorData out(value.dtype(), shape);
  const size_t elem = static_cast<size_t>(value.dtype().bytes());
  const char* in = static_cast<const char*>(value.data());
  char* o = static_cast<char*>(out.mutable_data());
  const int64_t total = value.NumElements();
  if (total == 0) return out;
  // The source is read in order; an odometer over all but the last variable keeps the partial
  // offset, the last one runs over its table.
  std::vector<int64_t> idx(rank, 0);
  const std::vector<int64_t>& last = offset[rank - 1];
  for (int64_t n = 0; n < total; n += extent[rank - 1]) {
    int64_t at = base;
    for (size_t j = 0; j + 1 < rank; ++j) at += offset[j][idx[j]];
    const char* src = in + n * elem;
    for (int64_t x = 0; x < extent[rank - 1]; ++x) std::memcpy(o + (at + last[x]) * elem, src + x * elem, elem);
    for (size_t j = rank - 1; j-- > 0;) {
      if (++idx[j] < extent[j]) break;
      idx[j] = 0;
    }
  }
  return out;
}

}  // namespace

std::vector<ConstantPacking> FindConstantPackings(const tir::PrimFunc& f) {
  std::vector<ConstantPacking> out;
  const auto* root = f->body.as<tir::BlockRealizeNode>();
  if (root == nullptr) return out;
  std::map<const Object*, int> uses = BufferUses(f->body);
  for (const tir::BlockRealizeNode* r : tir::AllBlocks(f->body)) {
    const tir::BlockNode* b = r->block.get();
    if (r->iter_values.empty() || !tir::IsSpatialBlock(b)) continue;
    const auto* store = b->body.as<tir::BufferStoreNode>();
    const auto* load = store ? store->value.as<tir::BufferLoadNode>() : nullptr;
    if (load == nullptr || load->indices.size() != b->iter_vars.size()) continue;
    bool plain = true;  // P[v0, v1, ...] in the order of the iteration variables
    for (size_t i = 0; i < load->indices.size(); ++i) plain &= load->indices[i].same_as(b->iter_vars[i].var);
    int param = -1;
    for (size_t p = 0; p < f->params.size(); ++p) {
      if (f->params[p].same_as(load->buffer)) param = static_cast<int>(p);
    }
    bool allocated_at_root = false;
    for (const tir::Buffer& a : root->block->alloc_buffers) allocated_at_root |= a.same_as(store->buffer);
    if (!plain || param < 0 || !allocated_at_root || uses[load->buffer.get()] != 1 || uses[store->buffer.get()] < 2)
      continue;
    out.push_back({param, store->buffer, r});
  }
  return out;
}

absl::StatusOr<TensorData> PackConstant(const ConstantPacking& p, const tir::PrimFunc& f, const TensorData& value) {
  std::vector<int64_t> shape;
  for (const tir::PrimExpr& d : p.packed->shape) shape.push_back(*tir::AsConstInt(d));
  if (!p.realize->block->iter_vars.empty()) {
    if (std::optional<TensorData> packed = PackSeparable(p, value, shape)) return *std::move(packed);
  }
  const tir::BlockNode* b = p.realize->block.get();
  std::vector<tir::Var> loop_vars;
  std::vector<tir::PrimExpr> values;
  for (const tir::IterVar& iv : b->iter_vars) {
    loop_vars.push_back(tir::MakeVar(iv.var->name + "_l", iv.var->dtype));
    values.push_back(loop_vars.back());
  }
  tir::Stmt body(new tir::BlockRealizeNode(values, tir::IntImm(DataType::Bool(), 1), p.realize->block));
  for (size_t i = loop_vars.size(); i-- > 0;) {
    body = tir::Stmt(new tir::ForNode(loop_vars[i], b->iter_vars[i].dom.min, b->iter_vars[i].dom.extent,
                                      tir::ForKind::kSerial, body));
  }
  tir::PrimFunc copy(new tir::PrimFuncNode({f->params[p.param], p.packed}, body, {}));
  TensorData in = value, out(value.dtype(), shape);
  if (absl::Status s = tir::InterpretPrimFunc(copy, {&in, &out}); !s.ok()) return s;
  return out;
}

tir::PrimFunc WithoutPackings(const tir::PrimFunc& f, const std::vector<ConstantPacking>& packings) {
  std::set<const Object*> copies, packed;
  std::vector<tir::Buffer> params = f->params;
  for (const ConstantPacking& p : packings) {
    copies.insert(p.realize);
    packed.insert(p.packed.get());
    params[p.param] = p.packed;
  }
  tir::Stmt body = tir::RewriteStmt(f->body, [&](const tir::Stmt& s) -> std::optional<tir::Stmt> {
    if (copies.count(s.get())) return tir::Stmt();  // a loop left empty disappears too
    return std::nullopt;
  });
  // The packed buffers are parameters now, no longer allocations of the root block.
  const auto* root = body.as<tir::BlockRealizeNode>();
  std::vector<tir::Buffer> allocs;
  for (const tir::Buffer& a : root->block->alloc_buffers) {
    if (!packed.count(a.get())) allocs.push_back(a);
  }
  const tir::BlockNode* rb = root->block.get();
  tir::Block new_root(
      new tir::BlockNode(rb->name, rb->iter_vars, rb->reads, rb->writes, allocs, rb->init, rb->body, rb->annotations));
  return tir::PrimFunc(new tir::PrimFuncNode(
      params, tir::Stmt(new tir::BlockRealizeNode(root->iter_values, root->predicate, new_root)), f->attrs));
}

std::map<std::string, std::set<int>> ConstantParameters(const IRModule& mod) {
  struct CallTirArguments : relax::ExprVisitor {
    // Per callee: for each parameter, whether every call so far passed a constant.
    std::map<std::string, std::vector<bool>> constant;
    void VisitExpr_(const relax::CallNode* call) override {
      relax::ExprVisitor::VisitExpr_(call);
      const auto* op = call->op.as<relax::OpNode>();
      if (op == nullptr || op->name() != "call_tir" || call->args.size() < 2) return;
      const auto* callee = call->args[0].as<relax::GlobalVarNode>();
      const auto* args = call->args[1].as<relax::TupleNode>();
      if (callee == nullptr || args == nullptr) return;
      std::vector<bool> here;
      for (const relax::Expr& a : args->fields) here.push_back(a.as<relax::ConstantNode>() != nullptr);
      auto [it, first] = constant.try_emplace(callee->name, here);
      if (first) return;
      for (size_t i = 0; i < it->second.size(); ++i) it->second[i] = it->second[i] && i < here.size() && here[i];
    }
  } visitor;
  for (const auto& [name, f] : mod.functions()) {
    relax::Function func = mod.LookupFunction(name);
    if (func.defined()) visitor.VisitFunction(func.get());
  }
  std::map<std::string, std::set<int>> out;
  for (const auto& [name, flags] : visitor.constant) {
    std::set<int>& params = out[name];
    for (size_t i = 0; i < flags.size(); ++i) {
      if (flags[i]) params.insert(static_cast<int>(i));
    }
  }
  return out;
}

}  // namespace passes
}  // namespace mlc
