/*! \file end_to_end_test.cc
 *  \brief End to end: TVMScript or BlockBuilder -> build (LLVM) -> VM, checked numerically
 *         against references computed here in double precision. Covers the seeds' modules
 *         (MyModule, MyModuleWithExternCall, MyModuleMixture, MyModuleWithParams, two dataflow
 *         blocks), the bundled digits MLP, every operator-library kernel on odd shapes, loop
 *         kinds, memory reuse, and the errors a user can hit.
 */
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "codegen/build.h"
#include "codegen/llvm/codegen_llvm.h"
#include "codegen/lower_tir.h"
#include "frontend/tvmscript.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/graph/block_builder.h"
#include "ir/graph/op.h"
#include "ir/graph/printer.h"
#include "ir/target/target.h"
#include "ir/te/call_te.h"
#include "ir/testing/golden.h"
#include "ir/topi/topi.h"
#include "passes/bind_params.h"
#include "passes/pass.h"
#include "support/file_util.h"
#include "support/npy.h"
#include "support/signature.h"
#include "tools/testing/kernel_harness.h"
#include "vm/kernel_abi.h"
#include "vm/thread_pool.h"
#include "vm/virtual_machine.h"
#include "vm/workspace_pool.h"

namespace mlc {
namespace {

using ::testing::HasSubstr;
using testing_util::Compile;
using testing_util::ExpectClose;
using testing_util::F;
using testing_util::kF32;
using testing_util::Random;
using testing_util::ToNDArray;
using testing_util::ToTensorData;
using testing_util::Unary;
using testing_util::WithMainCalling;
using vm::NDArray;
using vm::Value;

// ---- Helpers.

IRModule Parse(const std::string& path, ParseOptions options = {}) {
  absl::StatusOr<std::string> text = ReadFile(path);
  EXPECT_TRUE(text.ok()) << path;
  absl::StatusOr<IRModule> mod = ParseTVMScript(*text, path, options);
  EXPECT_TRUE(mod.ok()) << mod.status();
  return mod.ok() ? *mod : IRModule();
}

/*! \brief x @ w0.T + b0 -> relu -> @ w1.T + b1, in double. */
std::vector<double> MlpReference(const NDArray& x, const NDArray& w0, const NDArray& b0, const NDArray& w1,
                                 const NDArray& b1) {
  int64_t n = x.shape()[0], k = x.shape()[1], h = w0.shape()[0], m = w1.shape()[0];
  std::vector<double> hidden(n * h), out(n * m);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < h; ++j) {
      double acc = F(b0)[j];
      for (int64_t p = 0; p < k; ++p) acc += static_cast<double>(F(x)[i * k + p]) * F(w0)[j * k + p];
      hidden[i * h + j] = std::max(acc, 0.0);
    }
    for (int64_t j = 0; j < m; ++j) {
      double acc = F(b1)[j];
      for (int64_t p = 0; p < h; ++p) acc += hidden[i * h + p] * F(w1)[j * h + p];
      out[i * m + j] = acc;
    }
  }
  return out;
}

struct Mlp {
  NDArray x, w0, b0, w1, b1;
};
Mlp SeedMlp() {
  std::mt19937 rng(2024);
  return {Random({1, 784}, &rng, 0, 1), Random({128, 784}, &rng, -0.05f, 0.05f), Random({128}, &rng),
          Random({10, 128}, &rng, -0.1f, 0.1f), Random({10}, &rng)};
}

constexpr char kSeeds[] = "testdata/parse/inputs";

class PluginEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    absl::Status s = vm::RuntimeRegistry::Global().LoadPlugin("vm/examples/libenv_functions.so");
    ASSERT_TRUE(s.ok()) << s;
  }
};
const auto* const kPlugin = ::testing::AddGlobalTestEnvironment(new PluginEnvironment);

/*! \brief The one PrimFunc `name` of TVMScript `text`, called by a main, compiled and loaded. */
absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> CompileKernel(const std::string& text, const std::string& name) {
  absl::StatusOr<IRModule> mod = ParseTVMScript(text, absl::StrCat(name, ".py"));
  if (!mod.ok()) return mod.status();
  absl::StatusOr<IRModule> with_main = WithMainCalling(mod->LookupPrimFunc(name), name);
  if (!with_main.ok()) return with_main.status();
  return Compile(*with_main);
}

/*! \brief main(args) of CompileKernel(text, name), run once. */
absl::StatusOr<Value> RunKernel(const std::string& text, const std::string& name, const std::vector<Value>& args) {
  absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> vm = CompileKernel(text, name);
  if (!vm.ok()) return vm.status();
  return (*vm)->Invoke("main", args);
}

/*! \brief The PrimFunc `name` of TVMScript `text` after loop lowering. */
absl::StatusOr<tir::PrimFunc> Lowered(const std::string& text, const std::string& name) {
  absl::StatusOr<IRModule> mod = ParseTVMScript(text, absl::StrCat(name, ".py"));
  if (!mod.ok()) return mod.status();
  return codegen::LowerPrimFunc(mod->LookupPrimFunc(name));
}

/*! \brief The optimized LLVM IR of PrimFunc `func` (named `name`) compiled for the target `target_name`. */
absl::StatusOr<std::string> LlvmIr(const tir::PrimFunc& func, const std::string& name, const std::string& target_name) {
  absl::StatusOr<Target> target = Target::Parse(target_name);
  if (!target.ok()) return target.status();
  codegen::CodegenOptions options;
  options.keep_llvm_ir = true;
  absl::StatusOr<codegen::CompiledKernels> compiled = codegen::CompileKernels({{name, func}}, *target, options);
  if (!compiled.ok()) return compiled.status();
  return compiled->kernels[0].llvm_ir;
}

/*! \brief Lowered(text, name), printed. */
absl::StatusOr<std::string> LoweredText(const std::string& text, const std::string& name) {
  absl::StatusOr<tir::PrimFunc> lowered = Lowered(text, name);
  if (!lowered.ok()) return lowered.status();
  IRModule shown;
  shown.Add(name, *lowered);
  return PrintModule(shown);
}

// ---- The seeds' modules, with the seeds' 784 -> 128 -> 10 shapes and fixed random weights.

TEST(SeedModules, MyModuleMatchesTheReference) {
  Mlp m = SeedMlp();
  absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> vm = Compile(Parse(absl::StrCat(kSeeds, "/e2e_my_module.py")));
  ASSERT_TRUE(vm.ok()) << vm.status();
  absl::StatusOr<Value> out = (*vm)->Invoke("main", {m.x, m.w0, m.b0, m.w1, m.b1});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectClose(out->tensor(), MlpReference(m.x, m.w0, m.b0, m.w1, m.b1));
}

TEST(SeedModules, WithExternCallUsesRuntimeFunctions) {
  Mlp m = SeedMlp();
  absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> vm =
      Compile(Parse(absl::StrCat(kSeeds, "/e2e_my_module_with_extern_call.py")));
  ASSERT_TRUE(vm.ok()) << vm.status();
  EXPECT_EQ((*vm)->executable().kernels_size(), 0);
  absl::StatusOr<Value> out = (*vm)->Invoke("main", {m.x, m.w0, m.b0, m.w1, m.b1});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectClose(out->tensor(), MlpReference(m.x, m.w0, m.b0, m.w1, m.b1));
}

TEST(SeedModules, MixtureOfKernelAndRuntimeFunctions) {
  Mlp m = SeedMlp();
  absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> vm =
      Compile(Parse(absl::StrCat(kSeeds, "/e2e_my_module_mixture.py")));
  ASSERT_TRUE(vm.ok()) << vm.status();
  absl::StatusOr<Value> out = (*vm)->Invoke("main", {m.x, m.w0, m.b0, m.w1, m.b1});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectClose(out->tensor(), MlpReference(m.x, m.w0, m.b0, m.w1, m.b1));
}

TEST(SeedModules, WithParamsTakesOnlyTheInput) {
  Mlp m = SeedMlp();
  IRModule mixture = Parse(absl::StrCat(kSeeds, "/e2e_my_module_mixture.py"));
  absl::StatusOr<IRModule> bound = passes::BindParams(
      mixture, "main",
      {{"w0", ToTensorData(m.w0)}, {"b0", ToTensorData(m.b0)}, {"w1", ToTensorData(m.w1)}, {"b1", ToTensorData(m.b1)}});
  ASSERT_TRUE(bound.ok()) << bound.status();
  EXPECT_EQ(bound->LookupFunction("main")->params.size(), 1u);
  EXPECT_THAT(PrintModule(*bound), HasSubstr("metadata[\"relax.expr.Constant\"][3]"));
  absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> vm = Compile(*bound);
  ASSERT_TRUE(vm.ok()) << vm.status();
  absl::StatusOr<Value> out = (*vm)->Invoke("main", {m.x});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectClose(out->tensor(), MlpReference(m.x, m.w0, m.b0, m.w1, m.b1));

  // The seed's own printed MyModuleWithParams (constants from the same weights) runs too.
  ParseOptions options;
  options.constants =
      std::vector<TensorData>{ToTensorData(m.w0), ToTensorData(m.b0), ToTensorData(m.w1), ToTensorData(m.b1)};
  absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> printed =
      Compile(Parse(absl::StrCat(kSeeds, "/e2e_my_module_with_params_printed.py"), options));
  ASSERT_TRUE(printed.ok()) << printed.status();
  absl::StatusOr<Value> out2 = (*printed)->Invoke("main", {m.x});
  ASSERT_TRUE(out2.ok()) << out2.status();
  ExpectClose(out2->tensor(), MlpReference(m.x, m.w0, m.b0, m.w1, m.b1));
}

TEST(SeedModules, BindParamsRejectsMismatches) {
  Mlp m = SeedMlp();
  IRModule mod = Parse(absl::StrCat(kSeeds, "/e2e_my_module_mixture.py"));
  absl::StatusOr<IRModule> wrong = passes::BindParams(mod, "main", {{"w0", ToTensorData(m.w1)}});
  ASSERT_FALSE(wrong.ok());
  EXPECT_THAT(
      std::string(wrong.status().message()),
      HasSubstr("parameter w0 of @main is Tensor((128, 784), float32), the value given is Tensor((10, 128), float32)"));
  absl::StatusOr<IRModule> unknown = passes::BindParams(mod, "main", {{"w9", ToTensorData(m.w1)}});
  ASSERT_FALSE(unknown.ok());
  EXPECT_THAT(std::string(unknown.status().message()),
              HasSubstr("no parameter \"w9\" (parameters: x, w0, b0, w1, b1)"));
}

TEST(SeedModules, TwoDataflowBlocksAroundAnAllocation) {
  Mlp m = SeedMlp();
  // The second block reads the uninitialized R.alloc_tensor result gv1, so the test makes main
  // also return gv0 and gv1 (the seed text otherwise verbatim) and checks every number:
  // gv0 = relu(x @ w0.T + b0), out = gv0 * gv1 + b0.
  std::string path = absl::StrCat(kSeeds, "/e2e_two_dataflow_blocks.py");
  std::string text = *ReadFile(path);
  ASSERT_NE(text.find("        return out"), std::string::npos);
  text.replace(text.find("        return out"), 18, "        return (gv0, gv1, out)");
  absl::StatusOr<IRModule> mod = ParseTVMScript(text, path);
  ASSERT_TRUE(mod.ok()) << mod.status();
  absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> vm = Compile(*mod);
  ASSERT_TRUE(vm.ok()) << vm.status();
  absl::StatusOr<Value> out = (*vm)->Invoke("main", {m.x, m.w0, m.b0, m.w1, m.b1});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_TRUE(out->is_tuple());
  const NDArray& gv0 = out->tuple()[0].tensor();
  const NDArray& gv1 = out->tuple()[1].tensor();
  std::vector<double> hidden(128);
  for (int j = 0; j < 128; ++j) {
    double acc = F(m.b0)[j];
    for (int k = 0; k < 784; ++k) acc += static_cast<double>(F(m.x)[k]) * F(m.w0)[j * 784 + k];
    hidden[j] = std::max(acc, 0.0);
  }
  ExpectClose(gv0, hidden);
  const float* got = F(out->tuple()[2].tensor());
  for (int j = 0; j < 128; ++j) {
    double g1 = F(gv1)[j];
    if (!std::isfinite(g1) || std::fabs(g1) > 1e30) continue;  // whatever the fresh memory held
    double want = static_cast<double>(F(gv0)[j]) * g1 + F(m.b0)[j];
    EXPECT_NEAR(got[j], want, 1e-5 * (1 + std::fabs(want))) << "element " << j;
  }
}

// ---- Graph-level passes keep the numbers: the seeds' high-level MLP before and after.

absl::StatusOr<Value> RunWithPasses(const IRModule& mod, const std::string& pipeline, const std::vector<Value>& args) {
  absl::StatusOr<std::vector<std::unique_ptr<passes::Pass>>> passes = passes::ParsePipeline(pipeline);
  if (!passes.ok()) return passes.status();
  absl::StatusOr<IRModule> lowered = passes::RunPipeline(mod, *passes);
  if (!lowered.ok()) return lowered.status();
  absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> vm = Compile(*lowered);
  if (!vm.ok()) return vm.status();
  return (*vm)->Invoke("main", args);
}

TEST(GraphPasses, SeedMlpGivesTheSameOutputsThroughEveryPipeline) {
  Mlp m = SeedMlp();
  ParseOptions options;
  options.constants =
      std::vector<TensorData>{ToTensorData(m.w0), ToTensorData(m.b0), ToTensorData(m.w1), ToTensorData(m.b1)};
  IRModule high_level = Parse(absl::StrCat(kSeeds, "/graphopt_mlp.py"), options);  // nn.dense, add, relu
  std::vector<double> want = MlpReference(m.x, m.w0, m.b0, m.w1, m.b1);
  for (const char* pipeline :
       {"legalize", "fuse-dense-add,legalize,fuse-tir", "fuse-ops,legalize,fuse-tir", "O0", "blas", "default"}) {
    SCOPED_TRACE(pipeline);
    absl::StatusOr<Value> out = RunWithPasses(high_level, pipeline, {m.x});
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectClose(out->tensor(), want);
  }
  // The seeds' other spelling of the same model: permute_dims + matmul + add.
  IRModule permute = Parse(absl::StrCat(kSeeds, "/integ_mlp_high_level_v2.py"), options);
  for (const char* pipeline :
       {"canonicalize-bindings,fuse-ops,legalize,fuse-tir", "dispatch-blas,fuse-ops,legalize,fuse-tir"}) {
    SCOPED_TRACE(pipeline);
    absl::StatusOr<Value> out = RunWithPasses(permute, pipeline, {m.x});
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectClose(out->tensor(), want);
  }
}

TEST(GraphPasses, GemmColumnsPaddedToWholeVectorsRunAsRegisterTilesAndMatch) {
  // MLP-Mixer's token mixing: x [1, 24, 40] @ w [40, 60] + b, transposed to [1, 60, 24], plus r.
  // 60 columns are no whole number of vectors on AVX2 (8 lanes) or AVX-512 (16): pad-gemm-columns
  // computes 64 with zero weight columns and slices 60, so the GEMM rule's tiles (over panels
  // packed at compile time: the kernel's `_packed` name) apply where none divided 60.
  std::mt19937 rng(11);
  NDArray w = Random({40, 60}, &rng), b = Random({60}, &rng), x = Random({1, 24, 40}, &rng),
          r = Random({1, 60, 24}, &rng);
  ParseOptions options;
  options.constants = std::vector<TensorData>{ToTensorData(w), ToTensorData(b)};
  absl::StatusOr<IRModule> mod = ParseTVMScript(R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 24, 40), dtype="float32"), r: R.Tensor((1, 60, 24), dtype="float32")):
        with R.dataflow():
            y = R.matmul(x, metadata["relax.expr.Constant"][0], out_dtype="void")
            yb = R.add(y, metadata["relax.expr.Constant"][1])
            t = R.permute_dims(yb, axes=[0, 2, 1])
            gv = R.add(t, r)
            R.output(gv)
        return gv
)",
                                                "token_mixing", options);
  ASSERT_TRUE(mod.ok()) << mod.status();
  absl::StatusOr<IRModule> built = passes::RunPipeline(*mod, *passes::ParsePipeline("default"));
  ASSERT_TRUE(built.ok()) << built.status();
  std::vector<std::string> kernels;
  for (const auto& [name, f] : built->functions()) {
    if (built->LookupPrimFunc(name).defined()) kernels.push_back(name);
  }
  EXPECT_THAT(kernels, ::testing::ElementsAre("fused_matmul_strided_slice_add_permute_dims_add_packed"));
  absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> vm = Compile(*built);
  ASSERT_TRUE(vm.ok()) << vm.status();
  absl::StatusOr<Value> out = (*vm)->Invoke("main", {Value(x), Value(r)});
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<double> want(60 * 24);
  for (int j = 0; j < 60; ++j) {
    for (int i = 0; i < 24; ++i) {
      double d = F(b)[j];
      for (int k = 0; k < 40; ++k) d += double(F(x)[i * 40 + k]) * F(w)[k * 60 + j];
      want[j * 24 + i] = d + F(r)[j * 24 + i];
    }
  }
  ExpectClose(out->tensor(), want);
}

TEST(GraphPasses, SharedDenseIsNotDuplicatedAndResultsAgree) {
  IRModule mod = Parse("testdata/passes/fuse_ops/shared_dense.py");
  std::mt19937 rng(3);
  std::vector<Value> args = {Random({4, 16}, &rng), Random({8, 16}, &rng), Random({8}, &rng), Random({8}, &rng)};
  absl::StatusOr<Value> plain = RunWithPasses(mod, "legalize", args);
  absl::StatusOr<Value> fused = RunWithPasses(mod, "fuse-ops,legalize,fuse-tir", args);
  ASSERT_TRUE(plain.ok()) << plain.status();
  ASSERT_TRUE(fused.ok()) << fused.status();
  for (int i = 0; i < 2; ++i) {
    const NDArray& a = plain->tuple()[i].tensor();
    std::vector<double> want(F(a), F(a) + a.NumElements());
    ExpectClose(fused->tuple()[i].tensor(), want, 1e-6, 1e-6);
  }
  absl::StatusOr<IRModule> lowered = passes::RunPipeline(mod, *passes::ParsePipeline("fuse-ops,legalize,fuse-tir"));
  ASSERT_TRUE(lowered.ok());
  int dense_kernels = 0;
  for (const auto& [name, f] : lowered->functions()) {
    if (f->kind() == NodeKind::kPrimFunc &&
        PrintPrimFunc(f.as_ref<tir::PrimFunc>(), name).find("T_matmul_NT") != std::string::npos) {
      ++dense_kernels;
    }
  }
  EXPECT_EQ(dense_kernels, 1);
}

TEST(Build, EqualConstantsAreStoredOnceAcrossFunctions) {
  // Two entry points that each hold their own copy of one weight (equal bytes, distinct objects,
  // as passes leave a decoder's main and @prefill) and a third whose constant differs: the
  // executable stores two constants, and each function adds its own values.
  auto weight = [](float scale) {
    TensorData t(DataType::Float32(), {8});
    for (int i = 0; i < 8; ++i) static_cast<float*>(t.mutable_data())[i] = scale * static_cast<float>(i + 1);
    return t;
  };
  const std::vector<std::pair<std::string, float>> functions = {{"main", 1.0f}, {"second", 1.0f}, {"third", 2.0f}};
  relax::BlockBuilder bb;
  for (const auto& [name, scale] : functions) {
    relax::Var x = relax::MakeVar("x", relax::TensorSInfo({8}, DataType::Float32()));
    ASSERT_TRUE(bb.BeginFunction(name, std::vector<relax::Var>{x}).ok());
    ASSERT_TRUE(bb.BeginDataflow().ok());
    absl::StatusOr<relax::Var> y =
        bb.Emit(relax::MakeCall(relax::GetOpOrDie("add"), {x, relax::MakeConstant(weight(scale))}));
    ASSERT_TRUE(y.ok()) << y.status();
    absl::StatusOr<relax::Var> out = bb.EmitOutput(*y);
    ASSERT_TRUE(out.ok() && bb.EndDataflow().ok());
    ASSERT_TRUE(bb.EmitFuncOutput(*out).ok());
  }
  absl::StatusOr<IRModule> lowered = passes::RunPipeline(bb.Get(), *passes::ParsePipeline("legalize"));
  ASSERT_TRUE(lowered.ok()) << lowered.status();
  absl::StatusOr<proto::Executable> exe = codegen::Build(*lowered, codegen::BuildOptions());
  ASSERT_TRUE(exe.ok()) << exe.status();
  EXPECT_EQ(exe->constants_size(), 2);
  absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> machine = vm::VirtualMachine::Load(*exe);
  ASSERT_TRUE(machine.ok()) << machine.status();
  std::mt19937 rng(5);
  for (const auto& [name, scale] : functions) {
    NDArray x = Random({8}, &rng);
    absl::StatusOr<Value> out = (*machine)->Invoke(name, {x});
    ASSERT_TRUE(out.ok()) << name << ": " << out.status();
    std::vector<double> want(8);
    for (int i = 0; i < 8; ++i) want[i] = F(x)[i] + scale * (i + 1);
    ExpectClose(out->tensor(), want, 1e-6, 1e-6);
    // Each reads one constant; the two equal ones are the same.
    EXPECT_EQ((*machine)->ConstantBytesReadBy(name), 8 * 4) << name;
  }
}

// ---- The bundled digits model.

TEST(DigitsMlp, CompiledAccuracyEqualsTheReference) {
  const std::string dir = "testdata/models/digits_mlp";
  absl::StatusOr<std::map<std::string, TensorData>> params = ReadNpz(absl::StrCat(dir, "/params.npz"));
  ASSERT_TRUE(params.ok()) << params.status();
  absl::StatusOr<IRModule> bound = passes::BindParams(Parse(absl::StrCat(dir, "/mlp.py")), "main", *params);
  ASSERT_TRUE(bound.ok()) << bound.status();
  absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> vm = Compile(*bound);
  ASSERT_TRUE(vm.ok()) << vm.status();
  NDArray x = ToNDArray(*ReadNpy(absl::StrCat(dir, "/test_x.npy")));
  TensorData labels = *ReadNpy(absl::StrCat(dir, "/test_y.npy"));
  TensorData reference = *ReadNpy(absl::StrCat(dir, "/reference.npy"));
  absl::StatusOr<Value> out = (*vm)->Invoke("main", {x});
  ASSERT_TRUE(out.ok()) << out.status();
  const float* ref = reference.data_as<float>();
  ExpectClose(out->tensor(), std::vector<double>(ref, ref + reference.NumElements()), 1e-5, 1e-4);
  int correct = 0, agree = 0, ref_correct = 0;
  for (int i = 0; i < 360; ++i) {
    const float* row = F(out->tensor()) + i * 10;
    const float* ref_row = ref + i * 10;
    int pred = static_cast<int>(std::max_element(row, row + 10) - row);
    int ref_pred = static_cast<int>(std::max_element(ref_row, ref_row + 10) - ref_row);
    correct += pred == labels.data_as<int64_t>()[i];
    ref_correct += ref_pred == labels.data_as<int64_t>()[i];
    agree += pred == ref_pred;
  }
  EXPECT_EQ(agree, 360);
  EXPECT_EQ(correct, ref_correct);
  EXPECT_GE(correct, 340);  // 97.5% when trained
  // A second run reuses the intermediates' memory from the pool.
  ASSERT_TRUE((*vm)->Invoke("main", {x}).ok());
  EXPECT_GT((*vm)->pool().reused(), 0u);
}

// ---- Loop kinds and memory reuse.

TEST(Codegen, ParallelVectorizedAndUnrolledLoops) {
  const std::string text = R"(
@I.ir_module
class Loops:
    @T.prim_func
    def scale(A: T.Buffer((256, 129), "float32"), B: T.Buffer((256, 129), "float32")):
        for i in T.parallel(256):
            for j in T.vectorized(129):
                with T.block("B"):
                    vi = T.axis.spatial(256, i)
                    vj = T.axis.spatial(129, j)
                    B[vi, vj] = A[vi, vj] * T.float32(2) + T.Cast("float32", vi)

    @T.prim_func
    def rowsum(A: T.Buffer((256, 129), "float32"), S: T.Buffer((256,), "float32")):
        for i in T.parallel(256):
            for k in T.unroll(129):
                with T.block("S"):
                    vi, vk = T.axis.remap("SR", [i, k])
                    with T.init():
                        S[vi] = T.float32(0)
                    S[vi] = S[vi] + A[vi, vk]

    @R.function
    def main(a: R.Tensor((256, 129), "float32")) -> R.Tuple(R.Tensor((256, 129), "float32"), R.Tensor((256,), "float32")):
        with R.dataflow():
            b = R.call_tir(scale, (a,), out_sinfo=R.Tensor((256, 129), "float32"))
            s = R.call_tir(rowsum, (b,), out_sinfo=R.Tensor((256,), "float32"))
            out = (b, s)
            R.output(out)
        return out
)";
  absl::StatusOr<IRModule> mod = ParseTVMScript(text, "loops.py");
  ASSERT_TRUE(mod.ok()) << mod.status();
  absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> vm = Compile(*mod);
  ASSERT_TRUE(vm.ok()) << vm.status();
  std::mt19937 rng(5);
  NDArray a = Random({256, 129}, &rng);
  absl::StatusOr<Value> out = (*vm)->Invoke("main", {a});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_TRUE(out->is_tuple());
  std::vector<double> b(256 * 129), s(256, 0);
  for (int i = 0; i < 256; ++i) {
    for (int j = 0; j < 129; ++j) {
      b[i * 129 + j] = F(a)[i * 129 + j] * 2.0f + i;
      s[i] += static_cast<float>(b[i * 129 + j]);
    }
  }
  ExpectClose(out->tuple()[0].tensor(), b);
  ExpectClose(out->tuple()[1].tensor(), s, 1e-5, 1e-3);
  // The parallel loops (256 x 129 innermost steps each, above codegen::kMinParallelIterations)
  // ran on more than one thread.
  vm::ThreadPool& pool = vm::ThreadPool::Global();
  if (pool.num_threads() > 1) {
    int64_t before = pool.worker_chunks();
    ASSERT_TRUE((*vm)->Invoke("main", {a}).ok());
    EXPECT_GE(pool.worker_chunks() - before, 2) << "both parallel loops should hand chunks to the workers";
  } else {
    GTEST_LOG_(WARNING) << "one core: the parallel loops could only be checked numerically";
  }
}

// A parallel loop with little work in all runs on the calling thread (handing chunks to the
// pool would cost more than the loop); with a symbolic extent the kernel decides per call.
TEST(Codegen, ParallelLoopsWithLittleWorkRunOnTheCallingThread) {
  const std::string text = R"(
@I.ir_module
class Loops:
    @T.prim_func
    def scale(x: T.handle, y: T.handle):
        n = T.int64()
        X = T.match_buffer(x, (n, 64), "float32")
        Y = T.match_buffer(y, (n, 64), "float32")
        for i in T.parallel(n):
            for j in T.vectorized(64):
                with T.block("Y"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    Y[vi, vj] = X[vi, vj] * T.float32(3)

    @R.function
    def main(x: R.Tensor(("n", 64), "float32")) -> R.Tensor(("n", 64), "float32"):
        n = T.int64()
        with R.dataflow():
            y = R.call_tir(scale, (x,), out_sinfo=R.Tensor((n, 64), "float32"))
            R.output(y)
        return y
)";
  absl::StatusOr<IRModule> mod = ParseTVMScript(text, "small_loops.py");
  ASSERT_TRUE(mod.ok()) << mod.status();
  absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> vm = Compile(*mod);
  ASSERT_TRUE(vm.ok()) << vm.status();
  vm::ThreadPool& pool = vm::ThreadPool::Global();
  std::mt19937 rng(3);
  // rows * 64 steps against the threshold: 4 rows run serially, 1024 rows in parallel.
  for (int64_t rows : {int64_t{4}, int64_t{1024}}) {
    NDArray x = Random({rows, 64}, &rng);
    const int64_t before = pool.worker_chunks();
    absl::StatusOr<Value> out = (*vm)->Invoke("main", {x});
    ASSERT_TRUE(out.ok()) << out.status();
    std::vector<double> expected(rows * 64);
    for (int64_t i = 0; i < rows * 64; ++i) expected[i] = F(x)[i] * 3.0f;
    ExpectClose(out->tensor(), expected);
    const bool parallel = rows * 64 >= codegen::kMinParallelIterations;
    if (!parallel) {
      EXPECT_EQ(pool.worker_chunks(), before) << rows << " rows: the workers got chunks of a loop this small";
    } else if (pool.num_threads() > 1) {
      EXPECT_GT(pool.worker_chunks(), before) << rows << " rows: no chunk reached the workers";
    }
  }
}

TEST(VirtualMachine, AThreadChoiceTimesEachFunctionOnThePoolAndOnOneThread) {
  const std::string text = R"(
@I.ir_module
class Loops:
    @T.prim_func
    def scale(X: T.Buffer((2048, 64), "float32"), Y: T.Buffer((2048, 64), "float32")):
        for i in T.parallel(2048):
            for j in T.vectorized(64):
                with T.block("Y"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    Y[vi, vj] = X[vi, vj] * T.float32(3)

    @R.function
    def main(x: R.Tensor((2048, 64), "float32")) -> R.Tensor((2048, 64), "float32"):
        with R.dataflow():
            y = R.call_tir(scale, (x,), out_sinfo=R.Tensor((2048, 64), "float32"))
            R.output(y)
        return y
)";
  absl::StatusOr<IRModule> mod = ParseTVMScript(text, "choice.py");
  ASSERT_TRUE(mod.ok()) << mod.status();
  absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> vm = Compile(*mod);
  ASSERT_TRUE(vm.ok()) << vm.status();
  const int threads_before = vm::ThreadPool::Global().num_threads();
  vm::ThreadPool::SetGlobalThreads(2);
  (*vm)->ChooseThreadsByTiming(true);
  std::mt19937 rng(3);
  NDArray x = Random({2048, 64}, &rng);
  // Whether the workers took part in the next run (every thread runs part of every launch).
  auto run_used_workers = [&]() {
    const int64_t before = vm::ThreadPool::Global().worker_chunks();
    absl::StatusOr<Value> out = (*vm)->Invoke("main", {x});
    EXPECT_TRUE(out.ok()) << out.status();
    return vm::ThreadPool::Global().worker_chunks() > before;
  };
  const int per_side = vm::ThreadChoice::kProbeRunsPerSide;
  EXPECT_TRUE(run_used_workers()) << "the warm-up run";
  for (int r = 0; r < per_side; ++r) EXPECT_TRUE(run_used_workers()) << "the pool's probe run " << r;
  for (int r = 0; r < per_side; ++r) EXPECT_FALSE(run_used_workers()) << "one thread's probe run " << r;
  const vm::ThreadChoice* choice = (*vm)->thread_choice("main");
  ASSERT_NE(choice, nullptr);
  EXPECT_FALSE(choice->probing());
  EXPECT_GT(choice->pool_seconds(), 0);
  EXPECT_GT(choice->serial_seconds(), 0);
  const bool serial = choice->serial_chosen();
  for (int r = 0; r < 3; ++r) EXPECT_EQ(run_used_workers(), !serial) << "after the probe, run " << r;
  // Another pool size: measured afresh, from a warm-up run on the pool.
  vm::ThreadPool::SetGlobalThreads(3);
  EXPECT_TRUE(run_used_workers());
  EXPECT_TRUE((*vm)->thread_choice("main")->probing());
  vm::ThreadPool::SetGlobalThreads(threads_before);
}

TEST(Codegen, LargeBuffersComeFromTheReusedWorkspace) {
  // B is 64 x 129 floats (33 KB): too large for the stack, so it comes from the workspace pool,
  // which recycles it on the next call instead of growing.
  const std::string text = R"(
@I.ir_module
class Module:
    @T.prim_func
    def twice(A: T.Buffer((64, 129), "float32"), C: T.Buffer((64, 129), "float32")):
        B = T.alloc_buffer((64, 129))
        for i, j in T.grid(64, 129):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] * T.float32(2)
        for i, j in T.grid(64, 129):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = B[vi, 128 - vj] + T.float32(1)
)";
  absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> vm = CompileKernel(text, "twice");
  ASSERT_TRUE(vm.ok()) << vm.status();
  std::mt19937 rng(2);
  NDArray a = Random({64, 129}, &rng);
  vm::WorkspacePool& workspace = vm::WorkspacePool::Global();
  int64_t held_before = workspace.bytes_held();
  absl::StatusOr<Value> out = (*vm)->Invoke("main", {a});
  ASSERT_TRUE(out.ok()) << out.status();
  int64_t held_after_first = workspace.bytes_held();
  EXPECT_GE(held_after_first - held_before, 64 * 129 * 4);
  for (int r = 0; r < 3; ++r) ASSERT_TRUE((*vm)->Invoke("main", {a}).ok());
  EXPECT_EQ(workspace.bytes_held(), held_after_first);
  std::vector<double> want(64 * 129);
  for (int i = 0; i < 64; ++i) {
    for (int j = 0; j < 129; ++j) want[i * 129 + j] = F(a)[i * 129 + 128 - j] * 2.0f + 1.0f;
  }
  ExpectClose(out->tensor(), want);
}

TEST(Codegen, AHeapWorkspaceInAParallelBodyNeedsNoRunTimeOverlapChecks) {
  // A 3 x 3 window maximum over planes padded one by one: B's region per iteration of i (30 x 30
  // x 16 floats, 58 KB) is beyond the stack's limit, so each parallel iteration takes it from the workspace
  // and frees it. The call that frees it captures the pointer, and LLVM then could not tell B
  // from C once the parallel body was inlined: it versioned the vectorized loops on run-time
  // overlap checks (GoogLeNet's pools padded per plane ran 1.5-2x slower than padded whole).
  // Every access carries its buffer's alias scope, so the loops need none, on any target.
  const std::string text = R"(
@I.ir_module
class Module:
    @T.prim_func
    def planes(A: T.Buffer((8, 28, 28, 16), "float32"), C: T.Buffer((8, 28, 28, 16), "float32")):
        B = T.alloc_buffer((8, 30, 30, 16))
        for i in T.parallel(8):
            for j, k in T.grid(28, 28):
                for l in T.vectorized(16):
                    with T.block("B"):
                        vi, vj, vk, vl = T.axis.remap("SSSS", [i, j, k, l])
                        B[vi, vj + 1, vk + 1, vl] = A[vi, vj, vk, vl]
            for e, j in T.grid(2, 30):
                for l in T.vectorized(16):
                    with T.block("B_rows"):
                        vi, ve, vj, vl = T.axis.remap("SSSS", [i, e, j, l])
                        B[vi, ve * 29, vj, vl] = T.float32("-inf")
            for e, j in T.grid(2, 30):
                for l in T.vectorized(16):
                    with T.block("B_columns"):
                        vi, ve, vj, vl = T.axis.remap("SSSS", [i, e, j, l])
                        B[vi, vj, ve * 29, vl] = T.float32("-inf")
            for j, k0 in T.grid(28, 4):
                for k1, l in T.grid(7, 16):
                    with T.block("C_init"):
                        vi, vj, vl = T.axis.remap("SSS", [i, j, l])
                        vk = T.axis.spatial(28, k0 * 7 + k1)
                        C[vi, vj, vk, vl] = T.float32("-inf")
                for r0 in T.unroll(3):
                    for r1 in T.unroll(3):
                        for k1 in T.unroll(7):
                            for l in T.vectorized(16):
                                with T.block("C"):
                                    vi, vj, vl, vr0, vr1 = T.axis.remap("SSSRR", [i, j, l, r0, r1])
                                    vk = T.axis.spatial(28, k0 * 7 + k1)
                                    C[vi, vj, vk, vl] = T.max(C[vi, vj, vk, vl], B[vi, vj + vr0, vk + vr1, vl])
)";
  absl::StatusOr<std::string> lowered = LoweredText(text, "planes");
  ASSERT_TRUE(lowered.ok()) << lowered.status();
  ASSERT_LT(lowered->find("T.parallel"), lowered->find("B = T.allocate")) << *lowered;
  absl::StatusOr<tir::PrimFunc> func = Lowered(text, "planes");
  ASSERT_TRUE(func.ok()) << func.status();
  for (const char* name : {"x86-64-v3", "x86-64-v4"}) {
    SCOPED_TRACE(name);
    absl::StatusOr<std::string> ir = LlvmIr(*func, "planes", name);
    ASSERT_TRUE(ir.ok()) << ir.status();
    EXPECT_NE(ir->find(kernel_abi::kWorkspaceAllocSymbol), std::string::npos) << "B is not on the heap\n" << *ir;
    EXPECT_NE(ir->find("x float>"), std::string::npos) << "no vector code\n" << *ir;
    EXPECT_EQ(ir->find("memcheck"), std::string::npos) << *ir;
    EXPECT_EQ(ir->find("found.conflict"), std::string::npos) << *ir;
  }
  std::mt19937 rng(5);
  NDArray a = Random({8, 28, 28, 16}, &rng);
  absl::StatusOr<Value> out = RunKernel(text, "planes", {a});
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<double> want(8 * 28 * 28 * 16);
  for (int i = 0; i < 8; ++i) {
    for (int j = 0; j < 28; ++j) {
      for (int k = 0; k < 28; ++k) {
        for (int l = 0; l < 16; ++l) {
          float m = -INFINITY;
          for (int y = std::max(j - 1, 0); y <= std::min(j + 1, 27); ++y) {
            for (int x = std::max(k - 1, 0); x <= std::min(k + 1, 27); ++x)
              m = std::max(m, F(a)[((i * 28 + y) * 28 + x) * 16 + l]);
          }
          want[((i * 28 + j) * 28 + k) * 16 + l] = m;
        }
      }
    }
  }
  ExpectClose(out->tensor(), want);
}

TEST(Codegen, AnElementwiseEpilogueComputesInTheOutput) {
  // B is read only by C's block, element for element: lowering computes B in C itself
  // (C = B, then C = C + 1), so no buffer of B is allocated and the result is the same.
  const std::string text = R"(
@I.ir_module
class Module:
    @T.prim_func
    def epilogue(A: T.Buffer((64, 129), "float32"), C: T.Buffer((64, 129), "float32")):
        B = T.alloc_buffer((64, 129))
        for i, j in T.grid(64, 129):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] * T.float32(2)
        for i, j in T.grid(64, 129):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = T.max(B[vi, vj] + T.float32(1), T.float32(0))
)";
  absl::StatusOr<std::string> lowered = LoweredText(text, "epilogue");
  ASSERT_TRUE(lowered.ok()) << lowered.status();
  const std::string& printed = *lowered;
  EXPECT_THAT(printed, ::testing::Not(HasSubstr("T.allocate"))) << printed;
  EXPECT_THAT(printed, HasSubstr("T.max(C[")) << printed;
  std::mt19937 rng(4);
  NDArray a = Random({64, 129}, &rng);
  absl::StatusOr<Value> out = RunKernel(text, "epilogue", {a});
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<double> want(64 * 129);
  for (int i = 0; i < 64 * 129; ++i) want[i] = std::max(F(a)[i] * 2.0f + 1.0f, 0.0f);
  ExpectClose(out->tensor(), want);
}

TEST(Codegen, AnIntermediateUsedUnderOneLoopIsAllocatedPerIterationAtItsWindow) {
  // B (a padded row) is written and read only under the parallel loop over rows, one row per
  // iteration: lowering allocates it inside that loop at one row's size (66 floats, not
  // 8 x 66), each thread its own, and the sums are the same.
  const std::string text = R"(
@I.ir_module
class Module:
    @T.prim_func
    def window(A: T.Buffer((8, 64), "float32"), C: T.Buffer((8, 64), "float32")):
        B = T.alloc_buffer((8, 66))
        for i in T.parallel(8):
            for j in range(66):
                with T.block("B"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    B[vi, vj] = T.Select(1 <= vj and vj < 65, A[vi, T.min(T.max(vj - 1, 0), 63)], T.float32(0))
            for j in range(64):
                with T.block("C"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    C[vi, vj] = B[vi, vj] + B[vi, vj + 1] + B[vi, vj + 2]
)";
  absl::StatusOr<std::string> lowered = LoweredText(text, "window");
  ASSERT_TRUE(lowered.ok()) << lowered.status();
  const std::string& printed = *lowered;
  size_t loop = printed.find("T.parallel"), alloc = printed.find("B = T.allocate((T.int64(66),)");
  ASSERT_NE(alloc, std::string::npos) << printed;
  EXPECT_LT(loop, alloc) << "B is allocated outside the loop\n" << printed;
  std::mt19937 rng(5);
  NDArray a = Random({8, 64}, &rng);
  absl::StatusOr<Value> out = RunKernel(text, "window", {a});
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<double> want(8 * 64);
  for (int i = 0; i < 8; ++i) {
    for (int j = 0; j < 64; ++j) {
      double sum = F(a)[i * 64 + j];
      if (j > 0) sum += F(a)[i * 64 + j - 1];
      if (j < 63) sum += F(a)[i * 64 + j + 1];
      want[i * 64 + j] = sum;
    }
  }
  ExpectClose(out->tensor(), want);
}

TEST(Codegen, AnIntermediateUnderSerialTilesIsAllocatedOncePerParallelIteration) {
  // B is used per iteration of the serial loop t (its region: one padded row), inside the
  // parallel loop over i: lowering allocates it in the parallel loop's body, once per thread's
  // iteration and reused by the serial iterations (each rewrites its row before reading it),
  // not inside t, where an intermediate beyond the stack's limit went to the workspace and
  // back at every tile.
  const std::string text = R"(
@I.ir_module
class Module:
    @T.prim_func
    def tiles(A: T.Buffer((8, 4, 64), "float32"), C: T.Buffer((8, 4, 64), "float32")):
        B = T.alloc_buffer((8, 4, 66))
        for i in T.parallel(8):
            for t in range(4):
                for j in range(66):
                    with T.block("B"):
                        vi, vt, vj = T.axis.remap("SSS", [i, t, j])
                        B[vi, vt, vj] = T.Select(1 <= vj and vj < 65, A[vi, vt, T.min(T.max(vj - 1, 0), 63)], T.float32(0))
                for j in range(64):
                    with T.block("C"):
                        vi, vt, vj = T.axis.remap("SSS", [i, t, j])
                        C[vi, vt, vj] = B[vi, vt, vj] + B[vi, vt, vj + 1] + B[vi, vt, vj + 2]
)";
  absl::StatusOr<std::string> lowered = LoweredText(text, "tiles");
  ASSERT_TRUE(lowered.ok()) << lowered.status();
  const std::string& printed = *lowered;
  size_t loop = printed.find("T.parallel"), alloc = printed.find("B = T.allocate((T.int64(66),)"),
         tile = printed.find("for t in range(4)");
  ASSERT_NE(alloc, std::string::npos) << printed;
  ASSERT_NE(tile, std::string::npos) << printed;
  EXPECT_LT(loop, alloc) << "B is allocated outside the parallel loop\n" << printed;
  EXPECT_LT(alloc, tile) << "B is allocated per serial tile\n" << printed;
  std::mt19937 rng(7);
  NDArray a = Random({8, 4, 64}, &rng);
  absl::StatusOr<Value> out = RunKernel(text, "tiles", {a});
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<double> want(8 * 4 * 64);
  for (int r = 0; r < 8 * 4; ++r) {
    for (int j = 0; j < 64; ++j) {
      double sum = F(a)[r * 64 + j];
      if (j > 0) sum += F(a)[r * 64 + j - 1];
      if (j < 63) sum += F(a)[r * 64 + j + 1];
      want[r * 64 + j] = sum;
    }
  }
  ExpectClose(out->tensor(), want);
}

TEST(Codegen, ConsecutiveParallelFillsOfOneValueBecomeOneParallelLoop) {
  // A padded result's four border fills (zeros, 10 + 10 + 8 + 8 iterations) run as one
  // parallel loop of 36; the fill of another value after them stays its own loop (it must
  // land after the zeros: the corners end up 1), as does the loop that computes.
  const std::string text = R"(
@I.ir_module
class Module:
    @T.prim_func
    def fills(A: T.Buffer((6, 10), "float32"), C: T.Buffer((8, 12), "float32")):
        for i in T.parallel(6):
            for j in range(10):
                with T.block("interior"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    C[vi + 1, vj + 1] = A[vi, vj] * T.float32(2)
        for j in T.parallel(10):
            with T.block("top"):
                vj = T.axis.spatial(10, j)
                C[0, vj + 1] = T.float32(0)
        for j in T.parallel(10):
            with T.block("bottom"):
                vj = T.axis.spatial(10, j)
                C[7, vj + 1] = T.float32(0)
        for i in T.parallel(8):
            with T.block("left"):
                vi = T.axis.spatial(8, i)
                C[vi, 0] = T.float32(0)
        for i in T.parallel(8):
            with T.block("right"):
                vi = T.axis.spatial(8, i)
                C[vi, 11] = T.float32(0)
        for i in T.parallel(2):
            with T.block("corners"):
                vi = T.axis.spatial(2, i)
                C[vi * 7, vi * 11] = T.float32(1)
)";
  absl::StatusOr<std::string> lowered = LoweredText(text, "fills");
  ASSERT_TRUE(lowered.ok()) << lowered.status();
  const std::string& printed = *lowered;
  int loops = 0;
  for (size_t at = printed.find("T.parallel("); at != std::string::npos; at = printed.find("T.parallel(", at + 1))
    ++loops;
  EXPECT_EQ(loops, 3) << printed;
  EXPECT_THAT(printed, HasSubstr("T.parallel(36)")) << printed;
  std::mt19937 rng(6);
  NDArray a = Random({6, 10}, &rng);
  absl::StatusOr<Value> out = RunKernel(text, "fills", {a});
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<double> want(8 * 12, 0.0);
  for (int i = 0; i < 6; ++i) {
    for (int j = 0; j < 10; ++j) want[(i + 1) * 12 + j + 1] = 2.0 * F(a)[i * 10 + j];
  }
  want[0] = want[7 * 12 + 11] = 1.0;
  ExpectClose(out->tensor(), want);
}

TEST(Codegen, AWindowMaximumAccumulatesInRegistersNotThroughItsBuffer) {
  // A pool's schedule keeps its running maximum in the result (init, then one read-modify-write
  // per tap); the unrolled taps become straight-line code only late in LLVM's pipeline. The
  // optimized IR stores each result once per iteration of i, not once per tap: 8 x 16 floats,
  // not 4 x that.
  const std::string text = R"(
@I.ir_module
class Module:
    @T.prim_func
    def window_max(A: T.Buffer((4, 10, 16), "float32"), C: T.Buffer((4, 8, 16), "float32")):
        for i in T.parallel(4):
            for j in T.unroll(8):
                for l in T.vectorized(16):
                    with T.block("init"):
                        vi, vj, vl = T.axis.remap("SSS", [i, j, l])
                        C[vi, vj, vl] = T.float32("-inf")
            for r in T.unroll(3):
                for j in T.unroll(8):
                    for l in T.vectorized(16):
                        with T.block("max"):
                            vi, vr, vj, vl = T.axis.remap("SSSS", [i, r, j, l])
                            C[vi, vj, vl] = T.max(C[vi, vj, vl], A[vi, vj + vr, vl])
)";
  absl::StatusOr<tir::PrimFunc> lowered = Lowered(text, "window_max");
  ASSERT_TRUE(lowered.ok()) << lowered.status();
  // Named targets, so the check holds whichever CPU runs the test: 16 lanes are one register
  // on AVX-512, two on AVX2, four on SSE.
  for (const char* name : {"x86-64-v2", "x86-64-v3", "x86-64-v4", "znver3", "znver4", "sapphirerapids"}) {
    SCOPED_TRACE(name);
    absl::StatusOr<std::string> ir = LlvmIr(*lowered, "window_max", name);
    ASSERT_TRUE(ir.ok()) << ir.status();
    int64_t floats_stored = 0;
    for (absl::string_view line : absl::StrSplit(*ir, '\n')) {
      size_t at = line.find("store ");
      if (at == absl::string_view::npos) continue;
      absl::string_view type = line.substr(at + 6);
      int64_t lanes = 1;
      if (absl::ConsumePrefix(&type, "<")) {
        ASSERT_TRUE(absl::SimpleAtoi(type.substr(0, type.find(' ')), &lanes)) << line;
        type.remove_prefix(type.find(' ') + 3);  // " x "
      }
      if (absl::StartsWith(type, "float")) floats_stored += lanes;
    }
    EXPECT_EQ(floats_stored, 8 * 16) << *ir;
  }
  std::mt19937 rng(7);
  NDArray a = Random({4, 10, 16}, &rng);
  absl::StatusOr<Value> out = RunKernel(text, "window_max", {a});
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<double> want(4 * 8 * 16);
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 8; ++j) {
      for (int l = 0; l < 16; ++l) {
        float m = -INFINITY;
        for (int r = 0; r < 3; ++r) m = std::max(m, F(a)[(i * 10 + j + r) * 16 + l]);
        want[(i * 8 + j) * 16 + l] = m;
      }
    }
  }
  ExpectClose(out->tensor(), want);
}

TEST(Codegen, AVectorMatrixTileTakesItsReductionStepsInTurnOverCopiesOfItsAccumulators) {
  // A 1 x 8 tile holds one accumulator: one FMA chain, which would wait out the FMA latency at
  // every step of k. The tile keeps copies of it (as many as the FMA units need, within the
  // registers), steps k, k + 1, ... taking them in turn, and sums them after the loop; 37 steps
  // leave a remainder that the first copy takes.
  const std::string text = R"(
@I.ir_module
class Module:
    @T.prim_func
    def gemv(A: T.Buffer((1, 37), "float32"), B: T.Buffer((37, 8), "float32"), C: T.Buffer((1, 8), "float32")):
        for j in range(8):
            with T.block("init"):
                vj = T.axis.remap("S", [j])
                C[0, vj] = T.float32(0)
        with T.block("tile"):
            T.reads(A[0, 0:37], B[0:37, 0:8], C[0, 0:8])
            T.writes(C[0, 0:8])
            T.evaluate(T.gemm_tile(T.address_of(C[0, 0]), T.address_of(A[0, 0]), T.address_of(B[0, 0]), T.int64(37), T.int64(1), T.int64(8), T.int64(37), T.int64(1), T.int64(8), T.int64(1), T.int64(8), T.int64(1)))
)";
  absl::StatusOr<tir::PrimFunc> lowered = Lowered(text, "gemv");
  ASSERT_TRUE(lowered.ok()) << lowered.status();
  for (const char* name : {"x86-64-v2", "x86-64-v3", "x86-64-v4", "znver3"}) {
    SCOPED_TRACE(name);
    absl::StatusOr<Target> target = Target::Parse(name);
    ASSERT_TRUE(target.ok()) << target.status();
    absl::StatusOr<std::string> ir = LlvmIr(*lowered, "gemv", name);
    ASSERT_TRUE(ir.ok()) << ir.status();
    // 8 floats are one register from AVX on, two with SSE: fma_chains() / that many copies,
    // each with its multiply-add in the loop's body, plus the remainder's.
    const int64_t registers = (8 + target->float_lanes() - 1) / target->float_lanes();
    int64_t multiply_adds = 0;
    for (absl::string_view line : absl::StrSplit(*ir, '\n')) {
      multiply_adds += absl::StrContains(line, "call") && absl::StrContains(line, "@llvm.fmuladd.v8f32(");
    }
    EXPECT_EQ(multiply_adds, target->fma_chains() / registers + 1) << *ir;
  }
  std::mt19937 rng(11);
  NDArray a = Random({1, 37}, &rng), b = Random({37, 8}, &rng);
  absl::StatusOr<Value> out = RunKernel(text, "gemv", {a, b});
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<double> want(8, 0.0);
  for (int j = 0; j < 8; ++j) {
    for (int k = 0; k < 37; ++k) want[j] += static_cast<double>(F(a)[k]) * F(b)[k * 8 + j];
  }
  ExpectClose(out->tensor(), want);
}

TEST(Codegen, AConvolutionTileOfFewAccumulatorsTakesItsInnermostStepsInTurnOverCopies) {
  // A convolution's last pixel of a row (7 = 3 + 3 + 1 under 3-pixel tiles) is a 1 x 4 tile:
  // on AVX2 four accumulators, four FMA chains, half of what hides the FMA latency. With
  // reduction loops nested (input blocks, then a block's 8 channels), the copies take turns over
  // the innermost loop, whose 8 steps they divide. Here A's rows are 16 apart, so the two loops
  // do not merge into one.
  const std::string text = R"(
@I.ir_module
class Module:
    @T.prim_func
    def tail(A: T.Buffer((3, 16), "float32"), B: T.Buffer((3, 8, 4, 8), "float32"), C: T.Buffer((1, 32), "float32")):
        for j in range(32):
            with T.block("init"):
                vj = T.axis.remap("S", [j])
                C[0, vj] = T.float32(0)
        with T.block("tile"):
            T.reads(A[0:3, 0:16], B[0:3, 0:8, 0:4, 0:8], C[0, 0:32])
            T.writes(C[0, 0:32])
            T.evaluate(T.gemm_tile_nd(T.address_of(C[0, 0]), T.address_of(A[0, 0]), T.address_of(B[0, 0, 0, 0]), T.int64(1), T.int64(4), T.int64(8), T.int64(0), T.int64(32), T.int64(8), T.int64(8), T.int64(0), T.int64(2), T.int64(3), T.int64(16), T.int64(256), T.int64(8), T.int64(1), T.int64(32)))
)";
  absl::StatusOr<tir::PrimFunc> lowered = Lowered(text, "tail");
  ASSERT_TRUE(lowered.ok()) << lowered.status();
  for (const char* name : {"x86-64-v2", "x86-64-v3", "x86-64-v4"}) {
    SCOPED_TRACE(name);
    absl::StatusOr<Target> target = Target::Parse(name);
    ASSERT_TRUE(target.ok()) << target.status();
    absl::StatusOr<std::string> ir = LlvmIr(*lowered, "tail", name);
    ASSERT_TRUE(ir.ok()) << ir.status();
    // 4 blocks of 8 floats: 4 chains from AVX on (two copies: 8 multiply-adds in the loop's
    // body; LLVM drops the empty remainder loop), 8 with SSE's 4-float registers (no copies).
    const int64_t chains = 4 * ((8 + target->float_lanes() - 1) / target->float_lanes());
    int64_t multiply_adds = 0;
    for (absl::string_view line : absl::StrSplit(*ir, '\n')) {
      multiply_adds += absl::StrContains(line, "call") && absl::StrContains(line, "@llvm.fmuladd.v8f32(");
    }
    EXPECT_EQ(multiply_adds, chains < target->fma_chains() ? 8 : 4) << *ir;
  }
  std::mt19937 rng(5);
  NDArray a = Random({3, 16}, &rng), b = Random({3, 8, 4, 8}, &rng);
  absl::StatusOr<Value> out = RunKernel(text, "tail", {a, b});
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<double> want(32, 0.0);
  for (int j = 0; j < 32; ++j) {
    for (int o = 0; o < 3; ++o) {
      for (int i = 0; i < 8; ++i) want[j] += static_cast<double>(F(a)[o * 16 + i]) * F(b)[(o * 8 + i) * 32 + j];
    }
  }
  ExpectClose(out->tensor(), want);
}

TEST(Codegen, ExpErfAndTanhAreVectorCodeWithinThreeUlpOnEveryTarget) {
  // e^x, sigmoid, erf and tanh (SiLU, softmax, GELU epilogues, recurrent cells) are written inline as polynomials: a
  // libm call stays a scalar call per lane at 16 lanes (64 calls of expf in one SiLU tile: 3%
  // of the peak). On every named target the vectorized loop calls no expf/erff, and the values
  // stay within 3 ulp of the double-precision function (the scalar remainder of the loop runs
  // the same code).
  const std::string text = R"(
@I.ir_module
class Module:
    @T.prim_func
    def math(A: T.Buffer((4099,), "float32"), O: T.Buffer((4, 4099), "float32")):
        for i in T.vectorized(4099):
            with T.block("f"):
                vi = T.axis.remap("S", [i])
                O[0, vi] = T.exp(A[vi])
                O[1, vi] = T.sigmoid(A[vi])
                O[2, vi] = T.erf(A[vi])
                O[3, vi] = T.tanh(A[vi])
)";
  absl::StatusOr<tir::PrimFunc> lowered = Lowered(text, "math");
  ASSERT_TRUE(lowered.ok()) << lowered.status();
  for (const char* name : {"x86-64", "x86-64-v3", "x86-64-v4", "znver3"}) {
    SCOPED_TRACE(name);
    absl::StatusOr<std::string> compiled = LlvmIr(*lowered, "math", name);
    ASSERT_TRUE(compiled.ok()) << compiled.status();
    const std::string& ir = *compiled;
    EXPECT_THAT(ir, ::testing::Not(HasSubstr("@expf"))) << ir;
    EXPECT_THAT(ir, ::testing::Not(HasSubstr("@erff"))) << ir;
    EXPECT_THAT(ir, ::testing::Not(HasSubstr("@tanhf"))) << ir;
    EXPECT_THAT(ir, ::testing::Not(HasSubstr("@llvm.exp."))) << ir;
    EXPECT_THAT(ir, HasSubstr("x float>")) << "not vectorized:\n" << ir;
  }
  // erf's and tanh's range densely; exp's ends densely (where its scaling by 2^n reaches the
  // smallest and largest exponents); then -90..90.
  std::vector<float> xs;
  for (int i = 0; i < 2000; ++i) xs.push_back(-5.0f + 10.0f * static_cast<float>(i) / 1999.0f);
  for (int i = 0; i < 500; ++i) xs.push_back(-87.35f + 0.5f * static_cast<float>(i) / 499.0f);
  for (int i = 0; i < 500; ++i) xs.push_back(88.2f + 0.55f * static_cast<float>(i) / 499.0f);
  for (int i = 0; i < 1096; ++i) xs.push_back(-90.0f + 180.0f * static_cast<float>(i) / 1095.0f);
  xs.push_back(INFINITY);
  xs.push_back(-INFINITY);
  // A NaN with payload bits where exp's scaling adds n's exponent field: it must stay NaN.
  const uint32_t nan_bits = 0x7FC001FFu;
  float payload_nan;
  std::memcpy(&payload_nan, &nan_bits, sizeof(payload_nan));
  xs.push_back(payload_nan);
  NDArray a = NDArray::Empty({4099}, DLDataType{kDLFloat, 32, 1});
  std::copy(xs.begin(), xs.end(), static_cast<float*>(a.data()));
  absl::StatusOr<Value> run = RunKernel(text, "math", {a});
  ASSERT_TRUE(run.ok()) << run.status();
  const float* o = F(run->tensor());
  auto e = [&](size_t i) { return o[i]; };
  auto sg = [&](size_t i) { return o[4099 + i]; };
  auto g = [&](size_t i) { return o[2 * 4099 + i]; };
  auto th = [&](size_t i) { return o[3 * 4099 + i]; };
  auto ulps = [](float got, double want) {
    double spacing = std::nextafter(static_cast<float>(std::abs(want)), INFINITY) - static_cast<float>(std::abs(want));
    return std::abs(static_cast<double>(got) - want) / spacing;
  };
  for (size_t i = 0; i < xs.size(); ++i) {
    double x = xs[i];
    if (std::isnan(x)) {
      EXPECT_TRUE(std::isnan(e(i)) && std::isnan(sg(i)) && std::isnan(g(i)) && std::isnan(th(i)))
          << "exp, sigmoid, erf, tanh of NaN: " << e(i) << " " << sg(i) << " " << g(i) << " " << th(i);
      continue;
    }
    if (x > -87.3 && x < 88.7) {
      EXPECT_LE(ulps(e(i), std::exp(x)), 3.0) << "exp(" << x << ") = " << e(i);
    }
    if (x < -87.3) EXPECT_EQ(e(i), 0.0f) << "exp(" << x << ")";
    if (x > 88.723) EXPECT_EQ(e(i), INFINITY) << "exp(" << x << ")";
    if (x > -80) {
      EXPECT_LE(ulps(sg(i), 1 / (1 + std::exp(-x))), 3.0) << "sigmoid(" << x << ") = " << sg(i);
    }
    // Below -87.3 sigmoid's e^x is clamped (EmitSigmoidF32): at most e^-87.3, never negative.
    if (x < -87.3) EXPECT_TRUE(sg(i) >= 0.0f && sg(i) <= 1.22e-38f) << "sigmoid(" << x << ") = " << sg(i);
    if (std::isinf(x)) {
      EXPECT_EQ(g(i), x > 0 ? 1.0f : -1.0f) << "erf(" << x << ")";
      EXPECT_EQ(th(i), x > 0 ? 1.0f : -1.0f) << "tanh(" << x << ")";
      if (x > 0) EXPECT_EQ(sg(i), 1.0f) << "sigmoid(inf)";
      continue;
    }
    if (x != 0) {
      EXPECT_LE(ulps(g(i), std::erf(x)), 3.0) << "erf(" << x << ") = " << g(i);
      EXPECT_LE(ulps(th(i), std::tanh(x)), 3.0) << "tanh(" << x << ") = " << th(i);
    }
  }
}

TEST(VirtualMachine, TensorsFromTwoMegabytesOnStartOnAHugePageAndAskForHugePages) {
  // 2 MiB-aligned and madvise(MADV_HUGEPAGE)d: the mapping's VmFlags in /proc/self/smaps
  // carry "hg" (whether the kernel then backs it with huge pages is the machine's setting).
  constexpr int64_t kMiB = 1 << 20;
  NDArray big = NDArray::Empty({3 * kMiB}, DLDataType{kDLUInt, 8, 1});
  const auto address = reinterpret_cast<uintptr_t>(big.data());
  EXPECT_EQ(address % (2 * kMiB), 0u);
  absl::StatusOr<std::string> smaps = ReadFile("/proc/self/smaps");
  ASSERT_TRUE(smaps.ok()) << smaps.status();
  bool inside = false, found = false;
  for (absl::string_view line : absl::StrSplit(*smaps, '\n')) {
    uintptr_t begin = 0, end = 0;
    if (std::sscanf(std::string(line).c_str(), "%lx-%lx ", &begin, &end) == 2) {  // a mapping's first line
      inside = begin <= address && address < end;
    } else if (inside && absl::StartsWith(line, "VmFlags:")) {
      found = true;
      EXPECT_THAT(std::string(line), HasSubstr(" hg")) << line;
    }
  }
  EXPECT_TRUE(found) << "no mapping in /proc/self/smaps holds the tensor";
}

TEST(VirtualMachine, WorkspacePoolHoldsAboutTheLargestNeedNotEverySize) {
  constexpr int64_t kMB = 1 << 20;
  vm::WorkspacePool pool;
  auto use = [&](int64_t bytes) {
    void* p = pool.Alloc(bytes);
    ASSERT_NE(p, nullptr);
    pool.Free(p);
  };
  use(1 * kMB);
  use(3 * kMB);  // the 1 MB block cannot serve it: released
  EXPECT_EQ(pool.bytes_held(), 3 * kMB);
  use(2 * kMB);  // the 3 MB block serves it
  EXPECT_EQ(pool.bytes_held(), 3 * kMB);
  use(1 * kMB);  // 3 MB is more than twice too large: a block of its own
  EXPECT_EQ(pool.bytes_held(), 4 * kMB);
  for (int round = 0; round < 3; ++round) {  // steady state: nothing new
    for (int64_t mb : {1, 3, 2, 1}) use(mb * kMB);
  }
  EXPECT_EQ(pool.bytes_held(), 4 * kMB);
}

TEST(VirtualMachine, WorkspacePoolReleasesCachedBlocksNotThoseInUse) {
  constexpr int64_t kMB = 1 << 20;
  vm::WorkspacePool pool;
  void* big = pool.Alloc(8 * kMB);
  void* in_use = pool.Alloc(1 * kMB);
  ASSERT_NE(big, nullptr);
  ASSERT_NE(in_use, nullptr);
  pool.Free(big);
  EXPECT_EQ(pool.bytes_held(), 9 * kMB);
  EXPECT_EQ(pool.ReleaseFree(), 8 * kMB);
  EXPECT_EQ(pool.bytes_held(), 1 * kMB);
  std::memset(in_use, 1, 1 * kMB);  // still the caller's (the sanitized build checks)
  pool.Free(in_use);
  EXPECT_EQ(pool.ReleaseFree(), 1 * kMB);
  EXPECT_EQ(pool.bytes_held(), 0);
}

TEST(VirtualMachine, ExecutablesLoadedTogetherKeepTheirOwnKernels) {
  // Both define a kernel named `k`; each machine must run its own.
  auto module = [](const std::string& factor) {
    return ParseTVMScript(absl::StrCat(R"(
@I.ir_module
class Module:
    @T.prim_func
    def k(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        for i in range(8):
            with T.block("B"):
                vi = T.axis.spatial(8, i)
                B[vi] = A[vi] * T.float32()",
                                       factor, R"()
)"),
                          "same_name.py");
  };
  std::vector<std::unique_ptr<vm::VirtualMachine>> machines;
  for (const char* factor : {"2", "3"}) {
    absl::StatusOr<IRModule> mod = module(factor);
    ASSERT_TRUE(mod.ok()) << mod.status();
    absl::StatusOr<IRModule> with_main = WithMainCalling(mod->LookupPrimFunc("k"), "k");
    ASSERT_TRUE(with_main.ok()) << with_main.status();
    absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> vm = Compile(*with_main);
    ASSERT_TRUE(vm.ok()) << vm.status();
    machines.push_back(std::move(*vm));
  }
  std::mt19937 rng(3);
  NDArray a = Random({8}, &rng);
  for (int m = 0; m < 2; ++m) {
    absl::StatusOr<Value> out = machines[m]->Invoke("main", {a});
    ASSERT_TRUE(out.ok()) << out.status();
    std::vector<double> want(8);
    for (int i = 0; i < 8; ++i) want[i] = F(a)[i] * (m == 0 ? 2.0 : 3.0);
    ExpectClose(out->tensor(), want);
  }
}

TEST(VirtualMachine, ConcatInputsArePlacedInTheResultNotCopied) {
  // relu(x), sigmoid(x) and tanh(x), joined along the channel blocks of a batch of one (and
  // doubled, so that the join is an intermediate, which the plan places): after
  // concat-in-place the memory plan puts each branch where its bytes go in the result, and the
  // VM's CONCAT finds all three there. Without the pass a kernel copies them; the same numbers.
  IRModule mod = Parse("testdata/passes/concat_in_place/branches.py");
  std::mt19937 rng(7);
  NDArray x = Random({1, 2, 4, 4, 16}, &rng);
  const int64_t n = 2 * 4 * 4 * 16;
  std::vector<double> want;
  for (int branch = 0; branch < 3; ++branch) {
    for (int64_t i = 0; i < n; ++i) {
      const double v = F(x)[i];
      want.push_back(2 * (branch == 0 ? std::max(v, 0.0) : branch == 1 ? 1 / (1 + std::exp(-v)) : std::tanh(v)));
    }
  }
  for (const char* pipeline : {"concat-in-place,fuse-ops,legalize,fuse-tir", "fuse-ops,legalize,fuse-tir"}) {
    SCOPED_TRACE(pipeline);
    absl::StatusOr<std::vector<std::unique_ptr<passes::Pass>>> passes = passes::ParsePipeline(pipeline);
    ASSERT_TRUE(passes.ok()) << passes.status();
    absl::StatusOr<IRModule> lowered = passes::RunPipeline(mod, *passes);
    ASSERT_TRUE(lowered.ok()) << lowered.status();
    absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> vm = Compile(*lowered);
    ASSERT_TRUE(vm.ok()) << vm.status();
    for (int run = 0; run < 2; ++run) {
      absl::StatusOr<Value> out = (*vm)->Invoke("main", {x});
      ASSERT_TRUE(out.ok()) << out.status();
      ExpectClose(out->tensor(), want);
    }
    const bool in_place = std::string(pipeline).find("concat-in-place") != std::string::npos;
    EXPECT_EQ((*vm)->Concats().inputs_in_place, in_place ? 6 : 0);
    EXPECT_EQ((*vm)->Concats().inputs_copied, 0);
  }
}

TEST(VirtualMachine, ConcatInPlaceCopiesInputsItFindsElsewhere) {
  // The function's parameters are not the memory plan's to place: CONCAT copies them.
  absl::StatusOr<IRModule> mod = ParseTVMScript(R"(
@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((1, 2, 16), dtype="float32"), b: R.Tensor((1, 3, 16), dtype="float32")):
        with R.dataflow():
            gv = R.concat_in_place(a, b, axis=1)
            R.output(gv)
        return gv
)",
                                                "copies.py");
  ASSERT_TRUE(mod.ok()) << mod.status();
  absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> vm = Compile(*mod);
  ASSERT_TRUE(vm.ok()) << vm.status();
  std::mt19937 rng(8);
  NDArray a = Random({1, 2, 16}, &rng), b = Random({1, 3, 16}, &rng);
  absl::StatusOr<Value> out = (*vm)->Invoke("main", {a, b});
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<double> want(F(a), F(a) + 32);
  want.insert(want.end(), F(b), F(b) + 48);
  ExpectClose(out->tensor(), want);
  EXPECT_EQ((*vm)->Concats().inputs_in_place, 0);
  EXPECT_EQ((*vm)->Concats().inputs_copied, 2);
}

TEST(VirtualMachine, IntermediatesReuseMemoryWithinARun) {
  // relu chain: three intermediates, two live at a time; the memory plan puts them in an
  // arena of two (the third where the first was), which later runs take back from the pool.
  relax::Var x = relax::MakeVar("x", relax::TensorSInfo({1024}, kF32));
  relax::BlockBuilder bb;
  ASSERT_TRUE(bb.BeginFunction("main", std::vector<relax::Var>{x}).ok());
  relax::Expr cur = x;
  for (int i = 0; i < 4; ++i) cur = *te::EmitTE(&bb, "relu", Unary(topi::Relu), {cur});
  ASSERT_TRUE(bb.EmitFuncOutput(cur).ok());
  absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> vm = Compile(bb.Get());
  ASSERT_TRUE(vm.ok()) << vm.status();
  std::mt19937 rng(1);
  NDArray input = Random({1024}, &rng);
  absl::StatusOr<Value> out = (*vm)->Invoke("main", {input});
  ASSERT_TRUE(out.ok()) << out.status();
  // The arena of two intermediates and the result, all from the pool, alive together.
  EXPECT_EQ((*vm)->pool().allocated(), 2u);
  EXPECT_EQ((*vm)->pool().peak_live_bytes(), 3 * 1024 * sizeof(float));
  EXPECT_FALSE(out->tensor().SameStorage(input));
  // A result the caller holds is not the pool's to reuse: a later run does not overwrite it.
  std::vector<float> before(F(out->tensor()), F(out->tensor()) + 1024);
  NDArray other = Random({1024}, &rng);
  absl::StatusOr<Value> second = (*vm)->Invoke("main", {other});
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(std::vector<float>(F(out->tensor()), F(out->tensor()) + 1024), before);
  EXPECT_FALSE(second->tensor().SameStorage(out->tensor()));
  EXPECT_EQ((*vm)->pool().allocated(), 3u);
  // Results the caller dropped go back to the pool and later runs take them: no new memory (a
  // fresh block of megabytes page-faults at every run).
  *out = Value();
  *second = Value();
  absl::StatusOr<Value> third = (*vm)->Invoke("main", {input});
  ASSERT_TRUE(third.ok()) << third.status();
  EXPECT_EQ(std::vector<float>(F(third->tensor()), F(third->tensor()) + 1024), before);
  EXPECT_EQ((*vm)->pool().allocated(), 3u);
}

// ---- Errors a user can hit.

TEST(VirtualMachine, RejectsWrongArguments) {
  Mlp m = SeedMlp();
  absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> vm = Compile(Parse(absl::StrCat(kSeeds, "/e2e_my_module.py")));
  ASSERT_TRUE(vm.ok());
  absl::StatusOr<Value> few = (*vm)->Invoke("main", {m.x});
  ASSERT_FALSE(few.ok());
  EXPECT_EQ(few.status().message(), "function main takes 5 arguments (x, w0, b0, w1, b1), got 1");
  absl::StatusOr<Value> shape = (*vm)->Invoke("main", {m.x, m.w1, m.b0, m.w1, m.b1});
  ASSERT_FALSE(shape.ok());
  EXPECT_EQ(shape.status().message(),
            "function main: argument 1 (w0): expected float32 (128, 784), got float32 (10, 128)");
  NDArray ints = NDArray::Empty({1, 784}, DLDataType{kDLInt, 32, 1});
  absl::StatusOr<Value> dtype = (*vm)->Invoke("main", {ints, m.w0, m.b0, m.w1, m.b1});
  ASSERT_FALSE(dtype.ok());
  EXPECT_EQ(dtype.status().message(), "function main: argument 0 (x): expected float32 (1, 784), got int32 (1, 784)");
  EXPECT_THAT(std::string((*vm)->Invoke("predict", {}).status().message()), HasSubstr("no function predict"));
}

TEST(VirtualMachine, MissingRuntimeFunctionIsNamedAtLoad) {
  IRModule mod = Parse(absl::StrCat(kSeeds, "/e2e_my_module_with_extern_call.py"));
  absl::StatusOr<proto::Executable> exe = codegen::Build(mod);
  ASSERT_TRUE(exe.ok());
  vm::RuntimeRegistry empty;
  absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> vm = vm::VirtualMachine::Load(*exe, empty);
  ASSERT_FALSE(vm.ok());
  EXPECT_EQ(vm.status().message(),
            "the program calls runtime functions env.linear, env.relu, not registered (load the library that provides "
            "them with --plugin)");
}

TEST(VirtualMachine, CorruptArtifactsGiveClearErrors) {
  absl::StatusOr<proto::Executable> exe = codegen::Build(Parse(absl::StrCat(kSeeds, "/e2e_my_module.py")));
  ASSERT_TRUE(exe.ok());
  std::string bytes = vm::SerializeExecutable(*exe);
  for (size_t cut = 0; cut < bytes.size(); cut += bytes.size() / 37 + 1) {
    absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> vm =
        vm::VirtualMachine::LoadBytes(bytes.substr(0, cut), "cut.mlcx");
    ASSERT_FALSE(vm.ok()) << cut;
    EXPECT_THAT(std::string(vm.status().message()), HasSubstr("cut.mlcx"));
  }
  // Flipped bytes anywhere, the kernel library included, are refused before anything is loaded
  // (a damaged ELF image once crashed dlopen).
  std::mt19937 rng(17);
  for (int trial = 0; trial < 200; ++trial) {
    std::string flipped = bytes;
    for (int f = 0; f < 50; ++f) flipped[rng() % flipped.size()] ^= static_cast<char>(1 + rng() % 255);
    absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> vm = vm::VirtualMachine::LoadBytes(flipped, "flipped.mlcx");
    ASSERT_FALSE(vm.ok()) << trial;
    EXPECT_THAT(std::string(vm.status().message()), HasSubstr("flipped.mlcx"));
  }
  proto::Executable bad = *exe;
  bad.mutable_functions(0)->mutable_instructions(0)->set_dst(999);
  EXPECT_THAT(std::string(vm::VirtualMachine::Load(bad).status().message()), HasSubstr("destination out of range"));
  bad = *exe;
  bad.set_kernel_library("not an elf");
  EXPECT_THAT(std::string(vm::VirtualMachine::Load(bad).status().message()), HasSubstr("not an ELF shared object"));
  bad = *exe;
  bad.set_format_version(99);
  EXPECT_THAT(std::string(vm::VirtualMachine::Load(bad).status().message()), HasSubstr("format version 99"));
}

TEST(VirtualMachine, WithTrustedKeysOnlySignedExecutablesLoad) {
  absl::StatusOr<proto::Executable> exe = codegen::Build(Parse(absl::StrCat(kSeeds, "/e2e_my_module.py")));
  ASSERT_TRUE(exe.ok());
  absl::StatusOr<SigningKey> builder = SigningKey::Generate(), stranger = SigningKey::Generate();
  ASSERT_TRUE(builder.ok() && stranger.ok());
  const std::vector<std::string> trusted = {builder->public_key()};
  const vm::RuntimeRegistry& registry = vm::RuntimeRegistry::Global();
  EXPECT_TRUE(
      vm::VirtualMachine::LoadBytes(vm::SerializeExecutable(*exe, &*builder), "signed.mlcx", registry, trusted).ok());
  EXPECT_THAT(std::string(vm::VirtualMachine::LoadBytes(vm::SerializeExecutable(*exe), "plain.mlcx", registry, trusted)
                              .status()
                              .message()),
              HasSubstr("plain.mlcx: not signed"));
  EXPECT_THAT(std::string(vm::VirtualMachine::LoadBytes(vm::SerializeExecutable(*exe, &*stranger), "other.mlcx",
                                                        registry, trusted)
                              .status()
                              .message()),
              HasSubstr("not among the trusted keys"));
  // Without trusted keys, signed and unsigned executables both load.
  EXPECT_TRUE(vm::VirtualMachine::LoadBytes(vm::SerializeExecutable(*exe, &*stranger), "other.mlcx").ok());
}

// ---- Targets: recorded in the module and the executable, obeyed by codegen, checked at load.

/*! \brief A dense layer with ReLU, default-scheduled for `target`, built and loaded. */
proto::Executable DenseReluFor(const std::string& target_text) {
  constexpr char kDense[] = R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((16, 64), dtype="float32"), w: R.Tensor((64, 64), dtype="float32")):
        with R.dataflow():
            gv = R.nn.relu(R.nn.dense(x, w))
            R.output(gv)
        return gv
)";
  absl::StatusOr<IRModule> mod = ParseTVMScript(kDense, "dense.py");
  EXPECT_TRUE(mod.ok()) << mod.status();
  absl::Status recorded = RecordTargetFlag(&mod->mutable_attrs(), target_text);
  EXPECT_TRUE(recorded.ok()) << recorded;
  absl::StatusOr<IRModule> scheduled =
      passes::RunPipeline(*mod, *passes::ParsePipeline("fuse-ops,legalize,fuse-tir,default-schedule"));
  EXPECT_TRUE(scheduled.ok()) << scheduled.status();
  absl::StatusOr<proto::Executable> exe = codegen::Build(*scheduled);
  EXPECT_TRUE(exe.ok()) << exe.status();
  return exe.ok() ? *exe : proto::Executable();
}

/*! \brief How many instructions of the kernel library name a 512-bit register. */
int ZmmInstructions(const proto::Executable& exe) {
  std::string path = absl::StrCat(::testing::TempDir(), "/kernels_", exe.target().size(), ".so");
  EXPECT_TRUE(WriteFileAtomically(path, exe.kernel_library()).ok());
  FILE* p = popen(absl::StrCat("objdump -d --no-show-raw-insn ", path).c_str(), "r");
  EXPECT_NE(p, nullptr);
  int count = 0, lines = 0;
  char line[512];
  while (p != nullptr && fgets(line, sizeof(line), p) != nullptr) {
    ++lines;
    count += std::strstr(line, "zmm") != nullptr;
  }
  if (p != nullptr) pclose(p);
  EXPECT_GT(lines, 50) << "objdump printed no disassembly";
  return count;
}

TEST(Target, KernelsUseOnlyTheirTargetsFeatures) {
  proto::Executable avx2 = DenseReluFor("x86-64-v3");
  EXPECT_EQ(avx2.target(), "llvm -mcpu=x86-64-v3");
  std::vector<std::string> features(avx2.cpu_features().begin(), avx2.cpu_features().end());
  EXPECT_THAT(features, ::testing::Contains("avx2"));
  EXPECT_THAT(features, ::testing::Not(::testing::Contains("avx512f")));
  EXPECT_EQ(ZmmInstructions(avx2), 0);

  proto::Executable avx512 = DenseReluFor("x86-64-v4");
  EXPECT_THAT(std::vector<std::string>(avx512.cpu_features().begin(), avx512.cpu_features().end()),
              ::testing::Contains("avx512f"));
  EXPECT_GT(ZmmInstructions(avx512), 0) << "the 16-lane register tile should use zmm registers";

  // Both compute the same, wherever this CPU can run them.
  std::mt19937 rng(7);
  NDArray x = Random({16, 64}, &rng), w = Random({64, 64}, &rng);
  std::vector<NDArray> results;
  for (const proto::Executable* exe : {&avx2, &avx512}) {
    absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> vm = vm::VirtualMachine::Load(*exe);
    if (!vm.ok()) {
      EXPECT_THAT(std::string(vm.status().message()), HasSubstr("use CPU features this CPU lacks"));
      std::printf("[  SKIPPED ] running the %s kernels: %s\n", exe->target().c_str(),
                  std::string(vm.status().message()).c_str());
      continue;
    }
    absl::StatusOr<Value> out = (*vm)->Invoke("main", {Value(x), Value(w)});
    ASSERT_TRUE(out.ok()) << out.status();
    results.push_back(out->tensor());
  }
  if (results.size() == 2)
    ExpectClose(results[1], std::vector<double>(F(results[0]), F(results[0]) + results[0].NumElements()));
}

TEST(Target, ExecutableForAFeatureThisCpuLacksIsRefusedAtLoad) {
  proto::Executable exe = DenseReluFor("x86-64-v3");
  exe.add_cpu_features("amx-tile");  // Intel AMX: not detected, so never present here
  absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> vm = vm::VirtualMachine::Load(exe);
  ASSERT_FALSE(vm.ok());
  EXPECT_THAT(
      std::string(vm.status().message()),
      HasSubstr(
          "the kernels were compiled for target 'llvm -mcpu=x86-64-v3' and use CPU features this CPU lacks: amx-tile"));
}

TEST(Target, ABuildForAnotherTargetThanTheModulesIsRefused) {
  absl::StatusOr<IRModule> mod = ParseTVMScript(R"(
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=znver4"})

    @R.function
    def main(x: R.Tensor((4,), dtype="float32")):
        return x
)",
                                                "m.py");
  ASSERT_TRUE(mod.ok()) << mod.status();
  absl::Status s = RecordTargetFlag(&mod->mutable_attrs(), "x86-64-v3");
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("the module was compiled for target 'llvm -mcpu=znver4', not 'llvm -mcpu=x86-64-v3'"));
  EXPECT_TRUE(RecordTargetFlag(&mod->mutable_attrs(), "llvm -mcpu=znver4").ok());
}

// A diamond (relu(x) * y + x after a dense) fuses into one kernel and computes the same.
TEST(GraphPasses, DiamondFusesIntoOneKernelAndMatches) {
  // The fuse-ops golden case of it (testdata/passes/fuse_ops/diamond.py).
  IRModule mod = Parse("testdata/passes/fuse_ops/diamond.py");
  absl::StatusOr<IRModule> built = passes::RunPipeline(mod, *passes::ParsePipeline("default"));
  ASSERT_TRUE(built.ok()) << built.status();
  int kernels = 0;
  for (const auto& [name, f] : built->functions()) kernels += built->LookupPrimFunc(name).defined();
  EXPECT_EQ(kernels, 1);
  absl::StatusOr<proto::Executable> exe = codegen::Build(*built);
  ASSERT_TRUE(exe.ok()) << exe.status();
  absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> vm = vm::VirtualMachine::Load(*exe);
  ASSERT_TRUE(vm.ok()) << vm.status();
  std::mt19937 rng(5);
  NDArray x = Random({16, 64}, &rng), w = Random({32, 64}, &rng), y = Random({16, 32}, &rng);
  absl::StatusOr<Value> out = (*vm)->Invoke("main", {Value(x), Value(w), Value(y)});
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<double> want(16 * 32);
  for (int i = 0; i < 16; ++i) {
    for (int j = 0; j < 32; ++j) {
      double d = 0;
      for (int k = 0; k < 64; ++k) d += double(F(x)[i * 64 + k]) * F(w)[j * 64 + k];
      want[i * 32 + j] = std::max(d, 0.0) * F(y)[i * 32 + j] + d;
    }
  }
  ExpectClose(out->tensor(), want);
}

TEST(GraphPasses, UserWrittenPrimFuncsFuseIntoOneScheduledKernelAndMatch) {
  // The fuse-ops golden case (testdata/passes/fuse_ops/call_tir_user.py): three call_tirs of
  // PrimFuncs a user wrote (matmul, bias, ReLU) fuse by the patterns read off their blocks and
  // are scheduled as one kernel (the GEMM rule's micro-kernel with its epilogue).
  IRModule mod = Parse("testdata/passes/fuse_ops/call_tir_user.py");
  absl::StatusOr<IRModule> built =
      passes::RunPipeline(mod, *passes::ParsePipeline("fuse-ops,fuse-tir,default-schedule,remove-unused"));
  ASSERT_TRUE(built.ok()) << built.status();
  int kernels = 0;
  for (const auto& [name, f] : built->functions()) kernels += built->LookupPrimFunc(name).defined();
  EXPECT_EQ(kernels, 1) << PrintModule(*built);
  EXPECT_THAT(PrintModule(*built), HasSubstr("T.gemm_tile("));
  absl::StatusOr<proto::Executable> exe = codegen::Build(*built);
  ASSERT_TRUE(exe.ok()) << exe.status();
  absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> vm = vm::VirtualMachine::Load(*exe);
  ASSERT_TRUE(vm.ok()) << vm.status();
  std::mt19937 rng(8);
  NDArray a = Random({8, 16}, &rng), w = Random({16, 32}, &rng), b = Random({32}, &rng);
  absl::StatusOr<Value> out = (*vm)->Invoke("main", {Value(a), Value(w), Value(b)});
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<double> want(8 * 32);
  for (int i = 0; i < 8; ++i) {
    for (int j = 0; j < 32; ++j) {
      double d = F(b)[j];
      for (int k = 0; k < 16; ++k) d += double(F(a)[i * 16 + k]) * F(w)[k * 32 + j];
      want[i * 32 + j] = std::max(d, 0.0);
    }
  }
  ExpectClose(out->tensor(), want);
}

TEST(GraphPasses, BlockedPoolsPaddedPerPlaneMatchTheReference) {
  // 3x3 pools with padding over channel-blocked data no convolution pads (the default schedule
  // golden pool_padding_per_plane.py): each plane's padding (16 x 16 x 16 floats) is made under
  // the one parallel loop over the planes, and the maximum and both averages (padding counted
  // in the divisor or not) agree with the reference, borders included.
  constexpr int64_t kBlocks = 32, kSize = 14, kLanes = 16;
  for (const char* pool : {"max_pool2d", "avg_pool2d"}) {
    for (bool include_pad : {true, false}) {
      if (std::string(pool) == "max_pool2d" && !include_pad) continue;
      SCOPED_TRACE(absl::StrCat(pool, include_pad ? "" : ", padding not counted"));
      const std::string text =
          absl::StrCat(R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 32, 14, 14, 16), dtype="float32")):
        with R.dataflow():
            gv = R.nn.)",
                       pool, R"((x, pool_size=[3, 3], strides=[1, 1], padding=[1, 1, 1, 1], )",
                       std::string(pool) == "avg_pool2d" && !include_pad ? "count_include_pad=False, " : "",
                       R"(layout="NCHW16c")
            R.output(gv)
        return gv
)");
      absl::StatusOr<IRModule> mod = ParseTVMScript(text, "pool.py");
      ASSERT_TRUE(mod.ok()) << mod.status();
      absl::StatusOr<IRModule> built = passes::RunPipeline(*mod, *passes::ParsePipeline("default"));
      ASSERT_TRUE(built.ok()) << built.status();
      const std::string printed = PrintModule(*built);
      int parallel_loops = 0;
      for (size_t at = printed.find("T.parallel("); at != std::string::npos; at = printed.find("T.parallel(", at + 1))
        ++parallel_loops;
      EXPECT_EQ(parallel_loops, 1) << printed;
      EXPECT_THAT(printed, HasSubstr("T.parallel(T.int64(32))")) << printed;
      absl::StatusOr<proto::Executable> exe = codegen::Build(*built);
      ASSERT_TRUE(exe.ok()) << exe.status();
      absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> vm = vm::VirtualMachine::Load(*exe);
      ASSERT_TRUE(vm.ok()) << vm.status();
      std::mt19937 rng(9);
      NDArray x = Random({1, kBlocks, kSize, kSize, kLanes}, &rng);
      absl::StatusOr<Value> out = (*vm)->Invoke("main", {Value(x)});
      ASSERT_TRUE(out.ok()) << out.status();
      std::vector<double> want;
      for (int64_t c = 0; c < kBlocks; ++c) {
        for (int64_t h = 0; h < kSize; ++h) {
          for (int64_t w = 0; w < kSize; ++w) {
            for (int64_t l = 0; l < kLanes; ++l) {
              double max = -INFINITY, sum = 0;
              int inside = 0;
              for (int64_t dh = -1; dh <= 1; ++dh) {
                for (int64_t dw = -1; dw <= 1; ++dw) {
                  if (h + dh < 0 || h + dh >= kSize || w + dw < 0 || w + dw >= kSize) continue;
                  double v = F(x)[((c * kSize + h + dh) * kSize + w + dw) * kLanes + l];
                  max = std::max(max, v);
                  sum += v;
                  ++inside;
                }
              }
              want.push_back(std::string(pool) == "max_pool2d" ? max : sum / (include_pad ? 9 : inside));
            }
          }
        }
      }
      ExpectClose(out->tensor(), want);
    }
  }
}

TEST(Build, UnloweredOperatorsAreNamed) {
  absl::StatusOr<proto::Executable> exe = codegen::Build(Parse(absl::StrCat(kSeeds, "/graphopt_ewise.py")));
  ASSERT_FALSE(exe.ok());
  EXPECT_THAT(std::string(exe.status().message()), HasSubstr("operator R.multiply is not lowered to a kernel"));
}

TEST(Build, LoweredLoopProgramsMatchTheGolden) {
  codegen::BuildOptions options;
  options.dump_lowered_path = absl::StrCat(::testing::TempDir(), "/lowered.py");
  ASSERT_TRUE(codegen::Build(Parse(absl::StrCat(kSeeds, "/e2e_my_module.py")), options).ok());
  absl::Status s = testing::CheckGolden("testdata/codegen/my_module_lowered.py", *ReadFile(options.dump_lowered_path));
  EXPECT_TRUE(s.ok()) << s;
}

}  // namespace
}  // namespace mlc
