/*! \file progress.h
 *  \brief A line of progress on stderr for work that takes long (compiling kernels, running the
 *         passes, tuning), so neither the command line nor `mlc.compile` sits silent for tens of
 *         seconds.
 *
 *    Progress progress("build: compiling kernels", kernels.size());
 *    ... progress.Advance();   // from any thread
 *
 *  Nothing is shown for work done within kProgressDelay (2 s); then one line, rewritten in place
 *  at most ten times a second ("build: compiling kernels 37/120, 4.1 s"), ended with a newline when
 *  the Progress goes. Shown when stderr is a terminal; MLC_PROGRESS=1 shows it anywhere (a log
 *  then holds each update on its own line), MLC_PROGRESS=0 never.
 */
#ifndef MLC_SUPPORT_PROGRESS_H_
#define MLC_SUPPORT_PROGRESS_H_

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>

namespace mlc {

inline constexpr double kProgressDelay = 2.0;     // seconds before the first line
inline constexpr double kProgressInterval = 0.1;  // seconds between updates

class Progress {
 public:
  /*! \brief Where the lines go and what time it is: stderr and a steady clock, or a test's. */
  struct Sink {
    std::function<void(const std::string&)> write;
    std::function<double()> seconds;  // since any fixed point
    bool in_place = true;             // rewrite one line ('\r'), else one line per update
  };
  /*! \brief stderr when it is a terminal or MLC_PROGRESS=1; a sink that writes nothing else. */
  static Sink Stderr();

  Progress(std::string what, int64_t total, Sink sink = Stderr());
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  /*! \brief `n` more units done (thread-safe); `detail` replaces the text after the count. */
  void Advance(int64_t n = 1, const std::string& detail = "");

 private:
  std::string Line() const;
  std::mutex mu_;
  std::string what_, detail_;
  int64_t total_, done_ = 0, shown_done_ = -1;
  Sink sink_;
  double start_, last_shown_ = -1;
  bool shown_ = false;
};

}  // namespace mlc

#endif  // MLC_SUPPORT_PROGRESS_H_
