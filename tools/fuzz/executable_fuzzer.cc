// Fuzz target: the executable loader (envelope, then the bytecode checks). Inputs without the
// seal are read as the bare message to reach the bytecode checks; their kernel library is
// dropped first: an arbitrary ELF image is glibc's loader's business (the digest and the
// signature keep damaged and foreign ones from reaching it), not this loader's.
#include <cstdint>
#include <string>

#include "vm/executable_format.h"
#include "vm/virtual_machine.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<mlc::proto::Executable> exe = mlc::vm::ParseExecutable(bytes, "fuzz.mlcx");
  if (!exe.ok()) {
    mlc::proto::Executable raw;
    if (!raw.ParseFromString(bytes)) return 0;
    exe = raw;
  }
  exe->clear_kernel_library();
  exe->clear_kernels();
  (void)mlc::vm::VirtualMachine::Load(*exe);
  return 0;
}
