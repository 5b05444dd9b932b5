/*! \file build_test.cc
 *  \brief The build's handling of kernels as a whole: compiled on several threads into the same
 *         bytes as on one, the same bytes wherever the IR lives in memory, structurally equal
 *         kernels compiled once, kernel arguments checked against their declared types, the
 *         statistics --timing prints.
 */
#include "codegen/build.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "codegen/llvm/codegen_llvm.h"
#include "codegen/lower_tir.h"
#include "frontend/tvmscript.h"
#include "gtest/gtest.h"
#include "ir/target/target.h"
#include "tools/testing/kernel_harness.h"
#include "vm/virtual_machine.h"

namespace mlc {
namespace {

// y = x * c + 1 over n elements, for a few different (n, c): distinct kernels.
std::string ScaleKernel(const std::string& name, int n, double c) {
  return absl::StrCat("    @T.prim_func\n    def ", name, "(X: T.Buffer((", n, ",), \"float32\"), Y: T.Buffer((", n,
                      ",), \"float32\")):\n        for i in T.serial(", n,
                      "):\n            with T.block(\"y\"):\n                vi = T.axis.spatial(", n,
                      ", i)\n                Y[vi] = X[vi] * T.float32(", c, ") + T.float32(1)\n");
}

// A module whose main calls the given scale kernels (name, factor) one after the other on 8
// elements.
IRModule ChainModule(const std::vector<std::pair<std::string, double>>& kernels) {
  std::string text = "@I.ir_module\nclass Module:\n";
  for (const auto& [name, c] : kernels) text += ScaleKernel(name, 8, c);
  text += "    @R.function\n    def main(x: R.Tensor((8,), \"float32\")):\n        with R.dataflow():\n";
  std::string last = "x";
  for (size_t i = 0; i < kernels.size(); ++i) {
    const std::string v = absl::StrCat("v", i);
    absl::StrAppend(&text, "            ", v, " = R.call_tir(", kernels[i].first, ", (", last,
                    ",), R.Tensor((8,), \"float32\"))\n");
    last = v;
  }
  absl::StrAppend(&text, "            R.output(", last, ")\n        return ", last, "\n");
  absl::StatusOr<IRModule> mod = ParseTVMScript(text, "chain.py");
  EXPECT_TRUE(mod.ok()) << mod.status() << "\n" << text;
  return mod.ok() ? *mod : IRModule();
}

TEST(Codegen, KernelsCompileOnEveryThreadIntoTheBytesOneThreadGives) {
  std::string text = "@I.ir_module\nclass Module:\n";
  const int kKernels = 6;
  for (int i = 0; i < kKernels; ++i) text += ScaleKernel(absl::StrCat("scale", i), 16 + i, 0.5 + i);
  absl::StatusOr<IRModule> mod = ParseTVMScript(text, "kernels.py");
  ASSERT_TRUE(mod.ok()) << mod.status();
  std::vector<std::pair<std::string, tir::PrimFunc>> lowered;
  for (int i = 0; i < kKernels; ++i) {
    const std::string name = absl::StrCat("scale", i);
    absl::StatusOr<tir::PrimFunc> l = codegen::LowerPrimFunc(mod->LookupPrimFunc(name));
    ASSERT_TRUE(l.ok()) << l.status();
    lowered.emplace_back(name, *l);
  }
  absl::StatusOr<Target> target = Target::Parse("x86-64-v3");
  ASSERT_TRUE(target.ok()) << target.status();
  codegen::CodegenOptions one, two;
  one.num_threads = 1;
  two.num_threads = 2;
  absl::StatusOr<codegen::CompiledKernels> serial = codegen::CompileKernels(lowered, *target, one);
  absl::StatusOr<codegen::CompiledKernels> parallel = codegen::CompileKernels(lowered, *target, two);
  ASSERT_TRUE(serial.ok()) << serial.status();
  ASSERT_TRUE(parallel.ok()) << parallel.status();
  EXPECT_EQ(serial->threads, 1);
  EXPECT_EQ(parallel->threads, 2);
  std::set<int> used;
  for (const codegen::CompiledKernels::Kernel& k : parallel->kernels) used.insert(k.thread);
  EXPECT_EQ(used, (std::set<int>{0, 1})) << "every thread compiles at least one kernel";
  for (int i = 0; i < kKernels; ++i) {
    EXPECT_EQ(parallel->kernels[i].symbol, codegen::KernelSymbol(absl::StrCat("scale", i)));
    EXPECT_EQ(parallel->kernels[i].object, serial->kernels[i].object) << "kernel " << i;
  }
  EXPECT_EQ(parallel->shared_object, serial->shared_object);
  // Never more threads than kernels.
  codegen::CodegenOptions many;
  many.num_threads = 64;
  EXPECT_EQ(codegen::CodegenThreads(many, 3), 3);
}

// Leaves holes of many small sizes in the heap, freed in a shuffled order, so the next
// allocations (the IR's nodes) land at addresses in no particular order relative to one another.
// The blocks kept between the holes are returned by the caller.
std::vector<void*> ScrambleTheHeap(std::mt19937* rng) {
  std::vector<void*> blocks;
  for (size_t size = 16; size <= 1024; size += 16) {
    for (int i = 0; i < 64; ++i) blocks.push_back(std::malloc(size));
  }
  std::shuffle(blocks.begin(), blocks.end(), *rng);
  std::vector<void*> kept(blocks.begin() + blocks.size() / 2, blocks.end());
  for (size_t i = 0; i < blocks.size() / 2; ++i) std::free(blocks[i]);
  return kept;
}

// A kernel's machine code must not depend on where its IR's nodes happen to live: an outlined
// parallel body captures several buffers and scalars, and their order in its closure once
// followed their addresses, so two builds of one model could differ (the kernel cache and
// signatures rely on equal bytes).
TEST(Codegen, AParallelBodyCompilesToTheSameBytesWhereverItsNodesLive) {
  const std::string text = R"(
@I.ir_module
class Module:
    @T.prim_func
    def mix(A: T.Buffer((1024, 64), "float32"), B: T.Buffer((1024, 64), "float32"), C: T.Buffer((64,), "float32"), D: T.Buffer((1024, 64), "float32"), E: T.Buffer((1024, 64), "float32")):
        for i in T.parallel(1024):
            for j in T.serial(64):
                with T.block("D"):
                    vi = T.axis.spatial(1024, i)
                    vj = T.axis.spatial(64, j)
                    D[vi, vj] = A[vi, vj] * B[vi, vj] + C[vj]
            for j in T.serial(64):
                with T.block("E"):
                    vi = T.axis.spatial(1024, i)
                    vj = T.axis.spatial(64, j)
                    E[vi, vj] = D[vi, vj] - C[vj] * A[vi, vj]
)";
  absl::StatusOr<Target> target = Target::Parse("x86-64-v3");
  ASSERT_TRUE(target.ok()) << target.status();
  std::mt19937 rng(11);
  std::set<std::string> objects;
  std::vector<void*> kept;
  for (int build = 0; build < 6; ++build) {
    std::vector<void*> more = ScrambleTheHeap(&rng);
    kept.insert(kept.end(), more.begin(), more.end());
    absl::StatusOr<IRModule> mod = ParseTVMScript(text, "mix.py");
    ASSERT_TRUE(mod.ok()) << mod.status();
    more = ScrambleTheHeap(&rng);  // lowering makes new buffers
    kept.insert(kept.end(), more.begin(), more.end());
    absl::StatusOr<tir::PrimFunc> lowered = codegen::LowerPrimFunc(mod->LookupPrimFunc("mix"));
    ASSERT_TRUE(lowered.ok()) << lowered.status();
    absl::StatusOr<codegen::CompiledKernels> compiled =
        codegen::CompileKernels({{"mix", *lowered}}, *target, codegen::CodegenOptions());
    ASSERT_TRUE(compiled.ok()) << compiled.status();
    objects.insert(compiled->kernels[0].object);
  }
  for (void* block : kept) std::free(block);
  EXPECT_EQ(objects.size(), 1u) << "six builds of one kernel gave " << objects.size() << " different objects";
}

TEST(Build, StructurallyEqualKernelsCompileOnceAndShareASymbol) {
  // Two kernels equal but for their names (the parser gives each its global_symbol), and a third
  // that differs in a constant.
  const IRModule mod = ChainModule({{"first", 2}, {"again", 2}, {"other", 3}});
  codegen::BuildStats stats;
  codegen::BuildOptions options;
  options.stats = &stats;
  absl::StatusOr<proto::Executable> exe = codegen::Build(mod, options);
  ASSERT_TRUE(exe.ok()) << exe.status();
  EXPECT_EQ(stats.kernels, 3);
  EXPECT_EQ(stats.distinct_kernels, 2);
  EXPECT_EQ(stats.kernel_seconds.size(), 2u);
  std::map<std::string, std::string> symbol;
  for (const proto::Kernel& k : exe->kernels()) symbol[k.name()] = k.symbol();
  EXPECT_EQ(symbol["again"], symbol["first"]);
  EXPECT_NE(symbol["other"], symbol["first"]);
  bool timed_codegen = false;
  for (const auto& [phase, seconds] : stats.phases) timed_codegen |= phase.rfind("codegen", 0) == 0;
  EXPECT_TRUE(timed_codegen);
  // The shared kernel runs for both names: ((x * 2 + 1) * 2 + 1) * 3 + 1.
  absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> vm = vm::VirtualMachine::Load(*exe);
  ASSERT_TRUE(vm.ok()) << vm.status();
  std::mt19937 rng(3);
  vm::NDArray x = testing_util::Random({8}, &rng);
  absl::StatusOr<vm::Value> out = (*vm)->Invoke("main", {x});
  ASSERT_TRUE(out.ok()) << out.status();
  const float* y = testing_util::F(out->tensor());
  for (int i = 0; i < 8; ++i) {
    const double want = ((testing_util::F(x)[i] * 2.0 + 1) * 2 + 1) * 3 + 1;
    EXPECT_NEAR(y[i], want, 1e-5 * std::abs(want) + 1e-6) << i;
  }
}

// The interpreter checks each kernel argument against the kernel's declared buffer types,
// decoded once at load: an executable whose kernel declares another shape or dtype than the
// tensors it is given fails with the kernel, the buffer and both types named.
TEST(VirtualMachine, AKernelGivenATensorOfAnotherTypeIsNamed) {
  const IRModule mod = ChainModule({{"first", 2}});
  absl::StatusOr<proto::Executable> exe = codegen::Build(mod, codegen::BuildOptions());
  ASSERT_TRUE(exe.ok()) << exe.status();
  std::mt19937 rng(5);
  vm::NDArray x = testing_util::Random({8}, &rng);
  ASSERT_GT(exe->kernels_size(), 0);
  {
    proto::Executable wrong_shape = *exe;
    wrong_shape.mutable_kernels(0)->mutable_params(0)->set_shape(0, 9);
    absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> vm = vm::VirtualMachine::Load(wrong_shape);
    ASSERT_TRUE(vm.ok()) << vm.status();
    absl::StatusOr<vm::Value> out = (*vm)->Invoke("main", {x});
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(out.status().message().find("kernel first buffer 0 expects float32 (9,)"), std::string::npos)
        << out.status();
  }
  {
    proto::Executable wrong_dtype = *exe;
    wrong_dtype.mutable_kernels(0)->mutable_params(1)->mutable_dtype()->set_bits(16);
    absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> vm = vm::VirtualMachine::Load(wrong_dtype);
    ASSERT_TRUE(vm.ok()) << vm.status();
    absl::StatusOr<vm::Value> out = (*vm)->Invoke("main", {x});
    ASSERT_FALSE(out.ok());
    EXPECT_NE(out.status().message().find("kernel first buffer 1 expects float16"), std::string::npos) << out.status();
  }
  // The executable as built runs.
  absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> vm = vm::VirtualMachine::Load(*exe);
  ASSERT_TRUE(vm.ok()) << vm.status();
  EXPECT_TRUE((*vm)->Invoke("main", {x}).ok());
}

TEST(Build, AKernelCacheCompilesOnlyWhatChanged) {
  const std::string dir =
      absl::StrCat(std::getenv("TEST_TMPDIR") != nullptr ? std::getenv("TEST_TMPDIR") : "/tmp", "/kernel_cache_test");
  std::filesystem::remove_all(dir);
  auto module_with = [](double last_scale) {
    return ChainModule({{"first", 2}, {"second", 3}, {"third", last_scale}});
  };
  auto build = [&](const IRModule& mod, codegen::BuildStats* stats) {
    codegen::BuildOptions options;
    options.codegen.kernel_cache_dir = dir;
    options.stats = stats;
    absl::StatusOr<proto::Executable> exe = codegen::Build(mod, options);
    EXPECT_TRUE(exe.ok()) << exe.status();
    return exe.ok() ? exe->kernel_library() : std::string();
  };
  codegen::BuildStats first, again, changed;
  const std::string library = build(module_with(4), &first);
  EXPECT_EQ(first.cached_kernels, 0);
  EXPECT_EQ(build(module_with(4), &again), library) << "objects from the cache link into the same library";
  EXPECT_EQ(again.cached_kernels, 3);
  EXPECT_TRUE(again.kernel_seconds.empty()) << "nothing was compiled";
  build(module_with(5), &changed);
  EXPECT_EQ(changed.cached_kernels, 2) << "only the changed kernel is compiled";
  ASSERT_EQ(changed.kernel_seconds.size(), 1u);
  EXPECT_EQ(changed.kernel_seconds[0].first, "third");
}

}  // namespace
}  // namespace mlc
