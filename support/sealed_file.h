/*! \file sealed_file.h
 *  \brief The envelope of every artifact the stages write (IRModules, executables, tuning
 *         databases): a kind, a format version and a SHA-256 digest around the payload, so a
 *         damaged or truncated file is refused on load with a message instead of being parsed
 *         into something else (an executable with flipped bytes used to load and print other
 *         numbers; a damaged kernel library crashed glibc's ELF loader).
 *
 *    std::string bytes = Seal("mlc.executable", 3, exe.SerializeAsString());
 *    absl::StatusOr<std::string> payload = Unseal(bytes, "mlc.executable", 3, "model.mlcx");
 *
 *  Layout (little-endian): "mlc-sea2" (8 bytes), the kind (24 bytes, NUL-padded), the format
 *  version (4), the payload's length (8), the digest (32), then the payload. The digest is the
 *  SHA-256 of everything before it and of the SHA-256 digests of the payload's 8 MiB chunks in
 *  order: the chunks are hashed on all cores. ("mlc-seal" files, whose digest was one SHA-256
 *  of the payload, are refused with a request to rebuild them.) The digest is checked before the kind and the version
 * are believed, so a flipped header byte reads as damage, and a file of another version (intact) names the version that
 * made it.
 *
 *  A signed file (support/signature.h) ends with a trailer: "mlc-sig1" (8 bytes), the signer's
 *  Ed25519 public key (32) and its signature of the digest (64). A present signature is always
 *  verified; with trusted keys given, a file must carry one by a key among them.
 */
#ifndef MLC_SUPPORT_SEALED_FILE_H_
#define MLC_SUPPORT_SEALED_FILE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "support/signature.h"

namespace mlc {

/*! \brief Bytes of the envelope before the payload. */
inline constexpr size_t kSealHeaderBytes = 8 + 24 + 4 + 8 + 32;

/*! \brief Bytes of a signature trailer. */
inline constexpr size_t kSignatureTrailerBytes = 8 + kPublicKeyBytes + kSignatureBytes;

/*! \brief `payload` in an envelope of the given kind (at most 24 characters) and version,
 *         signed by `signer` when given. */
std::string Seal(const std::string& kind, uint32_t format_version, const std::string& payload,
                 const SigningKey* signer = nullptr);

/*! \brief The envelope of a payload given in pieces (written one after the other): the header
 *         to put before them and the signature trailer (empty without `signer`) after. */
struct SealParts {
  std::string header, trailer;
};
SealParts SealAround(const std::string& kind, uint32_t format_version, const std::vector<absl::string_view>& payload,
                     const SigningKey* signer = nullptr);

/*! \brief The same without copying the payload: `bytes` holds kSealHeaderBytes (any values)
 *         followed by the payload; the header is written over them and a signature appended. */
void SealInPlace(const std::string& kind, uint32_t format_version, std::string* bytes,
                 const SigningKey* signer = nullptr);

/*! \brief The payload of a sealed file of this kind and version, a view into `bytes`; `source`
 *         (a path) names the
 *         file in errors: not sealed, truncated, damaged (digest mismatch), another kind, or
 *         another version ("made by format version 2; this build reads version 3"); with
 *         `trusted_keys` (raw public keys) not empty: unsigned, or signed by another key. */
absl::StatusOr<absl::string_view> Unseal(absl::string_view bytes, const std::string& kind, uint32_t format_version,
                                         const std::string& source, const std::vector<std::string>& trusted_keys = {});

/*! \brief The digest a sealed file records, read from its header alone (the file's size must
 *         match the header); an error when `path` is not a sealed file. The digest covers the
 *         whole file, so it stands for the contents (a cache key) without reading them. */
absl::StatusOr<std::string> ReadSealDigest(const std::string& path);

/*! \brief The digest of sealed `bytes` when it matches their contents (read in full), else an
 *         error: the check Unseal makes, for any kind and version. */
absl::StatusOr<std::string> CheckSeal(absl::string_view bytes);

/*! \brief SHA-256 of `bytes`, 32 raw bytes. */
std::string Sha256(const std::string& bytes);

}  // namespace mlc

#endif  // MLC_SUPPORT_SEALED_FILE_H_
