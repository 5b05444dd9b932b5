/*! \file temporary_database.cc */
#include "tools/tune/temporary_database.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>

#include "absl/strings/str_cat.h"

namespace mlc {
namespace tune {

absl::StatusOr<std::unique_ptr<TemporaryDatabase>> TemporaryDatabase::Save(const tir::TuningDatabase& db) {
  static std::atomic<int> counter{0};
  const char* dir = std::getenv("TMPDIR");
  std::string path =
      absl::StrCat(dir != nullptr && *dir ? dir : "/tmp", "/mlc_", getpid(), "_", counter++, ".tuning.pb");
  if (absl::Status s = db.Save(path); !s.ok()) return s;
  return std::unique_ptr<TemporaryDatabase>(new TemporaryDatabase(std::move(path)));
}

TemporaryDatabase::~TemporaryDatabase() {
  std::error_code ignored;
  std::filesystem::remove(path_, ignored);
}

}  // namespace tune
}  // namespace mlc
