/*! \file reduction.cc
 *  \brief decompose_reduction (the init as a block of its own) and rfactor (a reduction
 *         factored over one of its loops into a new buffer, then reduced again).
 */
#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "ir/tir/prim_expr_ops.h"
#include "ir/tir/tir_functor.h"
#include "ir/tir/tir_util.h"
#include "passes/schedule/schedule.h"

namespace mlc {
namespace tir {
namespace {

/*! \brief The statement with `s` wrapped in the given loops (outermost first). */
Stmt WrapLoops(const std::vector<const ForNode*>& loops, const std::vector<Var>& vars, Stmt s) {
  for (size_t i = loops.size(); i-- > 0;) {
    s = Stmt(new ForNode(vars[i], loops[i]->min, loops[i]->extent, ForKind::kSerial, s));
  }
  return s;
}

}  // namespace

absl::StatusOr<BlockRV> Schedule::DecomposeReduction(const BlockRV& block_rv, const LoopRV& loop_rv) {
  const char* kPrim = "decompose_reduction";
  absl::StatusOr<BlockRef> b = Resolve(block_rv, kPrim);
  if (!b.ok()) return b.status();
  absl::StatusOr<LoopRef> l = Resolve(loop_rv, kPrim);
  if (!l.ok()) return l.status();
  const BlockNode* block = b->block;
  std::string what = absl::StrCat("block ", block->name);
  if (!block->init.defined()) return ErrorAt(kPrim, what, "it has no init (not a reduction, or already decomposed)");
  std::vector<const ForNode*> loops = LoopsAbove(b->path);
  auto at = std::find(loops.begin(), loops.end(), l->loop);
  if (at == loops.end()) return ErrorAt(kPrim, what, absl::StrCat(Name(*l), " is not a loop above it"));
  const BlockRealizeNode* realize = b->realize;
  // Loops above `loop` must not iterate the reduction, or the init would run at each step.
  for (auto it = loops.begin(); it != at; ++it) {
    for (size_t i = 0; i < block->iter_vars.size(); ++i) {
      if (block->iter_vars[i].kind == IterKind::kReduce && UsesVar(realize->iter_values[i], (*it)->loop_var)) {
        return ErrorAt(kPrim, what,
                       absl::StrCat("loop ", (*it)->loop_var->name, " above ", Name(*l),
                                    " iterates the reduction; the init must go above every reduction loop"));
      }
    }
  }
  // Loops at and below `loop` that the spatial bindings use are copied for the init.
  std::vector<const ForNode*> copied;
  std::vector<Var> copies;
  std::vector<std::pair<Var, PrimExpr>> loop_map;
  for (auto it = at; it != loops.end(); ++it) {
    bool used = false;
    for (size_t i = 0; i < block->iter_vars.size(); ++i) {
      if (block->iter_vars[i].kind == IterKind::kSpatial) used |= UsesVar(realize->iter_values[i], (*it)->loop_var);
    }
    if (!used) continue;
    copied.push_back(*it);
    copies.push_back(MakeVar(absl::StrCat((*it)->loop_var->name, "_init"), (*it)->loop_var->dtype));
    loop_map.push_back({(*it)->loop_var, copies.back()});
  }
  std::vector<IterVar> iters;
  std::vector<PrimExpr> values;
  std::vector<std::pair<Var, PrimExpr>> var_map;
  for (size_t i = 0; i < block->iter_vars.size(); ++i) {
    const IterVar& iv = block->iter_vars[i];
    if (iv.kind != IterKind::kSpatial) continue;
    Var v = MakeVar(iv.var->name, iv.var->dtype);
    iters.push_back(IterVar{v, iv.dom, IterKind::kSpatial});
    values.push_back(Substitute(realize->iter_values[i], loop_map));
    var_map.push_back({iv.var, v});
  }
  PrimExpr pred = Substitute(realize->predicate, loop_map);
  std::set<const Object*> below;
  for (auto it = at; it != loops.end(); ++it) below.insert((*it)->loop_var.get());
  if (UsesAnyVar(pred, below)) pred = IntImm(DataType::Bool(), 1);  // a guard of the reduction loops
  std::string init_name = UniqueBlockName(b->prim->body, absl::StrCat(block->name, "_init"));
  std::string update_name = UniqueBlockName(b->prim->body, absl::StrCat(block->name, "_update"));
  Block init_block = WithInferredRegions(
      Block(new BlockNode(init_name, iters, {}, {}, {}, Stmt(), Substitute(block->init, var_map), block->annotations)));
  Stmt init_nest = WrapLoops(copied, copies, Stmt(new BlockRealizeNode(values, pred, init_block)));
  Block update = WithInferredRegions(Block(new BlockNode(update_name, block->iter_vars, {}, {}, block->alloc_buffers,
                                                         Stmt(), block->body, block->annotations)));
  Stmt loop_with_update = ReplaceNode(Stmt(l->path.back()), block, update);
  SetBody(b->func, ReplaceNode(l->prim->body, l->loop, MakeSeq({init_nest, loop_with_update})));
  // Handles to the block now mean the update block.
  for (Symbol& s : symbols_) {
    if (s.kind == Symbol::kBlock && s.func == b->func && s.block == block->name) s.block = update_name;
  }
  BlockRV out = NewBlockRV(b->func, init_name);
  Record(kPrim, {TraceValue::Block(block_rv), TraceValue::Loop(loop_rv)}, {TraceValue::Block(out)});
  return out;
}

absl::StatusOr<BlockRV> Schedule::RFactor(const LoopRV& loop_rv, int factor_axis) {
  const char* kPrim = "rfactor";
  absl::StatusOr<LoopRef> l = Resolve(loop_rv, kPrim);
  if (!l.ok()) return l.status();
  std::vector<const BlockRealizeNode*> blocks = AllBlocks(l->loop->body);
  if (blocks.size() != 1)
    return ErrorAt(kPrim, Name(*l), absl::StrCat("it holds ", blocks.size(), " blocks; rfactor needs one"));
  const BlockRealizeNode* realize = blocks[0];
  const BlockNode* block = realize->block.get();
  std::string what = absl::StrCat(Name(*l), " of block ", block->name);
  if (!IsReductionBlock(block)) return ErrorAt(kPrim, what, "the block is not a reduction with an init");
  // The update must be out[idx] = combine(out[idx], value) with an associative combiner.
  const auto* store = block->body.as<BufferStoreNode>();
  const auto* init = block->init.as<BufferStoreNode>();
  if (store == nullptr || init == nullptr || !init->buffer.same_as(store->buffer)) {
    return ErrorAt(kPrim, what, "the block is not one store with one init store");
  }
  NodeKind combiner = store->value->kind();
  if (combiner != NodeKind::kAdd && combiner != NodeKind::kMax && combiner != NodeKind::kMin) {
    return ErrorAt(kPrim, what, "the update is not a sum, max or min of the output and a value");
  }
  const auto* comb = store->value.as<BinaryNode>();
  auto is_self = [&](const PrimExpr& e) {
    const auto* load = e.as<BufferLoadNode>();
    if (load == nullptr || !load->buffer.same_as(store->buffer) || load->indices.size() != store->indices.size())
      return false;
    for (size_t d = 0; d < load->indices.size(); ++d) {
      if (!ExprDeepEqual(load->indices[d], store->indices[d])) return false;
    }
    return true;
  };
  PrimExpr value;
  if (is_self(comb->a))
    value = comb->b;
  else if (is_self(comb->b))
    value = comb->a;
  else
    return ErrorAt(kPrim, what, "the update does not combine the output with a value");
  Buffer out = store->buffer;
  if (factor_axis < 0) factor_axis += out->ndim() + 1;
  if (factor_axis < 0 || factor_axis > out->ndim()) {
    return ErrorAt(kPrim, what, absl::StrCat("factor_axis ", factor_axis, " is out of range for ", out->name));
  }
  std::optional<StmtPath> bpath = FindBlock(l->prim->body, block->name);
  std::vector<const ForNode*> loops = LoopsAbove(*bpath);
  const ForNode* rloop = l->loop;
  bool in_reduce = false;
  for (size_t i = 0; i < block->iter_vars.size(); ++i) {
    if (!UsesVar(realize->iter_values[i], rloop->loop_var)) continue;
    if (block->iter_vars[i].kind == IterKind::kSpatial)
      return ErrorAt(kPrim, what, "the loop is bound to a spatial variable");
    in_reduce = true;
  }
  if (!in_reduce) return ErrorAt(kPrim, what, "the loop does not iterate the reduction");
  const int64_t* rext = AsConstInt(rloop->extent);
  if (rext == nullptr) return ErrorAt(kPrim, what, "the loop's extent is not a constant");
  // The loops of the nest: those in reduction bindings (the factored one becomes spatial).
  std::vector<const ForNode*> reduce_loops;
  for (const ForNode* f : loops) {
    for (size_t i = 0; i < block->iter_vars.size(); ++i) {
      if (block->iter_vars[i].kind == IterKind::kReduce && UsesVar(realize->iter_values[i], f->loop_var)) {
        reduce_loops.push_back(f);
        break;
      }
    }
  }
  // rf buffer: the output's shape with the loop's extent at factor_axis.
  std::vector<PrimExpr> rf_shape = out->shape;
  rf_shape.insert(rf_shape.begin() + factor_axis,
                  IntImm(out->shape.empty() ? DataType::Int64() : out->shape[0]->dtype, *rext));
  Buffer rf = MakeBuffer(absl::StrCat(out->name, "_rf"), rf_shape, out->dtype);
  // The rf block: spatial vars kept, one spatial var per factored loop, reduce vars per other loop.
  std::vector<IterVar> rf_iters;
  std::vector<PrimExpr> rf_values;
  std::vector<std::pair<Var, PrimExpr>> spatial_map;
  std::vector<PrimExpr> spatial_values;
  std::vector<IterVar> spatial_iters;
  for (size_t i = 0; i < block->iter_vars.size(); ++i) {
    const IterVar& iv = block->iter_vars[i];
    if (iv.kind != IterKind::kSpatial) continue;
    Var v = MakeVar(iv.var->name, iv.var->dtype);
    rf_iters.push_back(IterVar{v, iv.dom, IterKind::kSpatial});
    rf_values.push_back(realize->iter_values[i]);
    spatial_map.push_back({iv.var, v});
    spatial_iters.push_back(iv);
    spatial_values.push_back(realize->iter_values[i]);
  }
  std::vector<std::pair<Var, PrimExpr>> loop_to_iter;
  Var vrf;
  for (const ForNode* f : reduce_loops) {
    Var v = MakeVar(absl::StrCat("v", f->loop_var->name), f->loop_var->dtype);
    bool factored = f == rloop;
    if (factored) vrf = v;
    rf_iters.push_back(IterVar{v, Range{f->min, f->extent}, factored ? IterKind::kSpatial : IterKind::kReduce});
    rf_values.push_back(f->loop_var);
    loop_to_iter.push_back({f->loop_var, v});
  }
  std::vector<std::pair<Var, PrimExpr>> reduce_map;
  for (size_t i = 0; i < block->iter_vars.size(); ++i) {
    if (block->iter_vars[i].kind == IterKind::kReduce) {
      reduce_map.push_back({block->iter_vars[i].var, Substitute(realize->iter_values[i], loop_to_iter)});
    }
  }
  std::vector<PrimExpr> out_index;
  for (const PrimExpr& i : store->indices) out_index.push_back(Substitute(i, spatial_map));
  std::vector<PrimExpr> rf_index = out_index;
  rf_index.insert(rf_index.begin() + factor_axis, vrf);
  PrimExpr rf_value = Substitute(Substitute(value, reduce_map), spatial_map);
  PrimExpr self = Load(rf, rf_index);
  PrimExpr combined = MakeBinary(combiner, self, rf_value);
  std::string rf_name = UniqueBlockName(l->prim->body, absl::StrCat(block->name, "_rf"));
  Block rf_block = WithInferredRegions(
      Block(new BlockNode(rf_name, rf_iters, {}, {}, {}, Store(rf, rf_index, Substitute(init->value, spatial_map)),
                          Store(rf, rf_index, combined), block->annotations)));
  Stmt rf_realize(new BlockRealizeNode(rf_values, realize->predicate, rf_block));
  // The write-back block over copies of the spatial loops and the factored loop.
  std::vector<const ForNode*> wb_loops;
  std::vector<Var> wb_vars;
  std::vector<std::pair<Var, PrimExpr>> wb_loop_map;
  for (const ForNode* f : loops) {
    bool spatial = false;
    for (const PrimExpr& sv : spatial_values) spatial |= UsesVar(sv, f->loop_var);
    if (!spatial && f != rloop) continue;
    wb_loops.push_back(f);
    wb_vars.push_back(MakeVar(f->loop_var->name, f->loop_var->dtype));
    wb_loop_map.push_back({f->loop_var, wb_vars.back()});
  }
  std::vector<IterVar> wb_iters;
  std::vector<PrimExpr> wb_values;
  std::vector<std::pair<Var, PrimExpr>> wb_var_map;
  for (size_t i = 0; i < spatial_iters.size(); ++i) {
    Var v = MakeVar(spatial_iters[i].var->name, spatial_iters[i].var->dtype);
    wb_iters.push_back(IterVar{v, spatial_iters[i].dom, IterKind::kSpatial});
    wb_values.push_back(Substitute(spatial_values[i], wb_loop_map));
    wb_var_map.push_back({spatial_iters[i].var, v});
  }
  Var vr = MakeVar(absl::StrCat("v", rloop->loop_var->name), rloop->loop_var->dtype);
  wb_iters.push_back(IterVar{vr, Range{rloop->min, rloop->extent}, IterKind::kReduce});
  wb_values.push_back(Substitute(PrimExpr(rloop->loop_var), wb_loop_map));
  std::vector<PrimExpr> wb_index;
  for (const PrimExpr& i : store->indices) wb_index.push_back(Substitute(i, wb_var_map));
  std::vector<PrimExpr> wb_rf_index = wb_index;
  wb_rf_index.insert(wb_rf_index.begin() + factor_axis, vr);
  Block wb_block = WithInferredRegions(Block(new BlockNode(
      block->name, wb_iters, {}, {}, {}, Store(out, wb_index, Substitute(init->value, wb_var_map)),
      Store(out, wb_index, MakeBinary(combiner, Load(out, wb_index), Load(rf, wb_rf_index))), block->annotations)));
  Stmt wb_nest =
      WrapLoops(wb_loops, wb_vars, Stmt(new BlockRealizeNode(wb_values, IntImm(DataType::Bool(), 1), wb_block)));
  // Place: the rf block where the block was, the write-back right after that nest.
  const BlockRealizeNode* scope = ScopeOf(*bpath);
  const BlockNode* sb = scope->block.get();
  Stmt top;  // the top-level statement of the scope holding the block
  for (size_t i = 0; i + 1 < bpath->size(); ++i) {
    if ((*bpath)[i].get() == scope) {
      top = (*bpath)[i + 1];
      if (top->kind() == NodeKind::kSeqStmt && i + 2 < bpath->size()) top = (*bpath)[i + 2];
      break;
    }
  }
  Stmt scope_body = RewriteStmt(sb->body, [&](const Stmt& s) -> std::optional<Stmt> {
    if (s.get() == top.get()) return MakeSeq({ReplaceNode(s, realize, rf_realize), wb_nest});
    return std::nullopt;
  });
  std::vector<Buffer> allocs = sb->alloc_buffers;
  allocs.push_back(rf);
  Block new_scope(
      new BlockNode(sb->name, sb->iter_vars, sb->reads, sb->writes, allocs, sb->init, scope_body, sb->annotations));
  SetBody(l->func, ReplaceNode(l->prim->body, scope,
                               Stmt(new BlockRealizeNode(scope->iter_values, scope->predicate, new_scope))));
  BlockRV out_rv = NewBlockRV(l->func, rf_name);
  Record(kPrim, {TraceValue::Loop(loop_rv), TraceValue::Int(factor_axis)}, {TraceValue::Block(out_rv)});
  return out_rv;
}

}  // namespace tir
}  // namespace mlc
