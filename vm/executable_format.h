/*! \file executable_format.h
 *  \brief The identity of the executable format (vm/executable.proto), which the runtime owns:
 *         codegen writes these values, the VM accepts only them.
 */
#ifndef MLC_VM_EXECUTABLE_FORMAT_H_
#define MLC_VM_EXECUTABLE_FORMAT_H_

#include <cstdint>

namespace mlc {
namespace vm {

inline constexpr char kExecutableMagic[] = "mlc.executable";
/*! \brief Bumped on any incompatible change. 2: builtins are an enum, not names. */
inline constexpr uint32_t kExecutableFormatVersion = 2;

}  // namespace vm
}  // namespace mlc

#endif  // MLC_VM_EXECUTABLE_FORMAT_H_
