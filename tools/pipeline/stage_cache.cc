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
#include "support/file_util.h"
#include "support/sealed_file.h"

namespace mlc {
namespace pipeline {

namespace fs = std::filesystem;

// OpenSSL's SHA-256 (1.3 GB/s here; LLVM's portable one ran at a fifth of that and made a cached
// pipeline run slower than an uncached one).
std::string DigestBytes(const std::string& bytes) { return absl::BytesToHexString(Sha256(bytes)); }

// A sealed file (the stages' outputs) is named by the digest its header records, without
// reading the rest: it covers every byte, and the stage that loads the file checks it.
absl::StatusOr<std::string> DigestFile(const std::string& path) {
  if (absl::StatusOr<std::string> sealed = ReadSealDigest(path); sealed.ok()) {
    return absl::StrCat("seal:", absl::BytesToHexString(*sealed));
  }
  absl::StatusOr<std::string> bytes = ReadFile(path);
  if (!bytes.ok()) return bytes.status();
  return DigestBytes(*bytes);
}

namespace {

// DigestFile's name for contents in memory, checked in full: a damaged cache entry is rebuilt.
std::string DigestContents(const std::string& bytes) {
  if (absl::StatusOr<std::string> sealed = CheckSeal(bytes); sealed.ok()) {
    return absl::StrCat("seal:", absl::BytesToHexString(*sealed));
  }
  return DigestBytes(bytes);
}

}  // namespace

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
  // Each file is read once: checked against the manifest, then written out.
  std::vector<std::string> contents;
  for (const std::string& name : names) {
    if (!valid) break;
    absl::StatusOr<std::string> bytes = ReadFile((entry / name).string());
    valid = bytes.ok() && digests.count(name) && digests[name] == DigestContents(*bytes);
    if (valid) contents.push_back(*std::move(bytes));
  }
  if (!valid) {
    fs::remove_all(entry, ec);  // corrupt or partial: rebuild
    return false;
  }
  for (size_t i = 0; i < names.size(); ++i) {
    if (!WriteFileAtomically((fs::path(dest_dir) / names[i]).string(), contents[i]).ok()) return false;
  }
  return true;
}

absl::Status StageCache::Store(const std::string& key, const std::vector<std::string>& files) {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  std::string tmpl = (fs::path(dir_) / absl::StrCat(".tmp.", key.substr(0, 16), ".XXXXXX")).string();
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (mkdtemp(buf.data()) == nullptr)
    return absl::PermissionDeniedError(absl::StrCat("cannot write the cache in ", dir_));
  fs::path tmp(buf.data());
  std::string manifest;
  for (const std::string& f : files) {
    absl::StatusOr<std::string> digest = DigestFile(f);
    if (!digest.ok()) {
      fs::remove_all(tmp, ec);
      return digest.status();
    }
    std::string name = fs::path(f).filename().string();
    // A hard link where the file system allows: the stages replace their outputs by renaming,
    // never write into them, so the cache's copy cannot change under it.
    fs::create_hard_link(f, tmp / name, ec);
    if (ec) {
      absl::StatusOr<std::string> bytes = ReadFile(f);
      absl::Status s = bytes.ok() ? WriteFileAtomically((tmp / name).string(), *bytes) : bytes.status();
      if (!s.ok()) {
        fs::remove_all(tmp, ec);
        return s;
      }
    }
    absl::StrAppend(&manifest, *digest, " ", name, "\n");
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
