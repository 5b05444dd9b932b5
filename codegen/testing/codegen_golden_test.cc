/*! \file codegen_golden_test.cc
 *  \brief The golden-file test of code generation: every case in one directory of
 *         testdata/codegen/ (lowering, llvm_ir), run as `codegen_golden_test testdata/codegen/<dir>`.
 *
 *  A case is a TVMScript module `<case>.py` of loop programs whose first line says what to emit:
 *      # RUN: --emit=lowered|llvm --target=<target> [--passes=<pipeline>]
 *  The target is recorded in the module (so the output does not depend on the machine), the
 *  pipeline runs when given (`default-schedule`, to see what a rule's loops become), and the
 *  module is built as //codegen:build builds it. Then:
 *   - the `# CHECK:` lines of the case (ir/testing/file_check.h) must match the lowered loop
 *     programs (TVMScript) or the optimized LLVM IR;
 *   - every PrimFunc with static shapes runs, compiled, on seeded random inputs and must match
 *     the loop-level interpreter (ir/tir/interpreter.h) on the case as written, before the
 *     pipeline: within 1e-4 of the result's scale for floats, exactly for integers. A case whose
 *     target needs a feature this CPU lacks is compiled and checked but not run, and the test
 *     prints which.
 */

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "codegen/build.h"
#include "frontend/tvmscript.h"
#include "gtest/gtest.h"
#include "ir/target/target.h"
#include "ir/testing/file_check.h"
#include "ir/tir/interpreter.h"
#include "passes/pass.h"
#include "support/case_files.h"
#include "support/cpu_features.h"
#include "support/file_util.h"
#include "support/tensor_data.h"
#include "vm/kernel_library.h"

namespace mlc {
namespace codegen {
namespace {

std::string g_dir;  // testdata/codegen/<dir>, from the command line

struct RunLine {
  std::string emit, target, passes;
};

absl::StatusOr<RunLine> ParseRunLine(const std::string& text) {
  const std::string first = text.substr(0, text.find('\n'));
  if (first.rfind("# RUN:", 0) != 0)
    return absl::InvalidArgumentError("a case starts with # RUN: --emit=... --target=...");
  RunLine run;
  for (absl::string_view word : absl::StrSplit(first.substr(6), ' ', absl::SkipEmpty())) {
    std::pair<std::string, std::string> kv = absl::StrSplit(word, absl::MaxSplits('=', 1));
    if (kv.first == "--emit")
      run.emit = kv.second;
    else if (kv.first == "--target")
      run.target = kv.second;
    else if (kv.first == "--passes")
      run.passes = kv.second;
    else
      return absl::InvalidArgumentError(absl::StrCat("unknown option '", word, "' on the RUN line"));
  }
  if (run.emit != "lowered" && run.emit != "llvm") return absl::InvalidArgumentError("--emit must be lowered or llvm");
  if (run.target.empty()) return absl::InvalidArgumentError("--target must be pinned (x86-64-v3, x86-64-v4, ...)");
  return run;
}

/*! \brief The static shape of a buffer, or nullopt when an extent is symbolic. */
std::optional<std::vector<int64_t>> StaticShape(const tir::Buffer& b) {
  std::vector<int64_t> shape;
  for (const tir::PrimExpr& e : b->shape) {
    const int64_t* v = tir::AsConstInt(e);
    if (v == nullptr) return std::nullopt;
    shape.push_back(*v);
  }
  return shape;
}

/*! \brief Seeded random contents: floats in [-1, 1), integers in [-4, 4] (unsigned [0, 8]). */
TensorData RandomTensor(DataType dtype, const std::vector<int64_t>& shape, std::mt19937* rng) {
  std::vector<double> values(NumElements(shape));
  std::uniform_real_distribution<double> real(-1, 1);
  std::uniform_int_distribution<int> small(dtype.is_uint() ? 0 : -4, dtype.is_uint() ? 8 : 4);
  for (double& v : values)
    v = dtype.is_float() ? real(*rng) : dtype == DataType::Bool() ? small(*rng) > 0 : small(*rng);
  return TensorFromDoubles(dtype, shape, values);
}

/*! \brief Runs `func` compiled (`kernel` of `library`) and interpreted (`reference`, the case as
 *  written) on the same seeded inputs; every buffer must agree afterwards. */
void ExpectCompiledMatchesInterpreter(const std::string& name, const tir::PrimFunc& reference,
                                      vm::KernelFunction kernel) {
  std::mt19937 rng(7);
  std::vector<TensorData> compiled, interpreted;
  for (const tir::Buffer& b : reference->params) {
    std::optional<std::vector<int64_t>> shape = StaticShape(b);
    ASSERT_TRUE(shape.has_value());
    compiled.push_back(RandomTensor(b->dtype, *shape, &rng));
    interpreted.push_back(TensorData(b->dtype, *shape, compiled.back().bytes()));  // a copy of its own
  }
  std::vector<TensorData*> ptrs;
  std::vector<void*> args;
  // Kernels may use aligned vector loads and stores: their buffers are 64-byte aligned, as the
  // VM allocates them (a TensorData's bytes are only as aligned as malloc makes them, and an
  // aligned AVX load from them faulted depending on where the heap put them).
  std::vector<std::unique_ptr<void, decltype(&std::free)>> aligned;
  for (size_t i = 0; i < compiled.size(); ++i) {
    ptrs.push_back(&interpreted[i]);
    const size_t size = compiled[i].bytes().size();
    aligned.emplace_back(std::aligned_alloc(64, (size + 63) / 64 * 64 + 64), &std::free);
    std::memcpy(aligned.back().get(), compiled[i].bytes().data(), size);
    args.push_back(aligned.back().get());
  }
  absl::Status s = tir::InterpretPrimFunc(reference, ptrs);
  ASSERT_TRUE(s.ok()) << name << ": the interpreter: " << s;
  ASSERT_EQ(kernel(args.data()), 0) << name << ": the compiled kernel returned an error";
  for (size_t i = 0; i < compiled.size(); ++i)
    std::memcpy(compiled[i].mutable_data(), aligned[i].get(), compiled[i].bytes().size());
  for (size_t i = 0; i < compiled.size(); ++i) {
    std::vector<double> got = *ValuesAsDouble(compiled[i]), want = *ValuesAsDouble(interpreted[i]);
    double scale = 0;
    for (double w : want) scale = std::max(scale, std::fabs(w));
    const bool exact = !reference->params[i]->dtype.is_float();
    const double tolerance = exact ? 0 : 1e-4 * std::max(1.0, scale);
    for (size_t j = 0; j < got.size(); ++j) {
      ASSERT_LE(std::fabs(got[j] - want[j]), tolerance)
          << name << ": buffer " << reference->params[i]->name << " element " << j << ": compiled " << got[j]
          << ", interpreted " << want[j];
    }
  }
}

TEST(CodegenGolden, EveryCaseOfThisDirectory) {
  std::vector<std::string> cases = CaseNames(g_dir, ".py");
  ASSERT_FALSE(cases.empty()) << "no cases in " << g_dir;
  const std::string tmp = std::getenv("TEST_TMPDIR") != nullptr ? std::getenv("TEST_TMPDIR") : "/tmp";
  for (const std::string& name : cases) {
    SCOPED_TRACE(name);
    const std::string path = absl::StrCat(g_dir, "/", name, ".py");
    const std::string text = *ReadFile(path);
    absl::StatusOr<RunLine> run = ParseRunLine(text);
    ASSERT_TRUE(run.ok()) << path << ": " << run.status();
    ASSERT_TRUE(testing::HasDirectives(text)) << path << ": a case needs CHECK lines";
    absl::StatusOr<IRModule> written = ParseTVMScript(text, path);
    ASSERT_TRUE(written.ok()) << written.status();
    IRModule mod = *written;
    ASSERT_TRUE(RecordTargetFlag(&mod.mutable_attrs(), run->target).ok());
    if (!run->passes.empty()) {
      absl::StatusOr<std::vector<std::unique_ptr<passes::Pass>>> pipeline = passes::ParsePipeline(run->passes);
      ASSERT_TRUE(pipeline.ok()) << pipeline.status();
      absl::StatusOr<IRModule> result = passes::RunPipeline(mod, *pipeline);
      ASSERT_TRUE(result.ok()) << result.status();
      mod = *result;
    }
    BuildOptions options;
    options.dump_lowered_path = absl::StrCat(tmp, "/", name, ".lowered.py");
    options.dump_llvm_path = absl::StrCat(tmp, "/", name, ".ll");
    absl::StatusOr<proto::Executable> exe = Build(mod, options);
    ASSERT_TRUE(exe.ok()) << exe.status();
    absl::StatusOr<std::string> output =
        ReadFile(run->emit == "lowered" ? options.dump_lowered_path : options.dump_llvm_path);
    ASSERT_TRUE(output.ok()) << output.status();
    testing::CheckDirectives(text, *output);

    absl::StatusOr<Target> target = Target::Parse(run->target);
    ASSERT_TRUE(target.ok()) << target.status();
    std::vector<std::string> missing;
    for (const std::string& f : target->features) {
      if (!HostHasCpuFeature(f)) missing.push_back(f);
    }
    if (!missing.empty()) {
      std::cout << "[ SKIPPED  ] running " << path << ": this CPU lacks " << absl::StrJoin(missing, ", ")
                << " (compiled and checked only)\n";
      continue;
    }
    absl::StatusOr<std::unique_ptr<vm::KernelLibrary>> library = vm::KernelLibrary::Load(exe->kernel_library());
    ASSERT_TRUE(library.ok()) << library.status();
    int ran = 0;
    for (const proto::Kernel& k : exe->kernels()) {
      tir::PrimFunc reference = written->LookupPrimFunc(k.name());
      if (!reference.defined()) continue;
      if (!absl::c_all_of(reference->params, [](const tir::Buffer& b) { return StaticShape(b).has_value(); })) {
        std::cout << "[ SKIPPED  ] running " << k.name() << " of " << path << ": symbolic shapes\n";
        continue;
      }
      absl::StatusOr<vm::KernelFunction> fn = (*library)->Lookup(k.symbol());
      ASSERT_TRUE(fn.ok()) << fn.status();
      ExpectCompiledMatchesInterpreter(k.name(), reference, *fn);
      ++ran;
    }
    EXPECT_GT(ran, 0) << path << ": no PrimFunc ran";
  }
}

}  // namespace
}  // namespace codegen
}  // namespace mlc

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (argc != 2) {
    std::cerr << "usage: codegen_golden_test testdata/codegen/<dir>\n";
    return 2;
  }
  mlc::codegen::g_dir = argv[1];
  return RUN_ALL_TESTS();
}
