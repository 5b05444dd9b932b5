/*! \file blockize_tensorize.cc
 *  \brief blockize (the loops under a loop become a block of their own) and tensorize (such a
 *         block computed by a registered tensor intrinsic).
 */
#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/tir/prim_expr_ops.h"
#include "ir/tir/tir_functor.h"
#include "ir/tir/tir_util.h"
#include "passes/schedule/schedule.h"
#include "passes/schedule/tensor_intrin.h"

namespace mlc {
namespace tir {
namespace {

bool IsZero(const PrimExpr& e) {
  const int64_t* v = AsConstInt(e);
  return v != nullptr && *v == 0;
}

/*! \brief `e` split into the part using only `outer` variables and the part using only
 *  `inner` ones (e = outer + inner), or false when a term mixes them. */
bool SplitBinding(const PrimExpr& e, const std::set<const Object*>& inner, const Analyzer& a, PrimExpr* outer_part,
                  PrimExpr* inner_part) {
  // Terms of the canonical sum: set the inner loops to 0 for the outer part.
  std::vector<std::pair<Var, PrimExpr>> zero;
  class Collect : public StmtExprVisitor {
   public:
    std::set<const Object*> vars;

   protected:
    void VisitExpr_(const TirVarNode* op) override { vars.insert(op); }
  } collect;
  collect.VisitExpr(e);
  for (const Object* v : collect.vars) {
    if (inner.count(v)) {
      const auto* tv = static_cast<const TirVarNode*>(v);
      zero.push_back({Var(tv), IntImm(tv->dtype, 0)});
    }
  }
  *outer_part = a.Simplify(Substitute(e, zero));
  *inner_part = a.Simplify(e - *outer_part);
  std::set<const Object*> outer_vars;
  for (const Object* v : collect.vars) {
    if (!inner.count(v)) outer_vars.insert(v);
  }
  return !UsesAnyVar(*inner_part, outer_vars);
}

}  // namespace

absl::StatusOr<BlockRV> Schedule::Blockize(const LoopRV& loop_rv) {
  const char* kPrim = "blockize";
  absl::StatusOr<LoopRef> l = Resolve(loop_rv, kPrim);
  if (!l.ok()) return l.status();
  std::vector<const BlockRealizeNode*> blocks = ChildBlocks(Stmt(l->path.back()));
  if (blocks.size() != 1)
    return ErrorAt(kPrim, Name(*l), absl::StrCat("it holds ", blocks.size(), " blocks; blockize needs one"));
  const BlockRealizeNode* inner = blocks[0];
  const BlockNode* block = inner->block.get();
  std::string what = absl::StrCat(Name(*l), " of block ", block->name);
  std::optional<StmtPath> bpath = FindBlock(l->prim->body, block->name);
  std::vector<const ForNode*> all = LoopsAbove(*bpath);
  auto at = std::find(all.begin(), all.end(), l->loop);
  std::vector<const ForNode*> outer_loops(all.begin(), at), inner_loops(at, all.end());
  std::set<const Object*> inner_vars;
  for (const ForNode* f : inner_loops) inner_vars.insert(f->loop_var.get());
  Analyzer a = AnalyzerFor(all);
  // Each binding = outer * c + inner with inner in [0, c): the outer part becomes the outer
  // block's variable.
  std::vector<IterVar> outer_iters;
  std::vector<PrimExpr> outer_values, inner_values;
  for (size_t i = 0; i < block->iter_vars.size(); ++i) {
    const IterVar& iv = block->iter_vars[i];
    PrimExpr op, ip;
    if (!SplitBinding(inner->iter_values[i], inner_vars, a, &op, &ip)) {
      return ErrorAt(kPrim, what, absl::StrCat("the binding of ", iv.var->name, " mixes loops inside and outside"));
    }
    ConstIntBound ib = a.Bound(ip);
    // A block with an init blockizes only when its reduction lies entirely inside: the new
    // block then computes whole results (its body holds the init), and is not a reduction.
    if (block->init.defined() && iv.kind == IterKind::kReduce && !IsZero(op)) {
      return ErrorAt(kPrim, what, "the block has an init and reduces over loops outside: decompose_reduction first");
    }
    if (!UsesAnyVar(ip, inner_vars)) {
      // Entirely outside: an outer variable of the full domain.
      Var v = MakeVar(absl::StrCat(iv.var->name, "_o"), iv.var->dtype);
      outer_iters.push_back(IterVar{v, iv.dom, iv.kind});
      outer_values.push_back(inner->iter_values[i]);
      inner_values.push_back(v);
      continue;
    }
    if (ib.min != 0 || !ib.bounded()) {
      return ErrorAt(kPrim, what, absl::StrCat("the inner part of ", iv.var->name, "'s binding does not start at 0"));
    }
    int64_t c = ib.max + 1;
    if (AsConstInt(op) != nullptr && *AsConstInt(op) == 0) {
      inner_values.push_back(ip);  // entirely inside
      continue;
    }
    PrimExpr q = a.Simplify(FloorDiv(op, c));
    if (!a.CanProveEqual(q * c, op)) {
      return ErrorAt(kPrim, what,
                     absl::StrCat("the outer part of ", iv.var->name, "'s binding is not a multiple of ", c));
    }
    const int64_t* dom = AsConstInt(iv.dom.extent);
    // A domain that c does not divide (rows known when the kernel runs, or a static count such
    // as 197 under a split that did not divide it) takes ceil(n / c) outer iterations; the
    // inner block keeps the predicate that guards the last, partial one, and must have one.
    const int64_t* always = AsConstInt(inner->predicate);
    if (dom != nullptr && *dom % c != 0 && always != nullptr && *always != 0) {
      return ErrorAt(kPrim, what,
                     absl::StrCat("the domain of ", iv.var->name, " is not a multiple of ", c,
                                  " and no predicate guards the last tile"));
    }
    Var v = MakeVar(absl::StrCat(iv.var->name, "_o"), iv.var->dtype);
    PrimExpr outer_extent =
        dom != nullptr ? IntImm(iv.var->dtype, (*dom + c - 1) / c)
                       : (c == 1 ? iv.dom.extent
                                 : FloorDiv(iv.dom.extent + IntImm(iv.var->dtype, c - 1), IntImm(iv.var->dtype, c)));
    outer_iters.push_back(IterVar{v, Range{IntImm(iv.var->dtype, 0), outer_extent}, iv.kind});
    outer_values.push_back(q);
    inner_values.push_back(v * c + ip);
  }
  Stmt new_inner(new BlockRealizeNode(inner_values, inner->predicate, inner->block));
  Stmt nest = ReplaceNode(Stmt(l->path.back()), inner, new_inner);
  // The outer block's regions: the inner one's with the inner loops swept.
  const BlockRealizeNode* ni = new_inner.as<BlockRealizeNode>();
  Analyzer oa;
  for (const IterVar& iv : outer_iters) oa.Bind(iv.var, iv.dom);
  for (const ForNode* f : inner_loops) oa.Bind(f->loop_var, Range{f->min, f->extent});
  std::unordered_map<const Object*, Range> relaxed = LoopRanges(inner_loops);
  auto regions = [&](const std::vector<BufferRegion>& rs, bool write) -> absl::StatusOr<std::vector<BufferRegion>> {
    std::vector<BufferRegion> out;
    for (const BufferRegion& r : rs) {
      std::vector<IntRange> rr = AccessRange(ni, r.buffer, write, relaxed, oa);
      if (rr.empty() || !rr[0].min.defined())
        return absl::FailedPreconditionError(absl::StrCat("cannot bound the region of ", r.buffer->name));
      BufferRegion br{r.buffer, {}};
      for (const IntRange& d : rr) br.region.push_back(Range{d.min, oa.Simplify(d.max - d.min + 1)});
      out.push_back(br);
    }
    return out;
  };
  absl::StatusOr<std::vector<BufferRegion>> reads = regions(block->reads, false);
  if (!reads.ok()) return ErrorAt(kPrim, what, std::string(reads.status().message()));
  absl::StatusOr<std::vector<BufferRegion>> writes = regions(block->writes, true);
  if (!writes.ok()) return ErrorAt(kPrim, what, std::string(writes.status().message()));
  std::string name = UniqueBlockName(l->prim->body, absl::StrCat(block->name, "_o"));
  Block outer(new BlockNode(name, outer_iters, *reads, *writes, {}, Stmt(), nest));
  Stmt realize(new BlockRealizeNode(outer_values, IntImm(DataType::Bool(), 1), outer));
  SetBody(l->func, ReplaceNode(l->prim->body, l->loop, realize));
  BlockRV out = NewBlockRV(l->func, name);
  Record(kPrim, {TraceValue::Loop(loop_rv)}, {TraceValue::Block(out)});
  return out;
}

absl::Status Schedule::TensorizeBlock(const BlockRef& b, const std::string& intrin_name) {
  const char* kPrim = "tensorize";
  std::string what = absl::StrCat("block ", b.block->name);
  const TensorIntrin* intrin = FindTensorIntrin(intrin_name);
  if (intrin == nullptr) {
    return ErrorAt(kPrim, what,
                   absl::StrCat("no tensor intrinsic ", intrin_name,
                                " (registered: ", absl::StrJoin(TensorIntrinNames(), ", "), ")"));
  }
  // The block's body: a loop nest around one block.
  std::vector<const ForNode*> loops;
  Stmt s = b.block->body;
  while (const auto* f = s.as<ForNode>()) {
    loops.push_back(f);
    s = f->body;
  }
  const auto* inner = s.as<BlockRealizeNode>();
  if (inner == nullptr)
    return ErrorAt(kPrim, what, "its body is not a loop nest around one block (blockize the loop first)");
  TensorizeInput input{b.block, loops, inner, Analyzer()};
  for (const IterVar& iv : b.block->iter_vars) input.analyzer.Bind(iv.var, iv.dom);
  for (const ForNode* f : loops) input.analyzer.Bind(f->loop_var, Range{f->min, f->extent});
  absl::StatusOr<Stmt> body = intrin->apply(input);
  if (!body.ok()) return ErrorAt(kPrim, what, absl::StrCat(intrin_name, " does not apply: ", body.status().message()));
  const BlockNode* o = b.block;
  Block nb(new BlockNode(o->name, o->iter_vars, o->reads, o->writes, o->alloc_buffers, o->init, *body, o->annotations));
  SetBody(b.func, ReplaceNode(b.prim->body, o, nb));
  return absl::OkStatus();
}

absl::Status Schedule::Tensorize(const BlockRV& block_rv, const std::string& intrin) {
  absl::StatusOr<BlockRef> b = Resolve(block_rv, "tensorize");
  if (!b.ok()) return b.status();
  if (absl::Status s = TensorizeBlock(*b, intrin); !s.ok()) return s;
  Record("tensorize", {TraceValue::Block(block_rv), TraceValue::Str(intrin)});
  return absl::OkStatus();
}

absl::Status Schedule::Tensorize(const LoopRV& loop_rv, const std::string& intrin) {
  // blockize, then tensorize the new block; recorded as one instruction.
  Trace saved = trace_;
  IRModule saved_mod = mod_;
  absl::StatusOr<BlockRV> block = Blockize(loop_rv);
  if (!block.ok()) return absl::Status(block.status().code(), absl::StrCat("tensorize: ", block.status().message()));
  absl::StatusOr<BlockRef> b = Resolve(*block, "tensorize");
  absl::Status s = b.ok() ? TensorizeBlock(*b, intrin) : b.status();
  trace_ = saved;
  if (!s.ok()) {
    mod_ = saved_mod;
    return s;
  }
  Record("tensorize", {TraceValue::Loop(loop_rv), TraceValue::Str(intrin)});
  return absl::OkStatus();
}

}  // namespace tir
}  // namespace mlc
