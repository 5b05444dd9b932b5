/*! \file executable_format.h
 *  \brief The identity of the executable format (vm/executable.proto), which the runtime owns:
 *         codegen writes these values, the VM accepts only them.
 */
#ifndef MLC_VM_EXECUTABLE_FORMAT_H_
#define MLC_VM_EXECUTABLE_FORMAT_H_

#include <cstdint>
#include <string>

#include <vector>

#include "absl/status/statusor.h"
#include "support/signature.h"
#include "vm/executable.pb.h"

namespace mlc {
namespace vm {

inline constexpr char kExecutableMagic[] = "mlc.executable";
/*! \brief Bumped on any incompatible change. 2: builtins are an enum, not names. 3: sealed
 *  (support/sealed_file.h: kind, version and SHA-256 around the message). 4: symbolic shapes
 *  (shape variables of functions and kernels, DimExpr dimensions). 5: MATCH_CAST, the memory
 *  plan's arena (ALLOC_TENSOR's offset and bound). */
inline constexpr uint32_t kExecutableFormatVersion = 5;

/*! \brief The bytes of a *.mlcx file: the message in its sealed envelope, signed by `signer`
 *  when given. */
std::string SerializeExecutable(const proto::Executable& exe, const SigningKey* signer = nullptr);
/*! \brief The message of a *.mlcx file's bytes; `source` names it in errors (damaged,
 *  truncated, another format version, not an executable; with `trusted_keys`, unsigned or
 *  signed by another key). */
absl::StatusOr<proto::Executable> ParseExecutable(const std::string& bytes, const std::string& source,
                                                  const std::vector<std::string>& trusted_keys = {});

}  // namespace vm
}  // namespace mlc

#endif  // MLC_VM_EXECUTABLE_FORMAT_H_
