/*! \file cross_core.cc
 *  \brief The probe: a ping-pong on one cache line for the latency, then rounds in which one
 *         thread writes a 1 MB buffer and the other reads a word of each of its lines, then
 *         rounds in which the other reads a word of each line and this one writes them all. Every
 *         wait has a deadline: when the other CPU is busy with another process, each exchange
 *         would wait for a time slice, and a test or a benchmark must not hang on it.
 */
#include "support/cross_core.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace mlc {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kPingPongs = 2000;  // per latency round
constexpr int kLatencyRounds = 5;
constexpr int kReadRounds = 10;
constexpr size_t kReadBytes = 1 << 20;
constexpr size_t kLine = 64;
// The whole probe takes a few milliseconds when both CPUs are free; past this it gives up.
constexpr std::chrono::milliseconds kBudget(300);

bool PinTo(int cpu) {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  CPU_SET(cpu, &mask);
  return pthread_setaffinity_np(pthread_self(), sizeof(mask), &mask) == 0;
}

double Seconds(Clock::time_point since) { return std::chrono::duration<double>(Clock::now() - since).count(); }

/*! \brief Reads a byte of each line of the buffer (a sum, so the reads are not dropped). */
uint64_t ReadEachLine(const uint8_t* data) {
  uint64_t sum = 0;
  for (size_t at = 0; at < kReadBytes; at += kLine) sum += data[at];
  return sum;
}

/*! \brief Shared by the two threads: gives up for both once either passes the deadline. */
class Deadline {
 public:
  explicit Deadline(Clock::time_point at) : at_(at) {}
  /*! \brief Spins until `done()`; false once the deadline passed (on this thread or the other). */
  template <typename Done>
  bool SpinUntil(Done done) {
    for (uint32_t i = 0; !done(); ++i) {
      if (i % 1024 == 0 && (expired_.load(std::memory_order_relaxed) || Clock::now() > at_)) {
        expired_.store(true, std::memory_order_relaxed);
        return false;
      }
    }
    return true;
  }
  bool expired() const { return expired_.load(std::memory_order_relaxed); }

 private:
  Clock::time_point at_;
  std::atomic<bool> expired_{false};
};

}  // namespace

std::string CrossCoreLink::Describe() const {
  if (!measured) return absl::StrCat("cross-core: not measured (", why_not, ")");
  return absl::StrFormat(
      "cross-core (CPUs %d, %d): round trip %.0f ns, reads of the other core's writes %.0f GB/s, writes over its "
      "reads %.0f GB/s",
      cpus[0], cpus[1], round_trip_ns, read_gb_per_s, write_over_reads_gb_per_s);
}

CrossCoreLink MeasureCrossCoreLink() {
  CrossCoreLink link;
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) CPU_ZERO(&allowed);
  for (int cpu = 0, found = 0; cpu < CPU_SETSIZE && found < 2; ++cpu) {
    if (CPU_ISSET(cpu, &allowed)) link.cpus[found++] = cpu;
  }
  if (link.cpus[1] < 0) {
    link.why_not = "fewer than two CPUs allowed";
    return link;
  }

  alignas(kLine) std::atomic<int64_t> ball{0};
  alignas(kLine) std::atomic<int> phase{0};  // read rounds: 2r = write round r, 2r+1 = written
  // write rounds: 2r = read round r, 2r+1 = read (the other thread's reads of this one's lines)
  alignas(kLine) std::atomic<int> shared_phase{-1};
  std::vector<uint8_t> buffer(kReadBytes + kLine);
  uint8_t* data = buffer.data() + (kLine - reinterpret_cast<uintptr_t>(buffer.data()) % kLine) % kLine;
  Deadline deadline(Clock::now() + kBudget);

  // Both threads pin themselves, then go on only if both could: two spinning threads on one
  // CPU would each wait a whole time slice for every exchange.
  std::atomic<int> ready{0};
  std::atomic<bool> pinned{true};
  auto pin_and_wait = [&](int cpu) {
    if (!PinTo(cpu)) pinned.store(false);
    ready.fetch_add(1);
    return deadline.SpinUntil([&] { return ready.load() == 2; }) && pinned.load();
  };

  // The answering thread: returns each odd value as the next even one, then writes the buffer
  // whenever asked.
  std::thread other([&] {
    if (!pin_and_wait(link.cpus[1])) return;
    for (int64_t i = 0; i < int64_t{kLatencyRounds} * kPingPongs; ++i) {
      if (!deadline.SpinUntil([&] { return ball.load(std::memory_order_acquire) == 2 * i + 1; })) return;
      ball.store(2 * i + 2, std::memory_order_release);
    }
    for (int r = 0; r < kReadRounds; ++r) {
      if (!deadline.SpinUntil([&] { return phase.load(std::memory_order_acquire) == 2 * r; })) return;
      std::memset(data, r + 1, kReadBytes);
      phase.store(2 * r + 1, std::memory_order_release);
    }
    volatile uint64_t sink = 0;
    for (int r = 0; r < kReadRounds; ++r) {
      if (!deadline.SpinUntil([&] { return shared_phase.load(std::memory_order_acquire) == 2 * r; })) return;
      sink = sink + ReadEachLine(data);
      shared_phase.store(2 * r + 1, std::memory_order_release);
    }
  });

  // The measuring side runs on a thread of its own too, so the caller's affinity is left alone.
  std::vector<double> trips;
  double best_read = 0, best_write = 0;
  std::thread self([&] {
    if (!pin_and_wait(link.cpus[0])) return;
    int64_t i = 0;
    for (int round = 0; round < kLatencyRounds; ++round) {
      Clock::time_point start = Clock::now();
      for (int k = 0; k < kPingPongs; ++k, ++i) {
        ball.store(2 * i + 1, std::memory_order_release);
        if (!deadline.SpinUntil([&] { return ball.load(std::memory_order_acquire) == 2 * i + 2; })) return;
      }
      trips.push_back(Seconds(start) / kPingPongs * 1e9);
    }
    volatile uint64_t sink = 0;
    for (int r = 0; r < kReadRounds; ++r) {
      phase.store(2 * r, std::memory_order_release);
      if (!deadline.SpinUntil([&] { return phase.load(std::memory_order_acquire) == 2 * r + 1; })) return;
      Clock::time_point start = Clock::now();
      const uint64_t sum = ReadEachLine(data);
      double seconds = Seconds(start);
      sink = sink + sum;
      best_read = std::max(best_read, static_cast<double>(kReadBytes) / seconds / 1e9);
    }
    for (int r = 0; r < kReadRounds; ++r) {
      std::memset(data, r + 101, kReadBytes);  // this core's lines, then the other reads them
      shared_phase.store(2 * r, std::memory_order_release);
      if (!deadline.SpinUntil([&] { return shared_phase.load(std::memory_order_acquire) == 2 * r + 1; })) return;
      // A word per line, as a kernel's stores (memset's string stores may skip reading the
      // lines for ownership, which a kernel's vector stores do not).
      Clock::time_point start = Clock::now();
      for (size_t at = 0; at < kReadBytes; at += kLine) *reinterpret_cast<volatile uint64_t*>(data + at) = r;
      double seconds = Seconds(start);
      sink = sink + data[r];
      best_write = std::max(best_write, static_cast<double>(kReadBytes) / seconds / 1e9);
    }
  });
  self.join();
  other.join();
  if (!pinned.load()) {
    link.why_not = absl::StrFormat("could not pin threads to CPUs %d and %d", link.cpus[0], link.cpus[1]);
    return link;
  }
  if (deadline.expired() || trips.size() < kLatencyRounds) {
    link.why_not = absl::StrFormat("CPUs %d and %d did not answer each other within %d ms: busy with other work",
                                   link.cpus[0], link.cpus[1], static_cast<int>(kBudget.count()));
    return link;
  }
  std::nth_element(trips.begin(), trips.begin() + trips.size() / 2, trips.end());
  link.round_trip_ns = trips[trips.size() / 2];
  link.read_gb_per_s = best_read;
  link.write_over_reads_gb_per_s = best_write;
  link.measured = true;
  return link;
}

}  // namespace mlc
