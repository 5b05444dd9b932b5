/*! \file int8_common.h
 *  \brief What the int8 kernels (mlc.int8.conv2d, mlc.int8.dense) share: the choice of the VNNI
 *         path and the epilogue that turns an int32 sum into the float result.
 */
#ifndef MLC_VM_LIBRARY_INT8_COMMON_H_
#define MLC_VM_LIBRARY_INT8_COMMON_H_

#include <cstdint>
#include <cstdlib>

#include "support/cpu_features.h"

namespace mlc {
namespace vm {

/*! \brief Whether to use AVX-512 VNNI: the CPU has it (as host detection reports it, so
 *  MLC_MAX_ISA caps it too) and MLC_DISABLE_VNNI (tests of the portable path) is not set. */
inline bool UseVnni() {
  static const bool cpu_has = HostHasCpuFeature("avx512vnni") && HostHasCpuFeature("avx512bw");
  return cpu_has && std::getenv("MLC_DISABLE_VNNI") == nullptr;
}

/*! \brief One output of the portable paths: act(scale * (acc - compensation) + bias). */
inline float FinishInt8(int32_t acc, int32_t comp, float scale, float bias, bool relu) {
  float v = static_cast<float>(acc - comp) * scale + bias;
  return relu && v < 0.0f ? 0.0f : v;
}

}  // namespace vm
}  // namespace mlc

#endif  // MLC_VM_LIBRARY_INT8_COMMON_H_
