// Fuzz target: the FX-graph importer.
#include <cstdint>
#include <string>

#include "frontend/torch/fx_importer.h"
#include "ir/graph/verifier.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  mlc::proto::FxGraph graph;
  if (!graph.ParseFromArray(data, static_cast<int>(size))) return 0;
  absl::StatusOr<mlc::IRModule> mod = mlc::fx::ImportFx(graph);
  if (mod.ok()) (void)mlc::VerifyModule(*mod);
  return 0;
}
