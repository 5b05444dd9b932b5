/*! \file pack_constants.cc
 *  \brief pack-constants: layouts that schedules chose for constant operands (packed weight
 *         panels) are computed once, at compile time, instead of on every call.
 *
 *  A scheduled PrimFunc packs an operand with a copy block `P_global[f(v)] = P[v]` (cache_read
 *  + transform_layout). When every call passes a constant for P and the copy is P's only use,
 *  the copy is run here by the interpreter, the function takes the packed buffer as parameter
 *  instead (the copy block is removed), and the calls pass the packed constant.
 */
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "ir/graph/op.h"
#include "ir/tir/interpreter.h"
#include "ir/tir/stmt_tree.h"
#include "ir/tir/tir_util.h"
#include "passes/pass.h"
#include "passes/pattern.h"

namespace mlc {
namespace passes {
namespace {

/*! \brief A copy block from parameter `param` into the root-allocated buffer `packed`. */
struct Packing {
  int param = -1;
  tir::Buffer packed;
  const tir::BlockRealizeNode* realize = nullptr;
};

/*! \brief How often each buffer is accessed (loads and stores) in `s`. */
std::map<const Object*, int> BufferUses(const tir::Stmt& s) {
  std::map<const Object*, int> uses;
  for (const tir::BlockRealizeNode* r : tir::AllBlocks(s)) {
    for (const tir::BufferRegion& rd : r->block->reads) ++uses[rd.buffer.get()];
    for (const tir::BufferRegion& w : r->block->writes) ++uses[w.buffer.get()];
  }
  return uses;
}

/*! \brief The packing copies of `f`: spatial blocks storing a parameter's element (indexed by
 *  the iteration variables) into a root allocation, the parameter used nowhere else. */
std::vector<Packing> FindPackings(const tir::PrimFunc& f) {
  std::vector<Packing> out;
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
    if (!plain || param < 0 || !allocated_at_root || uses[load->buffer.get()] != 1 || uses[store->buffer.get()] < 2) continue;
    out.push_back({param, store->buffer, r});
  }
  return out;
}

/*! \brief Runs the copy over its whole domain on the constant. */
absl::StatusOr<TensorData> Pack(const Packing& p, const tir::PrimFunc& f, const TensorData& value) {
  const tir::BlockNode* b = p.realize->block.get();
  std::vector<tir::Var> loop_vars;
  std::vector<tir::PrimExpr> values;
  for (const tir::IterVar& iv : b->iter_vars) {
    loop_vars.push_back(tir::MakeVar(iv.var->name + "_l", iv.var->dtype));
    values.push_back(loop_vars.back());
  }
  tir::Stmt body(new tir::BlockRealizeNode(values, tir::IntImm(DataType::Bool(), 1), p.realize->block));
  for (size_t i = loop_vars.size(); i-- > 0;) {
    body = tir::Stmt(new tir::ForNode(loop_vars[i], b->iter_vars[i].dom.min, b->iter_vars[i].dom.extent, tir::ForKind::kSerial, body));
  }
  tir::PrimFunc copy(new tir::PrimFuncNode({f->params[p.param], p.packed}, body, {}));
  std::vector<int64_t> shape;
  for (const tir::PrimExpr& d : p.packed->shape) shape.push_back(*tir::AsConstInt(d));
  TensorData in = value, out(value.dtype(), shape);
  if (absl::Status s = tir::InterpretPrimFunc(copy, {&in, &out}); !s.ok()) return s;
  return out;
}

/*! \brief `f` with the packings' buffers as parameters in place of what they packed. */
tir::PrimFunc WithoutPackings(const tir::PrimFunc& f, const std::vector<Packing>& packings) {
  std::set<const Object*> copies, packed;
  std::vector<tir::Buffer> params = f->params;
  for (const Packing& p : packings) {
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
  tir::Block new_root(new tir::BlockNode(rb->name, rb->iter_vars, rb->reads, rb->writes, allocs, rb->init, rb->body, rb->annotations));
  return tir::PrimFunc(new tir::PrimFuncNode(params, tir::Stmt(new tir::BlockRealizeNode(root->iter_values, root->predicate, new_root)),
                                             f->attrs));
}

class PackConstantsPass : public FunctionPass {
 public:
  std::string name() const override { return "pack-constants"; }
  std::string description() const override {
    return "Runs at compile time the copies that scheduled PrimFuncs make of constant operands into a packed layout "
           "(cache_read + transform_layout of a weight): the function takes the packed buffer as parameter and the "
           "call passes the packed constant. Run after default-schedule (or apply-trace).";
  }

 protected:
  bool skip_primitive() const override { return true; }
  absl::StatusOr<relax::Function> RunOnFunction(const relax::Function& func, relax::BlockBuilder* bb) override {
    absl::Status error;
    Pattern callee = Wildcard(), args = Wildcard();
    absl::StatusOr<relax::Function> out = Rewrite(
        IsOp("call_tir")({callee, args}), func,
        [&](const relax::Expr& matched, const Match& m, relax::BlockBuilder* builder) -> relax::Expr {
          const auto* gv = m[callee].as<relax::GlobalVarNode>();
          const auto* tuple = m[args].as<relax::TupleNode>();
          if (gv == nullptr || tuple == nullptr) return matched;
          tir::PrimFunc f = builder->module().LookupPrimFunc(gv->name);
          if (!f.defined()) return matched;
          std::vector<Packing> packings;
          for (const Packing& p : FindPackings(f)) {
            if (p.param < static_cast<int>(tuple->fields.size()) && tuple->fields[p.param].as<relax::ConstantNode>()) {
              packings.push_back(p);
            }
          }
          if (packings.empty()) return matched;
          std::vector<relax::Expr> fields = tuple->fields;
          for (const Packing& p : packings) {
            absl::StatusOr<TensorData> packed = Pack(p, f, fields[p.param].as<relax::ConstantNode>()->data);
            if (!packed.ok()) {
              error = absl::Status(packed.status().code(), absl::StrCat("pack-constants: @", gv->name, ": ",
                                                                        packed.status().message()));
              return matched;
            }
            fields[p.param] = relax::MakeConstant(*packed);
          }
          relax::GlobalVar packed_fn = builder->AddFunc(WithoutPackings(f, packings), gv->name + "_packed");
          const auto* call = matched.as<relax::CallNode>();
          return relax::MakeCall(call->op, {packed_fn, relax::MakeTuple(fields)}, call->attrs, call->sinfo_args);
        },
        bb);
    if (!error.ok()) return error;
    return out;
  }
};

MLC_REGISTER_PASS(PackConstantsPass);

}  // namespace
}  // namespace passes
}  // namespace mlc
