/*! \file fma_peak.cc
 *  \brief FMA peak: twelve independent accumulator chains per thread (more than the
 *         4-cycle latency times 2 FMA pipes of current x86 cores), no memory traffic.
 */
#include "support/fma_peak.h"

#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "support/cpu_features.h"

namespace mlc {
namespace {

constexpr int kChains = 12;
constexpr int64_t kIterations = 1 << 20;

// Each returns the number of float FMAs it ran; the sum keeps the compiler from dropping them.
__attribute__((target("avx2,fma"))) double FmaAvx2(float* sink) {
  __m256 acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = _mm256_set1_ps(static_cast<float>(c));
  const __m256 x = _mm256_set1_ps(0.999f), y = _mm256_set1_ps(1e-7f);
  for (int64_t i = 0; i < kIterations; ++i) {
#pragma GCC unroll 12  // the accumulators must live in registers
    for (int c = 0; c < kChains; ++c) acc[c] = _mm256_fmadd_ps(acc[c], x, y);
  }
  __m256 s = acc[0];
  for (int c = 1; c < kChains; ++c) s = _mm256_add_ps(s, acc[c]);
  _mm256_storeu_ps(sink, s);
  return static_cast<double>(kIterations) * kChains * 8;
}

__attribute__((target("avx512f"))) double FmaAvx512(float* sink) {
  __m512 acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = _mm512_set1_ps(static_cast<float>(c));
  const __m512 x = _mm512_set1_ps(0.999f), y = _mm512_set1_ps(1e-7f);
  for (int64_t i = 0; i < kIterations; ++i) {
#pragma GCC unroll 12  // the accumulators must live in registers
    for (int c = 0; c < kChains; ++c) acc[c] = _mm512_fmadd_ps(acc[c], x, y);
  }
  __m512 s = acc[0];
  for (int c = 1; c < kChains; ++c) s = _mm512_add_ps(s, acc[c]);
  _mm512_storeu_ps(sink, s);
  return static_cast<double>(kIterations) * kChains * 16;
}

}  // namespace

FmaPeak MeasureFmaPeak(int threads, double seconds) {
  bool avx512 = HostHasCpuFeature("avx512f");  // as detected, so MLC_MAX_ISA caps it
  auto kernel = avx512 ? FmaAvx512 : FmaAvx2;
  FmaPeak peak;
  peak.threads = threads;
  peak.isa = avx512 ? "avx512f" : "avx2+fma";
  // Best of several rounds; in a round all threads run at once, each timing its own chains.
  double best = 0;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  do {
    std::vector<double> rate(threads);
    std::vector<std::thread> pool;
    std::vector<float> sink(16 * threads);
    std::atomic<int> ready{0};
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        ready.fetch_add(1);
        while (ready.load() < threads) {
        }
        auto start = std::chrono::steady_clock::now();
        double fmas = kernel(&sink[16 * t]);
        double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        rate[t] = 2 * fmas / elapsed / 1e9;
      });
    }
    for (std::thread& th : pool) th.join();
    double total = 0;
    for (double r : rate) total += r;
    best = std::max(best, total);
  } while (std::chrono::steady_clock::now() < deadline);
  peak.gflops = best;
  return peak;
}

}  // namespace mlc
