/*! \file struct_info.cc
 *  \brief Struct info constructors, printing for messages, and the "may be used as" check.
 */
#include "ir/struct_info.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace mlc {
namespace relax {

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
StructInfo ShapeSInfo(std::vector<int64_t> values) {
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
    case NodeKind::kObjectStructInfo:
      return "Object";
    case NodeKind::kPrimStructInfo:
      return absl::StrCat("Prim(", sinfo.as<PrimStructInfoNode>()->dtype.ToString(), ")");
    case NodeKind::kShapeStructInfo: {
      const auto* s = sinfo.as<ShapeStructInfoNode>();
      if (s->values) return absl::StrCat("Shape([", absl::StrJoin(*s->values, ", "), "])");
      return absl::StrCat("Shape(ndim=", s->ndim, ")");
    }
    case NodeKind::kTensorStructInfo: {
      const auto* t = sinfo.as<TensorStructInfoNode>();
      std::string shape = t->shape ? absl::StrCat("(", absl::StrJoin(*t->shape, ", "), t->shape->size() == 1 ? ",)" : ")")
                                   : absl::StrCat("ndim=", t->ndim);
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
      return !e->values || (v->values && *e->values == *v->values);
    }
    case NodeKind::kTensorStructInfo: {
      const auto* e = expected.as<TensorStructInfoNode>();
      const auto* v = value.as<TensorStructInfoNode>();
      if (!e->dtype.is_void() && e->dtype != v->dtype) return false;
      if (e->ndim != -1 && e->ndim != v->ndim) return false;
      return !e->shape || (v->shape && *e->shape == *v->shape);
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

}  // namespace relax
}  // namespace mlc
