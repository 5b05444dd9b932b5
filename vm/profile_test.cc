/*! \file profile_test.cc
 *  \brief The VM's profile of compiled models (the seeds' MLP and a small fused CNN, through
 *         the default pipeline): every kernel has its row with its operators and FLOPs, the
 *         rows never exceed the total, the Chrome trace parses and holds one complete event
 *         per call, parallel loops show chunks on the worker thread, the threads' idle and
 *         uneven time per kernel are counted from the chunks, and profiling off records
 *         nothing. Runs with MLC_NUM_THREADS=2 (see BUILD).
 */
#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>

#include <map>
#include <random>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "frontend/tvmscript.h"
#include "gtest/gtest.h"
#include "passes/bind_params.h"
#include "passes/pass.h"
#include "support/file_util.h"
#include "tools/testing/kernel_harness.h"
#include "vm/thread_pool.h"
#include "vm/virtual_machine.h"

namespace mlc {
namespace {

using testing_util::Random;
using testing_util::ToTensorData;
using vm::NDArray;
using vm::Profiler;
using vm::Value;

constexpr int kRuns = 5;

// A CNN whose default compilation fuses a convolution with its bias and ReLU, a depthwise
// convolution with its ReLU, pooling, and a classifier.
constexpr char kCnn[] = R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 3, 16, 16), "float32"), w1: R.Tensor((8, 3, 3, 3), "float32"), b1: R.Tensor((1, 8, 1, 1), "float32"),
             w2: R.Tensor((8, 1, 3, 3), "float32"), w3: R.Tensor((10, 128), "float32")) -> R.Tensor((1, 10), "float32"):
        with R.dataflow():
            lv = R.nn.conv2d(x, w1, strides=[1, 1], padding=[1, 1, 1, 1])
            lv1 = R.add(lv, b1)
            lv2 = R.nn.relu(lv1)
            lv3 = R.nn.conv2d(lv2, w2, strides=[1, 1], padding=[1, 1, 1, 1], groups=8)
            lv4 = R.nn.relu(lv3)
            lv5 = R.nn.max_pool2d(lv4, pool_size=[4, 4], strides=[4, 4])
            lv6 = R.reshape(lv5, shape=[1, 128])
            gv = R.nn.dense(lv6, w3)
            R.output(gv)
        return gv
)";

struct Model {
  std::unique_ptr<vm::VirtualMachine> vm;
  std::vector<Value> args;
};

Model Compile(const IRModule& mod, std::vector<Value> args, const std::string& passes = "default") {
  absl::StatusOr<std::vector<std::unique_ptr<passes::Pass>>> pipeline = passes::ParsePipeline(passes);
  EXPECT_TRUE(pipeline.ok()) << pipeline.status();
  absl::StatusOr<IRModule> lowered = passes::RunPipeline(mod, *pipeline);
  EXPECT_TRUE(lowered.ok()) << lowered.status();
  absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> vm = testing_util::Compile(*lowered);
  EXPECT_TRUE(vm.ok()) << vm.status();
  return {std::move(*vm), std::move(args)};
}

// The seeds' high-level MLP (nn.dense, add, relu; 784 -> 128 -> 10) with random weights.
Model SeedMlp() {
  absl::StatusOr<std::string> text = ReadFile("testdata/parse/inputs/graphopt_mlp.py");
  EXPECT_TRUE(text.ok());
  std::mt19937 rng(7);
  ParseOptions options;
  options.constants = std::vector<TensorData>{ToTensorData(Random({128, 784}, &rng)), ToTensorData(Random({128}, &rng)),
                                              ToTensorData(Random({10, 128}, &rng)), ToTensorData(Random({10}, &rng))};
  absl::StatusOr<IRModule> mod = ParseTVMScript(*text, "graphopt_mlp.py", options);
  EXPECT_TRUE(mod.ok()) << mod.status();
  return Compile(*mod, {Random({1, 784}, &rng)});
}

Model Cnn(const std::string& passes = "default") {
  absl::StatusOr<IRModule> mod = ParseTVMScript(kCnn, "cnn.py");
  EXPECT_TRUE(mod.ok()) << mod.status();
  std::mt19937 rng(8);
  absl::StatusOr<IRModule> bound = passes::BindParams(*mod, "main",
                                                      {{"w1", ToTensorData(Random({8, 3, 3, 3}, &rng))},
                                                       {"b1", ToTensorData(Random({1, 8, 1, 1}, &rng))},
                                                       {"w2", ToTensorData(Random({8, 1, 3, 3}, &rng))},
                                                       {"w3", ToTensorData(Random({10, 128}, &rng))}});
  EXPECT_TRUE(bound.ok()) << bound.status();
  return Compile(*bound, {Random({1, 3, 16, 16}, &rng)}, passes);
}

/*! \brief Kernel calls per run of main, from the bytecode. */
std::map<std::string, int64_t> KernelCallsPerRun(const vm::VirtualMachine& vm) {
  std::map<std::string, int64_t> calls;
  for (const proto::VMFunction& f : vm.executable().functions()) {
    for (const proto::Instruction& i : f.instructions()) {
      if (i.callee_kind() == proto::Instruction::KERNEL) ++calls[vm.executable().kernels(i.callee_index()).name()];
    }
  }
  return calls;
}

Profiler::Table ProfileRuns(Model& m) {
  m.vm->EnableProfiling(true);
  for (int i = 0; i < kRuns; ++i) {
    absl::StatusOr<Value> out = m.vm->Invoke("main", m.args);
    EXPECT_TRUE(out.ok()) << out.status();
  }
  m.vm->EnableProfiling(false);
  return m.vm->profiler()->Aggregate(kRuns);
}

void ExpectTableCoversEveryKernel(Model& m) {
  Profiler::Table table = ProfileRuns(m);
  std::map<std::string, int64_t> want = KernelCallsPerRun(*m.vm);
  ASSERT_FALSE(want.empty());
  double rows = 0;
  std::set<std::string> seen;
  for (const Profiler::Row& r : table.rows) {
    EXPECT_LE(r.seconds, table.total_seconds) << r.name;
    rows += r.seconds;
    if (r.kind != "kernel") continue;
    seen.insert(r.name);
    EXPECT_EQ(r.calls, kRuns * want[r.name]) << r.name;
    EXPECT_FALSE(r.source_ops.empty()) << r.name << " does not say which operators it came from";
    EXPECT_GT(r.bytes, 0) << r.name;
  }
  for (const auto& [name, calls] : want) EXPECT_TRUE(seen.count(name)) << name << " has no row";
  // The VM row is the remainder, so all rows together are the total (up to rounding).
  EXPECT_NEAR(rows, table.total_seconds, 1e-9 + 1e-6 * table.total_seconds);
  EXPECT_EQ(table.rows.back().kind, "vm");
  std::string text = vm::FormatProfileTable(table, 100.0);
  for (const auto& [name, calls] : want) EXPECT_NE(text.find(name.substr(0, 31)), std::string::npos) << text;
}

TEST(Profile, SeedMlpTableListsEveryKernelWithItsOperatorsAndFlops) {
  Model m = SeedMlp();
  ExpectTableCoversEveryKernel(m);
  // The first layer: 784 x 128 multiply-adds, the bias add and the ReLU's max per output.
  bool found = false;
  for (const Profiler::Row& r : m.vm->profiler()->Aggregate(kRuns).rows) {
    if (r.source_ops != "nn.dense, add, nn.relu") continue;
    found = true;
    EXPECT_EQ(r.flops, 2 * 784 * 128 + 2 * 128);
  }
  EXPECT_TRUE(found);
}

TEST(Profile, FusedCnnTableListsEveryKernel) {
  Model m = Cnn();
  ExpectTableCoversEveryKernel(m);
  bool conv = false;
  for (const Profiler::Row& r : m.vm->profiler()->Aggregate(kRuns).rows) {
    if (r.source_ops.find("nn.conv2d, add, nn.relu") == std::string::npos) continue;
    conv = true;
    // The FLOPs the kernel performs: a direct convolution (alter-op-layout's blocked layout)
    // of 16 x 16 pixels x 8 channels x 27 taps; then the bias and the ReLU.
    EXPECT_EQ(r.flops, 2 * 16 * 16 * 8 * 27 + 2 * 16 * 16 * 8) << r.source_ops;
  }
  EXPECT_TRUE(conv) << "no kernel fused the convolution with its bias and ReLU";
}

// One runtime function called on two shapes: its row counts each call's own operations and
// bytes (the mean per call), not the first call's for all, so GFLOP/s and GB/s are the calls'.
TEST(Profile, RuntimeFunctionRowsCountEachCallsOwnWork) {
  Profiler p(1);
  const int32_t fn = p.Intern({"mlc.int8.conv2d_nchwc", Profiler::Kind::kRuntimeFunction});
  constexpr int64_t kUs = 1000;
  p.RecordRuntimeCall(fn, 0, 100 * kUs, 1000000, 4000);
  p.RecordRuntimeCall(fn, 100 * kUs, 400 * kUs, 5000000, 16000);
  p.Record(Profiler::Kind::kInvoke, fn, 0, 400 * kUs);
  Profiler::Table table = p.Aggregate(1);
  ASSERT_EQ(table.rows.front().name, "mlc.int8.conv2d_nchwc");
  EXPECT_EQ(table.rows.front().calls, 2);
  EXPECT_EQ(table.rows.front().flops, 3000000);
  EXPECT_EQ(table.rows.front().bytes, 10000);
  // 6 M operations in 400 us: 15 GFLOP/s, 7.5% of a 200 GFLOP/s peak.
  const std::string text = vm::FormatProfileTable(table, 200);
  EXPECT_NE(text.find(" 15.0     8%"), std::string::npos) << text;
}

TEST(Profile, ChromeTraceHasOneCompleteEventPerCall) {
  Model m = Cnn();
  ProfileRuns(m);
  const Profiler& p = *m.vm->profiler();
  google::protobuf::Struct trace;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(p.ChromeTraceJson(), &trace).ok());
  const google::protobuf::ListValue& events = trace.fields().at("traceEvents").list_value();
  std::map<std::string, int64_t> kernel_events;
  int64_t calls = 0;
  for (const google::protobuf::Value& v : events.values()) {
    const auto& f = v.struct_value().fields();
    if (f.at("ph").string_value() != "X") continue;
    EXPECT_GE(f.at("dur").number_value(), 0);
    EXPECT_GE(f.at("ts").number_value(), 0);
    if (f.at("cat").string_value() == "kernel") ++kernel_events[f.at("name").string_value()];
    if (f.at("cat").string_value() == "call") ++calls;
  }
  EXPECT_EQ(calls, kRuns);
  for (const auto& [name, per_run] : KernelCallsPerRun(*m.vm)) EXPECT_EQ(kernel_events[name], kRuns * per_run) << name;
}

TEST(Profile, ParallelLoopsShowChunksOnTheWorkerInsideTheirKernel) {
  ASSERT_EQ(vm::ThreadPool::Global().num_threads(), 2) << "the test runs with MLC_NUM_THREADS=2";
  // The MLP's layers are GEMM micro-kernels over panels, which always run in parallel; loops of
  // little work run on the calling thread (codegen::kMinParallelIterations).
  Model m = SeedMlp();
  ProfileRuns(m);
  std::vector<Profiler::Event> events = m.vm->profiler()->Events();
  int worker_chunks = 0;
  for (const Profiler::Event& chunk : events) {
    if (chunk.kind != Profiler::Kind::kChunk || chunk.thread != 1) continue;
    ++worker_chunks;
    // The chunk ran while its kernel's call was open on the calling thread.
    bool inside = false;
    for (const Profiler::Event& k : events) {
      inside |= k.kind == Profiler::Kind::kKernel && k.label == chunk.label && k.begin_ns <= chunk.begin_ns &&
                chunk.end_ns <= k.end_ns;
    }
    EXPECT_TRUE(inside) << m.vm->profiler()->labels()[chunk.label].name;
  }
  EXPECT_GT(worker_chunks, 0) << "no parallel loop ran a chunk on the worker";
}

TEST(Profile, IdleAndUnevenCountTheThreadsTimeOutsideTheCallsChunks) {
  // Two threads. Call 1 of the kernel (0-100 us): the caller's chunk 10-50, the worker's 10-90.
  // Call 2 (200-300 us): the caller's 210-290, the worker's 205-295. A serial kernel between.
  Profiler p(2);
  const int32_t conv = p.Intern({"conv", Profiler::Kind::kKernel, "nn.conv2d", 0, 0});
  const int32_t pool = p.Intern({"pool", Profiler::Kind::kKernel, "nn.max_pool2d", 0, 0});
  constexpr int64_t kUs = 1000;
  p.SetCurrentCall(conv);
  p.RecordChunk(0, 10 * kUs, 50 * kUs);
  p.RecordChunk(1, 10 * kUs, 90 * kUs);
  p.Record(Profiler::Kind::kKernel, conv, 0, 100 * kUs);
  p.SetCurrentCall(pool);
  p.Record(Profiler::Kind::kKernel, pool, 120 * kUs, 180 * kUs);
  p.SetCurrentCall(conv);
  p.RecordChunk(1, 205 * kUs, 295 * kUs);
  p.RecordChunk(0, 210 * kUs, 290 * kUs);
  p.Record(Profiler::Kind::kKernel, conv, 200 * kUs, 300 * kUs);
  p.Record(Profiler::Kind::kInvoke, conv, 0, 300 * kUs);
  Profiler::Table table = p.Aggregate(1);
  EXPECT_EQ(table.threads, 2);
  std::map<std::string, Profiler::Row> rows;
  for (const Profiler::Row& r : table.rows) rows[r.name] = r;
  EXPECT_NEAR(rows["conv"].chunk_seconds, (40 + 80 + 90 + 80) * 1e-6, 1e-12);
  EXPECT_NEAR(rows["conv"].uneven_seconds, (40 + 10) * 1e-6, 1e-12);
  EXPECT_EQ(rows["pool"].chunk_seconds, 0);
  // idle: 1 - 290 / (2 x 200) = 27.5%; uneven: 50 / 200 = 25%; the serial kernel shows neither.
  const std::string text = vm::FormatProfileTable(table, 0);
  EXPECT_NE(text.find("idle uneven"), std::string::npos) << text;
  const std::string conv_line =
      text.substr(text.find("\nconv"), text.find('\n', text.find("\nconv") + 1) - text.find("\nconv"));
  EXPECT_NE(conv_line.find(" 28%    25%"), std::string::npos) << conv_line;
  const std::string pool_line =
      text.substr(text.find("\npool"), text.find('\n', text.find("\npool") + 1) - text.find("\npool"));
  EXPECT_NE(pool_line.find("  -      -  nn.max_pool2d"), std::string::npos) << pool_line;
  EXPECT_NE(text.find("threads idle inside the calls with parallel loops: 110.0 us/run (27.5% of their 2 threads' "
                      "time), of which the busiest thread's lead over the least busy 50.0 us/run"),
            std::string::npos)
      << text;
  // One thread: no such columns.
  table.threads = 1;
  EXPECT_EQ(vm::FormatProfileTable(table, 0).find("uneven"), std::string::npos);
}

TEST(Profile, RuntimeFunctionsHaveRowsAndTheirParallelLoopsTheirChunks) {
  ASSERT_EQ(vm::ThreadPool::Global().num_threads(), 2);
  Model m = Cnn("blas");  // the convolutions through mlc.blas.conv2d; depthwise on the VM's pool
  Profiler::Table table = ProfileRuns(m);
  bool row = false;
  for (const Profiler::Row& r : table.rows)
    row |= r.kind == "runtime" && r.name == "mlc.blas.conv2d" && r.calls == 2 * kRuns;
  EXPECT_TRUE(row);
  const Profiler& p = *m.vm->profiler();
  int blas_chunks = 0;
  for (const Profiler::Event& e : p.Events()) {
    if (e.kind == Profiler::Kind::kChunk) blas_chunks += p.labels()[e.label].name == "mlc.blas.conv2d";
  }
  EXPECT_GT(blas_chunks, 0) << "the depthwise loop's chunks are not attributed to mlc.blas.conv2d";
  google::protobuf::Struct trace;
  EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(p.ChromeTraceJson(), &trace).ok());
}

TEST(Profile, OffRecordsNothingAndMemoryIsReported) {
  Model m = SeedMlp();
  EXPECT_EQ(m.vm->profiler(), nullptr);
  ASSERT_TRUE(m.vm->Invoke("main", m.args).ok());
  EXPECT_EQ(m.vm->profiler(), nullptr);
  ProfileRuns(m);
  size_t recorded = m.vm->profiler()->Events().size();
  ASSERT_TRUE(m.vm->Invoke("main", m.args).ok());  // stopped: nothing more
  EXPECT_EQ(m.vm->profiler()->Events().size(), recorded);

  vm::VirtualMachine::MemoryStats mem = m.vm->Memory();
  // The hidden activation (1 x 128 floats) is the one intermediate.
  EXPECT_GE(mem.tensors_peak, 128 * 4);
  EXPECT_GE(mem.tensors_held, mem.tensors_peak);
  EXPECT_GE(mem.constants, 4 * (128 * 784 + 128 + 10 * 128 + 10));
}

}  // namespace
}  // namespace mlc
