/*! \file signature.h
 *  \brief Ed25519 keys and signatures (OpenSSL's libcrypto) for signed artifacts.
 *
 *  Loading an executable runs the native code inside it, so an executable from a shared cache
 *  should be signed by whoever built it and checked against the keys the user trusts:
 *
 *    openssl genpkey -algorithm ed25519 -out builder.pem          # the builder's private key
 *    openssl pkey -in builder.pem -pubout -out builder.pub        # what users trust
 *    build --in m.irpb --out m.mlcx --sign_key builder.pem
 *    run --exe m.mlcx --trusted_keys builder.pub ...
 *
 *  Keys are PEM files; a public key is kept as its 32 raw bytes.
 */
#ifndef MLC_SUPPORT_SIGNATURE_H_
#define MLC_SUPPORT_SIGNATURE_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace mlc {

inline constexpr size_t kPublicKeyBytes = 32;
inline constexpr size_t kSignatureBytes = 64;

class SigningKey {
 public:
  /*! \brief An Ed25519 private key from a PEM file (`openssl genpkey -algorithm ed25519`). */
  static absl::StatusOr<SigningKey> FromPemFile(const std::string& path);
  /*! \brief A new random key (tests, and users without the openssl tool). */
  static absl::StatusOr<SigningKey> Generate();

  std::string Sign(const std::string& message) const;
  /*! \brief The 32 raw bytes of the public key. */
  const std::string& public_key() const { return public_key_; }
  std::string PrivatePem() const;
  std::string PublicPem() const;

 private:
  std::shared_ptr<void> pkey_;  // EVP_PKEY
  std::string public_key_;
};

/*! \brief The raw public key of a PEM file holding an Ed25519 public key (or a private key,
 *         whose public half is taken). */
absl::StatusOr<std::string> ReadPublicKey(const std::string& path);
/*! \brief ReadPublicKey of each path. */
absl::StatusOr<std::vector<std::string>> ReadPublicKeys(const std::vector<std::string>& paths);

bool VerifySignature(const std::string& public_key, const std::string& message, const std::string& signature);

/*! \brief A short name of a public key for messages: the first 8 bytes of its SHA-256, hex. */
std::string KeyFingerprint(const std::string& public_key);

}  // namespace mlc

#endif  // MLC_SUPPORT_SIGNATURE_H_
