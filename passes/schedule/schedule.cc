/*! \file schedule.cc
 *  \brief The schedule's handles, lookups and trace recording. The primitives are in the
 *         files named after their family (loop_transformation.cc, compute_location.cc, ...).
 */
#include "passes/schedule/schedule.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace mlc {
namespace tir {

Schedule::Schedule(IRModule mod, int64_t seed) : mod_(std::move(mod)), rng_(static_cast<uint64_t>(seed)) {}

absl::Status Schedule::ErrorAt(const char* primitive, const std::string& what, const std::string& why) const {
  return absl::FailedPreconditionError(absl::StrCat(primitive, ": ", what, ": ", why));
}

std::string Schedule::Name(const LoopRef& loop) const { return absl::StrCat("loop ", loop.loop->loop_var->name); }

absl::StatusOr<Schedule::BlockRef> Schedule::Resolve(const BlockRV& rv, const char* primitive) const {
  if (rv.id < 0 || rv.id >= static_cast<int>(symbols_.size()) || symbols_[rv.id].kind != Symbol::kBlock) {
    return absl::InvalidArgumentError(absl::StrCat(primitive, ": not a block handle"));
  }
  const Symbol& sym = symbols_[rv.id];
  PrimFunc prim = mod_.LookupPrimFunc(sym.func);
  if (!prim.defined()) return absl::NotFoundError(absl::StrCat(primitive, ": PrimFunc @", sym.func, " is gone"));
  std::optional<StmtPath> path = FindBlock(prim->body, sym.block);
  if (!path) {
    return absl::NotFoundError(absl::StrCat(primitive, ": block ", sym.block, " no longer exists in @", sym.func,
                                            " (inlined or renamed by an earlier primitive)"));
  }
  const auto* realize = path->back().as<BlockRealizeNode>();
  return BlockRef{sym.func, prim, *path, realize, realize->block.get()};
}

absl::StatusOr<Schedule::LoopRef> Schedule::Resolve(const LoopRV& rv, const char* primitive) const {
  if (rv.id < 0 || rv.id >= static_cast<int>(symbols_.size()) || symbols_[rv.id].kind != Symbol::kLoop) {
    return absl::InvalidArgumentError(absl::StrCat(primitive, ": not a loop handle"));
  }
  const Symbol& sym = symbols_[rv.id];
  PrimFunc prim = mod_.LookupPrimFunc(sym.func);
  if (!prim.defined()) return absl::NotFoundError(absl::StrCat(primitive, ": PrimFunc @", sym.func, " is gone"));
  std::optional<StmtPath> path = FindLoop(prim->body, sym.loop);
  if (!path) {
    return absl::NotFoundError(absl::StrCat(primitive, ": loop ", sym.loop->name,
                                            " no longer exists (split, fused or removed by an earlier primitive)"));
  }
  return LoopRef{sym.func, prim, *path, path->back().as<ForNode>()};
}

absl::StatusOr<int64_t> Schedule::ResolveInt(const IntOrRV& v, const char* primitive) const {
  if (const int64_t* i = std::get_if<int64_t>(&v)) return *i;
  return Get(std::get<ExprRV>(v));
}

absl::StatusOr<int64_t> Schedule::Get(const ExprRV& rv) const {
  if (rv.id < 0 || rv.id >= static_cast<int>(symbols_.size()) || symbols_[rv.id].kind != Symbol::kExpr) {
    return absl::InvalidArgumentError("not an integer handle");
  }
  return symbols_[rv.id].value;
}

absl::StatusOr<std::string> Schedule::BlockName(const BlockRV& block) const {
  if (block.id < 0 || block.id >= static_cast<int>(symbols_.size()) || symbols_[block.id].kind != Symbol::kBlock) {
    return absl::InvalidArgumentError("not a block handle");
  }
  return symbols_[block.id].block;
}

absl::StatusOr<std::string> Schedule::FuncName(const BlockRV& block) const {
  if (block.id < 0 || block.id >= static_cast<int>(symbols_.size()) || symbols_[block.id].kind != Symbol::kBlock) {
    return absl::InvalidArgumentError("not a block handle");
  }
  return symbols_[block.id].func;
}

void Schedule::SetBody(const std::string& func, const Stmt& body, const std::vector<Buffer>* params) {
  PrimFunc prim = mod_.LookupPrimFunc(func);
  mod_.Add(func, PrimFunc(new PrimFuncNode(params ? *params : prim->params, body, prim->attrs)));
}

BlockRV Schedule::NewBlockRV(const std::string& func, const std::string& name) {
  symbols_.push_back(Symbol{Symbol::kBlock, func, name, Var(), 0});
  return BlockRV{static_cast<int>(symbols_.size()) - 1};
}

LoopRV Schedule::NewLoopRV(const std::string& func, const Var& var) {
  symbols_.push_back(Symbol{Symbol::kLoop, func, "", var, 0});
  return LoopRV{static_cast<int>(symbols_.size()) - 1};
}

bool Schedule::IsRootLocation(const LoopRV& rv) const {
  return rv.id >= 0 && rv.id < static_cast<int>(symbols_.size()) && symbols_[rv.id].kind == Symbol::kLoop &&
         !symbols_[rv.id].loop.defined();
}

ExprRV Schedule::NewExprRV(int64_t value) {
  symbols_.push_back(Symbol{Symbol::kExpr, "", "", Var(), value});
  return ExprRV{static_cast<int>(symbols_.size()) - 1};
}

void Schedule::Record(const std::string& kind, std::vector<TraceValue> inputs, std::vector<TraceValue> outputs,
                      TraceValue decision) {
  trace_.Append(Instruction{kind, std::move(inputs), std::move(outputs), std::move(decision)});
}

// ---- Lookup.

absl::StatusOr<BlockRV> Schedule::GetBlock(const std::string& name, const std::string& func_name) {
  std::string func = func_name;
  if (func.empty()) {
    std::vector<std::string> prims;
    for (const auto& [n, f] : mod_.functions()) {
      if (f->kind() == NodeKind::kPrimFunc) prims.push_back(n);
    }
    if (prims.size() != 1) {
      return absl::InvalidArgumentError(absl::StrCat("get_block: block ", name, ": the module has ", prims.size(),
                                                     " PrimFuncs (", absl::StrJoin(prims, ", "), "); say func_name="));
    }
    func = prims[0];
  }
  PrimFunc prim = mod_.LookupPrimFunc(func);
  if (!prim.defined()) return absl::NotFoundError(absl::StrCat("get_block: no PrimFunc @", func, " in the module"));
  if (!FindBlock(prim->body, name)) {
    std::vector<std::string> names;
    for (const BlockRealizeNode* r : AllBlocks(prim->body)) {
      if (r->block->name != "root") names.push_back(r->block->name);
    }
    return absl::NotFoundError(
        absl::StrCat("get_block: no block ", name, " in @", func, " (blocks: ", absl::StrJoin(names, ", "), ")"));
  }
  BlockRV rv = NewBlockRV(func, name);
  Record("get_block", {TraceValue::Str(name), TraceValue::Str(func)}, {TraceValue::Block(rv)});
  return rv;
}

absl::StatusOr<std::vector<LoopRV>> Schedule::GetLoops(const BlockRV& block) {
  absl::StatusOr<BlockRef> b = Resolve(block, "get_loops");
  if (!b.ok()) return b.status();
  std::vector<LoopRV> out;
  std::vector<TraceValue> outs;
  for (const ForNode* f : LoopsAbove(b->path)) {
    out.push_back(NewLoopRV(b->func, f->loop_var));
    outs.push_back(TraceValue::Loop(out.back()));
  }
  Record("get_loops", {TraceValue::Block(block)}, outs);
  return out;
}

absl::StatusOr<std::vector<BlockRV>> Schedule::GetChildBlocks(const BlockRV& block) {
  absl::StatusOr<BlockRef> b = Resolve(block, "get_child_blocks");
  if (!b.ok()) return b.status();
  std::vector<BlockRV> out;
  std::vector<TraceValue> outs;
  for (const BlockRealizeNode* r : ChildBlocks(b->path.back())) {
    out.push_back(NewBlockRV(b->func, r->block->name));
    outs.push_back(TraceValue::Block(out.back()));
  }
  Record("get_child_blocks", {TraceValue::Block(block)}, outs);
  return out;
}

absl::StatusOr<std::vector<BlockRV>> Schedule::GetChildBlocks(const LoopRV& loop) {
  absl::StatusOr<LoopRef> l = Resolve(loop, "get_child_blocks");
  if (!l.ok()) return l.status();
  std::vector<BlockRV> out;
  std::vector<TraceValue> outs;
  for (const BlockRealizeNode* r : ChildBlocks(l->path.back())) {
    out.push_back(NewBlockRV(l->func, r->block->name));
    outs.push_back(TraceValue::Block(out.back()));
  }
  Record("get_child_blocks", {TraceValue::Loop(loop)}, outs);
  return out;
}

namespace {

bool Touches(const std::vector<BufferRegion>& regions, const Buffer& buffer) {
  for (const BufferRegion& r : regions) {
    if (r.buffer.same_as(buffer)) return true;
  }
  return false;
}

/*! \brief Sibling blocks in the block's scope related through a buffer. */
std::vector<const BlockRealizeNode*> Related(const StmtPath& path, const BlockNode* block, bool producers) {
  const BlockRealizeNode* scope = ScopeOf(path);
  std::vector<const BlockRealizeNode*> out;
  if (scope == nullptr) return out;
  for (const BlockRealizeNode* r : ChildBlocks(Stmt(scope->block))) {
    if (r->block.get() == block) continue;
    const auto& mine = producers ? block->reads : block->writes;
    const auto& theirs = producers ? r->block->writes : r->block->reads;
    for (const BufferRegion& m : mine) {
      if (Touches(theirs, m.buffer)) {
        out.push_back(r);
        break;
      }
    }
  }
  return out;
}

}  // namespace

absl::StatusOr<std::vector<BlockRV>> Schedule::GetProducers(const BlockRV& block) {
  absl::StatusOr<BlockRef> b = Resolve(block, "get_producers");
  if (!b.ok()) return b.status();
  std::vector<BlockRV> out;
  std::vector<TraceValue> outs;
  for (const BlockRealizeNode* r : Related(b->path, b->block, /*producers=*/true)) {
    out.push_back(NewBlockRV(b->func, r->block->name));
    outs.push_back(TraceValue::Block(out.back()));
  }
  Record("get_producers", {TraceValue::Block(block)}, outs);
  return out;
}

absl::StatusOr<std::vector<BlockRV>> Schedule::GetConsumers(const BlockRV& block) {
  absl::StatusOr<BlockRef> b = Resolve(block, "get_consumers");
  if (!b.ok()) return b.status();
  std::vector<BlockRV> out;
  std::vector<TraceValue> outs;
  for (const BlockRealizeNode* r : Related(b->path, b->block, /*producers=*/false)) {
    out.push_back(NewBlockRV(b->func, r->block->name));
    outs.push_back(TraceValue::Block(out.back()));
  }
  Record("get_consumers", {TraceValue::Block(block)}, outs);
  return out;
}

}  // namespace tir
}  // namespace mlc
