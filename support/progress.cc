/*! \file progress.cc
 *  \brief Progress lines on stderr (support/progress.h).
 */
#include "support/progress.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "absl/strings/str_format.h"

namespace mlc {

Progress::Sink Progress::Stderr() {
  const char* env = std::getenv("MLC_PROGRESS");
  const bool forced = env != nullptr && std::strcmp(env, "1") == 0;
  const bool off = env != nullptr && std::strcmp(env, "0") == 0;
  const bool terminal = isatty(STDERR_FILENO) != 0;
  Sink sink;
  sink.seconds = [] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  };
  sink.in_place = terminal;
  if (off || (!terminal && !forced)) {
    sink.write = [](const std::string&) {};
  } else {
    sink.write = [](const std::string& text) {
      std::fputs(text.c_str(), stderr);
      std::fflush(stderr);
    };
  }
  return sink;
}

Progress::Progress(std::string what, int64_t total, Sink sink)
    : what_(std::move(what)), total_(total), sink_(std::move(sink)), start_(sink_.seconds()) {}

Progress::~Progress() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!shown_) return;
  // The last count, then the line ends: what follows starts on a line of its own. A log that
  // already holds the last count gets no second copy.
  if (sink_.in_place) {
    sink_.write("\r" + Line() + "\n");
  } else if (shown_done_ != done_) {
    sink_.write(Line() + "\n");
  }
}

std::string Progress::Line() const {
  std::string line = absl::StrFormat("%s %d/%d", what_, done_, total_);
  if (!detail_.empty()) line += " " + detail_;
  return line + absl::StrFormat(", %.1f s", sink_.seconds() - start_);
}

void Progress::Advance(int64_t n, const std::string& detail) {
  std::lock_guard<std::mutex> lock(mu_);
  done_ += n;
  if (!detail.empty()) detail_ = detail;
  const double now = sink_.seconds();
  if (now - start_ < kProgressDelay || (shown_ && now - last_shown_ < kProgressInterval)) return;
  last_shown_ = now;
  shown_done_ = done_;
  // In place, the line is padded so a shorter one covers a longer one before it.
  std::string line = Line();
  sink_.write(sink_.in_place ? absl::StrFormat("\r%-79s", line) : line + "\n");
  shown_ = true;
}

}  // namespace mlc
