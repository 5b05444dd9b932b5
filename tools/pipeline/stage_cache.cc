/*! \file stage_cache.cc
 *  \brief Content-addressed stage cache.
 */
#include "tools/pipeline/stage_cache.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/SHA256.h"
#include "support/file_util.h"

namespace mlc {
namespace pipeline {

namespace fs = std::filesystem;

std::string DigestBytes(const std::string& bytes) {
  std::array<uint8_t, 32> digest = llvm::SHA256::hash(
      llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
  return absl::BytesToHexString(std::string(digest.begin(), digest.end()));
}

absl::StatusOr<std::string> DigestFile(const std::string& path) {
  absl::StatusOr<std::string> bytes = ReadFile(path);
  if (!bytes.ok()) return bytes.status();
  return DigestBytes(*bytes);
}

bool StageCache::Fetch(const std::string& key, const std::vector<std::string>& names, const std::string& dest_dir) {
  fs::path entry = fs::path(dir_) / key;
  std::error_code ec;
  if (!fs::is_directory(entry, ec)) return false;
  absl::StatusOr<std::string> manifest = ReadFile((entry / "MANIFEST").string());
  bool valid = manifest.ok();
  std::map<std::string, std::string> digests;
  if (valid) {
    for (absl::string_view line : absl::StrSplit(*manifest, '\n', absl::SkipEmpty())) {
      std::vector<std::string> parts = absl::StrSplit(line, ' ');
      if (parts.size() == 2) digests[parts[1]] = parts[0];
    }
  }
  for (const std::string& name : names) {
    if (!valid) break;
    absl::StatusOr<std::string> d = DigestFile((entry / name).string());
    valid = d.ok() && digests.count(name) && digests[name] == *d;
  }
  if (!valid) {
    fs::remove_all(entry, ec);  // corrupt or partial: rebuild
    return false;
  }
  for (const std::string& name : names) {
    absl::StatusOr<std::string> bytes = ReadFile((entry / name).string());
    if (!bytes.ok() || !WriteFileAtomically((fs::path(dest_dir) / name).string(), *bytes).ok()) return false;
  }
  return true;
}

absl::Status StageCache::Store(const std::string& key, const std::vector<std::string>& files) {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  std::string tmpl = (fs::path(dir_) / absl::StrCat(".tmp.", key.substr(0, 16), ".XXXXXX")).string();
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (mkdtemp(buf.data()) == nullptr) return absl::PermissionDeniedError(absl::StrCat("cannot write the cache in ", dir_));
  fs::path tmp(buf.data());
  std::string manifest;
  for (const std::string& f : files) {
    absl::StatusOr<std::string> bytes = ReadFile(f);
    if (!bytes.ok()) {
      fs::remove_all(tmp, ec);
      return bytes.status();
    }
    std::string name = fs::path(f).filename().string();
    if (absl::Status s = WriteFileAtomically((tmp / name).string(), *bytes); !s.ok()) {
      fs::remove_all(tmp, ec);
      return s;
    }
    absl::StrAppend(&manifest, DigestBytes(*bytes), " ", name, "\n");
  }
  if (absl::Status s = WriteFileAtomically((tmp / "MANIFEST").string(), manifest); !s.ok()) {
    fs::remove_all(tmp, ec);
    return s;
  }
  fs::path entry = fs::path(dir_) / key;
  fs::remove_all(entry, ec);
  fs::rename(tmp, entry, ec);
  if (ec) fs::remove_all(tmp, ec);  // another run stored it first
  return absl::OkStatus();
}

}  // namespace pipeline
}  // namespace mlc
