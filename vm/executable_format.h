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
#include "absl/strings/string_view.h"
#include "support/signature.h"
#include "vm/executable.pb.h"

namespace mlc {
namespace vm {

inline constexpr char kExecutableMagic[] = "mlc.executable";
/*! \brief How deep a symbolic dimension (DimExpr) may nest. The sizes a detection model's chains
 *  of clamped slices of data-dependent counts leave (a concat of six levels of min(max(...)))
 *  reach past 64; deeper than this is a damaged file, not recursion to follow. */
inline constexpr int kMaxDimExprDepth = 1024;
/*! \brief Bumped on any incompatible change. 2: builtins are an enum, not names. 3: sealed
 *  (support/sealed_file.h: kind, version and SHA-256 around the message). 4: symbolic shapes
 *  (shape variables of functions and kernels, DimExpr dimensions). 5: MATCH_CAST, the memory
 *  plan's arena (ALLOC_TENSOR's offset and bound). 6: constants in a data section after the
 *  message. 7: multi-target executables (`variants`). */
inline constexpr uint32_t kExecutableFormatVersion = 7;

/*! \brief The bytes of a *.mlcx file, signed by `signer` when given: the message with its
 *  constants' bytes left out, then those bytes in a data section (support/data_section.h), at
 *  the offsets `constant_offsets` lists. A loader reads the small message and copies each
 *  constant once, from the file to where it lives. */
std::string SerializeExecutable(proto::Executable exe, const SigningKey* signer = nullptr);
/*! \brief The same written to `path` atomically, the constants straight from the message. */
absl::Status WriteExecutable(const std::string& path, proto::Executable exe, const SigningKey* signer = nullptr);

/*! \brief A *.mlcx file's message and its data section, a view into the file's bytes. */
struct ExecutableSections {
  proto::Executable exe;            // constants without their bytes
  absl::string_view constant_data;  // constant i at exe.constant_offsets(i)
};
/*! \brief The sections of a *.mlcx file's bytes; `source` names it in errors (damaged,
 *  truncated, another format version, not an executable, a constant outside the data section;
 *  with `trusted_keys`, unsigned or signed by another key). */
absl::StatusOr<ExecutableSections> ReadExecutable(absl::string_view bytes, const std::string& source,
                                                  const std::vector<std::string>& trusted_keys = {});
/*! \brief The message of a *.mlcx file's bytes with every constant's bytes in it. */
absl::StatusOr<proto::Executable> ParseExecutable(absl::string_view bytes, const std::string& source,
                                                  const std::vector<std::string>& trusted_keys = {});

/*! \brief The bytes constant `c` holds by its dtype and shape; -1 when they overflow. */
int64_t ConstantBytes(const proto::TensorProto& c);

/*! \brief Ok when `exe` (and each of its variants) lists one offset per constant and each
 *  constant lies inside `constant_data`; else an error naming the first that does not. */
absl::Status CheckConstantOffsets(const proto::Executable& exe, absl::string_view constant_data);

}  // namespace vm
}  // namespace mlc

#endif  // MLC_VM_EXECUTABLE_FORMAT_H_
