/*! \file block_view.cc */
#include "ir/tir/schedule/rules/block_view.h"

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

std::optional<int64_t> LoopVolume(const std::vector<const ForNode*>& loops, size_t from) {
  int64_t volume = 1;
  for (size_t l = from; l < loops.size(); ++l) {
    const int64_t* e = AsConstInt(loops[l]->extent);
    if (e == nullptr) return std::nullopt;
    volume *= *e;
  }
  return volume;
}

}  // namespace tir
}  // namespace mlc
