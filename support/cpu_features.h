/*! \file cpu_features.h
 *  \brief What the CPU this process runs on can execute, read with CPUID (and XGETBV for the OS
 *         side of AVX state). Shared by the compiler (resolving `-mcpu=native`) and the runtime
 *         (refusing an executable whose kernels need features this CPU lacks).
 *
 *  Feature names are LLVM's ("avx2", "fma", "avx512f", ...), so a target's feature list reads
 *  the same in the compiler, in LLVM and in an executable.
 */
#ifndef MLC_SUPPORT_CPU_FEATURES_H_
#define MLC_SUPPORT_CPU_FEATURES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace mlc {

/*! \brief Every feature name this file can detect, in a fixed order. */
const std::vector<std::string>& DetectableCpuFeatures();

/*! \brief Whether `feature` is detectable (see above). */
bool IsDetectableCpuFeature(absl::string_view feature);

/*! \brief Whether the host runs instructions of `feature` (false for names not detectable). */
bool HostHasCpuFeature(absl::string_view feature);

/*! \brief The detectable features the host has, in DetectableCpuFeatures() order. */
std::vector<std::string> HostCpuFeatures();

/*! \brief The detectable features an x86-64 micro-architecture level ("x86-64", "x86-64-v2",
 *  "x86-64-v3", "x86-64-v4") guarantees, or an error naming the known levels. */
absl::StatusOr<std::vector<std::string>> X86LevelFeatures(absl::string_view level);

/*! \brief The level the environment variable MLC_MAX_ISA caps host detection at ("" when
 *  unset). With MLC_MAX_ISA=x86-64-v3 an AVX-512 machine reports, compiles for and runs
 *  kernels as an AVX2 machine does; the tests and benchmarks use it to cover both kinds. */
std::string MaxIsaLevel();

/*! \brief LLVM's name for the host CPU where CPUID tells it (AMD Zen generations), otherwise
 *  the x86-64 micro-architecture level its features reach ("x86-64-v4", "x86-64-v3", ...);
 *  the capped level when MLC_MAX_ISA is set. */
std::string HostCpuName();

/*! \brief Whether the CPU has AMX-TILE and AMX-INT8 and the OS manages the tile state. Not a
 *  target feature: the compiler emits no AMX; only runtime library kernels use it, chosen on the
 *  CPU they run on. False under MLC_MAX_ISA (no x86-64 level includes AMX). */
bool HostHasAmxInt8();

/*! \brief HostHasAmxInt8(), and Linux granted this process the tile state (arch_prctl
 *  ARCH_REQ_XCOMP_PERM, asked for on the first call: from then on the process's signal frames
 *  carry the 8 KB state, so only a kernel about to use AMX asks). */
bool HostMayUseAmxInt8();

/*! \brief Data cache sizes of one core of the host, 0 where the OS does not say. */
struct HostCacheSizes {
  int64_t l1d_bytes = 0;
  int64_t l2_bytes = 0;
};
HostCacheSizes HostCaches();

}  // namespace mlc

#endif  // MLC_SUPPORT_CPU_FEATURES_H_
