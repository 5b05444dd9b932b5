// The artifact envelope: every flipped byte and every truncation of a sealed file is refused
// with a message naming the file; another kind or version is named as such.
#include "support/sealed_file.h"

#include <random>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/file_util.h"

namespace mlc {
namespace {

using ::testing::HasSubstr;

std::string Payload() {
  std::mt19937 rng(3);
  std::string p(3000, '\0');
  for (char& c : p) c = static_cast<char>(rng());
  return p;
}

TEST(SealedFile, RoundTrips) {
  std::string sealed = Seal("mlc.test", 7, Payload());
  EXPECT_EQ(sealed.size(), kSealHeaderBytes + 3000);
  absl::StatusOr<absl::string_view> back = Unseal(sealed, "mlc.test", 7, "a.bin");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, Payload());
  EXPECT_TRUE(Unseal(Seal("mlc.test", 7, ""), "mlc.test", 7, "empty.bin").ok());
  // Sealing in place writes the same bytes as sealing a copy.
  std::string in_place = std::string(kSealHeaderBytes, 'x') + Payload();
  SealInPlace("mlc.test", 7, &in_place);
  EXPECT_EQ(in_place, sealed);
}

TEST(SealedFile, PayloadsOfManyChunksRoundTripAndAFlipInAnyChunkIsCaught) {
  // 20 MiB: three 8 MiB chunks, digested in parallel; given in pieces that cut across chunks.
  std::string payload(20 << 20, '\0');
  for (size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<char>((i * 2654435761u) >> 13);
  const std::string sealed = Seal("mlc.test", 7, payload);
  absl::StatusOr<absl::string_view> back = Unseal(sealed, "mlc.test", 7, "big.bin");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(*back == payload);
  const absl::string_view whole(payload);
  SealParts parts =
      SealAround("mlc.test", 7, {whole.substr(0, 3), whole.substr(3, (9 << 20) - 3), whole.substr(9 << 20)});
  EXPECT_EQ(parts.header, sealed.substr(0, kSealHeaderBytes)) << "the digest does not depend on how the payload is cut";
  for (size_t at : {size_t{5}, size_t{(8 << 20) + 1}, payload.size() - 1}) {
    std::string damaged = sealed;
    damaged[kSealHeaderBytes + at] ^= 0x01;
    EXPECT_FALSE(Unseal(damaged, "mlc.test", 7, "big.bin").ok()) << "byte " << at;
  }
}

TEST(SealedFile, AnEnvelopeOfTheOldDigestAsksToBeRebuilt) {
  std::string old = Seal("mlc.test", 7, Payload());
  old.replace(0, 8, "mlc-seal");
  EXPECT_THAT(std::string(Unseal(old, "mlc.test", 7, "old.bin").status().message()), HasSubstr("rebuild it"));
}

TEST(SealedFile, EveryFlippedByteIsRefused) {
  const std::string sealed = Seal("mlc.test", 7, Payload());
  for (size_t i = 0; i < sealed.size(); ++i) {
    for (int bit : {0, 7}) {
      std::string damaged = sealed;
      damaged[i] = static_cast<char>(damaged[i] ^ (1 << bit));
      absl::StatusOr<absl::string_view> r = Unseal(damaged, "mlc.test", 7, "flipped.bin");
      ASSERT_FALSE(r.ok()) << "byte " << i << " bit " << bit << " went unnoticed";
      EXPECT_THAT(std::string(r.status().message()), HasSubstr("flipped.bin")) << i;
    }
  }
  // In the payload the message says what happened.
  std::string damaged = sealed;
  damaged[kSealHeaderBytes + 1234] ^= 0x10;
  EXPECT_THAT(std::string(Unseal(damaged, "mlc.test", 7, "f.bin").status().message()), HasSubstr("damaged"));
}

TEST(SealedFile, EveryTruncationIsRefused) {
  const std::string sealed = Seal("mlc.test", 7, Payload());
  for (size_t len = 0; len < sealed.size(); ++len) {
    absl::StatusOr<absl::string_view> r = Unseal(sealed.substr(0, len), "mlc.test", 7, "cut.bin");
    ASSERT_FALSE(r.ok()) << len;
    EXPECT_THAT(std::string(r.status().message()), HasSubstr("cut.bin"));
  }
  EXPECT_THAT(std::string(Unseal(sealed.substr(0, sealed.size() - 10), "mlc.test", 7, "c.bin").status().message()),
              HasSubstr("truncated"));
  EXPECT_THAT(std::string(Unseal(sealed + "xx", "mlc.test", 7, "c.bin").status().message()), HasSubstr("damaged"));
}

TEST(SealedFile, OtherKindsVersionsAndUnsealedFilesAreNamed) {
  const std::string sealed = Seal("mlc.test", 7, Payload());
  EXPECT_EQ(Unseal(sealed, "mlc.other", 7, "k.bin").status().message(),
            "k.bin: is a mlc.test file, not a mlc.other file");
  EXPECT_EQ(Unseal(sealed, "mlc.test", 8, "v.bin").status().message(),
            "v.bin: made by mlc.test format version 7; this build reads version 8 (rebuild it)");
  EXPECT_THAT(std::string(Unseal(Payload(), "mlc.test", 7, "raw.bin").status().message()),
              HasSubstr("not a mlc.test file"));
}

TEST(SealedFile, SignedFilesLoadOnlyWithATrustedKey) {
  absl::StatusOr<SigningKey> builder = SigningKey::Generate(), stranger = SigningKey::Generate();
  ASSERT_TRUE(builder.ok() && stranger.ok());
  const std::string signed_file = Seal("mlc.test", 7, Payload(), &*builder);
  EXPECT_EQ(signed_file.size(), kSealHeaderBytes + 3000 + kSignatureTrailerBytes);
  const std::vector<std::string> trusted = {builder->public_key()};
  absl::StatusOr<absl::string_view> ok = Unseal(signed_file, "mlc.test", 7, "s.bin", trusted);
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(*ok, Payload());
  // Without trusted keys a signed file still loads (its signature is still checked).
  EXPECT_TRUE(Unseal(signed_file, "mlc.test", 7, "s.bin").ok());

  // Unsigned, or signed by a key the user does not trust.
  EXPECT_THAT(std::string(Unseal(Seal("mlc.test", 7, Payload()), "mlc.test", 7, "u.bin", trusted).status().message()),
              HasSubstr("u.bin: not signed"));
  absl::Status other = Unseal(Seal("mlc.test", 7, Payload(), &*stranger), "mlc.test", 7, "o.bin", trusted).status();
  EXPECT_THAT(std::string(other.message()), HasSubstr("not among the trusted keys"));
  EXPECT_THAT(std::string(other.message()), HasSubstr(KeyFingerprint(stranger->public_key())));

  // Tampering: a changed payload re-sealed with a fresh digest keeps the old signature, which
  // no longer verifies; every flipped byte of the trailer is refused too.
  std::string tampered = Seal("mlc.test", 7, Payload() + "x");
  tampered += signed_file.substr(signed_file.size() - kSignatureTrailerBytes);
  EXPECT_THAT(std::string(Unseal(tampered, "mlc.test", 7, "t.bin").status().message()),
              HasSubstr("signature does not verify"));
  for (size_t i = signed_file.size() - kSignatureTrailerBytes; i < signed_file.size(); ++i) {
    std::string damaged = signed_file;
    damaged[i] ^= 0x01;
    EXPECT_FALSE(Unseal(damaged, "mlc.test", 7, "d.bin", trusted).ok()) << i;
  }
}

TEST(SealedFile, KeysReadFromPemFiles) {
  absl::StatusOr<SigningKey> key = SigningKey::Generate();
  ASSERT_TRUE(key.ok());
  const std::string dir = ::testing::TempDir();
  ASSERT_TRUE(WriteFileAtomically(dir + "/k.pem", key->PrivatePem()).ok());
  ASSERT_TRUE(WriteFileAtomically(dir + "/k.pub", key->PublicPem()).ok());
  absl::StatusOr<SigningKey> loaded = SigningKey::FromPemFile(dir + "/k.pem");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->public_key(), key->public_key());
  absl::StatusOr<std::string> pub = ReadPublicKey(dir + "/k.pub");
  ASSERT_TRUE(pub.ok()) << pub.status();
  EXPECT_EQ(*pub, key->public_key());
  // A public key is no signing key; a text file is no key at all.
  EXPECT_THAT(std::string(SigningKey::FromPemFile(dir + "/k.pub").status().message()),
              HasSubstr("not an Ed25519 private key"));
  ASSERT_TRUE(WriteFileAtomically(dir + "/junk.pem", "hello").ok());
  EXPECT_THAT(std::string(ReadPublicKey(dir + "/junk.pem").status().message()),
              HasSubstr("junk.pem: not an Ed25519 key"));
}

TEST(SealedFile, Sha256MatchesTheStandardVector) {
  std::string d = Sha256("abc");
  static const char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned char c : d) hex += {kHex[c >> 4], kHex[c & 15]};
  EXPECT_EQ(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

}  // namespace
}  // namespace mlc
