/*! \file cross_core.cc
 *  \brief The probe: a ping-pong on one cache line for the latency, then rounds in which one
 *         thread writes a 1 MB buffer and the other reads a word of each of its lines.
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

#include "absl/strings/str_format.h"

namespace mlc {
namespace {

constexpr int kPingPongs = 20000;  // per latency round
constexpr int kLatencyRounds = 5;
constexpr int kReadRounds = 20;
constexpr size_t kReadBytes = 1 << 20;
constexpr size_t kLine = 64;

bool PinTo(int cpu) {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  CPU_SET(cpu, &mask);
  return pthread_setaffinity_np(pthread_self(), sizeof(mask), &mask) == 0;
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

}  // namespace

std::string CrossCoreLink::Describe() const {
  if (!measured) return "cross-core: not measured (fewer than two CPUs allowed)";
  return absl::StrFormat("cross-core (CPUs %d, %d): round trip %.0f ns, reads of the other core's writes %.0f GB/s",
                         cpus[0], cpus[1], round_trip_ns, read_gb_per_s);
}

CrossCoreLink MeasureCrossCoreLink() {
  CrossCoreLink link;
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) return link;
  for (int cpu = 0, found = 0; cpu < CPU_SETSIZE && found < 2; ++cpu) {
    if (CPU_ISSET(cpu, &allowed)) link.cpus[found++] = cpu;
  }
  if (link.cpus[1] < 0) return link;

  alignas(kLine) std::atomic<int64_t> ball{0};
  alignas(kLine) std::atomic<int> phase{0};  // read rounds: 2r = write round r, 2r+1 = written
  std::vector<uint8_t> buffer(kReadBytes + kLine);
  uint8_t* data = buffer.data() + (kLine - reinterpret_cast<uintptr_t>(buffer.data()) % kLine) % kLine;
  // Both threads pin themselves, then go on only if both could: two spinning threads on one
  // CPU would each wait a whole time slice for every exchange.
  std::atomic<int> ready{0};
  std::atomic<bool> pinned{true};
  auto pin_and_wait = [&](int cpu) {
    if (!PinTo(cpu)) pinned.store(false);
    ready.fetch_add(1);
    while (ready.load() < 2) {
    }
    return pinned.load();
  };

  // The answering thread: returns each odd value as the next even one, then writes the buffer
  // whenever asked.
  std::thread other([&] {
    if (!pin_and_wait(link.cpus[1])) return;
    for (int64_t i = 0; i < int64_t{kLatencyRounds} * kPingPongs; ++i) {
      while (ball.load(std::memory_order_acquire) != 2 * i + 1) {
      }
      ball.store(2 * i + 2, std::memory_order_release);
    }
    for (int r = 0; r < kReadRounds; ++r) {
      while (phase.load(std::memory_order_acquire) != 2 * r) {
      }
      std::memset(data, r + 1, kReadBytes);
      phase.store(2 * r + 1, std::memory_order_release);
    }
  });

  // Run the measuring side on a thread of its own too, so the caller's affinity is left alone.
  std::vector<double> trips;
  double best_read = 0;
  std::thread self([&] {
    if (!pin_and_wait(link.cpus[0])) return;
    int64_t i = 0;
    for (int round = 0; round < kLatencyRounds; ++round) {
      auto start = std::chrono::steady_clock::now();
      for (int k = 0; k < kPingPongs; ++k, ++i) {
        ball.store(2 * i + 1, std::memory_order_release);
        while (ball.load(std::memory_order_acquire) != 2 * i + 2) {
        }
      }
      trips.push_back(Seconds(start) / kPingPongs * 1e9);
    }
    volatile uint64_t sink = 0;
    for (int r = 0; r < kReadRounds; ++r) {
      phase.store(2 * r, std::memory_order_release);
      while (phase.load(std::memory_order_acquire) != 2 * r + 1) {
      }
      auto start = std::chrono::steady_clock::now();
      uint64_t sum = 0;
      for (size_t at = 0; at < kReadBytes; at += kLine) sum += data[at];
      double seconds = Seconds(start);
      sink = sink + sum;
      best_read = std::max(best_read, static_cast<double>(kReadBytes) / seconds / 1e9);
    }
  });
  self.join();
  other.join();
  if (!pinned.load()) return link;
  std::nth_element(trips.begin(), trips.begin() + trips.size() / 2, trips.end());
  link.round_trip_ns = trips[trips.size() / 2];
  link.read_gb_per_s = best_read;
  link.measured = true;
  return link;
}

}  // namespace mlc
