/*! \file target.h
 *  \brief What the compiler generates code for: the backend and CPU, and what scheduling and
 *         codegen read off it (vector width, vector registers, cache sizes, CPU features).
 *
 *  Spelled as in TVM: `llvm -mcpu=znver4`, `llvm -mcpu=native -mattr=-avx512f`, or a CPU name
 *  alone (`x86-64-v3`, `native`), with `-l1d=48K -l2=2M` where the caches are not the named
 *  CPU's. `native` is resolved when parsed, so a recorded target names a concrete CPU and, where
 *  the host's caches differ from that CPU's (a CPU the table does not know, resolved to its x86
 *  level), carries the host's sizes. A module records its target in the module attribute "target" (set by the
 *  stages' --target flags); passes read it from there, codegen compiles for it and the
 *  executable lists its CPU features, which the VM checks before it loads any kernel.
 *
 *  The backend seam: everything CPU-specific that scheduling or codegen needs is a field here,
 *  so a second backend adds a kind and its fields rather than tests of the host.
 */
#ifndef MLC_IR_TARGET_TARGET_H_
#define MLC_IR_TARGET_TARGET_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ir/core/attrs.h"

namespace mlc {

struct Target {
  std::string kind = "llvm";
  /*! \brief LLVM's CPU name; never "native" (resolved on parsing). */
  std::string mcpu = "x86-64";
  /*! \brief Every CPU feature the generated code may use (the CPU's own and -mattr's), in
   *  DetectableCpuFeatures() order. */
  std::vector<std::string> features;
  /*! \brief -mattr as given (canonical order), kept so str() round-trips. */
  std::vector<std::string> mattr;
  int vector_bits = 128;      // widest vector register
  int vector_registers = 16;  // architectural vector registers
  int64_t l1d_bytes = 32 * 1024;
  int64_t l2_bytes = 512 * 1024;

  /*! \brief float32 lanes of one vector register. */
  int float_lanes() const { return vector_bits / 32; }
  /*! \brief Independent FMA chains (accumulators) that keep the FMA units busy: latency x
   *  pipes, 4 x 2 on every x86-64 core with FMA (Haswell on, Zen 1 to 5). A register tile with
   *  fewer waits on its own results. */
  int fma_chains() const { return 4 * fma_units(); }
  /*! \brief Vector FMAs issued per cycle: 2 on every x86-64 core with FMA (Zen 4 splits a
   *  512-bit one in two halves, which the 2x of its vector_bits already counts). */
  int fma_units() const { return 2; }
  /*! \brief Cycles a read from beyond L2 takes, about 100 ns at 4 GHz on the server cores
   *  measured here: how far ahead a software prefetch must run to hide it. */
  int memory_latency_cycles() const { return 400; }
  /*! \brief How many copies of a register tile's `chains` accumulators codegen keeps, taken in
   *  turn over its reduction, so that a tile of fewer than fma_chains() is not bound by the FMA
   *  latency: as many as the chains need, within the vector registers left beside the `beside`
   *  others (B's vectors, A's broadcasts). One fact for codegen (EmitRegisterTile) and for the
   *  tile cost model that must price what codegen emits. */
  int64_t AccumulatorCopies(int64_t chains, int64_t beside) const {
    if (chains <= 0 || chains >= fma_chains()) return 1;
    int64_t copies = (fma_chains() + chains - 1) / chains;
    while (copies > 1 && copies * chains + beside > vector_registers) --copies;
    return copies;
  }
  /*! \brief Bytes per cycle one core streams from beyond L2 (L3 or memory) along the strided
   *  rows a blocked convolution reads: about 8 (24-32 GB/s at 3-4 GHz) on every x86-64 server
   *  core measured here. The cost of reading data again that no cache level keeps. */
  double stream_bytes_per_cycle() const { return 8.0; }
  /*! \brief Bytes per cycle one core reads from its L2 into L1 when a working set spills L1:
   *  about 32 sustained on Zen 2 to 5 and Skylake-SP on (their peaks are 32 and 64). */
  double l2_bytes_per_cycle() const { return 32.0; }
  bool has(absl::string_view feature) const;
  /*! \brief Whether the target multiplies bytes in one instruction, 4 products summed per int32
   *  lane (vpdpbusd: AVX-512 VNNI on zmm, or AVX-VNNI on ymm), so int8 weights need no widening. */
  bool has_int8_dot_product() const { return (has("avx512vnni") && has("avx512bw")) || has("avxvnni"); }
  /*! \brief The canonical spelling, which Parse() reads back to an equal target. */
  std::string str() const;

  /*! \brief Parses a target string; errors name the unknown part and list what is known. */
  static absl::StatusOr<Target> Parse(absl::string_view text);
  /*! \brief The CPU this process runs on (`llvm -mcpu=native`). */
  static Target Host();
};

bool operator==(const Target& a, const Target& b);
inline bool operator!=(const Target& a, const Target& b) { return !(a == b); }

/*! \brief The module attribute that records a module's target. */
inline constexpr char kTargetAttr[] = "target";

/*! \brief The target recorded in a module's attributes; the host where none is recorded.
 *  A recorded target that does not parse is an error naming the attribute. */
absl::StatusOr<Target> TargetFromAttrs(const Attrs& module_attrs);

/*! \brief What a stage's --target does: records `target` in the module's attributes, or
 *  checks that the target already recorded is the same one (a module scheduled and packed for
 *  one CPU is not rebuilt for another behind the user's back). */
absl::Status RecordTarget(Attrs* module_attrs, const Target& target);
/*! \brief The same from a --target flag's text; empty text records nothing. */
absl::Status RecordTargetFlag(Attrs* module_attrs, absl::string_view flag);

/*! \brief The targets of a multi-target --target ("x86-64-v3,x86-64-v4"), each parsed, in the
 *  order given. A comma followed by '+' or '-' continues an -mattr list ("llvm -mcpu=znver4
 *  -mattr=-avx512f,-avx512bw,x86-64-v3" is two targets). Errors name the target that does not
 *  parse; a target named twice (after `native` is resolved) is an error too. */
absl::StatusOr<std::vector<Target>> ParseTargetList(absl::string_view text);

/*! \brief The CPU names Parse() knows, for messages and docs. */
std::vector<std::string> KnownCpuNames();

}  // namespace mlc

#endif  // MLC_IR_TARGET_TARGET_H_
