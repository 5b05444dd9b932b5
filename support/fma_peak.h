/*! \file fma_peak.h
 *  \brief The machine's measured float32 FMA throughput, the yardstick of every benchmark.
 *
 *  The CPU model differs between machines (AVX2 only, AVX-512 split in two 256-bit halves, or
 *  full-width AVX-512), so absolute times are never compared across machines: a benchmark
 *  reports its kernels as a percentage of this peak, measured in the same run.
 */
#ifndef MLC_SUPPORT_FMA_PEAK_H_
#define MLC_SUPPORT_FMA_PEAK_H_

#include <string>

namespace mlc {

struct FmaPeak {
  double gflops = 0;  // all threads together
  int threads = 1;
  std::string isa;  // the widest vector FMA this CPU runs: "avx512f" or "avx2+fma"
};

/*! \brief Runs independent FMA chains (enough to cover latency x throughput) on `threads`
 *  threads at once for about `seconds`, with the widest vectors the CPU has. */
FmaPeak MeasureFmaPeak(int threads, double seconds = 0.2);

}  // namespace mlc

#endif  // MLC_SUPPORT_FMA_PEAK_H_
