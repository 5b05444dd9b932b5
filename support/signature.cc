/*! \file signature.cc
 *  \brief Ed25519 through OpenSSL's EVP interface.
 */
#include "support/signature.h"

#include <openssl/evp.h>
#include <openssl/pem.h>

#include "absl/strings/str_cat.h"
#include "support/file_util.h"
#include "support/sealed_file.h"

namespace mlc {
namespace {

std::shared_ptr<void> Own(EVP_PKEY* key) {
  return std::shared_ptr<void>(key, [](void* p) { EVP_PKEY_free(static_cast<EVP_PKEY*>(p)); });
}

EVP_PKEY* Key(const std::shared_ptr<void>& p) { return static_cast<EVP_PKEY*>(p.get()); }

std::string RawPublicKey(EVP_PKEY* key) {
  size_t size = kPublicKeyBytes;
  std::string raw(kPublicKeyBytes, '\0');
  if (EVP_PKEY_get_raw_public_key(key, reinterpret_cast<unsigned char*>(raw.data()), &size) != 1 ||
      size != kPublicKeyBytes) {
    return "";
  }
  return raw;
}

std::string ToPem(EVP_PKEY* key, bool private_part) {
  BIO* bio = BIO_new(BIO_s_mem());
  if (private_part) {
    PEM_write_bio_PrivateKey(bio, key, nullptr, nullptr, 0, nullptr, nullptr);
  } else {
    PEM_write_bio_PUBKEY(bio, key);
  }
  char* data = nullptr;
  long size = BIO_get_mem_data(bio, &data);
  std::string out(data, static_cast<size_t>(size));
  BIO_free(bio);
  return out;
}

/*! \brief The key of a PEM text: a private key if it holds one, else a public key. */
EVP_PKEY* ParsePem(const std::string& pem, bool* is_private) {
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  EVP_PKEY* key = PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr);
  *is_private = key != nullptr;
  if (key == nullptr) {
    BIO_free(bio);
    bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
    key = PEM_read_bio_PUBKEY(bio, nullptr, nullptr, nullptr);
  }
  BIO_free(bio);
  return key;
}

}  // namespace

absl::StatusOr<SigningKey> SigningKey::FromPemFile(const std::string& path) {
  absl::StatusOr<std::string> pem = ReadFile(path);
  if (!pem.ok()) return pem.status();
  bool is_private = false;
  EVP_PKEY* key = ParsePem(*pem, &is_private);
  if (key == nullptr || !is_private || EVP_PKEY_id(key) != EVP_PKEY_ED25519) {
    if (key != nullptr) EVP_PKEY_free(key);
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": not an Ed25519 private key in PEM form (make one with: openssl genpkey -algorithm ed25519)"));
  }
  SigningKey k;
  k.pkey_ = Own(key);
  k.public_key_ = RawPublicKey(key);
  return k;
}

absl::StatusOr<SigningKey> SigningKey::Generate() {
  EVP_PKEY* key = nullptr;
  EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, nullptr);
  bool ok = ctx != nullptr && EVP_PKEY_keygen_init(ctx) == 1 && EVP_PKEY_keygen(ctx, &key) == 1;
  EVP_PKEY_CTX_free(ctx);
  if (!ok) return absl::InternalError("could not generate an Ed25519 key");
  SigningKey k;
  k.pkey_ = Own(key);
  k.public_key_ = RawPublicKey(key);
  return k;
}

std::string SigningKey::Sign(const std::string& message) const {
  std::string signature(kSignatureBytes, '\0');
  size_t size = kSignatureBytes;
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  bool ok = EVP_DigestSignInit(ctx, nullptr, nullptr, nullptr, Key(pkey_)) == 1 &&
            EVP_DigestSign(ctx, reinterpret_cast<unsigned char*>(signature.data()), &size,
                           reinterpret_cast<const unsigned char*>(message.data()), message.size()) == 1;
  EVP_MD_CTX_free(ctx);
  return ok && size == kSignatureBytes ? signature : std::string();
}

std::string SigningKey::PrivatePem() const { return ToPem(Key(pkey_), true); }
std::string SigningKey::PublicPem() const { return ToPem(Key(pkey_), false); }

absl::StatusOr<std::string> ReadPublicKey(const std::string& path) {
  absl::StatusOr<std::string> pem = ReadFile(path);
  if (!pem.ok()) return pem.status();
  bool is_private = false;
  EVP_PKEY* key = ParsePem(*pem, &is_private);
  std::string raw = key != nullptr && EVP_PKEY_id(key) == EVP_PKEY_ED25519 ? RawPublicKey(key) : "";
  if (key != nullptr) EVP_PKEY_free(key);
  if (raw.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": not an Ed25519 key in PEM form (a public key: openssl pkey -in key.pem -pubout)"));
  }
  return raw;
}

absl::StatusOr<std::vector<std::string>> ReadPublicKeys(const std::vector<std::string>& paths) {
  std::vector<std::string> keys;
  for (const std::string& p : paths) {
    absl::StatusOr<std::string> k = ReadPublicKey(p);
    if (!k.ok()) return k.status();
    keys.push_back(*k);
  }
  return keys;
}

bool VerifySignature(const std::string& public_key, const std::string& message, const std::string& signature) {
  if (public_key.size() != kPublicKeyBytes || signature.size() != kSignatureBytes) return false;
  EVP_PKEY* key = EVP_PKEY_new_raw_public_key(
      EVP_PKEY_ED25519, nullptr, reinterpret_cast<const unsigned char*>(public_key.data()), public_key.size());
  if (key == nullptr) return false;
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  bool ok = EVP_DigestVerifyInit(ctx, nullptr, nullptr, nullptr, key) == 1 &&
            EVP_DigestVerify(ctx, reinterpret_cast<const unsigned char*>(signature.data()), signature.size(),
                             reinterpret_cast<const unsigned char*>(message.data()), message.size()) == 1;
  EVP_MD_CTX_free(ctx);
  EVP_PKEY_free(key);
  return ok;
}

std::string KeyFingerprint(const std::string& public_key) {
  static const char kHex[] = "0123456789abcdef";
  std::string d = Sha256(public_key), out;
  for (size_t i = 0; i < 8 && i < d.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(d[i]);
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
  return out;
}

}  // namespace mlc
