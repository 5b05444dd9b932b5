/*! \file stage_cache.h
 *  \brief The pipeline's content-addressed cache of stage outputs.
 *
 *  A stage's output is stored under a key made of the stage's name, the digest of the stage
 *  binary, the digests of its input files and its options. An entry is a directory holding the
 *  output files and a manifest of their SHA-256 digests; entries are written in a temporary
 *  directory and renamed into place, and a lookup re-hashes the files, so a corrupt or truncated
 *  entry is detected, discarded and rebuilt, never used.
 */
#ifndef MLC_TOOLS_PIPELINE_STAGE_CACHE_H_
#define MLC_TOOLS_PIPELINE_STAGE_CACHE_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace mlc {
namespace pipeline {

/*! \brief SHA-256 of bytes / of a file, as hex; of a sealed file, the digest its header
 *         records ("seal:<hex>", read from the header alone). */
std::string DigestBytes(const std::string& bytes);
absl::StatusOr<std::string> DigestFile(const std::string& path);

class StageCache {
 public:
  explicit StageCache(std::string dir) : dir_(std::move(dir)) {}

  /*! \brief Copies the entry's files into `dest_dir` (named as stored) if a valid entry exists.
   *         Returns false on a miss; a corrupt entry counts as a miss and is removed. */
  bool Fetch(const std::string& key, const std::vector<std::string>& names, const std::string& dest_dir);
  /*! \brief Stores `files` (paths) under `key`, atomically. */
  absl::Status Store(const std::string& key, const std::vector<std::string>& files);

  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
};

}  // namespace pipeline
}  // namespace mlc

#endif  // MLC_TOOLS_PIPELINE_STAGE_CACHE_H_
