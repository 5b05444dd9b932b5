// Fuzz target: the .npy reader, and the .npz reader on the same bytes (through a memory file).
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <string>

#include "support/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  (void)mlc::ParseNpy(bytes, "fuzz.npy");
  int fd = memfd_create("fuzz.npz", 0);
  if (fd < 0) return 0;
  if (write(fd, data, size) == static_cast<ssize_t>(size)) (void)mlc::ReadNpz("/proc/self/fd/" + std::to_string(fd));
  close(fd);
  return 0;
}
