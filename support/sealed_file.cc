/*! \file sealed_file.cc
 *  \brief Seal / Unseal: the artifact envelope, digested with OpenSSL's SHA-256.
 */
#include "support/sealed_file.h"

#include <openssl/evp.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <fstream>
#include <functional>
#include <thread>

#include "absl/strings/str_cat.h"

namespace mlc {
namespace {

constexpr char kSealMagic[8] = {'m', 'l', 'c', '-', 's', 'e', 'a', '2'};
// The envelope before chunked digests: named in the error, so an old file asks to be rebuilt.
constexpr char kOldSealMagic[8] = {'m', 'l', 'c', '-', 's', 'e', 'a', 'l'};
constexpr char kSignatureMagic[8] = {'m', 'l', 'c', '-', 's', 'i', 'g', '1'};
// The header's fields, after the 8-byte magic.
constexpr size_t kKindOffset = 8, kKindBytes = 24;
constexpr size_t kVersionOffset = kKindOffset + kKindBytes;
constexpr size_t kLengthOffset = kVersionOffset + 4;
constexpr size_t kDigestOffset = kLengthOffset + 8;
static_assert(kDigestOffset + 32 == kSealHeaderBytes, "the header layout and kSealHeaderBytes disagree");

void PutLittleEndian(uint64_t v, int bytes, std::string* out) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint64_t GetLittleEndian(absl::string_view s, size_t at, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= static_cast<uint64_t>(static_cast<unsigned char>(s[at + i])) << (8 * i);
  return v;
}

std::string Sha256Of(const std::vector<absl::string_view>& parts) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr);
  for (absl::string_view p : parts) EVP_DigestUpdate(ctx, p.data(), p.size());
  EVP_DigestFinal_ex(ctx, digest, &size);
  EVP_MD_CTX_free(ctx);
  return std::string(reinterpret_cast<const char*>(digest), size);
}

// The payload is digested in chunks of this size, in parallel, then the chunks' digests in
// order: SHA-256 runs at about 1.3 GB/s per core, and a 1 GB model was hashed six times between
// import and load (issue 37).
constexpr uint64_t kChunkBytes = uint64_t{8} << 20;

/*! \brief SHA-256 of the header (without the digest) and of the SHA-256 digests of the
 *  payload's kChunkBytes chunks in order; the payload given in pieces, one after the other. */
std::string Digest(absl::string_view header, const std::vector<absl::string_view>& payload) {
  uint64_t total = 0;
  for (absl::string_view p : payload) total += p.size();
  const uint64_t chunks = (total + kChunkBytes - 1) / kChunkBytes;
  std::vector<std::string> digests(chunks);
  auto digest_chunk = [&](uint64_t c) {
    const uint64_t begin = c * kChunkBytes, end = std::min(total, begin + kChunkBytes);
    std::vector<absl::string_view> parts;
    uint64_t at = 0;
    for (absl::string_view p : payload) {
      const uint64_t lo = std::max(begin, at), hi = std::min(end, at + p.size());
      if (lo < hi) parts.push_back(p.substr(lo - at, hi - lo));
      at += p.size();
    }
    digests[c] = Sha256Of(parts);
  };
  const uint64_t threads = std::min<uint64_t>(chunks, std::max(1u, std::thread::hardware_concurrency()));
  std::atomic<uint64_t> next{0};
  auto work = [&] {
    for (uint64_t c = next++; c < chunks; c = next++) digest_chunk(c);
  };
  std::vector<std::thread> pool;
  for (uint64_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  std::vector<absl::string_view> parts = {header};
  for (const std::string& d : digests) parts.push_back(d);
  return Sha256Of(parts);
}

}  // namespace

std::string Sha256(const std::string& bytes) { return Sha256Of({bytes}); }

SealParts SealAround(const std::string& kind, uint32_t format_version, const std::vector<absl::string_view>& payload,
                     const SigningKey* signer) {
  uint64_t payload_bytes = 0;
  for (absl::string_view piece : payload) payload_bytes += piece.size();
  SealParts out;
  out.header.assign(kSealMagic, sizeof(kSealMagic));
  std::string padded_kind = kind.substr(0, kKindBytes);
  padded_kind.resize(kKindBytes, '\0');
  out.header += padded_kind;
  PutLittleEndian(format_version, 4, &out.header);
  PutLittleEndian(payload_bytes, 8, &out.header);
  const std::string d = Digest(out.header, payload);
  out.header += d;
  if (signer != nullptr) {
    out.trailer.assign(kSignatureMagic, sizeof(kSignatureMagic));
    out.trailer += signer->public_key();
    out.trailer += signer->Sign(d);
  }
  return out;
}

void SealInPlace(const std::string& kind, uint32_t format_version, std::string* bytes, const SigningKey* signer) {
  SealParts parts = SealAround(kind, format_version, {absl::string_view(*bytes).substr(kSealHeaderBytes)}, signer);
  bytes->replace(0, kSealHeaderBytes, parts.header);
  *bytes += parts.trailer;
}

std::string Seal(const std::string& kind, uint32_t format_version, const std::string& payload,
                 const SigningKey* signer) {
  std::string out;
  out.reserve(kSealHeaderBytes + payload.size() + (signer != nullptr ? kSignatureTrailerBytes : 0));
  out.resize(kSealHeaderBytes);
  out += payload;
  SealInPlace(kind, format_version, &out, signer);
  return out;
}

namespace {

/*! \brief Where the payload is and whether a signature trailer follows, from the header and the
 *  file's size; an error names what does not fit. */
struct SealExtent {
  uint64_t length = 0;
  bool signed_file = false;
};

absl::StatusOr<SealExtent> ReadExtent(absl::string_view header, uint64_t file_bytes, const std::string& kind,
                                      const std::string& source,
                                      const std::function<bool(uint64_t)>& has_signature_at) {
  if (header.size() >= sizeof(kOldSealMagic) && std::memcmp(header.data(), kOldSealMagic, sizeof(kOldSealMagic)) == 0) {
    return absl::FailedPreconditionError(
        absl::StrCat(source, ": written by an older build (its envelope predates chunked ", "digests); rebuild it"));
  }
  if (header.size() < sizeof(kSealMagic) || std::memcmp(header.data(), kSealMagic, sizeof(kSealMagic)) != 0) {
    return absl::DataLossError(
        absl::StrCat(source, ": not a ", kind,
                     " file (no mlc-seal header: another kind of file, damaged at its start, or written "
                     "by a build older than the sealed formats)"));
  }
  if (file_bytes < kSealHeaderBytes) {
    return absl::DataLossError(absl::StrCat(source, ": truncated (", file_bytes, " bytes, shorter than the ",
                                            kSealHeaderBytes, "-byte header)"));
  }
  SealExtent e;
  e.length = GetLittleEndian(header, kLengthOffset, 8);
  uint64_t actual = file_bytes - kSealHeaderBytes;
  // A signature trailer follows the payload when the sizes say so and its marker is there.
  e.signed_file = actual == e.length + kSignatureTrailerBytes && has_signature_at(kSealHeaderBytes + e.length);
  if (e.signed_file) actual = e.length;
  if (e.length != actual) {
    return absl::DataLossError(absl::StrCat(source, ": ", actual < e.length ? "truncated" : "damaged",
                                            " (the header promises ", e.length, " bytes of contents, the file holds ",
                                            actual, ")"));
  }
  return e;
}

}  // namespace

absl::StatusOr<std::string> ReadSealDigest(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open"));
  std::string header(kSealHeaderBytes, '\0');
  in.read(header.data(), static_cast<std::streamsize>(header.size()));
  header.resize(static_cast<size_t>(in.gcount()));
  in.clear();
  in.seekg(0, std::ios::end);
  const uint64_t size = static_cast<uint64_t>(in.tellg());
  absl::StatusOr<SealExtent> extent = ReadExtent(header, size, "sealed", path, [&](uint64_t at) {
    char magic[sizeof(kSignatureMagic)];
    in.seekg(static_cast<std::streamoff>(at));
    return in.read(magic, sizeof(magic)) && std::memcmp(magic, kSignatureMagic, sizeof(magic)) == 0;
  });
  if (!extent.ok()) return extent.status();
  return header.substr(kDigestOffset, 32);
}

absl::StatusOr<std::string> CheckSeal(absl::string_view bytes) {
  absl::StatusOr<SealExtent> extent =
      ReadExtent(bytes.substr(0, kSealHeaderBytes), bytes.size(), "sealed", "<bytes>", [&](uint64_t at) {
        return bytes.compare(at, sizeof(kSignatureMagic), kSignatureMagic, sizeof(kSignatureMagic)) == 0;
      });
  if (!extent.ok()) return extent.status();
  const std::string digest = Digest(bytes.substr(0, kDigestOffset), {bytes.substr(kSealHeaderBytes, extent->length)});
  if (bytes.compare(kDigestOffset, digest.size(), digest) != 0) return absl::DataLossError("<bytes>: damaged");
  return digest;
}

absl::StatusOr<absl::string_view> Unseal(absl::string_view bytes, const std::string& kind, uint32_t format_version,
                                         const std::string& source, const std::vector<std::string>& trusted_keys) {
  absl::StatusOr<SealExtent> extent =
      ReadExtent(bytes.substr(0, kSealHeaderBytes), bytes.size(), kind, source, [&](uint64_t at) {
        return bytes.compare(at, sizeof(kSignatureMagic), kSignatureMagic, sizeof(kSignatureMagic)) == 0;
      });
  if (!extent.ok()) return extent.status();
  const uint64_t length = extent->length;
  const bool signed_file = extent->signed_file;
  const std::string digest = Digest(bytes.substr(0, kDigestOffset), {bytes.substr(kSealHeaderBytes, length)});
  if (bytes.compare(kDigestOffset, digest.size(), digest) != 0) {
    return absl::DataLossError(absl::StrCat(source, ": damaged (its SHA-256 digest does not match its contents: ",
                                            "flipped bytes on disk or in transfer, or an edit; rebuild it)"));
  }
  if (signed_file) {
    const size_t at = kSealHeaderBytes + length + sizeof(kSignatureMagic);
    const std::string key(bytes.substr(at, kPublicKeyBytes)),
        signature(bytes.substr(at + kPublicKeyBytes, kSignatureBytes));
    if (!VerifySignature(key, digest, signature)) {
      return absl::PermissionDeniedError(
          absl::StrCat(source, ": its signature does not verify (the file or its signature was altered)"));
    }
    if (!trusted_keys.empty() && std::find(trusted_keys.begin(), trusted_keys.end(), key) == trusted_keys.end()) {
      return absl::PermissionDeniedError(
          absl::StrCat(source, ": signed by key ", KeyFingerprint(key), ", which is not among the trusted keys"));
    }
  } else if (!trusted_keys.empty()) {
    return absl::PermissionDeniedError(
        absl::StrCat(source, ": not signed, and only files signed by a trusted key may be loaded"));
  }
  std::string found_kind(bytes.substr(kKindOffset, kKindBytes));
  found_kind.resize(std::strlen(found_kind.c_str()));
  if (found_kind != kind) {
    return absl::InvalidArgumentError(absl::StrCat(source, ": is a ", found_kind, " file, not a ", kind, " file"));
  }
  const uint32_t version = static_cast<uint32_t>(GetLittleEndian(bytes, kVersionOffset, 4));
  if (version != format_version) {
    return absl::FailedPreconditionError(absl::StrCat(source, ": made by ", kind, " format version ", version,
                                                      "; this build reads version ", format_version, " (rebuild it)"));
  }
  return bytes.substr(kSealHeaderBytes, length);
}

}  // namespace mlc
