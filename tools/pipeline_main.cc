/*! \file pipeline_main.cc
 *  \brief //tools:pipeline — model in, predictions out, one stage per process, each cached.
 *
 *    pipeline [MODEL] [--params w.npz] [--inputs x.npy,...] [--labels y.npy] [--passes=...]
 *             [--out DIR] [--no-cache] [--cache-dir DIR] [--print-after-all] [--dump-dir DIR]
 *             [--emit-dot graph.dot] [--plugin lib.so] [--pass-plugin lib.so] [--converter-plugin lib.so] [--target T]
 *             [--tuning_db records.pb] [--upper_bound n=64] [--profile [--profile_json trace.json]]
 *             [--sign_key builder.pem] [--trusted_keys builder.pub,...] [--limits name=value,...] [--quantize q8|q4]
 *
 *  Stages: frontend (parse TVMScript; the importers take .onnx / .fxpb), opt (graph passes:
 *  fusion, legalization), build (loop lowering and LLVM code generation), run (the VM). Each
 *  stage's output is cached under a key of (stage binary digest, input digests, options), so a
 *  second run with nothing changed reruns no stage, and changing a pass option reruns opt and
 *  what follows. Without MODEL it compiles and runs the bundled digits MLP on its test split
 *  and prints the accuracy.
 */
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "ir/graph/printer.h"
#include "ir/graph/serialize.h"
#include "ir/target/target.h"
#include "support/file_util.h"
#include "support/npy.h"
#include "support/resource_limit_flag.h"
#include "tools/pipeline/graph_dot.h"
#include "tools/pipeline/stage_cache.h"
#include "tools/pipeline/subprocess.h"

ABSL_FLAG(std::string, params, "", ".npz of weights to bind to the model's parameters (bind-params)");
ABSL_FLAG(std::string, inputs, "", "comma-separated .npy inputs of the function");
ABSL_FLAG(std::string, labels, "", ".npy of integer labels: print the accuracy of the argmax");
ABSL_FLAG(std::string, passes, "default",
          "graph pass pipeline or named pipeline (bind-params{...} is prepended when --params is given)");
ABSL_FLAG(
    std::string, quantize, "",
    "quantized matmul/dense weights and embedding tables: q8 or q4 (llama.cpp's Q8_0 / Q4_0; docs/language_models.md)");
ABSL_FLAG(std::string, func, "main", "function to run");
ABSL_FLAG(std::string, tuning_db, "", "tuning database from //tools:tune: its records schedule the kernels they cover");
ABSL_FLAG(std::string, target, "native",
          "target to compile for (native, x86-64-v3, llvm -mcpu=znver4 -mattr=-avx512f, ...); several, comma-separated "
          "(x86-64-v3,x86-64-v4), make one executable that runs the best this CPU can");
ABSL_FLAG(std::string, upper_bound, "",
          "upper bounds of shape variables for memory planning (build --upper_bound), e.g. batch=64");
ABSL_FLAG(std::string, out, "",
          "work directory for the stage outputs, kept (default: a temporary directory, removed at exit)");
ABSL_FLAG(bool, no_cache, false, "run every stage, ignoring and not filling the cache");
ABSL_FLAG(std::string, cache_dir, "",
          "cache directory (default: $XDG_CACHE_HOME/mlc-pipeline or ~/.cache/mlc-pipeline)");
ABSL_FLAG(bool, print_after_all, false, "print the module after every pass of the opt stage");
ABSL_FLAG(std::string, dump_dir, "", "write every intermediate module as TVMScript into this directory");
ABSL_FLAG(std::string, emit_dot, "", "write the compiled main function's graph as Graphviz dot here");
ABSL_FLAG(std::string, plugin, "", "runtime-function plug-ins for the run stage");
ABSL_FLAG(std::string, pass_plugin, "", "pass plug-ins for the opt stage");
ABSL_FLAG(std::string, converter_plugin, "", "converter plug-ins for the import stage");
ABSL_FLAG(std::string, dim, "", "ONNX: values of symbolic dimensions for the import stage, e.g. batch=1,seq=128");
ABSL_FLAG(int, top, 3, "classes shown per prediction");
ABSL_FLAG(std::string, sign_key, "",
          "sign the executable with this Ed25519 private key (PEM); see docs/build_and_run.md");
ABSL_FLAG(std::string, trusted_keys, "",
          "comma-separated Ed25519 public keys (PEM): the run stage loads only an executable signed by one");
ABSL_FLAG(bool, timing, false, "print each stage's table of phase times (opt: per pass; build: the slowest kernels)");
ABSL_FLAG(bool, profile, false,
          "after the run stage, profile the executable on the inputs and print the per-kernel table");
ABSL_FLAG(std::string, profile_json, "", "with --profile: also write the profile as a Chrome trace here");

namespace {

namespace fs = std::filesystem;
using mlc::UserPath;
using mlc::pipeline::DigestBytes;
using mlc::pipeline::DigestFile;

std::string g_argv0;

/*! \brief A file shipped with the pipeline (stage binaries, the bundled model). */
std::string Runfile(const std::string& path) {
  std::vector<std::string> roots;
  if (const char* r = std::getenv("RUNFILES_DIR")) roots.push_back(absl::StrCat(r, "/mlc"));
  roots.push_back(g_argv0 + ".runfiles/mlc");
  std::error_code ec;
  fs::path exe = fs::canonical("/proc/self/exe", ec);
  if (!ec) {
    roots.push_back(exe.string() + ".runfiles/mlc");
    roots.push_back(exe.parent_path().parent_path().string());  // bazel-bin/tools/pipeline -> bazel-bin
  }
  roots.push_back(".");
  for (const std::string& root : roots) {
    fs::path p = fs::path(root) / path;
    if (fs::exists(p, ec)) return fs::absolute(p, ec).string();
  }
  return path;
}

struct Stage {
  std::string name;
  std::string binary;
  std::vector<std::string> args;         // after the binary
  std::vector<std::string> input_files;  // digested into the key
  std::string options;                   // digested into the key
  std::vector<std::string> outputs;      // paths in the work directory
  std::string subject;                   // the file the stage works on, for messages
};

class Runner {
 public:
  Runner(std::string work_dir, std::optional<mlc::pipeline::StageCache> cache, int total)
      : work_dir_(std::move(work_dir)), cache_(std::move(cache)), total_(total) {}

  bool Run(const Stage& stage) {
    ++index_;
    std::printf("[%d/%d] %-8s %s ", index_, total_, stage.name.c_str(), fs::path(stage.subject).filename().c_str());
    std::fflush(stdout);
    std::string key;
    if (cache_) {
      absl::StatusOr<std::string> bin = Digest(stage.binary);
      if (!bin.ok()) return Fail(stage, std::string(bin.status().message()));
      // The limits decide whether a stage refuses its input, so they are part of the key.
      std::string material = absl::StrCat(stage.name, "\n", *bin, "\n", stage.options, "\n",
                                          absl::StrJoin(mlc::ResourceLimitFlagArgs(), " "), "\n");
      for (const std::string& f : stage.input_files) {
        absl::StatusOr<std::string> d = Digest(f);
        if (!d.ok()) return Fail(stage, std::string(d.status().message()));
        absl::StrAppend(&material, *d, "\n");
      }
      key = absl::StrCat(stage.name, "-", DigestBytes(material));
      std::vector<std::string> names;
      for (const std::string& o : stage.outputs) names.push_back(fs::path(o).filename().string());
      if (cache_->Fetch(key, names, work_dir_)) {
        std::printf("(cached)\n");
        return true;
      }
    }
    std::vector<std::string> argv = {stage.binary};
    argv.insert(argv.end(), stage.args.begin(), stage.args.end());
    for (const std::string& a : mlc::ResourceLimitFlagArgs()) argv.push_back(a);
    // On a terminal, a stage running longer than two seconds shows its time as it goes.
    const std::string line =
        absl::StrFormat("[%d/%d] %-8s %s ", index_, total_, stage.name, fs::path(stage.subject).filename().string());
    int shown = 0;
    auto progress = [&](double seconds) {
      if (seconds < 2 || static_cast<int>(seconds) == shown) return;
      shown = static_cast<int>(seconds);
      std::printf("\r%s%d s ...", line.c_str(), shown);
      std::fflush(stdout);
    };
    const bool tty = isatty(STDOUT_FILENO) != 0;
    mlc::pipeline::ProcessResult r =
        mlc::pipeline::RunProcess(argv, tty ? std::function<void(double)>(progress) : nullptr);
    if (shown > 0) std::printf("\r%s\033[K", line.c_str());  // erases the progress
    if (r.exit_code != 0) {
      std::printf("FAILED\n");
      std::fprintf(stderr, "pipeline: stage %s failed on %s:\n%s%s", stage.name.c_str(), stage.subject.c_str(),
                   r.stderr_text.c_str(), r.stdout_text.c_str());
      return false;
    }
    std::printf("%.2f s\n", r.seconds);
    if (!r.stderr_text.empty()) std::fputs(r.stderr_text.c_str(), stderr);
    last_stdout_ = r.stdout_text;
    if (cache_) {
      absl::Status s = cache_->Store(key, stage.outputs);
      if (!s.ok()) std::fprintf(stderr, "pipeline: warning: not cached: %s\n", std::string(s.message()).c_str());
    }
    return true;
  }

  const std::string& last_stdout() const { return last_stdout_; }

 private:
  absl::StatusOr<std::string> Digest(const std::string& path) {
    auto it = digests_.find(path);
    if (it != digests_.end()) return it->second;
    absl::StatusOr<std::string> d = DigestFile(path);
    if (d.ok()) digests_[path] = *d;
    return d;
  }
  bool Fail(const Stage& stage, const std::string& message) {
    std::printf("FAILED\n");
    std::fprintf(stderr, "pipeline: stage %s on %s: %s\n", stage.name.c_str(), stage.subject.c_str(), message.c_str());
    return false;
  }

  std::string work_dir_;
  std::optional<mlc::pipeline::StageCache> cache_;
  int total_;
  int index_ = 0;
  std::map<std::string, std::string> digests_;
  std::string last_stdout_;
};

void PrintPredictions(const std::vector<std::string>& outputs, const std::string& labels_path, int top) {
  for (const std::string& path : outputs) {
    absl::StatusOr<mlc::TensorData> t = mlc::ReadNpy(path);
    if (!t.ok() || t->dtype() != mlc::DataType::Float32()) continue;
    const auto& shape = t->shape();
    std::printf("output %s: float32 (%s)\n", fs::path(path).filename().c_str(), absl::StrJoin(shape, ", ").c_str());
    if (shape.size() != 2 || shape[1] < 2) continue;
    int64_t rows = shape[0], classes = shape[1];
    const float* p = t->data_as<float>();
    std::vector<int64_t> labels;
    if (!labels_path.empty()) {
      absl::StatusOr<mlc::TensorData> l = mlc::ReadNpy(labels_path);
      if (l.ok() && l->NumElements() == rows && l->dtype().is_integer()) {
        for (int64_t i = 0; i < rows; ++i) {
          labels.push_back(l->dtype().bits() == 64 ? l->data_as<int64_t>()[i] : l->data_as<int32_t>()[i]);
        }
      }
    }
    int64_t correct = 0;
    for (int64_t i = 0; i < rows; ++i) {
      const float* row = p + i * classes;
      std::vector<int64_t> order(classes);
      for (int64_t c = 0; c < classes; ++c) order[c] = c;
      std::partial_sort(order.begin(), order.begin() + std::min<int64_t>(top, classes), order.end(),
                        [&](int64_t a, int64_t b) { return row[a] > row[b]; });
      if (!labels.empty() && order[0] == labels[i]) ++correct;
      if (i < 5) {
        // Softmax probabilities of the top classes.
        double mx = row[order[0]], sum = 0;
        for (int64_t c = 0; c < classes; ++c) sum += std::exp(row[c] - mx);
        std::string line = absl::StrCat("  sample ", i, ":");
        for (int k = 0; k < std::min<int64_t>(top, classes); ++k) {
          absl::StrAppend(&line, " class ", order[k], " (", absl::StrFormat("%.3f", std::exp(row[order[k]] - mx) / sum),
                          ")");
        }
        if (!labels.empty()) absl::StrAppend(&line, "   label ", labels[i]);
        std::printf("%s\n", line.c_str());
      }
    }
    if (rows > 5) std::printf("  ... %lld more\n", static_cast<long long>(rows - 5));
    if (!labels.empty()) {
      std::printf("accuracy: %lld / %lld = %.2f%%\n", static_cast<long long>(correct), static_cast<long long>(rows),
                  100.0 * correct / rows);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  g_argv0 = argv[0];
  // Flags may be spelled with dashes (--no-cache) as the docs do.
  std::vector<std::string> args(argv, argv + argc);
  std::vector<char*> normalized;
  for (std::string& a : args) {
    if (a.rfind("--", 0) == 0) {
      for (size_t i = 2; i < std::min(a.find('='), a.size()); ++i) {
        if (a[i] == '-') a[i] = '_';
      }
    }
    normalized.push_back(a.data());
  }
  absl::SetProgramUsageMessage(
      "Compiles and runs a model.\n  pipeline [MODEL.py|.onnx|.fxpb] [--params w.npz] [--inputs x.npy]");
  std::vector<char*> positional = absl::ParseCommandLine(static_cast<int>(normalized.size()), normalized.data());
  if (absl::Status s = mlc::ApplyResourceLimitFlag(); !s.ok()) {
    std::cerr << "pipeline: " << s.message() << "\n";
    return 2;
  }

  std::string model, params = UserPath(absl::GetFlag(FLAGS_params)), labels = UserPath(absl::GetFlag(FLAGS_labels));
  std::vector<std::string> inputs;
  for (absl::string_view in : absl::StrSplit(absl::GetFlag(FLAGS_inputs), ',', absl::SkipEmpty())) {
    inputs.push_back(UserPath(std::string(in)));
  }
  if (positional.size() > 2) {
    std::fprintf(stderr, "pipeline: one model at a time (got %zu)\n", positional.size() - 1);
    return 2;
  }
  if (positional.size() == 2) {
    model = UserPath(positional[1]);
  } else {
    // The bundled default: the digits MLP on its held-back test split.
    model = Runfile("testdata/models/digits_mlp/digits_mlp.py");
    if (params.empty()) params = Runfile("testdata/models/digits_mlp/params.npz");
    if (inputs.empty()) inputs = {Runfile("testdata/models/digits_mlp/test_x.npy")};
    if (labels.empty()) labels = Runfile("testdata/models/digits_mlp/test_y.npy");
    std::printf(
        "No model given: compiling the bundled digits MLP (64-128-10, trained on scikit-learn's digits)\n"
        "and running it on its 360-image test split.\n");
  }
  std::error_code ec;
  if (!fs::exists(model, ec)) {
    std::fprintf(stderr, "pipeline: model %s does not exist\n", model.c_str());
    return 1;
  }

  // Frontend by file type.
  std::string frontend_binary, frontend_name;
  if (absl::EndsWith(model, ".py")) {
    frontend_name = "parse";
    frontend_binary = Runfile("frontend/parse");
  } else if (absl::EndsWith(model, ".onnx") || absl::EndsWith(model, ".fxpb")) {
    frontend_name = "import";
    frontend_binary = Runfile("frontend/import");
    if (!fs::exists(frontend_binary, ec)) {
      std::fprintf(stderr, "pipeline: importing %s needs //frontend:import, which this build does not have yet\n",
                   model.c_str());
      return 1;
    }
  } else {
    std::fprintf(stderr, "pipeline: %s: unknown model format (expected .py TVMScript, .onnx or .fxpb)\n",
                 model.c_str());
    return 1;
  }

  std::string work = UserPath(absl::GetFlag(FLAGS_out));
  const bool keep_work = !work.empty();
  if (!keep_work) {
    std::string tmpl = (fs::temp_directory_path() / "mlc_pipeline_XXXXXX").string();
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (mkdtemp(buf.data()) == nullptr) {
      std::fprintf(stderr, "pipeline: cannot create a work directory from %s: %s\n", tmpl.c_str(),
                   std::strerror(errno));
      return 1;
    }
    work = buf.data();
  }
  // A temporary work directory goes away on every exit path (the cache keeps what is worth
  // keeping); pass --out to keep the stage outputs.
  absl::Cleanup remove_work = [&] {
    std::error_code ignored;
    if (!keep_work) fs::remove_all(work, ignored);
  };
  fs::create_directories(work, ec);
  std::optional<mlc::pipeline::StageCache> cache;
  if (!absl::GetFlag(FLAGS_no_cache)) {
    std::string dir = UserPath(absl::GetFlag(FLAGS_cache_dir));
    if (dir.empty()) {
      const char* xdg = std::getenv("XDG_CACHE_HOME");
      const char* home = std::getenv("HOME");
      dir = xdg ? absl::StrCat(xdg, "/mlc-pipeline") : absl::StrCat(home ? home : "/tmp", "/.cache/mlc-pipeline");
    }
    cache.emplace(dir);
  }
  std::string dump_dir = UserPath(absl::GetFlag(FLAGS_dump_dir));
  if (!dump_dir.empty()) fs::create_directories(dump_dir, ec);

  // Resolved here (native -> this CPU), so the cache keys name the CPU the code is for. More
  // than one target: opt and build run once per target, then build --merge makes one
  // multi-target executable of them (vm/executable_variants.h).
  absl::StatusOr<std::vector<mlc::Target>> targets = mlc::ParseTargetList(absl::GetFlag(FLAGS_target));
  if (!targets.ok()) {
    std::fprintf(stderr, "pipeline: --target: %s\n", std::string(targets.status().message()).c_str());
    return 1;
  }
  const bool multi_target = targets->size() > 1;
  std::string passes = absl::GetFlag(FLAGS_passes);
  if (!params.empty()) passes = absl::StrCat("bind-params{params=", params, "}", passes.empty() ? "" : ",", passes);
  std::string ir = absl::StrCat(work, "/model.irpb"), exe = absl::StrCat(work, "/model.mlcx");
  // Per target: the optimized module and the executable (the latter merged when several).
  std::vector<std::string> opts, exes;
  for (size_t i = 0; i < targets->size(); ++i) {
    const std::string suffix = multi_target ? absl::StrCat(".", i) : "";
    opts.push_back(absl::StrCat(work, "/model", suffix, ".opt.irpb"));
    exes.push_back(multi_target ? absl::StrCat(work, "/model", suffix, ".mlcx") : exe);
  }
  const std::string opt = opts[0];  // the entry's signature is the same in every variant
  std::vector<std::string> outputs;
  // The stages copy the model's weights a few times (read, parse, pack, serialize): on huge
  // pages each copy takes one page fault per 2 MB instead of per 4 KB (a third of opt's time on
  // ResNet-18). A user's own setting wins.
  setenv("GLIBC_TUNABLES", "glibc.malloc.hugetlb=1", /*overwrite=*/0);
  const int stages = 1 + 2 * static_cast<int>(targets->size()) + (multi_target ? 1 : 0) + (inputs.empty() ? 0 : 1);
  Runner runner(work, cache, stages);

  Stage frontend{frontend_name, frontend_binary, {"--in", model, "--out", ir}, {model}, "", {ir}, model};
  if (std::string plugins = absl::GetFlag(FLAGS_converter_plugin); !plugins.empty()) {
    frontend.args.push_back(absl::StrCat("--converter_plugin=", plugins));
    for (absl::string_view p : absl::StrSplit(plugins, ',', absl::SkipEmpty()))
      frontend.input_files.push_back(std::string(p));
  }
  if (std::string dims = absl::GetFlag(FLAGS_dim); !dims.empty()) {
    if (!absl::EndsWith(model, ".onnx")) {
      std::fprintf(stderr, "pipeline: --dim pins symbolic dimensions of an ONNX model; %s is not one\n", model.c_str());
      return 1;
    }
    frontend.args.push_back(absl::StrCat("--dim=", dims));
    frontend.options = absl::StrCat("--dim=", dims);  // a different pin is a different module
  }
  if (absl::GetFlag(FLAGS_timing)) frontend.args.push_back("--timing");
  if (!runner.Run(frontend)) return 1;

  for (size_t t = 0; t < targets->size(); ++t) {
    const std::string target_flag = absl::StrCat("--target=", (*targets)[t].str());
    Stage optimize{"opt",
                   Runfile("passes/opt"),
                   {"--in", ir, "--out", opts[t], absl::StrCat("--passes=", passes), target_flag},
                   {ir},
                   absl::StrCat(passes, "\n", target_flag),
                   {opts[t]},
                   ir};
    if (!params.empty()) optimize.input_files.push_back(params);
    if (std::string db = UserPath(absl::GetFlag(FLAGS_tuning_db)); !db.empty()) {
      optimize.args.push_back(absl::StrCat("--tuning_db=", db));
      optimize.input_files.push_back(db);
      optimize.options += "\ntuning-db";
    }
    if (absl::GetFlag(FLAGS_print_after_all)) {
      optimize.args.push_back("--print-after-all");
      optimize.options += "\nprint-after-all";
    }
    if (!absl::GetFlag(FLAGS_pass_plugin).empty()) {
      optimize.args.push_back(absl::StrCat("--pass-plugin=", absl::GetFlag(FLAGS_pass_plugin)));
      for (absl::string_view p : absl::StrSplit(absl::GetFlag(FLAGS_pass_plugin), ',', absl::SkipEmpty())) {
        optimize.input_files.push_back(std::string(p));
      }
    }
    if (!dump_dir.empty()) {
      const std::string dir = multi_target ? absl::StrCat(dump_dir, "/target", t) : dump_dir;
      optimize.args.push_back(absl::StrCat("--dump-dir=", dir));
      optimize.options += "\ndump:" + dir;
    }
    if (std::string quantize = absl::GetFlag(FLAGS_quantize); !quantize.empty()) {
      optimize.args.push_back(absl::StrCat("--quantize=", quantize));
      optimize.options += "\nquantize:" + quantize;
    }
    if (absl::GetFlag(FLAGS_timing)) optimize.args.push_back("--timing");
    if (!runner.Run(optimize)) return 1;

    Stage build{"build",
                Runfile("codegen/build"),
                {"--in", opts[t], "--out", exes[t], target_flag},
                {opts[t]},
                target_flag,
                {exes[t]},
                opts[t]};
    if (const std::string key = UserPath(absl::GetFlag(FLAGS_sign_key)); !key.empty() && !multi_target) {
      build.args.push_back(absl::StrCat("--sign_key=", key));
      build.input_files.push_back(key);  // another key, another executable
    }
    if (const std::string bounds = absl::GetFlag(FLAGS_upper_bound); !bounds.empty()) {
      build.args.push_back(absl::StrCat("--upper_bound=", bounds));
      build.options += "\nupper_bound:" + bounds;
    }
    if (absl::GetFlag(FLAGS_timing)) build.args.push_back("--timing");
    // Kernels already compiled (by another model, or this one before a change) are reused.
    if (cache) build.args.push_back(absl::StrCat("--kernel_cache=", cache->dir(), "/kernels"));
    if (!runner.Run(build)) return 1;
  }
  if (multi_target) {
    Stage merge{"merge", Runfile("codegen/build"), {"--merge", absl::StrJoin(exes, ","), "--out", exe}, exes, "", {exe},
                exe};
    if (const std::string key = UserPath(absl::GetFlag(FLAGS_sign_key)); !key.empty()) {
      merge.args.push_back(absl::StrCat("--sign_key=", key));
      merge.input_files.push_back(key);
    }
    if (!runner.Run(merge)) return 1;
  }

  if (!dump_dir.empty() || !absl::GetFlag(FLAGS_emit_dot).empty()) {
    absl::StatusOr<mlc::IRModule> parsed = mlc::LoadModule(ir);
    absl::StatusOr<mlc::IRModule> optimized = mlc::LoadModule(opt);
    if (!dump_dir.empty() && parsed.ok()) {
      (void)mlc::WriteFileAtomically(dump_dir + "/module.0000.input.py", mlc::PrintModule(*parsed));
      if (optimized.ok()) (void)mlc::WriteFileAtomically(dump_dir + "/module.final.py", mlc::PrintModule(*optimized));
    }
    if (!absl::GetFlag(FLAGS_emit_dot).empty() && optimized.ok()) {
      std::string dot = mlc::pipeline::FunctionToDot(*optimized, absl::GetFlag(FLAGS_func));
      if (absl::Status s = mlc::WriteFileAtomically(UserPath(absl::GetFlag(FLAGS_emit_dot)), dot); !s.ok()) {
        std::fprintf(stderr, "pipeline: %s\n", std::string(s.message()).c_str());
        return 1;
      }
    }
  }

  if (inputs.empty()) {
    // Without --out the work directory goes at exit: name no file that will not exist.
    if (keep_work) {
      std::printf("compiled %s -> %s (no --inputs: not run)\n", model.c_str(), exe.c_str());
    } else {
      std::printf("compiled %s (no --inputs: not run; --out DIR keeps the executable)\n", model.c_str());
    }
    return 0;
  }
  // The run stage: one .npy per tensor of the result (tuples are flattened in order).
  absl::StatusOr<mlc::IRModule> optimized = mlc::LoadModule(opt);
  if (!optimized.ok()) {
    std::fprintf(stderr, "pipeline: %s\n", std::string(optimized.status().message()).c_str());
    return 1;
  }
  mlc::relax::Function entry = optimized->LookupFunction(absl::GetFlag(FLAGS_func));
  if (!entry.defined()) {
    std::fprintf(stderr, "pipeline: the model has no function %s\n", absl::GetFlag(FLAGS_func).c_str());
    return 1;
  }
  std::function<int(const mlc::relax::StructInfo&)> count = [&](const mlc::relax::StructInfo& s) {
    const auto* t = s.as<mlc::relax::TupleStructInfoNode>();
    if (t == nullptr) return 1;
    int n = 0;
    for (const auto& f : t->fields) n += count(f);
    return n;
  };
  int num_outputs = count(entry->ret_struct_info);
  for (int i = 0; i < num_outputs; ++i) outputs.push_back(absl::StrCat(work, "/out", i, ".npy"));
  Stage run{"run",
            Runfile("vm/run"),
            {"--exe", exe, "--func", absl::GetFlag(FLAGS_func), "--inputs", absl::StrJoin(inputs, ","), "--outputs",
             absl::StrJoin(outputs, ",")},
            {exe},
            absl::StrCat(absl::GetFlag(FLAGS_func), "\n", absl::GetFlag(FLAGS_plugin)),
            outputs,
            exe};
  run.input_files.insert(run.input_files.end(), inputs.begin(), inputs.end());
  if (!absl::GetFlag(FLAGS_plugin).empty()) run.args.push_back(absl::StrCat("--plugin=", absl::GetFlag(FLAGS_plugin)));
  std::vector<std::string> trusted;
  for (absl::string_view k : absl::StrSplit(absl::GetFlag(FLAGS_trusted_keys), ',', absl::SkipEmpty()))
    trusted.push_back(UserPath(std::string(k)));
  if (!trusted.empty()) {
    run.args.push_back(absl::StrCat("--trusted_keys=", absl::StrJoin(trusted, ",")));
    run.input_files.insert(run.input_files.end(), trusted.begin(), trusted.end());
  }
  if (!runner.Run(run)) return 1;
  PrintPredictions(outputs, labels, absl::GetFlag(FLAGS_top));
  if (absl::GetFlag(FLAGS_profile)) {
    // Never cached: a profile is a measurement of now.
    std::vector<std::string> argv = {
        Runfile("vm/run"),          "--exe",    exe, "--func", absl::GetFlag(FLAGS_func), "--inputs",
        absl::StrJoin(inputs, ","), "--profile"};
    if (!absl::GetFlag(FLAGS_profile_json).empty())
      argv.push_back(absl::StrCat("--profile_json=", UserPath(absl::GetFlag(FLAGS_profile_json))));
    if (!absl::GetFlag(FLAGS_plugin).empty()) argv.push_back(absl::StrCat("--plugin=", absl::GetFlag(FLAGS_plugin)));
    if (!trusted.empty()) argv.push_back(absl::StrCat("--trusted_keys=", absl::StrJoin(trusted, ",")));
    for (const std::string& a : mlc::ResourceLimitFlagArgs()) argv.push_back(a);
    mlc::pipeline::ProcessResult r = mlc::pipeline::RunProcess(argv);
    std::fputs(r.stdout_text.c_str(), stdout);
    if (r.exit_code != 0) {
      std::fprintf(stderr, "pipeline: profiling failed:\n%s", r.stderr_text.c_str());
      return 1;
    }
  }
  if (keep_work) std::printf("stage outputs in %s\n", work.c_str());
  return 0;
}
