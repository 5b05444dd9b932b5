/*! \file struct_info.cc
 *  \brief Struct info constructors, printing for messages, and the "may be used as" check.
 */
#include "ir/graph/struct_info.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/graph/shape_util.h"
#include "ir/tir/analyzer.h"
#include "ir/tir/prim_expr_ops.h"
#include "ir/tir/shape_expr.h"

namespace mlc {
namespace relax {

namespace {

std::optional<std::vector<int64_t>> StaticShapeOf(const std::vector<tir::PrimExpr>& dims) {
  std::vector<int64_t> shape;
  for (const tir::PrimExpr& d : dims) {
    const int64_t* v = tir::AsConstInt(d);
    if (v == nullptr) return std::nullopt;
    shape.push_back(*v);
  }
  return shape;
}

std::optional<std::vector<tir::PrimExpr>> SymbolicDimsOf(std::vector<tir::PrimExpr> dims) {
  if (StaticShapeOf(dims)) return std::nullopt;
  for (tir::PrimExpr& d : dims) {
    if (d->dtype != DataType::Int64()) d = tir::Cast(DataType::Int64(), d);
  }
  return dims;
}

}  // namespace

TensorStructInfoNode::TensorStructInfoNode(std::vector<tir::PrimExpr> dims, DataType dtype)
    : StructInfoNode(kKind),
      shape(StaticShapeOf(dims)),
      symbolic_dims(SymbolicDimsOf(dims)),
      dtype(dtype),
      ndim(static_cast<int>(dims.size())) {}

std::vector<tir::PrimExpr> TensorStructInfoNode::Dims() const {
  if (symbolic_dims) return *symbolic_dims;
  std::vector<tir::PrimExpr> dims;
  if (shape) {
    for (int64_t d : *shape) dims.push_back(tir::I64(d));
  }
  return dims;
}

void CollectShapeVars(const StructInfo& sinfo, std::vector<tir::Var>* out) {
  if (const auto* s = sinfo.as<ShapeStructInfoNode>(); s != nullptr && s->values) {
    for (const tir::PrimExpr& d : *s->values) tir::CollectVars(d, out);
  } else if (const auto* t = sinfo.as<TensorStructInfoNode>()) {
    for (const tir::PrimExpr& d : t->Dims()) tir::CollectVars(d, out);
  } else if (const auto* tuple = sinfo.as<TupleStructInfoNode>()) {
    for (const StructInfo& f : tuple->fields) CollectShapeVars(f, out);
  }
}

StructInfo EraseShapeVars(const StructInfo& sinfo, const std::vector<tir::Var>& keep) {
  if (const auto* t = sinfo.as<TensorStructInfoNode>()) {
    std::vector<tir::Var> used;
    for (const tir::PrimExpr& d : t->Dims()) tir::CollectVars(d, &used);
    for (const tir::Var& v : used) {
      if (std::find(keep.begin(), keep.end(), v) == keep.end()) return TensorSInfoUnknownShape(t->dtype, t->ndim);
    }
    return sinfo;
  }
  if (const auto* tuple = sinfo.as<TupleStructInfoNode>()) {
    std::vector<StructInfo> fields;
    bool changed = false;
    for (const StructInfo& f : tuple->fields) {
      fields.push_back(EraseShapeVars(f, keep));
      changed = changed || !fields.back().same_as(f);
    }
    return changed ? TupleSInfo(std::move(fields)) : sinfo;
  }
  return sinfo;
}

StructInfo ObjectSInfo() {
  static const StructInfo kObject(new ObjectStructInfoNode());
  return kObject;
}
StructInfo PrimSInfo(DataType dtype) { return StructInfo(new PrimStructInfoNode(dtype)); }
StructInfo TensorSInfo(std::vector<int64_t> shape, DataType dtype) {
  int ndim = static_cast<int>(shape.size());
  return StructInfo(new TensorStructInfoNode(std::move(shape), dtype, ndim));
}
StructInfo TensorSInfoUnknownShape(DataType dtype, int ndim) {
  return StructInfo(new TensorStructInfoNode(std::nullopt, dtype, ndim));
}
StructInfo TensorSInfoOfDims(std::vector<tir::PrimExpr> dims, DataType dtype) {
  return StructInfo(new TensorStructInfoNode(std::move(dims), dtype));
}
StructInfo ShapeSInfo(std::vector<tir::PrimExpr> values) {
  int ndim = static_cast<int>(values.size());
  return StructInfo(new ShapeStructInfoNode(ndim, std::move(values)));
}
StructInfo TupleSInfo(std::vector<StructInfo> fields) { return StructInfo(new TupleStructInfoNode(std::move(fields))); }
StructInfo FuncSInfo(std::vector<StructInfo> params, StructInfo ret) {
  return StructInfo(new FuncStructInfoNode(std::move(params), std::move(ret)));
}

std::string StructInfoToString(const StructInfo& sinfo) {
  if (!sinfo.defined()) return "<unknown>";
  switch (sinfo->kind()) {
    case NodeKind::kObjectStructInfo: return "Object";
    case NodeKind::kPrimStructInfo: return absl::StrCat("Prim(", sinfo.as<PrimStructInfoNode>()->dtype.ToString(), ")");
    case NodeKind::kShapeStructInfo: {
      const auto* s = sinfo.as<ShapeStructInfoNode>();
      if (s->values) {
        std::vector<std::string> dims;
        for (const tir::PrimExpr& d : *s->values) dims.push_back(tir::ShapeExprToString(d));
        return absl::StrCat("Shape([", absl::StrJoin(dims, ", "), "])");
      }
      return absl::StrCat("Shape(ndim=", s->ndim, ")");
    }
    case NodeKind::kTensorStructInfo: {
      const auto* t = sinfo.as<TensorStructInfoNode>();
      std::string shape = t->HasKnownShape() ? DimsToString(t->Dims()) : absl::StrCat("ndim=", t->ndim);
      return absl::StrCat("Tensor(", shape, ", ", t->dtype.ToString(), ")");
    }
    case NodeKind::kTupleStructInfo: {
      std::vector<std::string> parts;
      for (const StructInfo& f : sinfo.as<TupleStructInfoNode>()->fields) parts.push_back(StructInfoToString(f));
      return absl::StrCat("Tuple(", absl::StrJoin(parts, ", "), ")");
    }
    case NodeKind::kFuncStructInfo: {
      const auto* f = sinfo.as<FuncStructInfoNode>();
      std::vector<std::string> parts;
      for (const StructInfo& p : f->params) parts.push_back(StructInfoToString(p));
      return absl::StrCat("Callable((", absl::StrJoin(parts, ", "), ") -> ", StructInfoToString(f->ret), ")");
    }
      MLC_CASES_NOT_STRUCT_INFO
      return "<not struct info>";
  }
}

bool IsBaseOf(const StructInfo& expected, const StructInfo& value) {
  if (!expected.defined() || expected->kind() == NodeKind::kObjectStructInfo) return true;
  if (!value.defined() || expected->kind() != value->kind()) return false;
  switch (expected->kind()) {
    case NodeKind::kPrimStructInfo:
      return expected.as<PrimStructInfoNode>()->dtype == value.as<PrimStructInfoNode>()->dtype;
    case NodeKind::kShapeStructInfo: {
      const auto* e = expected.as<ShapeStructInfoNode>();
      const auto* v = value.as<ShapeStructInfoNode>();
      if (e->ndim != -1 && e->ndim != v->ndim) return false;
      if (!e->values) return true;
      if (!v->values || v->values->size() != e->values->size()) return false;
      for (size_t i = 0; i < e->values->size(); ++i) {
        if (!DimsEqual((*e->values)[i], (*v->values)[i])) return false;
      }
      return true;
    }
    case NodeKind::kTensorStructInfo: {
      const auto* e = expected.as<TensorStructInfoNode>();
      const auto* v = value.as<TensorStructInfoNode>();
      if (!e->dtype.is_void() && e->dtype != v->dtype) return false;
      if (e->ndim != -1 && e->ndim != v->ndim) return false;
      if (!e->HasKnownShape()) return true;
      if (!v->HasKnownShape()) return false;
      if (e->shape && v->shape) return *e->shape == *v->shape;
      // Symbolic: each pair of dims must be provably equal.
      std::vector<tir::PrimExpr> ed = e->Dims(), vd = v->Dims();
      tir::Analyzer analyzer;
      for (size_t i = 0; i < ed.size(); ++i) {
        if (!analyzer.CanProveEqual(ed[i], vd[i])) return false;
      }
      return true;
    }
    case NodeKind::kTupleStructInfo: {
      const auto& ef = expected.as<TupleStructInfoNode>()->fields;
      const auto& vf = value.as<TupleStructInfoNode>()->fields;
      if (ef.size() != vf.size()) return false;
      for (size_t i = 0; i < ef.size(); ++i) {
        if (!IsBaseOf(ef[i], vf[i])) return false;
      }
      return true;
    }
    case NodeKind::kObjectStructInfo:  // handled above
    case NodeKind::kFuncStructInfo:
      return true;
      MLC_CASES_NOT_STRUCT_INFO
      return false;
  }
  return false;
}

StructInfo JoinStructInfo(const StructInfo& a, const StructInfo& b) {
  if (!a.defined() || !b.defined()) return ObjectSInfo();
  if (IsBaseOf(a, b)) return a;
  if (IsBaseOf(b, a)) return b;
  const auto* ta = a.as<TensorStructInfoNode>();
  const auto* tb = b.as<TensorStructInfoNode>();
  if (ta != nullptr && tb != nullptr) {
    DataType dtype = ta->dtype == tb->dtype ? ta->dtype : DataType::Void();
    return TensorSInfoUnknownShape(dtype, ta->ndim == tb->ndim ? ta->ndim : -1);
  }
  const auto* ua = a.as<TupleStructInfoNode>();
  const auto* ub = b.as<TupleStructInfoNode>();
  if (ua != nullptr && ub != nullptr && ua->fields.size() == ub->fields.size()) {
    std::vector<StructInfo> fields;
    for (size_t i = 0; i < ua->fields.size(); ++i) fields.push_back(JoinStructInfo(ua->fields[i], ub->fields[i]));
    return TupleSInfo(std::move(fields));
  }
  return ObjectSInfo();
}

}  // namespace relax
}  // namespace mlc
