// Fuzz target: the IRModule loader and the verifier. The sealed envelope refuses nearly every
// mutated file by its digest, so inputs without the seal are read as the bare message, to
// reach the message reader (references, node kinds, attributes) itself.
#include <cstdint>
#include <string>

#include "ir/graph/ir.pb.h"
#include "ir/graph/serialize.h"
#include "ir/graph/verifier.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<mlc::IRModule> mod = mlc::DeserializeModule(bytes, "fuzz.irpb");
  if (!mod.ok()) {
    mlc::proto::ModuleProto proto;
    if (!proto.ParseFromString(bytes)) return 0;
    mod = mlc::ModuleFromProto(proto);
  }
  if (mod.ok()) (void)mlc::VerifyModule(*mod);
  return 0;
}
