/*! \file tensor.cc
 *  \brief Tensor expressions and their lowering to a PrimFunc (CreatePrimFunc).
 */
#include "ir/te/tensor.h"

#include <map>
#include <mutex>
#include <set>
#include <unordered_map>

#include "absl/strings/str_cat.h"
#include "ir/tir/tir_functor.h"
#include "ir/tir/tir_util.h"

namespace mlc {
namespace te {
namespace {

/*! \brief Which tensor owns a buffer, so a compute body's loads name its inputs. */
class TensorRegistry {
 public:
  static TensorRegistry& Global() {
    static TensorRegistry* r = new TensorRegistry();
    return *r;
  }
  void Register(const std::shared_ptr<const TensorNode>& t) {
    std::lock_guard<std::mutex> lock(mu_);
    if (++inserts_ % 1024 == 0) {
      for (auto it = owners_.begin(); it != owners_.end();)
        it = it->second.expired() ? owners_.erase(it) : std::next(it);
    }
    owners_[t->buffer.get()] = t;
  }
  std::shared_ptr<const TensorNode> Find(const Object* buffer) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = owners_.find(buffer);
    return it == owners_.end() ? nullptr : it->second.lock();
  }

 private:
  std::mutex mu_;
  size_t inserts_ = 0;
  std::unordered_map<const Object*, std::weak_ptr<const TensorNode>> owners_;
};

class InputCollector : public tir::StmtExprVisitor {
 public:
  std::vector<Tensor> inputs;

 protected:
  void VisitExpr_(const tir::BufferLoadNode* op) override {
    if (seen_.insert(op->buffer.get()).second) {
      if (auto owner = TensorRegistry::Global().Find(op->buffer.get())) inputs.push_back(Tensor(owner));
    }
    tir::StmtExprVisitor::VisitExpr_(op);
  }

 private:
  std::set<const Object*> seen_;
};

}  // namespace

ReduceAxis MakeReduceAxis(tir::PrimExpr extent, const std::string& name) {
  return {tir::MakeVar(name, extent->dtype), std::move(extent)};
}

ComputeValue Sum(tir::PrimExpr source, std::vector<ReduceAxis> axes) {
  ComputeValue v(std::move(source));
  v.reduce = ReduceKind::kSum;
  v.axes = std::move(axes);
  return v;
}
ComputeValue Prod(tir::PrimExpr source, std::vector<ReduceAxis> axes) {
  ComputeValue v = Sum(std::move(source), std::move(axes));
  v.reduce = ReduceKind::kProd;
  return v;
}
ComputeValue Max(tir::PrimExpr source, std::vector<ReduceAxis> axes) {
  ComputeValue v = Sum(std::move(source), std::move(axes));
  v.reduce = ReduceKind::kMax;
  return v;
}
ComputeValue Min(tir::PrimExpr source, std::vector<ReduceAxis> axes) {
  ComputeValue v = Sum(std::move(source), std::move(axes));
  v.reduce = ReduceKind::kMin;
  return v;
}

const tir::Buffer& Tensor::buffer() const { return node_->buffer; }
const std::vector<tir::PrimExpr>& Tensor::shape() const { return node_->buffer->shape; }
DataType Tensor::dtype() const { return node_->buffer->dtype; }
const std::string& Tensor::name() const { return node_->buffer->name; }

tir::PrimExpr Tensor::operator()(std::vector<tir::PrimExpr> indices) const {
  // Indices adopt the extent dtype, so int64 shapes index with int64 expressions.
  for (size_t d = 0; d < indices.size() && d < shape().size(); ++d) {
    if (indices[d]->dtype != shape()[d]->dtype) {
      if (const int64_t* c = tir::AsConstInt(indices[d])) {
        indices[d] = tir::IntImm(shape()[d]->dtype, *c);
      } else {
        indices[d] = tir::Cast(shape()[d]->dtype, indices[d]);
      }
    }
  }
  return tir::Load(buffer(), std::move(indices));
}

Tensor PlaceholderWithExtents(std::vector<tir::PrimExpr> shape, DataType dtype, const std::string& name) {
  auto node = std::make_shared<TensorNode>();
  node->buffer = tir::MakeBuffer(name, std::move(shape), dtype);
  node->is_placeholder = true;
  TensorRegistry::Global().Register(node);
  return Tensor(node);
}

Tensor Placeholder(const std::vector<int64_t>& shape, DataType dtype, const std::string& name) {
  std::vector<tir::PrimExpr> dims;
  for (int64_t d : shape) dims.push_back(tir::I32(d));
  return PlaceholderWithExtents(std::move(dims), dtype, name);
}

Tensor Compute(std::vector<tir::PrimExpr> shape, const FCompute& fcompute, const std::string& name,
               std::vector<std::string> axis_names, Attrs attrs, DataType dtype) {
  auto node = std::make_shared<TensorNode>();
  node->is_placeholder = false;
  for (size_t d = 0; d < shape.size(); ++d) {
    std::string axis = d < axis_names.size() ? axis_names[d] : absl::StrCat("i", d);
    node->axes.push_back(tir::MakeVar(axis, shape[d]->dtype));
  }
  node->body = fcompute(node->axes);
  if (!dtype.is_void() && node->body.value->dtype != dtype) node->body.value = tir::Cast(dtype, node->body.value);
  InputCollector collector;
  collector.VisitExpr(node->body.value);
  node->inputs = std::move(collector.inputs);
  node->attrs = std::move(attrs);
  node->buffer = tir::MakeBuffer(name, std::move(shape), node->body.value->dtype);
  TensorRegistry::Global().Register(node);
  return Tensor(node);
}

namespace {

/*! \brief The loop nest and block computing one tensor, as TVM's CreatePrimFunc builds it:
 *         loops named after the axes, block variables "v_" + axis name. */
tir::Stmt LowerCompute(const TensorNode& t) {
  std::vector<tir::Var> loop_vars;
  std::vector<tir::PrimExpr> extents;
  std::vector<tir::IterVar> iter_vars;
  std::vector<tir::PrimExpr> values;
  std::vector<std::pair<tir::Var, tir::PrimExpr>> subst;
  std::vector<tir::PrimExpr> out_indices;
  auto add_axis = [&](const tir::Var& axis, const tir::PrimExpr& extent, tir::IterKind kind) {
    tir::Var loop = tir::MakeVar(axis->name, extent->dtype);
    tir::Var block_var = tir::MakeVar(absl::StrCat("v_", axis->name), extent->dtype);
    loop_vars.push_back(loop);
    extents.push_back(extent);
    iter_vars.push_back({block_var, {tir::Const(extent->dtype, 0), extent}, kind});
    values.push_back(loop);
    subst.push_back({axis, block_var});
    return block_var;
  };
  for (size_t d = 0; d < t.axes.size(); ++d) {
    out_indices.push_back(add_axis(t.axes[d], t.buffer->shape[d], tir::IterKind::kSpatial));
  }
  for (const ReduceAxis& r : t.body.axes) add_axis(r.var, r.extent, tir::IterKind::kReduce);
  tir::PrimExpr value = tir::Substitute(t.body.value, subst);
  tir::Stmt body, init;
  if (!t.body.reduce) {
    body = tir::Store(t.buffer, out_indices, value);
  } else {
    tir::PrimExpr current = tir::Load(t.buffer, out_indices);
    switch (*t.body.reduce) {
      case ReduceKind::kSum:
        init = tir::Store(t.buffer, out_indices, tir::Const(t.buffer->dtype, 0));
        body = tir::Store(t.buffer, out_indices, tir::operator+(current, value));
        break;
      case ReduceKind::kProd:
        init = tir::Store(t.buffer, out_indices, tir::Const(t.buffer->dtype, 1));
        body = tir::Store(t.buffer, out_indices, tir::operator*(current, value));
        break;
      case ReduceKind::kMax:
        init = tir::Store(t.buffer, out_indices, tir::MinValue(t.buffer->dtype));
        body = tir::Store(t.buffer, out_indices, tir::Max(current, value));
        break;
      case ReduceKind::kMin:
        init = tir::Store(t.buffer, out_indices, tir::MaxValue(t.buffer->dtype));
        body = tir::Store(t.buffer, out_indices, tir::Min(current, value));
        break;
    }
  }
  tir::Stmt block = tir::MakeBlockRealize(t.buffer->name, iter_vars, values, body, init);
  if (loop_vars.empty()) return block;
  return tir::MakeLoopNest(loop_vars, extents, block);
}

}  // namespace

absl::StatusOr<tir::PrimFunc> CreatePrimFunc(const std::vector<Tensor>& args) {
  std::map<const TensorNode*, int> param_index;
  for (size_t i = 0; i < args.size(); ++i) {
    if (!args[i].defined())
      return absl::InvalidArgumentError(absl::StrCat("create_prim_func: argument ", i, " is empty"));
    if (!param_index.emplace(args[i].get(), static_cast<int>(i)).second) {
      return absl::InvalidArgumentError(absl::StrCat("create_prim_func: tensor ", args[i].name(), " is passed twice"));
    }
  }
  // Post-order over inputs: producers before consumers.
  std::vector<const TensorNode*> order;
  std::set<const TensorNode*> visited;
  std::function<void(const TensorNode*)> visit = [&](const TensorNode* t) {
    if (!visited.insert(t).second) return;
    for (const Tensor& in : t->inputs) visit(in.get());
    order.push_back(t);
  };
  for (const Tensor& a : args) visit(a.get());

  std::vector<tir::Buffer> allocs;
  std::vector<tir::Stmt> stmts;
  std::vector<int64_t> layout_free;
  for (const TensorNode* t : order) {
    if (t->is_placeholder) {
      if (!param_index.count(t)) {
        return absl::InvalidArgumentError(
            absl::StrCat("create_prim_func: placeholder ", t->buffer->name, " is read but not passed as an argument"));
      }
      continue;
    }
    if (!param_index.count(t)) allocs.push_back(t->buffer);
    stmts.push_back(LowerCompute(*t));
    // layout_free_buffers: inputs of this op (by position) that are parameters.
    auto it = t->attrs.find("layout_free_inputs");
    if (it != t->attrs.end() && it->second.is<std::vector<int64_t>>()) {
      for (int64_t input : it->second.get<std::vector<int64_t>>()) {
        if (input < 0 || input >= static_cast<int64_t>(t->inputs.size())) continue;
        auto p = param_index.find(t->inputs[input].get());
        if (p != param_index.end()) layout_free.push_back(p->second);
      }
    }
  }
  std::vector<tir::Buffer> params;
  for (const Tensor& a : args) params.push_back(a.buffer());
  Attrs attrs{{"tir.noalias", true}};
  if (!layout_free.empty()) attrs["layout_free_buffers"] = layout_free;
  tir::Stmt body = stmts.empty() ? tir::Stmt(new tir::EvaluateNode(tir::I32(0))) : tir::MakeSeq(stmts);
  return tir::PrimFunc(new tir::PrimFuncNode(params, tir::MakeRootBlock(allocs, body), attrs));
}

}  // namespace te
}  // namespace mlc
