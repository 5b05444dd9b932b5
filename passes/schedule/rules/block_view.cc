/*! \file block_view.cc */
#include "passes/schedule/rules/block_view.h"

namespace mlc {
namespace tir {

std::optional<BlockView> View(const Schedule& sch, const BlockRV& rv) {
  absl::StatusOr<std::string> name = sch.BlockName(rv), func = sch.FuncName(rv);
  if (!name.ok() || !func.ok()) return std::nullopt;
  PrimFunc prim = sch.mod().LookupPrimFunc(*func);
  if (!prim.defined()) return std::nullopt;
  std::optional<StmtPath> path = FindBlock(prim->body, *name);
  if (!path) return std::nullopt;
  return BlockView{prim, *path, path->back().as<BlockRealizeNode>(), LoopsAbove(*path)};
}

const TirVarNode* VarAtConstantOffset(const PrimExpr& index) {
  if (const auto* var = index.as<TirVarNode>()) return var;
  const auto* sum = index.as<AddNode>();
  return sum != nullptr && AsConstInt(sum->b) != nullptr ? sum->a.as<TirVarNode>() : nullptr;
}

std::optional<int64_t> LoopVolume(const std::vector<const ForNode*>& loops, size_t from) {
  int64_t volume = 1;
  for (size_t l = from; l < loops.size(); ++l) {
    const int64_t* e = AsConstInt(loops[l]->extent);
    if (e == nullptr) return std::nullopt;
    volume *= *e;
  }
  return volume;
}

absl::StatusOr<LoopRV> FuseParallel(Schedule* sch, const std::vector<LoopRV>& loops) {
  if (loops.empty()) return absl::FailedPreconditionError("no loop to parallelize");
  LoopRV par = loops.front();
  if (loops.size() > 1) {
    absl::StatusOr<LoopRV> fused = sch->Fuse(loops);
    if (!fused.ok()) return fused.status();
    par = *fused;
  }
  if (absl::Status s = sch->Parallel(par); !s.ok()) return s;
  return par;
}

bool PlaceEpilogueUnder(Schedule* sch, const BlockRV& block, const LoopRV& loop, size_t depth, int64_t iterations,
                        bool unrolled) {
  absl::StatusOr<std::vector<BlockRV>> consumers = sch->GetConsumers(block);
  if (!consumers.ok() || consumers->size() != 1) return false;
  Schedule trial = *sch;
  const BlockRV& epilogue = consumers->front();
  if (!trial.ReverseComputeAt(epilogue, loop).ok()) return false;
  std::optional<BlockView> e = View(trial, epilogue);
  std::optional<int64_t> under = e ? LoopVolume(e->loops, depth) : std::nullopt;
  absl::StatusOr<std::vector<LoopRV>> e_loops = trial.GetLoops(epilogue);
  if (under != iterations || !e_loops.ok() || e_loops->empty() || !trial.Vectorize(e_loops->back()).ok()) return false;
  for (size_t i = depth; unrolled && i + 1 < e_loops->size(); ++i) {
    if (!trial.Unroll((*e_loops)[i]).ok()) return false;
  }
  *sch = trial;
  return true;
}

}  // namespace tir
}  // namespace mlc
