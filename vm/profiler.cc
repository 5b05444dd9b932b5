/*! \file profiler.cc
 *  \brief Profiler: events, their aggregation, and the Chrome trace.
 */
#include "vm/profiler.h"

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace mlc {
namespace vm {

Profiler::Profiler(int num_threads) : events_(std::max(1, num_threads)) {
  for (ThreadEvents& e : events_) e.events.reserve(1 << 12);
}

int32_t Profiler::Intern(const Label& label) {
  auto [it, added] = label_index_.emplace(std::make_pair(label.name, label.kind), static_cast<int32_t>(labels_.size()));
  if (added) labels_.push_back(label);
  return it->second;
}

void Profiler::RecordChunk(int thread, int64_t begin_ns, int64_t end_ns) {
  const int32_t label = current_call_.load(std::memory_order_relaxed);
  if (thread < 0 || thread >= num_threads() || label < 0) return;  // a launch outside any recorded call
  events_[thread].events.push_back(Event{label, Kind::kChunk, thread, begin_ns, end_ns});
}

std::vector<Profiler::Event> Profiler::Events() const {
  std::vector<Event> out;
  for (const ThreadEvents& per_thread : events_)
    out.insert(out.end(), per_thread.events.begin(), per_thread.events.end());
  return out;
}

Profiler::Table Profiler::Aggregate(int runs) const {
  Table table;
  table.runs = runs;
  table.threads = num_threads();
  std::map<int32_t, Row> rows;
  std::map<int32_t, std::pair<int64_t, int64_t>> work;  // operations and bytes over all calls
  double inside = 0;                                    // time in kernels and runtime functions
  // Each thread's chunks in the order it ran them; calls do not overlap, so one cursor per
  // thread walks them once as the calls go by in order.
  std::vector<std::vector<const Event*>> chunks(num_threads());
  for (int t = 0; t < num_threads(); ++t) {
    for (const Event& e : events_[t].events)
      if (e.kind == Kind::kChunk) chunks[t].push_back(&e);
  }
  std::vector<const Event*> calls;
  for (const Event& e : events_[0].events)
    if (e.kind == Kind::kKernel || e.kind == Kind::kRuntimeFunction) calls.push_back(&e);
  std::sort(calls.begin(), calls.end(), [](const Event* a, const Event* b) { return a->begin_ns < b->begin_ns; });
  std::vector<size_t> cursor(num_threads(), 0);
  for (const Event* call : calls) {
    double busiest = 0, least = 0, sum = 0;
    for (int t = 0; t < num_threads(); ++t) {
      double busy = 0;
      for (; cursor[t] < chunks[t].size() && chunks[t][cursor[t]]->begin_ns < call->end_ns; ++cursor[t]) {
        const Event& c = *chunks[t][cursor[t]];
        if (c.label == call->label && c.begin_ns >= call->begin_ns) busy += (c.end_ns - c.begin_ns) * 1e-9;
      }
      busiest = t == 0 ? busy : std::max(busiest, busy);
      least = t == 0 ? busy : std::min(least, busy);
      sum += busy;
    }
    Row& r = rows[call->label];
    r.chunk_seconds += sum;
    r.uneven_seconds += busiest - least;
  }
  for (const Event& e : events_[0].events) {
    double seconds = (e.end_ns - e.begin_ns) * 1e-9;
    if (e.kind == Kind::kInvoke) {
      table.total_seconds += seconds;
      continue;
    }
    if (e.kind == Kind::kChunk) continue;
    const Label& l = labels_[e.label];
    Row& r = rows[e.label];
    r.name = l.name;
    r.kind = e.kind == Kind::kKernel ? "kernel" : "runtime";
    r.source_ops = l.source_ops;
    const bool runtime = e.kind == Kind::kRuntimeFunction;
    work[e.label].first += runtime ? e.flops : l.flops;
    work[e.label].second += runtime ? e.bytes : l.bytes;
    ++r.calls;
    r.seconds += seconds;
    inside += seconds;
  }
  for (auto& [label, row] : rows) {
    if (row.calls > 0) {
      row.flops = work[label].first / row.calls;
      row.bytes = work[label].second / row.calls;
    }
    table.rows.push_back(row);
  }
  std::sort(table.rows.begin(), table.rows.end(), [](const Row& a, const Row& b) { return a.seconds > b.seconds; });
  Row vm;
  vm.name = "(VM: dispatch, checks, allocation)";
  vm.kind = "vm";
  vm.seconds = std::max(0.0, table.total_seconds - inside);
  table.rows.push_back(vm);
  return table;
}

std::string Profiler::ChromeTraceJson() const {
  namespace pb = google::protobuf;
  pb::Struct root;
  pb::ListValue* events = root.mutable_fields()->operator[]("traceEvents").mutable_list_value();
  auto set = [](pb::Struct* s, const std::string& key) { return &(*s->mutable_fields())[key]; };
  for (int t = 0; t < num_threads(); ++t) {
    pb::Struct* m = events->add_values()->mutable_struct_value();
    set(m, "name")->set_string_value("thread_name");
    set(m, "ph")->set_string_value("M");
    set(m, "pid")->set_number_value(1);
    set(m, "tid")->set_number_value(t);
    set(set(m, "args")->mutable_struct_value(), "name")
        ->set_string_value(t == 0 ? "caller" : absl::StrCat("worker ", t));
  }
  static const char* kCategory[] = {"call", "kernel", "runtime", "parallel chunk"};
  for (const Event& e : Events()) {
    const Label& l = labels_[e.label];
    pb::Struct* x = events->add_values()->mutable_struct_value();
    set(x, "name")->set_string_value(l.name);
    set(x, "cat")->set_string_value(kCategory[static_cast<int>(e.kind)]);
    set(x, "ph")->set_string_value("X");
    set(x, "pid")->set_number_value(1);
    set(x, "tid")->set_number_value(e.thread);
    set(x, "ts")->set_number_value(e.begin_ns * 1e-3);
    set(x, "dur")->set_number_value((e.end_ns - e.begin_ns) * 1e-3);
    if (e.kind == Kind::kKernel || e.kind == Kind::kRuntimeFunction) {
      pb::Struct* args = set(x, "args")->mutable_struct_value();
      if (!l.source_ops.empty()) set(args, "source_ops")->set_string_value(l.source_ops);
      const bool runtime = e.kind == Kind::kRuntimeFunction;  // its work is the call's own
      const int64_t flops = runtime ? e.flops : l.flops, bytes = runtime ? e.bytes : l.bytes;
      if (flops > 0) set(args, "flops")->set_number_value(static_cast<double>(flops));
      if (bytes > 0) set(args, "bytes")->set_number_value(static_cast<double>(bytes));
    }
  }
  set(&root, "displayTimeUnit")->set_string_value("ms");
  std::string json;
  (void)pb::util::MessageToJsonString(root, &json);
  return json;
}

std::string FormatProfileTable(const Profiler::Table& table, double peak_gflops) {
  const double runs = std::max(1, table.runs);
  const std::string total_label = "total (per call of the function)";
  size_t width = total_label.size();
  for (const Profiler::Row& r : table.rows) width = std::max(width, r.name.size());
  const int w = static_cast<int>(width);
  const bool threads = table.threads > 1;
  std::string out = absl::StrFormat("%-*s %6s %10s %10s %6s %8s %6s %7s", w, "kernel / runtime function", "calls",
                                    "us/run", "us/call", "share", "GFLOP/s", "%peak", "GB/s");
  if (threads) absl::StrAppendFormat(&out, " %6s %6s", "idle", "uneven");
  absl::StrAppend(&out, "  operators\n");
  double sum = 0;
  double parallel_thread_seconds = 0, chunk_seconds = 0, uneven_seconds = 0;  // rows with chunks
  for (const Profiler::Row& r : table.rows) {
    sum += r.seconds;
    if (r.chunk_seconds > 0) {
      parallel_thread_seconds += r.seconds * table.threads;
      chunk_seconds += r.chunk_seconds;
      uneven_seconds += r.uneven_seconds;
    }
    const double per_call = r.calls > 0 ? r.seconds / r.calls : 0;
    std::string calls = "-", mean = "-", gflops = "-", peak = "-", gbps = "-";
    if (r.calls > 0) {
      calls = absl::StrCat(r.calls / std::max(1, table.runs));
      mean = absl::StrFormat("%.1f", per_call * 1e6);
    }
    if (r.flops > 0 && per_call > 0) {
      const double g = r.flops / per_call * 1e-9;
      gflops = absl::StrFormat("%.1f", g);
      if (peak_gflops > 0) peak = absl::StrFormat("%.0f%%", 100 * g / peak_gflops);
    }
    if (r.bytes > 0 && per_call > 0) gbps = absl::StrFormat("%.1f", r.bytes / per_call * 1e-9);
    const double share = table.total_seconds > 0 ? 100 * r.seconds / table.total_seconds : 0.0;
    absl::StrAppendFormat(&out, "%-*s %6s %10.1f %10s %5.1f%% %8s %6s %7s", w, r.name, calls, r.seconds / runs * 1e6,
                          mean, share, gflops, peak, gbps);
    if (threads) {
      std::string idle = "-", uneven = "-";
      if (r.chunk_seconds > 0 && r.seconds > 0) {
        idle = absl::StrFormat("%.0f%%", 100 * std::max(0.0, 1 - r.chunk_seconds / (r.seconds * table.threads)));
        uneven = absl::StrFormat("%.0f%%", 100 * r.uneven_seconds / r.seconds);
      }
      absl::StrAppendFormat(&out, " %6s %6s", idle, uneven);
    }
    absl::StrAppendFormat(&out, "  %s\n", r.source_ops.empty() ? "-" : r.source_ops);
  }
  absl::StrAppendFormat(&out, "%-*s %6s %10.1f %10s %5.1f%%\n", w, total_label, "", table.total_seconds / runs * 1e6,
                        "", table.total_seconds > 0 ? 100 * sum / table.total_seconds : 0.0);
  if (threads && parallel_thread_seconds > 0) {
    const double idle = std::max(0.0, parallel_thread_seconds - chunk_seconds);
    absl::StrAppendFormat(&out,
                          "threads idle inside the calls with parallel loops: %.1f us/run (%.1f%% of their %d "
                          "threads' time), of which the busiest thread's lead over the least busy %.1f us/run\n",
                          idle / runs * 1e6, 100 * idle / parallel_thread_seconds, table.threads,
                          uneven_seconds / runs * 1e6);
  }
  return out;
}

}  // namespace vm
}  // namespace mlc
