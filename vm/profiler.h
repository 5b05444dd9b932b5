/*! \file profiler.h
 *  \brief Where the time of a VM call goes: one event per call of the function (Invoke), per
 *         kernel and runtime-function call, and per chunk of a parallel loop on each thread;
 *         aggregated into a table, or written as a Chrome trace (Perfetto, chrome://tracing).
 *
 *    vm->EnableProfiling(true);             // attaches a Profiler to the VM and the thread pool
 *    for (...) vm->Invoke("main", args);
 *    ProfileTable t = vm->profiler()->Table(runs);
 *    std::cout << FormatProfileTable(t, peak_gflops);
 *    WriteFileAtomically("trace.json", vm->profiler()->ChromeTraceJson());
 *
 *  Off, profiling costs one pointer test per kernel call and per parallel launch. On, each
 *  event costs two clock reads and an append (tens of nanoseconds); the table's rows sum to the
 *  profiled calls' time, and the VM's own work (dispatch, argument checks, allocation) is the
 *  remainder, shown as its own row.
 */
#ifndef MLC_VM_PROFILER_H_
#define MLC_VM_PROFILER_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace mlc {
namespace vm {

class Profiler {
 public:
  enum class Kind : uint8_t { kInvoke, kKernel, kRuntimeFunction, kChunk };

  /*! \brief What an event is about: a function, a kernel or a runtime function. */
  struct Label {
    std::string name;
    Kind kind = Kind::kKernel;
    std::string source_ops;  // kernels: the graph operators it was made from
    int64_t flops = 0;       // per call, 0 when unknown (kernels; runtime functions: per event)
    int64_t bytes = 0;       // per call: the buffers it reads and writes (a lower bound on traffic)
  };

  struct Event {
    int32_t label = 0;
    Kind kind = Kind::kKernel;  // kChunk: a parallel loop's chunk of the call `label`
    int32_t thread = 0;         // 0 is the thread that called Invoke; workers are 1..n-1
    int64_t begin_ns = 0, end_ns = 0;
    // A runtime function's work in this call: one label serves calls of every shape.
    int64_t flops = 0, bytes = 0;
  };

  using Clock = std::chrono::steady_clock;

  explicit Profiler(int num_threads);

  /*! \brief The label with this name and kind, created on first use. */
  int32_t Intern(const Label& label);
  const std::vector<Label>& labels() const { return labels_; }

  int64_t Now() const { return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - origin_).count(); }
  /*! \brief On the calling thread (thread 0). */
  void Record(Kind kind, int32_t label, int64_t begin_ns, int64_t end_ns) {
    events_[0].events.push_back(Event{label, kind, 0, begin_ns, end_ns});
  }
  /*! \brief A runtime function's call with the operations and bytes of its arguments. */
  void RecordRuntimeCall(int32_t label, int64_t begin_ns, int64_t end_ns, int64_t flops, int64_t bytes) {
    events_[0].events.push_back(Event{label, Kind::kRuntimeFunction, 0, begin_ns, end_ns, flops, bytes});
  }
  /*! \brief The kernel or runtime function whose parallel chunks are recorded next (set
   *         before the call). */
  void SetCurrentCall(int32_t label) { current_call_.store(label, std::memory_order_relaxed); }
  /*! \brief From any thread of the pool, each writing only its own list. */
  void RecordChunk(int thread, int64_t begin_ns, int64_t end_ns);

  /*! \brief Every event, in time order per thread, threads in order. */
  std::vector<Event> Events() const;
  int num_threads() const { return static_cast<int>(events_.size()); }

  /*! \brief One row per kernel / runtime function, the slowest first, then the VM's own time. */
  struct Row {
    std::string name;
    std::string kind;  // "kernel", "runtime", "vm"
    std::string source_ops;
    int64_t calls = 0;   // over all profiled runs
    double seconds = 0;  // over all profiled runs
    int64_t flops = 0;   // per call (a runtime function's: the mean over its calls)
    int64_t bytes = 0;   // per call (likewise)
    // The chunks of its parallel loops, over all threads and runs (0: it launched none).
    double chunk_seconds = 0;
    // Per call, the busiest thread's chunk time minus the least busy one's, summed.
    double uneven_seconds = 0;
  };
  struct Table {
    int runs = 0;
    int threads = 1;
    double total_seconds = 0;  // of the profiled Invokes
    std::vector<Row> rows;
  };
  /*! \brief Aggregates the events of `runs` profiled calls. A call's chunks are those of its
   *         label that begin inside it, on any thread. */
  Table Aggregate(int runs) const;

  /*! \brief The events in Chrome's trace-event format: one track per thread, complete ("X")
   *         events with the kernel's operators, FLOPs and bytes as arguments. */
  std::string ChromeTraceJson() const;

 private:
  Clock::time_point origin_ = Clock::now();
  std::vector<Label> labels_;
  std::map<std::pair<std::string, Kind>, int32_t> label_index_;
  // Each thread appends to its own list, on its own cache line: with the lists' ends side by
  // side, every chunk a worker recorded pulled the line from the caller's core and back.
  struct alignas(64) ThreadEvents {
    std::vector<Event> events;
  };
  std::vector<ThreadEvents> events_;  // per thread
  std::atomic<int32_t> current_call_{-1};
};

/*! \brief The table as text: per row calls per run, total and mean time, share of the call,
 *         GFLOP/s and % of `peak_gflops` (when > 0 and the FLOPs are known), and GB/s. On
 *         more than one thread, per row with parallel loops also `idle` (the share of the
 *         threads' time in its calls spent outside its chunks: launches, serial parts, waiting
 *         for the slowest) and `uneven` (the busiest thread's chunk time minus the least busy
 *         one's, as a share of its time), and a line summing both over those rows. */
std::string FormatProfileTable(const Profiler::Table& table, double peak_gflops);

}  // namespace vm
}  // namespace mlc

#endif  // MLC_VM_PROFILER_H_
