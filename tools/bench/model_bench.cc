/*! \file model_bench.cc
 *  \brief Whole models compiled by us against ONNX Runtime on the same ONNX files, in one
 *         process, with the machine's FMA peak measured in the same run, and against PyTorch
 *         eager on the same seeded models (timed just before by torch_eager_times.py).
 *
 *    ./bazelw run //tools:bench_vs_ort -- [--threads 2] [--runs 20] [--models mlp_b1,resnet18]
 *        [--pipelines 'default;tuned;blas;default@x86-64-v3'] [--tune_trials N]
 *
 *  (the wrapper tools/bench/bench_vs_ort.sh installs ONNX Runtime and exports the models first).
 *  Pipelines are named pipelines, or "tuned": the kernels tuned on this machine first (tools/tune,
 *  --tune_trials measurements; tuning time counts as compile time), then the default pipeline
 *  with the records applied; "P@T" is pipeline P compiling for target T instead of this machine.
 *  For each model and pipeline: import the ONNX file, run the pass pipeline, build, load; run
 *  ONNX Runtime (all graph optimizations, `threads` intra-op threads) on the same random input;
 *  check the outputs agree (|diff| <= 1e-3 * max|ref| + 1e-5; 3e-2 for int8 models, see
 *  Tolerance; a detector's boxes matched to ONNX Runtime's by score, DetectionDifference); time every pipeline and ONNX
 * Runtime in the same alternating blocks of steady-state calls (so tuned / default is one measurement's ratio). Prints
 * median latency, ours / ONNX Runtime, achieved GFLOP/s and % of the peak (FLOPs of convolutions and matrix products),
 * and compile time. Nothing is asserted.
 */
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "codegen/build.h"
#include "frontend/onnx/onnx_importer.h"
#include "ir/graph/expr_functor.h"
#include "ir/graph/module.h"
#include "ir/target/target.h"
#include "passes/pass.h"
#include "support/cpu_features.h"
#include "support/cross_core.h"
#include "support/file_util.h"
#include "support/fma_peak.h"
#include "tools/bench/ort_session.h"
#include "tools/tune/temporary_database.h"
#include "tools/tune/tuner.h"
#include "vm/thread_pool.h"
#include "vm/virtual_machine.h"
#include "vm/workspace_pool.h"

namespace mlc {
namespace {

struct Options {
  int threads = 1;
  int runs = 20;
  std::string models_dir;
  std::string ort_library;
  std::vector<std::string> models = {"mlp_b1",       "mlp_b64",  "digits_b450",  "encoder",
                                     "mobilenet_v2", "resnet18", "resnet18_int8"};
  std::vector<std::string> pipelines = {"default"};
  int tune_trials = 0;  // for the "tuned" pipeline: measurements per model (0: 16 per kernel)
  /*! \brief PyTorch eager's median ms per model (torch_eager_times.py, run just before). */
  std::map<std::string, double> torch_ms;
};

/*! \brief {"model": ms, ...} as torch_eager_times.py writes it. */
absl::StatusOr<std::map<std::string, double>> ReadTorchTimes(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFile(path);
  if (!text.ok()) return text.status();
  std::map<std::string, double> out;
  for (absl::string_view item : absl::StrSplit(absl::StripAsciiWhitespace(*text), ',', absl::SkipEmpty())) {
    std::vector<absl::string_view> kv = absl::StrSplit(item, ':');
    if (kv.size() != 2) return absl::InvalidArgumentError(absl::StrCat(path, ": not {\"model\": ms, ...}"));
    std::string key(absl::StripAsciiWhitespace(kv[0]));
    key.erase(std::remove_if(key.begin(), key.end(), [](char c) { return c == '{' || c == '"' || c == ' '; }),
              key.end());
    std::string value(absl::StripAsciiWhitespace(kv[1]));
    value.erase(std::remove(value.begin(), value.end(), '}'), value.end());
    double ms = 0;
    if (!absl::SimpleAtod(value, &ms)) return absl::InvalidArgumentError(absl::StrCat(path, ": bad time for ", key));
    out[key] = ms;
  }
  return out;
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

/*! \brief One side of a comparison: what a block of timed calls needs around it. */
struct Contender {
  std::function<void()> begin_block = [] {};
  std::function<void()> run;
  std::function<void()> end_block = [] {};
};

/*! \brief Median seconds of each contender's call, in alternating blocks of consecutive calls
 *  (five each): a slow spell of the shared machine hits all alike, and within a block each
 *  runs in its steady state, as in a deployment. Each block starts after a pause and one
 *  untimed call. */
std::vector<double> MedianSeconds(int runs, const std::vector<Contender>& contenders) {
  constexpr int kBlocks = 5;
  std::vector<std::vector<double>> t(contenders.size());
  for (int block = 0; block < kBlocks; ++block) {
    for (size_t i = 0; i < contenders.size(); ++i) {
      contenders[i].begin_block();
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      contenders[i].run();
      for (int r = block; r < runs; r += kBlocks) {
        auto start = std::chrono::steady_clock::now();
        contenders[i].run();
        t[i].push_back(Seconds(start));
      }
      contenders[i].end_block();
    }
  }
  std::vector<double> out;
  for (std::vector<double>& v : t) {
    std::sort(v.begin(), v.end());
    out.push_back(v.empty() ? 0 : v[v.size() / 2]);
  }
  return out;
}

/*! \brief Multiply-adds x 2 of the convolutions and matrix products of the imported graph. */
class FlopCounter : public relax::ExprVisitor {
 public:
  double flops = 0;

 protected:
  void VisitExpr_(const relax::CallNode* op) override {
    relax::ExprVisitor::VisitExpr_(op);
    const auto* callee = op->op.as<relax::OpNode>();
    if (callee == nullptr) return;
    auto shape = [](const relax::StructInfo& info) -> std::vector<int64_t> {
      const auto* t = info.as<relax::TensorStructInfoNode>();
      return t && t->shape ? *t->shape : std::vector<int64_t>{};
    };
    std::vector<int64_t> out = shape(op->struct_info());
    if (out.empty() || op->args.size() < 2) return;
    double out_elems = 1;
    for (int64_t d : out) out_elems *= static_cast<double>(d);
    double per_output = 0;
    std::vector<int64_t> a = shape(op->args[0]->struct_info()), b = shape(op->args[1]->struct_info());
    const std::string& name = callee->name();
    if ((name == "nn.conv1d" || name == "nn.conv2d" || name == "nn.conv3d") && b.size() >= 3) {
      // Per output element: the weight's input channels (per group) times its window.
      per_output = 1;
      for (size_t d = 1; d < b.size(); ++d) per_output *= static_cast<double>(b[d]);
    } else if ((name == "matmul" || name == "nn.dense" || name == "linear") && !a.empty()) {
      per_output = static_cast<double>(a.back());
    }
    flops += 2 * out_elems * per_output;
  }
};

double CountFlops(const IRModule& mod) {
  FlopCounter counter;
  for (const auto& [name, f] : mod.functions()) {
    if (const auto* fn = f.as<relax::FunctionNode>()) counter.VisitFunction(fn);
  }
  return counter.flops;
}

struct Compiled {
  std::unique_ptr<vm::VirtualMachine> machine;
  double compile_seconds = 0;
};

/*! \brief A pipeline, and the tuning database its apply-tuning-records reads when it runs
 *  (removed with it). */
struct PipelineToRun {
  std::vector<std::unique_ptr<passes::Pass>> passes;
  std::unique_ptr<tune::TemporaryDatabase> records;
};

/*! \brief "tuned": the default pipeline with the kernels tuned first (tools/tune) and the
 *  records applied before default-schedule. */
absl::StatusOr<PipelineToRun> TunedPipeline(const IRModule& mod, int trials) {
  absl::StatusOr<std::vector<std::unique_ptr<passes::Pass>>> prefix = passes::PipelineBeforeScheduling("default");
  if (!prefix.ok()) return prefix.status();
  absl::StatusOr<IRModule> prepared = passes::RunPipeline(mod, *prefix);
  if (!prepared.ok()) return prepared.status();
  tune::TuneOptions options;
  absl::StatusOr<Target> target = TargetFromAttrs(mod.attrs());
  if (!target.ok()) return target.status();
  options.target = *target;
  options.trials = trials;
  tir::TuningDatabase db;
  absl::StatusOr<tune::TuneRun> run = tune::TuneModule(*prepared, options, &db);
  if (!run.ok()) return run.status();
  PipelineToRun tuned;
  absl::StatusOr<std::unique_ptr<tune::TemporaryDatabase>> saved = tune::TemporaryDatabase::Save(db);
  if (!saved.ok()) return saved.status();
  tuned.records = *std::move(saved);
  absl::StatusOr<std::vector<std::unique_ptr<passes::Pass>>> full = passes::ParsePipeline("default");
  if (!full.ok()) return full.status();
  if (absl::Status s = passes::InsertTuningRecords(&*full, tuned.records->path()); !s.ok()) return s;
  tuned.passes = *std::move(full);
  return tuned;
}

/*! \brief `spec` is a pipeline, or "pipeline@target": that pipeline compiling for another target
 *  than this machine (`default@x86-64-v3` on an AVX-512 machine times the AVX2 build in the same
 *  blocks as the AVX-512 one). */
absl::StatusOr<Compiled> Compile(const IRModule& imported, const std::string& spec, int tune_trials) {
  auto start = std::chrono::steady_clock::now();
  std::pair<std::string, std::string> parts = absl::StrSplit(spec, absl::MaxSplits('@', 1));
  const std::string& pipeline = parts.first;
  IRModule mod = imported;
  if (!parts.second.empty()) {
    if (absl::Status s = RecordTargetFlag(&mod.mutable_attrs(), parts.second); !s.ok()) return s;
  }
  PipelineToRun to_run;
  if (pipeline == "tuned") {
    absl::StatusOr<PipelineToRun> tuned = TunedPipeline(mod, tune_trials);
    if (!tuned.ok()) return tuned.status();
    to_run = *std::move(tuned);
  } else {
    absl::StatusOr<std::vector<std::unique_ptr<passes::Pass>>> parsed = passes::ParsePipeline(pipeline);
    if (!parsed.ok()) return parsed.status();
    to_run.passes = *std::move(parsed);
  }
  absl::StatusOr<IRModule> optimized = passes::RunPipeline(mod, to_run.passes);
  if (!optimized.ok()) return optimized.status();
  absl::StatusOr<proto::Executable> exe = codegen::Build(*optimized);
  if (!exe.ok()) return exe.status();
  absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> machine =
      vm::VirtualMachine::LoadBytes(vm::SerializeExecutable(*exe), "bench");
  if (!machine.ok()) return machine.status();
  (*machine)->ChooseThreadsByTiming(true);  // as vm/run and the Python module run it
  return Compiled{std::move(*machine), Seconds(start)};
}

/*! \brief The sizes dynamic models (*_dyn) are timed at: their static twins' (batch 1, sequence 128). */
const std::map<std::string, int64_t> kDynamicSizes = {{"batch", 1}, {"seq", 128}};

/*! \brief How far ours may be from ONNX Runtime, relative to the output's scale. Quantized models
 *  (*_int8) round every quantized activation to one of 256 steps: two runtimes whose float sums
 *  differ in the last bit put a few elements on neighbouring steps, which moves the logits by
 *  about a percent. */
double Tolerance(const std::string& model) { return absl::EndsWith(model, "_int8") ? 3e-2 : 1e-3; }

/*! \brief A detector (det_*): boxes [n, 4] and their scores [n] first. Two runtimes whose
 *  scores differ in the last bits list near-equal ones in either order, and where many are
 *  near-equal (untrained heads) the last kept of them may differ. */
bool IsDetector(const std::string& model) { return absl::StartsWith(model, "det_"); }

/*! \brief The largest difference between two detectors' results: between their scores, each
 *  sorted, and from each of our boxes to the nearest reference box of a score within
 *  `score_tolerance`, but for the farthest 2% of the boxes. Those may have no twin: of two
 *  overlapping boxes of near-equal scores, NMS keeps whichever comes first, and the two
 *  runtimes may order them differently (an untrained RetinaNet's 300 detections all score
 *  0.68-0.74; one of them differed); so may boxes whose score is that near the lowest kept. */
double DetectionDifference(const float* boxes, const float* scores, const std::vector<float>& ref_boxes,
                           const std::vector<float>& ref_scores, double score_tolerance) {
  const size_t n = ref_scores.size();
  std::vector<float> a(scores, scores + n), b = ref_scores;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  double worst = 0;
  for (size_t i = 0; i < n; ++i) worst = std::max(worst, static_cast<double>(std::abs(a[i] - b[i])));
  if (worst > score_tolerance || n == 0) return worst;
  const double lowest = b[0];
  std::vector<double> distances;
  for (size_t i = 0; i < n; ++i) {
    if (scores[i] <= lowest + score_tolerance) continue;
    double nearest = std::numeric_limits<double>::infinity();
    for (size_t j = 0; j < n; ++j) {
      if (std::abs(scores[i] - ref_scores[j]) > score_tolerance) continue;
      double d = 0;
      for (int c = 0; c < 4; ++c)
        d = std::max(d, static_cast<double>(std::abs(boxes[i * 4 + c] - ref_boxes[j * 4 + c])));
      nearest = std::min(nearest, d);
    }
    distances.push_back(nearest);
  }
  std::sort(distances.begin(), distances.end());
  const size_t unmatched = n / 50;
  if (distances.size() > unmatched) worst = std::max(worst, distances[distances.size() - 1 - unmatched]);
  return worst;
}

/*! \brief Ours / ONNX Runtime per pipeline, over the models timed: their geometric mean closes the table. */
using Ratios = std::map<std::string, std::vector<double>>;

absl::Status RunModel(const std::string& name, const Options& opt, double peak_gflops, Ratios* ratios) {
  std::string path = absl::StrCat(opt.models_dir, "/", name, ".onnx");
  absl::StatusOr<IRModule> imported = onnx_import::ImportOnnxFile(path);
  if (!imported.ok()) return imported.status();
  // A dynamic model is compiled as it is (symbolic); its pinned twin gives the input shape and
  // the FLOPs of the timed size.
  onnx_import::OnnxImportOptions pin;
  pin.dims = kDynamicSizes;
  absl::StatusOr<IRModule> pinned = onnx_import::ImportOnnxFile(path, pin);
  if (!pinned.ok()) return pinned.status();
  double flops = CountFlops(*pinned);
  absl::StatusOr<std::unique_ptr<bench::OrtSession>> ort =
      bench::OrtSession::Create(opt.ort_library, path, opt.threads);
  if (!ort.ok()) return ort.status();
  // The input: the one parameter of main.
  relax::Function main = pinned->LookupFunction("main");
  if (!main.defined() || main->params.size() != 1)
    return absl::InvalidArgumentError(absl::StrCat(name, ": main must take one input"));
  const auto* sinfo = main->params[0]->struct_info().as<relax::TensorStructInfoNode>();
  if (sinfo == nullptr || !sinfo->shape)
    return absl::InvalidArgumentError(absl::StrCat(name, ": the input needs a static shape"));
  bench::OrtTensor input{*sinfo->shape, {}};
  int64_t n = 1;
  for (int64_t d : input.shape) n *= d;
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(0, 1);
  for (int64_t i = 0; i < n; ++i) input.data.push_back(dist(rng));
  vm::NDArray x = vm::NDArray::Empty(input.shape, DLDataType{kDLFloat, 32, 1});
  std::copy(input.data.begin(), input.data.end(), static_cast<float*>(x.data()));
  absl::StatusOr<std::vector<bench::OrtTensor>> want = (*ort)->Run({input});
  if (!want.ok()) return want.status();
  ort->reset();
  std::vector<bench::OrtTensor> ort_inputs = {input};
  // Every pipeline compiled and checked first, then all of them and ONNX Runtime timed in the
  // same alternating blocks: a slow spell of the shared machine (minutes long, and it moved a
  // pipeline timed on its own by 30%) hits them alike, so tuned against default is a ratio
  // of one measurement.
  struct Ours {
    std::string pipeline;
    Compiled compiled;
    double worst = 0, scale = 0;  // max |ours - ONNX Runtime| and max |ONNX Runtime|
    bool one_thread = false;      // the thread choice runs it on the calling thread alone
    int64_t chunks_before = 0;
    int idle_blocks = 0;  // timed blocks in which the pool's workers ran no chunk
  };
  std::vector<Ours> ours(opt.pipelines.size());
  for (size_t p = 0; p < opt.pipelines.size(); ++p) {
    Ours& o = ours[p];
    o.pipeline = opt.pipelines[p];
    absl::StatusOr<Compiled> c = Compile(*imported, o.pipeline, opt.tune_trials);
    if (!c.ok())
      return absl::Status(c.status().code(), absl::StrCat(name, " (", o.pipeline, "): ", c.status().message()));
    o.compiled = *std::move(c);
    vm::VirtualMachine* machine = o.compiled.machine.get();
    // The workspace reported below is what this model's kernels hold, not what tuning left.
    vm::WorkspacePool::Global().ReleaseFree();
    absl::StatusOr<vm::Value> got = machine->Invoke("main", {x});
    if (!got.ok()) return got.status();
    const vm::NDArray& out = got->is_tuple() ? got->tuple()[0].tensor() : got->tensor();
    const std::vector<float>& ref = (*want)[0].data;
    if (out.NumElements() != static_cast<int64_t>(ref.size())) {
      return absl::InternalError(
          absl::StrCat(name, ": ", out.NumElements(), " outputs, ONNX Runtime gives ", ref.size()));
    }
    for (float v : ref) o.scale = std::max(o.scale, static_cast<double>(std::abs(v)));
    const float* values = static_cast<const float*>(out.data());
    if (IsDetector(name)) {
      if (!got->is_tuple() || got->tuple().size() < 2 || want->size() < 2 ||
          got->tuple()[1].tensor().NumElements() != static_cast<int64_t>((*want)[1].data.size()))
        return absl::InternalError(absl::StrCat(name, ": boxes and scores must be the first two outputs of both"));
      o.worst = DetectionDifference(values, static_cast<const float*>(got->tuple()[1].tensor().data()), ref,
                                    (*want)[1].data, Tolerance(name));
    } else {
      for (size_t i = 0; i < ref.size(); ++i)
        o.worst = std::max(o.worst, static_cast<double>(std::abs(values[i] - ref[i])));
    }
    if (o.worst > Tolerance(name) * o.scale + 1e-5) {
      return absl::InternalError(
          absl::StrCat(name, " (", o.pipeline, "): max |ours - ONNX Runtime| = ", o.worst, " of ", o.scale));
    }
    // The thread choice's first probe (vm/thread_choice.h) before the timed blocks, not in them.
    for (int i = 0; i < 2 * vm::ThreadChoice::kProbeRunsPerSide; ++i) (void)machine->Invoke("main", {x});
    const vm::ThreadChoice* choice = machine->thread_choice("main");
    o.one_thread = choice != nullptr && choice->serial_chosen();
  }
  // A block of ours in which the pool's workers ran no chunk timed one thread, not
  // opt.threads (once, a whole run of ResNet-18 on two threads ran at one thread's speed):
  // say so rather than print a ratio that means something else.
  std::vector<Contender> contenders;
  for (Ours& o : ours) {
    vm::VirtualMachine* machine = o.compiled.machine.get();
    contenders.push_back(Contender{[&o] { o.chunks_before = vm::ThreadPool::Global().worker_chunks(); },
                                   [machine, &x] { (void)machine->Invoke("main", {x}); },
                                   [&o, &opt] {
                                     o.idle_blocks += opt.threads > 1 && !o.one_thread &&
                                                      vm::ThreadPool::Global().worker_chunks() == o.chunks_before;
                                   }});
  }
  // ONNX Runtime's session exists only during its own blocks: its idle intra-op threads spin
  // and would take the cores our workers need (ours spin only briefly after a launch).
  std::unique_ptr<bench::OrtSession> session;
  contenders.push_back(Contender{[&] {
                                   absl::StatusOr<std::unique_ptr<bench::OrtSession>> s =
                                       bench::OrtSession::Create(opt.ort_library, path, opt.threads);
                                   if (!s.ok()) {  // it loaded this model a moment ago
                                     std::fprintf(stderr, "model_bench: %s\n",
                                                  std::string(s.status().message()).c_str());
                                     std::exit(1);
                                   }
                                   session = std::move(*s);
                                 },
                                 [&] { (void)session->Run(ort_inputs); }, [&] { session.reset(); }});
  const std::vector<double> t = MedianSeconds(opt.runs, contenders);
  const double ort_seconds = t.back();
  auto gflops = [&](double s) { return flops / s / 1e9; };
  // PyTorch eager's time for the same model (measured just before, same threads), when there is one.
  auto torch_ms = opt.torch_ms.find(name);
  for (size_t p = 0; p < ours.size(); ++p) {
    const Ours& o = ours[p];
    if (o.idle_blocks > 0) {
      std::fprintf(stderr,
                   "model_bench: warning: %s (%s): in %d of the timed blocks of ours the worker threads ran no "
                   "chunk (no parallel loop, or the workers got no CPU): its time is one thread's\n",
                   name.c_str(), o.pipeline.c_str(), o.idle_blocks);
    }
    if (o.one_thread) {
      std::fprintf(stderr, "%s (%s): ours ran on one thread, timed faster here than the pool of %d\n", name.c_str(),
                   o.pipeline.c_str(), opt.threads);
    }
    (*ratios)[o.pipeline].push_back(t[p] / ort_seconds);
    std::string torch_cols = torch_ms == opt.torch_ms.end()
                                 ? "- | -"
                                 : absl::StrFormat("%.3f | %.2f", torch_ms->second, t[p] * 1e3 / torch_ms->second);
    std::printf("| %s | %d | %s | %.3f | %.3f | %.2f | %.1f (%.0f%%) | %.1f (%.0f%%) | %s | %.1f | %.1e |\n",
                name.c_str(), opt.threads, o.pipeline.c_str(), t[p] * 1e3, ort_seconds * 1e3, t[p] / ort_seconds,
                gflops(t[p]), 100 * gflops(t[p]) / peak_gflops, gflops(ort_seconds),
                100 * gflops(ort_seconds) / peak_gflops, torch_cols.c_str(), o.compiled.compile_seconds,
                o.worst / std::max(o.scale, 1e-30));
    vm::VirtualMachine::MemoryStats mem = o.compiled.machine->Memory();
    std::fprintf(stderr, "%s (%s): peak tensors (intermediates and results) %.2f MB, workspace %.2f MB%s\n",
                 name.c_str(), o.pipeline.c_str(), mem.tensors_peak / 1e6, mem.workspace_held / 1e6,
                 opt.threads > 1 ? absl::StrCat("; ", MeasureCrossCoreLink().Describe()).c_str() : "");
  }
  std::fflush(stdout);
  return absl::OkStatus();
}

/*! \brief The CPU's model name as /proc/cpuinfo gives it ("AMD EPYC 7B13"), or "unknown". */
std::string CpuModelName() {
  absl::StatusOr<std::string> info = ReadFile("/proc/cpuinfo");
  if (!info.ok()) return "unknown";
  for (absl::string_view line : absl::StrSplit(*info, '\n')) {
    if (absl::ConsumePrefix(&line, "model name")) {
      line = absl::StripLeadingAsciiWhitespace(line);
      if (absl::ConsumePrefix(&line, ":")) return std::string(absl::StripAsciiWhitespace(line));
    }
  }
  return "unknown";
}

int Main(int argc, char** argv) {
  Options opt;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (arg == "--threads")
      opt.threads = std::atoi(value().c_str());
    else if (arg == "--runs")
      opt.runs = std::atoi(value().c_str());
    else if (arg == "--models_dir")
      opt.models_dir = value();
    else if (arg == "--ort_library")
      opt.ort_library = value();
    else if (arg == "--models")
      opt.models = absl::StrSplit(value(), ',', absl::SkipEmpty());
    else if (arg == "--pipelines")
      opt.pipelines = absl::StrSplit(value(), ';', absl::SkipEmpty());
    else if (arg == "--tune_trials")
      opt.tune_trials = std::atoi(value().c_str());
    else if (arg == "--torch_times") {
      absl::StatusOr<std::map<std::string, double>> t = ReadTorchTimes(value());
      if (!t.ok()) {
        std::fprintf(stderr, "model_bench: --torch_times: %s\n", std::string(t.status().message()).c_str());
        return 2;
      }
      opt.torch_ms = *t;
    } else {
      std::fprintf(stderr,
                   "usage: model_bench --models_dir DIR --ort_library libonnxruntime.so.1 [--threads N] [--runs N] "
                   "[--models a,b] [--pipelines 'default;tuned;blas'] [--tune_trials N] [--torch_times "
                   "t.json]\nunknown argument: %s\n",
                   arg.c_str());
      return 2;
    }
  }
  if (opt.models_dir.empty() || opt.ort_library.empty() || opt.threads < 1 || opt.runs < 1) {
    std::fprintf(stderr,
                 "model_bench: --models_dir and --ort_library are required; --threads and --runs must be positive\n");
    return 2;
  }
  setenv("MLC_NUM_THREADS", std::to_string(opt.threads).c_str(), 1);
  // Which machine: results differ by CPU kind (docs/performance.md keeps a table per kind).
  std::printf("CPU: %s (%s; %s)\n", CpuModelName().c_str(), HostCpuName().c_str(),
              MaxIsaLevel().empty()
                  ? "its widest instruction set on both sides"
                  : ("ours capped at " + MaxIsaLevel() + " by MLC_MAX_ISA, ONNX Runtime not").c_str());
  FmaPeak peak = MeasureFmaPeak(opt.threads);
  std::printf("FMA peak (%s, %d thread%s): %.1f GFLOP/s\n", peak.isa.c_str(), opt.threads, opt.threads > 1 ? "s" : "",
              peak.gflops);
  // Two-thread rows depend on how far apart the two CPUs are, which can change within a run:
  // the probe is printed here and again after each model (support/cross_core.h).
  if (opt.threads > 1) std::printf("%s\n", MeasureCrossCoreLink().Describe().c_str());
  std::printf("\n");
  std::printf(
      "| model | threads | pipeline | ours ms | ONNX Runtime ms | ours / ORT | ours GFLOP/s (%% peak) | ORT GFLOP/s "
      "(%% peak) | "
      "PyTorch ms | ours / PyTorch | compile s | max rel diff |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  std::fflush(stdout);
  int failures = 0;
  Ratios ratios;
  std::vector<std::string> timed;  // the models with a ratio in every pipeline, in that order
  for (const std::string& name : opt.models) {
    if (absl::Status s = RunModel(name, opt, peak.gflops, &ratios); !s.ok()) {
      std::fprintf(stderr, "model_bench: %s: %s\n", name.c_str(), std::string(s.message()).c_str());
      ++failures;
    } else {
      timed.push_back(name);
    }
  }
  for (const auto& [pipeline, r] : ratios) {
    double log_sum = 0;
    int at_or_below = 0;
    for (double v : r) {
      log_sum += std::log(v);
      at_or_below += v <= 1.0;
    }
    std::printf("\n%s: geometric mean of ours / ORT over %zu models %.2f (%d at or below 1)\n", pipeline.c_str(),
                r.size(), std::exp(log_sum / r.size()), at_or_below);
  }
  // Every other pipeline against the first (timed in the same blocks against the same ORT
  // time, so the quotient of the two ratios is theirs): "tuned never slower than default".
  const std::string& first = opt.pipelines.front();
  for (size_t p = 1; p < opt.pipelines.size() && !timed.empty(); ++p) {
    const std::vector<double>&base = ratios[first], &other = ratios[opt.pipelines[p]];
    double log_sum = 0, worst = 0;
    size_t worst_model = 0;
    for (size_t m = 0; m < timed.size(); ++m) {
      const double q = other[m] / base[m];
      log_sum += std::log(q);
      if (q > worst) worst = q, worst_model = m;
    }
    std::printf("%s / %s: geometric mean over %zu models %.3f, most %.3f (%s)\n", opt.pipelines[p].c_str(),
                first.c_str(), timed.size(), std::exp(log_sum / timed.size()), worst, timed[worst_model].c_str());
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace
}  // namespace mlc

int main(int argc, char** argv) { return mlc::Main(argc, argv); }
