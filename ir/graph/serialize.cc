/*! \file serialize.cc
 *  \brief Writing and reading the flat, id-linked node tables of ir.proto.
 */
#include "ir/graph/serialize.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

#include "absl/strings/str_cat.h"
#include "ir/graph/op.h"
#include "ir/tir/shape_expr.h"
#include "support/data_section.h"
#include "support/file_util.h"
#include "support/resource_limits.h"
#include "support/sealed_file.h"
#include "support/status_macros.h"

namespace mlc {

// ModuleFromProto reading a file's constants from its data section (`section`, or from the
// message itself when null).
absl::StatusOr<IRModule> ModuleFromProto(proto::ModuleProto&& proto, const DataSectionPayload* section);
namespace {

constexpr char kMagic[] = "mlc.irpb";

using relax::StructInfo;
using tir::PrimExpr;
using tir::Stmt;

void DTypeToProto(DataType dtype, proto::DataTypeProto* out) {
  out->set_code(dtype.code());
  out->set_bits(dtype.bits());
}

absl::StatusOr<DataType> DTypeFromProto(const proto::DataTypeProto& p) {
  switch (p.code()) {
    case DataType::kInt:
    case DataType::kUInt:
    case DataType::kFloat:
    case DataType::kHandle:
    case DataType::kBFloat:
    case DataType::kBool:
    case DataType::kVoid:
      if (p.bits() > 64) break;
      return DataType(static_cast<DataType::Code>(p.code()), static_cast<int>(p.bits()));
    default: break;
  }
  return absl::DataLossError(absl::StrCat("invalid dtype (code ", p.code(), ", bits ", p.bits(), ")"));
}

void AttrToProto(const AttrValue& v, proto::AttrValueProto* out) {
  const AttrValue::Storage& s = v.storage();
  if (const bool* b = std::get_if<bool>(&s)) {
    out->set_b(*b);
  } else if (const int64_t* i = std::get_if<int64_t>(&s)) {
    out->set_i(*i);
  } else if (const double* d = std::get_if<double>(&s)) {
    out->set_f(*d);
  } else if (const std::string* str = std::get_if<std::string>(&s)) {
    out->set_s(*str);
  } else if (const auto* l = std::get_if<std::vector<int64_t>>(&s)) {
    for (int64_t x : *l) out->mutable_ints()->add_values(x);
    out->mutable_ints();
  } else if (const auto* l = std::get_if<std::vector<double>>(&s)) {
    for (double x : *l) out->mutable_floats()->add_values(x);
    out->mutable_floats();
  } else if (const DataType* dt = std::get_if<DataType>(&s)) {
    DTypeToProto(*dt, out->mutable_dtype());
  } else {
    out->set_none(true);
  }
}

absl::StatusOr<AttrValue> AttrFromProto(const proto::AttrValueProto& p) {
  switch (p.value_case()) {
    case proto::AttrValueProto::kB: return AttrValue(p.b());
    case proto::AttrValueProto::kI: return AttrValue(static_cast<int64_t>(p.i()));
    case proto::AttrValueProto::kF: return AttrValue(p.f());
    case proto::AttrValueProto::kS: return AttrValue(p.s());
    case proto::AttrValueProto::kInts:
      return AttrValue(std::vector<int64_t>(p.ints().values().begin(), p.ints().values().end()));
    case proto::AttrValueProto::kFloats:
      return AttrValue(std::vector<double>(p.floats().values().begin(), p.floats().values().end()));
    case proto::AttrValueProto::kDtype: {
      absl::StatusOr<DataType> dt = DTypeFromProto(p.dtype());
      if (!dt.ok()) return dt.status();
      return AttrValue(*dt);
    }
    case proto::AttrValueProto::kNone:
    case proto::AttrValueProto::VALUE_NOT_SET: return AttrValue();
  }
  return AttrValue();
}

void AttrsToProto(const Attrs& attrs, google::protobuf::Map<std::string, proto::AttrValueProto>* out) {
  for (const auto& [k, v] : attrs) AttrToProto(v, &(*out)[k]);
}

absl::StatusOr<Attrs> AttrsFromProto(const google::protobuf::Map<std::string, proto::AttrValueProto>& p) {
  Attrs attrs;
  for (const auto& [k, v] : p) {
    absl::StatusOr<AttrValue> value = AttrFromProto(v);
    if (!value.ok()) return value.status();
    attrs[k] = *value;
  }
  return attrs;
}

// ---------------------------------------------------------------------------------------------
// Writing: post-order, each distinct object once.

class Writer {
 public:
  // With `section`, constants' bytes go to the data section (they are not copied: the module
  // must outlive the write) and the message records their offsets.
  explicit Writer(proto::FunctionProto* out, DataSectionWriter* section = nullptr) : out_(out), section_(section) {}

  int64_t Func(const BaseFunc& f) {
    if (const auto* p = f.as<tir::PrimFuncNode>()) {
      std::vector<int64_t> params;
      for (const tir::Buffer& b : p->params) params.push_back(Buffer(b));
      int64_t body = StmtId(p->body);
      proto::NodeProto* node = NewNode();
      auto* pf = node->mutable_prim_func();
      for (int64_t id : params) pf->add_params(id);
      pf->set_body(body);
      AttrsToProto(p->attrs, pf->mutable_attrs());
      return node->id();
    }
    const auto* fn = f.as<relax::FunctionNode>();
    std::vector<int64_t> params;
    for (const relax::Var& v : fn->params) params.push_back(ExprId(v));
    int64_t ret = SInfo(fn->ret_struct_info);
    int64_t body = ExprId(fn->body);
    proto::NodeProto* node = NewNode();
    auto* fp = node->mutable_function();
    for (int64_t id : params) fp->add_params(id);
    fp->set_body(body);
    fp->set_ret_struct_info(ret);
    AttrsToProto(fn->attrs, fp->mutable_attrs());
    return node->id();
  }

 private:
  proto::NodeProto* NewNode(const Object* obj = nullptr) {
    proto::NodeProto* node = out_->add_nodes();
    node->set_id(out_->nodes_size());
    if (obj != nullptr) ids_[obj] = node->id();
    return node;
  }
  const int64_t* Seen(const Object* obj) {
    auto it = ids_.find(obj);
    return it == ids_.end() ? nullptr : &it->second;
  }

  int64_t Prim(const PrimExpr& e) {
    if (const int64_t* id = Seen(e.get())) return *id;
    switch (e->kind()) {
      case NodeKind::kIntImm: {
        auto* p = NewNode(e.get())->mutable_int_imm();
        DTypeToProto(e->dtype, p->mutable_dtype());
        p->set_value(e.as<tir::IntImmNode>()->value);
        break;
      }
      case NodeKind::kFloatImm: {
        auto* p = NewNode(e.get())->mutable_float_imm();
        DTypeToProto(e->dtype, p->mutable_dtype());
        p->set_value(e.as<tir::FloatImmNode>()->value);
        break;
      }
      case NodeKind::kStringImm:
        NewNode(e.get())->mutable_string_imm()->set_value(e.as<tir::StringImmNode>()->value);
        break;
      case NodeKind::kTirVar: {
        auto* p = NewNode(e.get())->mutable_tir_var();
        p->set_name(e.as<tir::TirVarNode>()->name);
        DTypeToProto(e->dtype, p->mutable_dtype());
        break;
      }
      case NodeKind::kNot: {
        int64_t a = Prim(e.as<tir::NotNode>()->a);
        NewNode(e.get())->mutable_not_expr()->set_a(a);
        break;
      }
      case NodeKind::kSelect: {
        const auto* s = e.as<tir::SelectNode>();
        int64_t c = Prim(s->condition), t = Prim(s->true_value), f = Prim(s->false_value);
        auto* p = NewNode(e.get())->mutable_select();
        p->set_condition(c);
        p->set_true_value(t);
        p->set_false_value(f);
        break;
      }
      case NodeKind::kCast: {
        int64_t v = Prim(e.as<tir::CastNode>()->value);
        auto* p = NewNode(e.get())->mutable_cast();
        DTypeToProto(e->dtype, p->mutable_dtype());
        p->set_value(v);
        break;
      }
      case NodeKind::kBufferLoad: {
        const auto* l = e.as<tir::BufferLoadNode>();
        int64_t b = Buffer(l->buffer);
        std::vector<int64_t> idx;
        for (const PrimExpr& i : l->indices) idx.push_back(Prim(i));
        auto* p = NewNode(e.get())->mutable_buffer_load();
        p->set_buffer(b);
        for (int64_t i : idx) p->add_indices(i);
        break;
      }
      case NodeKind::kTirCall: {
        const auto* c = e.as<tir::TirCallNode>();
        std::vector<int64_t> args;
        for (const PrimExpr& a : c->args) args.push_back(Prim(a));
        auto* p = NewNode(e.get())->mutable_tir_call();
        DTypeToProto(e->dtype, p->mutable_dtype());
        p->set_name(c->name);
        for (int64_t a : args) p->add_args(a);
        break;
      }
        MLC_BINARY_CASES {
          const auto* bin = static_cast<const tir::BinaryNode*>(e.get());
          int64_t a = Prim(bin->a), b = Prim(bin->b);
          auto* p = NewNode(e.get())->mutable_binary();
          p->set_op(NodeKindName(e->kind()));
          p->set_a(a);
          p->set_b(b);
          break;
        }
        MLC_CASES_NOT_PRIM_EXPR
        break;
    }
    return ids_[e.get()];
  }

  int64_t Buffer(const tir::Buffer& b) {
    if (const int64_t* id = Seen(b.get())) return *id;
    std::vector<int64_t> shape;
    for (const PrimExpr& s : b->shape) shape.push_back(Prim(s));
    auto* p = NewNode(b.get())->mutable_buffer();
    p->set_name(b->name);
    for (int64_t s : shape) p->add_shape(s);
    DTypeToProto(b->dtype, p->mutable_dtype());
    return ids_[b.get()];
  }

  void RangeToProto(const tir::Range& r, proto::RangeProto* out) {
    out->set_min(Prim(r.min));
    out->set_extent(Prim(r.extent));
  }

  int64_t StmtId(const Stmt& s) {
    if (!s.defined()) return 0;
    if (const int64_t* id = Seen(s.get())) return *id;
    switch (s->kind()) {
      case NodeKind::kBufferStore: {
        const auto* st = s.as<tir::BufferStoreNode>();
        int64_t b = Buffer(st->buffer);
        int64_t v = Prim(st->value);
        std::vector<int64_t> idx;
        for (const PrimExpr& i : st->indices) idx.push_back(Prim(i));
        auto* p = NewNode(s.get())->mutable_buffer_store();
        p->set_buffer(b);
        p->set_value(v);
        for (int64_t i : idx) p->add_indices(i);
        break;
      }
      case NodeKind::kFor: {
        const auto* f = s.as<tir::ForNode>();
        int64_t var = Prim(f->loop_var), min = Prim(f->min), extent = Prim(f->extent);
        int64_t body = StmtId(f->body);
        auto* p = NewNode(s.get())->mutable_for_stmt();
        p->set_loop_var(var);
        p->set_min(min);
        p->set_extent(extent);
        p->set_kind(static_cast<uint32_t>(f->for_kind));
        p->set_body(body);
        AttrsToProto(f->annotations, p->mutable_annotations());
        break;
      }
      case NodeKind::kSeqStmt: {
        std::vector<int64_t> seq;
        for (const Stmt& inner : s.as<tir::SeqStmtNode>()->seq) seq.push_back(StmtId(inner));
        auto* p = NewNode(s.get())->mutable_seq_stmt();
        for (int64_t i : seq) p->add_seq(i);
        break;
      }
      case NodeKind::kIfThenElse: {
        const auto* ite = s.as<tir::IfThenElseNode>();
        int64_t c = Prim(ite->condition), t = StmtId(ite->then_case), e = StmtId(ite->else_case);
        auto* p = NewNode(s.get())->mutable_if_then_else();
        p->set_condition(c);
        p->set_then_case(t);
        p->set_else_case(e);
        break;
      }
      case NodeKind::kEvaluate: {
        int64_t v = Prim(s.as<tir::EvaluateNode>()->value);
        NewNode(s.get())->mutable_evaluate()->set_value(v);
        break;
      }
      case NodeKind::kBlock: {
        const auto* b = s.as<tir::BlockNode>();
        proto::BlockProto block;
        block.set_name(b->name);
        for (const tir::IterVar& iv : b->iter_vars) {
          auto* p = block.add_iter_vars();
          p->set_var(Prim(iv.var));
          RangeToProto(iv.dom, p->mutable_dom());
          p->set_kind(static_cast<uint32_t>(iv.kind));
        }
        for (const tir::Buffer& buf : b->alloc_buffers) block.add_alloc_buffers(Buffer(buf));
        for (const auto& [regions, out] :
             {std::make_pair(&b->reads, block.mutable_reads()), std::make_pair(&b->writes, block.mutable_writes())}) {
          for (const tir::BufferRegion& r : *regions) {
            auto* p = out->Add();
            p->set_buffer(Buffer(r.buffer));
            for (const tir::Range& range : r.region) RangeToProto(range, p->add_region());
          }
        }
        block.set_init(StmtId(b->init));
        block.set_body(StmtId(b->body));
        AttrsToProto(b->annotations, block.mutable_annotations());
        *NewNode(s.get())->mutable_block() = std::move(block);
        break;
      }
      case NodeKind::kBlockRealize: {
        const auto* r = s.as<tir::BlockRealizeNode>();
        std::vector<int64_t> values;
        for (const PrimExpr& v : r->iter_values) values.push_back(Prim(v));
        int64_t pred = Prim(r->predicate);
        int64_t block = StmtId(r->block);
        auto* p = NewNode(s.get())->mutable_block_realize();
        for (int64_t v : values) p->add_iter_values(v);
        p->set_predicate(pred);
        p->set_block(block);
        break;
      }
      case NodeKind::kAllocate: {
        const auto* a = s.as<tir::AllocateNode>();
        int64_t b = Buffer(a->buffer), body = StmtId(a->body);
        auto* p = NewNode(s.get())->mutable_allocate();
        p->set_buffer(b);
        p->set_body(body);
        break;
      }
        MLC_CASES_NOT_STMT
        break;
    }
    return ids_[s.get()];
  }

  int64_t SInfo(const StructInfo& s) {
    if (!s.defined()) return 0;
    if (const int64_t* id = Seen(s.get())) return *id;
    proto::StructInfoProto p;
    switch (s->kind()) {
      case NodeKind::kObjectStructInfo: p.set_object(true); break;
      case NodeKind::kPrimStructInfo: DTypeToProto(s.as<relax::PrimStructInfoNode>()->dtype, p.mutable_prim()); break;
      case NodeKind::kShapeStructInfo: {
        const auto* x = s.as<relax::ShapeStructInfoNode>();
        auto* sh = p.mutable_shape();
        sh->set_ndim(x->ndim);
        sh->set_has_values(x->values.has_value());
        if (x->values) {
          std::vector<int64_t> ids;
          for (const PrimExpr& v : *x->values) ids.push_back(Prim(v));
          for (int64_t id : ids) sh->add_dims(id);
        }
        break;
      }
      case NodeKind::kTensorStructInfo: {
        const auto* t = s.as<relax::TensorStructInfoNode>();
        std::vector<int64_t> dims;
        if (t->symbolic_dims) {
          for (const PrimExpr& d : *t->symbolic_dims) dims.push_back(Prim(d));
        }
        auto* tp = p.mutable_tensor();
        for (int64_t d : dims) tp->add_symbolic_dims(d);
        DTypeToProto(t->dtype, tp->mutable_dtype());
        tp->set_ndim(t->ndim);
        tp->set_has_shape(t->shape.has_value());
        if (t->shape) {
          for (int64_t v : *t->shape) tp->add_shape(v);
        }
        break;
      }
      case NodeKind::kTupleStructInfo: {
        auto* tp = p.mutable_tuple();
        for (const StructInfo& f : s.as<relax::TupleStructInfoNode>()->fields) tp->add_fields(SInfo(f));
        break;
      }
      case NodeKind::kFuncStructInfo: {
        const auto* f = s.as<relax::FuncStructInfoNode>();
        auto* fp = p.mutable_func();
        for (const StructInfo& param : f->params) fp->add_params(SInfo(param));
        fp->set_ret(SInfo(f->ret));
        break;
      }
        MLC_CASES_NOT_STRUCT_INFO
        break;
    }
    *NewNode(s.get())->mutable_struct_info() = std::move(p);
    return ids_[s.get()];
  }

  int64_t ExprId(const relax::Expr& e) {
    if (const int64_t* id = Seen(e.get())) return *id;
    switch (e->kind()) {
      case NodeKind::kVar:
      case NodeKind::kDataflowVar: {
        const auto* v = e.as<relax::VarNode>();
        int64_t sinfo = SInfo(v->struct_info());
        auto* p = NewNode(e.get())->mutable_var();
        p->set_name_hint(v->name_hint);
        p->set_struct_info(sinfo);
        p->set_is_dataflow(e->kind() == NodeKind::kDataflowVar);
        break;
      }
      case NodeKind::kConstant: {
        const TensorData& data = e.as<relax::ConstantNode>()->data;
        proto::ConstantProto* c = NewNode(e.get())->mutable_constant();
        if (section_ == nullptr) {
          TensorToProto(data, c->mutable_data());
        } else {
          DTypeToProto(data.dtype(), c->mutable_data()->mutable_dtype());
          for (int64_t d : data.shape()) c->mutable_data()->add_shape(d);
          c->set_data_offset(section_->Add(data.bytes()));
        }
        break;
      }
      case NodeKind::kTuple: {
        std::vector<int64_t> fields;
        for (const relax::Expr& f : e.as<relax::TupleNode>()->fields) fields.push_back(ExprId(f));
        auto* p = NewNode(e.get())->mutable_tuple();
        for (int64_t f : fields) p->add_fields(f);
        break;
      }
      case NodeKind::kTupleGetItem: {
        const auto* t = e.as<relax::TupleGetItemNode>();
        int64_t tuple = ExprId(t->tuple);
        auto* p = NewNode(e.get())->mutable_tuple_get_item();
        p->set_tuple(tuple);
        p->set_index(t->index);
        break;
      }
      case NodeKind::kShapeExpr: {
        std::vector<int64_t> ids;
        for (const PrimExpr& v : e.as<relax::ShapeExprNode>()->values) ids.push_back(Prim(v));
        auto* p = NewNode(e.get())->mutable_shape_expr();
        for (int64_t id : ids) p->add_dims(id);
        break;
      }
      case NodeKind::kGlobalVar:
        NewNode(e.get())->mutable_global_var()->set_name(e.as<relax::GlobalVarNode>()->name);
        break;
      case NodeKind::kExternFunc:
        NewNode(e.get())->mutable_extern_func()->set_global_symbol(e.as<relax::ExternFuncNode>()->global_symbol);
        break;
      case NodeKind::kOp: NewNode(e.get())->mutable_op()->set_name(e.as<relax::OpNode>()->name()); break;
      case NodeKind::kCall: {
        const auto* c = e.as<relax::CallNode>();
        proto::CallProto p;
        p.set_op(ExprId(c->op));
        for (const relax::Expr& a : c->args) p.add_args(ExprId(a));
        for (const StructInfo& s : c->sinfo_args) p.add_sinfo_args(SInfo(s));
        p.set_struct_info(SInfo(c->struct_info()));
        AttrsToProto(c->attrs, p.mutable_attrs());
        *NewNode(e.get())->mutable_call() = std::move(p);
        break;
      }
      case NodeKind::kSeqExpr: {
        const auto* seq = e.as<relax::SeqExprNode>();
        std::vector<int64_t> blocks;
        for (const relax::BindingBlock& b : seq->blocks) {
          std::vector<int64_t> bindings;
          for (const relax::VarBinding& vb : b->bindings) {
            int64_t value = ExprId(vb->value);
            int64_t var = ExprId(vb->var);
            auto* p = NewNode(vb.get())->mutable_var_binding();
            p->set_var(var);
            p->set_value(value);
            bindings.push_back(ids_[vb.get()]);
          }
          auto* p = NewNode(b.get())->mutable_binding_block();
          for (int64_t id : bindings) p->add_bindings(id);
          p->set_is_dataflow(b->is_dataflow);
          blocks.push_back(ids_[b.get()]);
        }
        int64_t body = ExprId(seq->body);
        auto* p = NewNode(e.get())->mutable_seq_expr();
        for (int64_t b : blocks) p->add_blocks(b);
        p->set_body(body);
        break;
      }
      case NodeKind::kIf: {
        const auto* branch = e.as<relax::IfNode>();
        proto::IfProto p;
        p.set_cond(ExprId(branch->cond));
        p.set_true_branch(ExprId(branch->true_branch));
        p.set_false_branch(ExprId(branch->false_branch));
        *NewNode(e.get())->mutable_if_expr() = std::move(p);
        break;
      }
        MLC_CASES_NOT_EXPR
        break;
    }
    return ids_[e.get()];
  }

  proto::FunctionProto* out_;
  DataSectionWriter* section_;
  std::unordered_map<const Object*, int64_t> ids_;
};

// ---------------------------------------------------------------------------------------------
// Reading: every reference must name an earlier node of the expected kind.

class Reader {
 public:
  // Constants' bytes are moved out of `fn`, not copied.
  /*! \brief Constants of a data section by (offset, dtype, shape): one object for a constant that
   *  several functions share (the writer stores it once). */
  using SharedConstants = std::map<std::tuple<uint64_t, std::string, std::vector<int64_t>>, Ref<Object>>;
  explicit Reader(proto::FunctionProto& fn, const DataSectionPayload* section = nullptr,
                  SharedConstants* shared = nullptr)
      : fn_(fn), section_(section), shared_(shared) {}

  absl::StatusOr<BaseFunc> Read() {
    nodes_.assign(fn_.nodes_size() + 1, Ref<Object>());
    depth_.assign(fn_.nodes_size() + 1, 0);
    for (int i = 0; i < fn_.nodes_size(); ++i) {
      proto::NodeProto& node = *fn_.mutable_nodes(i);
      if (node.id() != i + 1)
        return Error(node.id(), absl::StrCat("expected id ", i + 1, " (ids are 1, 2, 3... in order)"));
      deepest_child_ = 0;
      absl::StatusOr<Ref<Object>> obj = Decode(node);
      if (!obj.ok()) return Error(node.id(), obj.status().message());
      nodes_[i + 1] = *obj;
      depth_[i + 1] = deepest_child_ + 1;
      // The passes, the printer and the verifier recurse over the tree: a deeper one is refused
      // here instead of overflowing the stack.
      if (depth_[i + 1] > GetResourceLimits().max_nesting_depth) {
        return Error(node.id(), absl::StrCat("nested more than ", GetResourceLimits().max_nesting_depth,
                                             " levels deep (", LimitHint("max_nesting_depth"), ")"));
      }
    }
    if (fn_.nodes_size() == 0) return absl::DataLossError(absl::StrCat("function ", fn_.name(), ": empty node table"));
    const Ref<Object>& last = nodes_.back();
    if (CategoryOf(last->kind()) != NodeCategory::kFunction) {
      return Error(fn_.nodes_size(), "the last node of a function table must be the function");
    }
    return BaseFunc(static_cast<const BaseFuncNode*>(last.get()));
  }

 private:
  absl::Status Error(int64_t id, absl::string_view message) const {
    return absl::DataLossError(absl::StrCat("function ", fn_.name(), ", node ", id, ": ", message));
  }

  template <typename T>
  absl::StatusOr<Ref<T>> Get(int64_t id, const char* what) {
    if (id <= 0 || id >= static_cast<int64_t>(nodes_.size()) || !nodes_[id].defined()) {
      return absl::DataLossError(absl::StrCat(what, " refers to node ", id, ", which is not an earlier node"));
    }
    deepest_child_ = std::max(deepest_child_, depth_[id]);
    if (!T::IsInstance(nodes_[id].get())) {
      return absl::DataLossError(
          absl::StrCat(what, " refers to node ", id, ", a ", NodeKindName(nodes_[id]->kind()), ", of the wrong kind"));
    }
    return Ref<T>(static_cast<const T*>(nodes_[id].get()));
  }
  template <typename T>
  absl::StatusOr<Ref<T>> GetOptional(int64_t id, const char* what) {
    if (id == 0) return Ref<T>();
    return Get<T>(id, what);
  }

  template <typename T, typename Ids>
  absl::StatusOr<std::vector<Ref<T>>> GetList(const Ids& ids, const char* what) {
    std::vector<Ref<T>> out;
    for (int64_t id : ids) {
      absl::StatusOr<Ref<T>> r = Get<T>(id, what);
      if (!r.ok()) return r.status();
      out.push_back(*r);
    }
    return out;
  }

  absl::StatusOr<tir::Range> GetRange(const proto::RangeProto& p) {
    absl::StatusOr<PrimExpr> min = Get<tir::PrimExprNode>(p.min(), "range min");
    if (!min.ok()) return min.status();
    absl::StatusOr<PrimExpr> extent = Get<tir::PrimExprNode>(p.extent(), "range extent");
    if (!extent.ok()) return extent.status();
    return tir::Range{*min, *extent};
  }

  absl::StatusOr<Ref<Object>> Decode(proto::NodeProto& node) {
    switch (node.kind_case()) {
      case proto::NodeProto::kIntImm: {
        MLC_ASSIGN_OR_RETURN(dtype, DTypeFromProto(node.int_imm().dtype()));
        return Ref<Object>(tir::IntImm(dtype, node.int_imm().value()));
      }
      case proto::NodeProto::kFloatImm: {
        MLC_ASSIGN_OR_RETURN(dtype, DTypeFromProto(node.float_imm().dtype()));
        return Ref<Object>(tir::FloatImm(dtype, node.float_imm().value()));
      }
      case proto::NodeProto::kStringImm: return Ref<Object>(new tir::StringImmNode(node.string_imm().value()));
      case proto::NodeProto::kTirVar: {
        MLC_ASSIGN_OR_RETURN(dtype, DTypeFromProto(node.tir_var().dtype()));
        return Ref<Object>(tir::MakeVar(node.tir_var().name(), dtype));
      }
      case proto::NodeProto::kBinary: {
        const auto& p = node.binary();
        MLC_ASSIGN_OR_RETURN(a, Get<tir::PrimExprNode>(p.a(), "operand a"));
        MLC_ASSIGN_OR_RETURN(b, Get<tir::PrimExprNode>(p.b(), "operand b"));
        for (NodeKind kind :
             {NodeKind::kAdd, NodeKind::kSub, NodeKind::kMul, NodeKind::kDiv, NodeKind::kMod, NodeKind::kFloorDiv,
              NodeKind::kFloorMod, NodeKind::kMin, NodeKind::kMax, NodeKind::kEQ, NodeKind::kNE, NodeKind::kLT,
              NodeKind::kLE, NodeKind::kGT, NodeKind::kGE, NodeKind::kAnd, NodeKind::kOr}) {
          if (p.op() == NodeKindName(kind)) return Ref<Object>(tir::MakeBinary(kind, a, b));
        }
        return absl::DataLossError(absl::StrCat("unknown binary operator \"", p.op(), "\""));
      }
      case proto::NodeProto::kNotExpr: {
        MLC_ASSIGN_OR_RETURN(a, Get<tir::PrimExprNode>(node.not_expr().a(), "operand"));
        return Ref<Object>(new tir::NotNode(a));
      }
      case proto::NodeProto::kSelect: {
        const auto& p = node.select();
        MLC_ASSIGN_OR_RETURN(c, Get<tir::PrimExprNode>(p.condition(), "condition"));
        MLC_ASSIGN_OR_RETURN(t, Get<tir::PrimExprNode>(p.true_value(), "true value"));
        MLC_ASSIGN_OR_RETURN(f, Get<tir::PrimExprNode>(p.false_value(), "false value"));
        return Ref<Object>(new tir::SelectNode(c, t, f));
      }
      case proto::NodeProto::kCast: {
        MLC_ASSIGN_OR_RETURN(dtype, DTypeFromProto(node.cast().dtype()));
        MLC_ASSIGN_OR_RETURN(v, Get<tir::PrimExprNode>(node.cast().value(), "cast value"));
        return Ref<Object>(new tir::CastNode(dtype, v));
      }
      case proto::NodeProto::kBufferLoad: {
        MLC_ASSIGN_OR_RETURN(b, Get<tir::BufferNode>(node.buffer_load().buffer(), "load buffer"));
        MLC_ASSIGN_OR_RETURN(idx, GetList<tir::PrimExprNode>(node.buffer_load().indices(), "load index"));
        return Ref<Object>(new tir::BufferLoadNode(b, idx));
      }
      case proto::NodeProto::kTirCall: {
        const auto& p = node.tir_call();
        MLC_ASSIGN_OR_RETURN(dtype, DTypeFromProto(p.dtype()));
        MLC_ASSIGN_OR_RETURN(args, GetList<tir::PrimExprNode>(p.args(), "call argument"));
        return Ref<Object>(new tir::TirCallNode(dtype, p.name(), args));
      }
      case proto::NodeProto::kBuffer: {
        const auto& p = node.buffer();
        MLC_ASSIGN_OR_RETURN(dtype, DTypeFromProto(p.dtype()));
        MLC_ASSIGN_OR_RETURN(shape, GetList<tir::PrimExprNode>(p.shape(), "buffer shape"));
        return Ref<Object>(tir::MakeBuffer(p.name(), shape, dtype));
      }
      case proto::NodeProto::kBufferStore: {
        const auto& p = node.buffer_store();
        MLC_ASSIGN_OR_RETURN(b, Get<tir::BufferNode>(p.buffer(), "store buffer"));
        MLC_ASSIGN_OR_RETURN(v, Get<tir::PrimExprNode>(p.value(), "stored value"));
        MLC_ASSIGN_OR_RETURN(idx, GetList<tir::PrimExprNode>(p.indices(), "store index"));
        return Ref<Object>(new tir::BufferStoreNode(b, v, idx));
      }
      case proto::NodeProto::kForStmt: {
        const auto& p = node.for_stmt();
        if (p.kind() > 3) return absl::DataLossError(absl::StrCat("unknown loop kind ", p.kind()));
        MLC_ASSIGN_OR_RETURN(var, Get<tir::TirVarNode>(p.loop_var(), "loop variable"));
        MLC_ASSIGN_OR_RETURN(min, Get<tir::PrimExprNode>(p.min(), "loop min"));
        MLC_ASSIGN_OR_RETURN(extent, Get<tir::PrimExprNode>(p.extent(), "loop extent"));
        MLC_ASSIGN_OR_RETURN(body, Get<tir::StmtNode>(p.body(), "loop body"));
        MLC_ASSIGN_OR_RETURN(annotations, AttrsFromProto(p.annotations()));
        return Ref<Object>(new tir::ForNode(var, min, extent, static_cast<tir::ForKind>(p.kind()), body, annotations));
      }
      case proto::NodeProto::kSeqStmt: {
        MLC_ASSIGN_OR_RETURN(seq, GetList<tir::StmtNode>(node.seq_stmt().seq(), "sequence element"));
        return Ref<Object>(new tir::SeqStmtNode(seq));
      }
      case proto::NodeProto::kIfThenElse: {
        const auto& p = node.if_then_else();
        MLC_ASSIGN_OR_RETURN(c, Get<tir::PrimExprNode>(p.condition(), "condition"));
        MLC_ASSIGN_OR_RETURN(t, Get<tir::StmtNode>(p.then_case(), "then branch"));
        MLC_ASSIGN_OR_RETURN(e, GetOptional<tir::StmtNode>(p.else_case(), "else branch"));
        return Ref<Object>(new tir::IfThenElseNode(c, t, e));
      }
      case proto::NodeProto::kEvaluate: {
        MLC_ASSIGN_OR_RETURN(v, Get<tir::PrimExprNode>(node.evaluate().value(), "evaluated value"));
        return Ref<Object>(new tir::EvaluateNode(v));
      }
      case proto::NodeProto::kBlock: {
        const auto& p = node.block();
        std::vector<tir::IterVar> iter_vars;
        for (const auto& iv : p.iter_vars()) {
          MLC_ASSIGN_OR_RETURN(var, Get<tir::TirVarNode>(iv.var(), "block iteration variable"));
          MLC_ASSIGN_OR_RETURN(dom, GetRange(iv.dom()));
          if (iv.kind() > 1) return absl::DataLossError(absl::StrCat("unknown iteration kind ", iv.kind()));
          iter_vars.push_back({var, dom, static_cast<tir::IterKind>(iv.kind())});
        }
        std::vector<tir::BufferRegion> reads, writes;
        for (const auto& [src, dst] : {std::make_pair(&p.reads(), &reads), std::make_pair(&p.writes(), &writes)}) {
          for (const auto& r : *src) {
            MLC_ASSIGN_OR_RETURN(buffer, Get<tir::BufferNode>(r.buffer(), "region buffer"));
            std::vector<tir::Range> region;
            for (const auto& range : r.region()) {
              MLC_ASSIGN_OR_RETURN(rg, GetRange(range));
              region.push_back(rg);
            }
            dst->push_back({buffer, region});
          }
        }
        MLC_ASSIGN_OR_RETURN(allocs, GetList<tir::BufferNode>(p.alloc_buffers(), "alloc_buffer"));
        MLC_ASSIGN_OR_RETURN(init, GetOptional<tir::StmtNode>(p.init(), "block init"));
        MLC_ASSIGN_OR_RETURN(body, Get<tir::StmtNode>(p.body(), "block body"));
        MLC_ASSIGN_OR_RETURN(annotations, AttrsFromProto(p.annotations()));
        return Ref<Object>(new tir::BlockNode(p.name(), iter_vars, reads, writes, allocs, init, body, annotations));
      }
      case proto::NodeProto::kBlockRealize: {
        const auto& p = node.block_realize();
        MLC_ASSIGN_OR_RETURN(values, GetList<tir::PrimExprNode>(p.iter_values(), "iteration value"));
        MLC_ASSIGN_OR_RETURN(pred, Get<tir::PrimExprNode>(p.predicate(), "predicate"));
        MLC_ASSIGN_OR_RETURN(block, Get<tir::BlockNode>(p.block(), "realized block"));
        if (values.size() != block->iter_vars.size()) {
          return absl::DataLossError(
              "block realize binds a different number of values than the block has iteration variables");
        }
        return Ref<Object>(new tir::BlockRealizeNode(values, pred, block));
      }
      case proto::NodeProto::kAllocate: {
        MLC_ASSIGN_OR_RETURN(b, Get<tir::BufferNode>(node.allocate().buffer(), "allocated buffer"));
        MLC_ASSIGN_OR_RETURN(body, Get<tir::StmtNode>(node.allocate().body(), "allocation body"));
        return Ref<Object>(new tir::AllocateNode(b, body));
      }
      case proto::NodeProto::kPrimFunc: {
        const auto& p = node.prim_func();
        MLC_ASSIGN_OR_RETURN(params, GetList<tir::BufferNode>(p.params(), "parameter"));
        MLC_ASSIGN_OR_RETURN(body, Get<tir::StmtNode>(p.body(), "function body"));
        MLC_ASSIGN_OR_RETURN(attrs, AttrsFromProto(p.attrs()));
        return Ref<Object>(new tir::PrimFuncNode(params, body, attrs));
      }
      case proto::NodeProto::kStructInfo: return DecodeStructInfo(node.struct_info());
      case proto::NodeProto::kVar: {
        const auto& p = node.var();
        MLC_ASSIGN_OR_RETURN(sinfo, Get<relax::StructInfoNode>(p.struct_info(), "var struct info"));
        return Ref<Object>(p.is_dataflow() ? relax::MakeDataflowVar(p.name_hint(), sinfo)
                                           : relax::MakeVar(p.name_hint(), sinfo));
      }
      case proto::NodeProto::kConstant: {
        proto::TensorProto* t = node.mutable_constant()->mutable_data();
        Ref<Object>* shared = nullptr;
        if (section_ != nullptr && t->data().empty()) {
          absl::StatusOr<DataType> dtype = DTypeFromProto(t->dtype());
          if (!dtype.ok()) return dtype.status();
          std::vector<int64_t> shape(t->shape().begin(), t->shape().end());
          int64_t bytes = TensorBytes(shape, *dtype);
          if (bytes < 0) return absl::DataLossError("constant shape is negative or too large");
          if (shared_ != nullptr) {
            shared = &(*shared_)[{node.constant().data_offset(), dtype->ToString(), shape}];
            if (shared->defined()) return *shared;
          }
          MLC_ASSIGN_OR_RETURN(
              block, section_->Block(node.constant().data_offset(), static_cast<uint64_t>(bytes), "the constant"));
          t->set_data(std::string(block));  // the one copy, from the file
        }
        MLC_ASSIGN_OR_RETURN(data, TensorFromProto(std::move(*t)));
        Ref<Object> constant(relax::MakeConstant(data));
        if (shared != nullptr) *shared = constant;
        return constant;
      }
      case proto::NodeProto::kTuple: {
        MLC_ASSIGN_OR_RETURN(fields, GetList<relax::ExprNode>(node.tuple().fields(), "tuple field"));
        return Ref<Object>(relax::MakeTuple(fields));
      }
      case proto::NodeProto::kTupleGetItem: {
        MLC_ASSIGN_OR_RETURN(tuple, Get<relax::ExprNode>(node.tuple_get_item().tuple(), "indexed tuple"));
        MLC_ASSIGN_OR_RETURN(item, relax::MakeTupleGetItem(tuple, node.tuple_get_item().index()));
        return Ref<Object>(item);
      }
      case proto::NodeProto::kShapeExpr: {
        MLC_ASSIGN_OR_RETURN(dims, ShapeValues(node.shape_expr().dims()));
        return Ref<Object>(relax::MakeShapeExpr(dims));
      }
      case proto::NodeProto::kGlobalVar: return Ref<Object>(relax::MakeGlobalVar(node.global_var().name()));
      case proto::NodeProto::kExternFunc: return Ref<Object>(relax::MakeExternFunc(node.extern_func().global_symbol()));
      case proto::NodeProto::kOp: {
        MLC_ASSIGN_OR_RETURN(op, relax::GetOp(node.op().name()));
        return Ref<Object>(op);
      }
      case proto::NodeProto::kCall: {
        const auto& p = node.call();
        MLC_ASSIGN_OR_RETURN(op, Get<relax::ExprNode>(p.op(), "callee"));
        MLC_ASSIGN_OR_RETURN(args, GetList<relax::ExprNode>(p.args(), "call argument"));
        MLC_ASSIGN_OR_RETURN(sinfo_args, GetList<relax::StructInfoNode>(p.sinfo_args(), "out_sinfo"));
        MLC_ASSIGN_OR_RETURN(sinfo, GetOptional<relax::StructInfoNode>(p.struct_info(), "call struct info"));
        MLC_ASSIGN_OR_RETURN(attrs, AttrsFromProto(p.attrs()));
        return Ref<Object>(new relax::CallNode(op, args, attrs, sinfo_args, sinfo));
      }
      case proto::NodeProto::kSeqExpr: {
        MLC_ASSIGN_OR_RETURN(blocks, GetList<relax::BindingBlockNode>(node.seq_expr().blocks(), "binding block"));
        MLC_ASSIGN_OR_RETURN(body, Get<relax::ExprNode>(node.seq_expr().body(), "sequence body"));
        return Ref<Object>(new relax::SeqExprNode(blocks, body));
      }
      case proto::NodeProto::kIfExpr: {
        MLC_ASSIGN_OR_RETURN(cond, Get<relax::ExprNode>(node.if_expr().cond(), "if condition"));
        MLC_ASSIGN_OR_RETURN(then_value, Get<relax::ExprNode>(node.if_expr().true_branch(), "if true branch"));
        MLC_ASSIGN_OR_RETURN(else_value, Get<relax::ExprNode>(node.if_expr().false_branch(), "if false branch"));
        return Ref<Object>(new relax::IfNode(cond, then_value, else_value));
      }
      case proto::NodeProto::kVarBinding: {
        MLC_ASSIGN_OR_RETURN(var, Get<relax::VarNode>(node.var_binding().var(), "bound variable"));
        MLC_ASSIGN_OR_RETURN(value, Get<relax::ExprNode>(node.var_binding().value(), "bound value"));
        return Ref<Object>(new relax::VarBindingNode(var, value));
      }
      case proto::NodeProto::kBindingBlock: {
        MLC_ASSIGN_OR_RETURN(bindings, GetList<relax::VarBindingNode>(node.binding_block().bindings(), "binding"));
        return Ref<Object>(new relax::BindingBlockNode(bindings, node.binding_block().is_dataflow()));
      }
      case proto::NodeProto::kFunction: {
        const auto& p = node.function();
        MLC_ASSIGN_OR_RETURN(params, GetList<relax::VarNode>(p.params(), "parameter"));
        MLC_ASSIGN_OR_RETURN(body, Get<relax::SeqExprNode>(p.body(), "function body"));
        MLC_ASSIGN_OR_RETURN(ret, Get<relax::StructInfoNode>(p.ret_struct_info(), "declared result"));
        MLC_ASSIGN_OR_RETURN(attrs, AttrsFromProto(p.attrs()));
        return Ref<Object>(new relax::FunctionNode(params, body, ret, attrs));
      }
      case proto::NodeProto::KIND_NOT_SET: return absl::DataLossError("node has no kind (written by a newer version?)");
    }
    return absl::DataLossError("unknown node kind");
  }

  /*! \brief Shape value dimensions from expression node ids. */
  absl::StatusOr<std::vector<PrimExpr>> ShapeValues(const google::protobuf::RepeatedField<int64_t>& ids) {
    MLC_ASSIGN_OR_RETURN(dims, GetList<tir::PrimExprNode>(ids, "shape value"));
    for (const PrimExpr& d : dims) {
      if (!tir::IsShapeExpr(d)) return absl::DataLossError("a shape value is not an integer shape expression");
    }
    return dims;
  }

  absl::StatusOr<Ref<Object>> DecodeStructInfo(const proto::StructInfoProto& p) {
    switch (p.kind_case()) {
      case proto::StructInfoProto::kObject: return Ref<Object>(relax::ObjectSInfo());
      case proto::StructInfoProto::kPrim: {
        MLC_ASSIGN_OR_RETURN(dtype, DTypeFromProto(p.prim()));
        return Ref<Object>(relax::PrimSInfo(dtype));
      }
      case proto::StructInfoProto::kShape: {
        const auto& s = p.shape();
        std::optional<std::vector<PrimExpr>> values;
        if (s.has_values()) {
          MLC_ASSIGN_OR_RETURN(dims, ShapeValues(s.dims()));
          values = dims;
        }
        if (values && static_cast<int>(values->size()) != s.ndim())
          return absl::DataLossError("shape ndim disagrees with its values");
        return Ref<Object>(new relax::ShapeStructInfoNode(s.ndim(), values));
      }
      case proto::StructInfoProto::kTensor: {
        const auto& t = p.tensor();
        MLC_ASSIGN_OR_RETURN(dtype, DTypeFromProto(t.dtype()));
        if (t.symbolic_dims_size() > 0) {
          if (t.has_shape() || t.symbolic_dims_size() != t.ndim())
            return absl::DataLossError("tensor ndim disagrees with its shape");
          MLC_ASSIGN_OR_RETURN(dims, GetList<tir::PrimExprNode>(t.symbolic_dims(), "symbolic dimension"));
          for (const PrimExpr& d : dims) {
            if (!tir::IsShapeExpr(d))
              return absl::DataLossError("a symbolic dimension is not an integer shape expression");
          }
          return Ref<Object>(relax::TensorSInfoOfDims(dims, dtype));
        }
        std::optional<std::vector<int64_t>> shape;
        if (t.has_shape()) shape = std::vector<int64_t>(t.shape().begin(), t.shape().end());
        if (shape && static_cast<int>(shape->size()) != t.ndim())
          return absl::DataLossError("tensor ndim disagrees with its shape");
        return Ref<Object>(new relax::TensorStructInfoNode(shape, dtype, t.ndim()));
      }
      case proto::StructInfoProto::kTuple: {
        MLC_ASSIGN_OR_RETURN(fields, GetList<relax::StructInfoNode>(p.tuple().fields(), "tuple field"));
        return Ref<Object>(relax::TupleSInfo(fields));
      }
      case proto::StructInfoProto::kFunc: {
        MLC_ASSIGN_OR_RETURN(params, GetList<relax::StructInfoNode>(p.func().params(), "parameter"));
        MLC_ASSIGN_OR_RETURN(ret, Get<relax::StructInfoNode>(p.func().ret(), "result"));
        return Ref<Object>(relax::FuncSInfo(params, ret));
      }
      case proto::StructInfoProto::KIND_NOT_SET: break;
    }
    return absl::DataLossError("struct info has no kind");
  }
#undef MLC_ASSIGN_OR_RETURN

  proto::FunctionProto& fn_;
  const DataSectionPayload* section_;  // a file's data section, where constants' bytes lie
  SharedConstants* shared_;
  std::vector<int> depth_;  // of each node read: 1 + its deepest child's
  int deepest_child_ = 0;   // of the node being decoded
  std::vector<Ref<Object>> nodes_;
};

}  // namespace

void TensorToProto(const TensorData& tensor, proto::TensorProto* out) {
  DTypeToProto(tensor.dtype(), out->mutable_dtype());
  for (int64_t d : tensor.shape()) out->add_shape(d);
  out->set_data(tensor.bytes());
}

absl::StatusOr<TensorData> TensorFromProto(const proto::TensorProto& p) {
  proto::TensorProto copy = p;
  return TensorFromProto(std::move(copy));
}

absl::StatusOr<TensorData> TensorFromProto(proto::TensorProto&& p) {
  absl::StatusOr<DataType> dtype = DTypeFromProto(p.dtype());
  if (!dtype.ok()) return dtype.status();
  std::vector<int64_t> shape(p.shape().begin(), p.shape().end());
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0 || (d > 0 && n > (int64_t{1} << 40) / d))
      return absl::DataLossError("tensor shape is negative or too large");
    n *= d;
  }
  if (static_cast<int64_t>(p.data().size()) != n * dtype->bytes()) {
    return absl::DataLossError(
        absl::StrCat("tensor holds ", p.data().size(), " bytes, its shape and dtype need ", n * dtype->bytes()));
  }
  return TensorData(*dtype, shape, std::move(*p.mutable_data()));
}

namespace {

/*! \brief The message of `mod`; with `section`, its constants' bytes placed there. */
proto::ModuleProto ToProto(const IRModule& mod, DataSectionWriter* section) {
  proto::ModuleProto out;
  out.set_magic(kMagic);
  out.set_format_version(kIRFormatVersion);
  for (const auto& [name, func] : mod.functions()) {
    proto::FunctionProto* fn = out.add_functions();
    fn->set_name(name);
    Writer(fn, section).Func(func);
  }
  AttrsToProto(mod.attrs(), out.mutable_attrs());
  return out;
}

}  // namespace

proto::ModuleProto ModuleToProto(const IRModule& mod) { return ToProto(mod, nullptr); }

absl::StatusOr<IRModule> ModuleFromProto(const proto::ModuleProto& proto) {
  proto::ModuleProto copy = proto;
  return ModuleFromProto(std::move(copy));
}

absl::StatusOr<IRModule> ModuleFromProto(proto::ModuleProto&& proto) {
  return ModuleFromProto(std::move(proto), nullptr);
}

absl::StatusOr<IRModule> ModuleFromProto(proto::ModuleProto&& proto, const DataSectionPayload* section) {
  if (proto.magic() != kMagic) return absl::DataLossError("not an IRModule file (bad magic)");
  if (proto.format_version() != kIRFormatVersion) {
    return absl::FailedPreconditionError(absl::StrCat("IRModule format version ", proto.format_version(),
                                                      " is not supported (this build reads version ", kIRFormatVersion,
                                                      ")"));
  }
  IRModule mod;
  Reader::SharedConstants shared;
  for (proto::FunctionProto& fn : *proto.mutable_functions()) {
    if (mod.Contains(fn.name())) return absl::DataLossError(absl::StrCat("function ", fn.name(), " appears twice"));
    absl::StatusOr<BaseFunc> func = Reader(fn, section, &shared).Read();
    if (!func.ok()) return func.status();
    mod.Add(fn.name(), *func);
  }
  absl::StatusOr<Attrs> attrs = AttrsFromProto(proto.attrs());
  if (!attrs.ok()) return attrs.status();
  mod.mutable_attrs() = *attrs;
  return mod;
}

namespace {

/*! \brief The message of `mod` with its constants placed in `section`. */
absl::StatusOr<std::string> MessageWithSection(const IRModule& mod, DataSectionWriter* section,
                                               const std::string& what) {
  const proto::ModuleProto out = ToProto(mod, section);
  // Protobuf refuses messages of 2 GiB and more (and serializes them to nothing); the weights are
  // not in it, but a graph can still be that large.
  if (const size_t bytes = out.ByteSizeLong(); bytes > size_t{INT32_MAX}) {
    return absl::ResourceExhaustedError(absl::StrCat(what, ": the module's graph is ",
                                                     HumanBytes(static_cast<int64_t>(bytes)),
                                                     "; a .irpb holds less than 2 GiB of it"));
  }
  return out.SerializeAsString();
}

}  // namespace

std::string SerializeModule(const IRModule& mod) {
  DataSectionWriter section;
  absl::StatusOr<std::string> message = MessageWithSection(mod, &section, "<bytes>");
  return section.Serialize(kMagic, kIRFormatVersion, message.ok() ? *message : std::string());
}

absl::StatusOr<IRModule> DeserializeModule(absl::string_view bytes, const std::string& source_name) {
  absl::StatusOr<absl::string_view> payload = Unseal(bytes, kMagic, kIRFormatVersion, source_name);
  if (!payload.ok()) return payload.status();
  absl::StatusOr<DataSectionPayload> parts = SplitDataSection(*payload, source_name);
  if (!parts.ok()) return parts.status();
  proto::ModuleProto proto;
  if (!proto.ParseFromArray(parts->message.data(), static_cast<int>(parts->message.size()))) {
    return absl::DataLossError(absl::StrCat(source_name, ": the IRModule message does not parse"));
  }
  absl::StatusOr<IRModule> mod = ModuleFromProto(std::move(proto), &*parts);
  if (!mod.ok()) return absl::Status(mod.status().code(), absl::StrCat(source_name, ": ", mod.status().message()));
  return mod;
}

absl::Status SaveModule(const IRModule& mod, const std::string& path) {
  DataSectionWriter section;
  absl::StatusOr<std::string> message = MessageWithSection(mod, &section, path);
  if (!message.ok()) return message.status();
  return section.WriteFile(path, kMagic, kIRFormatVersion, *message);
}

absl::StatusOr<IRModule> LoadModule(const std::string& path) {
  // Mapped, not read: each constant is copied once, from the file into its tensor.
  absl::StatusOr<MappedFile> file = MappedFile::Open(path);
  if (!file.ok()) return file.status();
  return DeserializeModule(file->bytes(), path);
}

}  // namespace mlc
