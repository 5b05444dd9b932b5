/*! \file build.cc
 *  \brief The build: lower and compile PrimFuncs, compile graph functions to bytecode.
 */
#include "codegen/build.h"

#include <algorithm>
#include <unordered_map>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "codegen/lower_tir.h"
#include "codegen/parallel_order.h"
#include "codegen/tensor_type.h"
#include "ir/graph/printer.h"
#include "ir/graph/serialize.h"
#include "ir/graph/structural_equal.h"
#include "ir/graph/verifier.h"
#include "ir/tir/flop_count.h"
#include "ir/tir/shape_expr.h"
#include "support/file_util.h"
#include "support/phase_timer.h"
#include "support/resource_limits.h"

namespace mlc {
namespace codegen {

namespace {

// For each lowered kernel, the index of the first one structurally equal to it (itself when it is
// the first): equal kernels (a ResNet's repeated layers) are compiled once and share a symbol.
// The name a kernel exports is the build's business, not the kernel's: compared without it.
std::vector<size_t> FirstEqualKernel(const std::vector<std::pair<std::string, tir::PrimFunc>>& lowered) {
  std::vector<tir::PrimFunc> unnamed;
  for (const auto& [name, f] : lowered) {
    Attrs attrs = f->attrs;
    attrs.erase("global_symbol");
    unnamed.push_back(tir::PrimFunc(new tir::PrimFuncNode(f->params, f->body, std::move(attrs))));
  }
  std::vector<size_t> first(lowered.size());
  std::unordered_map<size_t, std::vector<size_t>> by_hash;
  for (size_t i = 0; i < lowered.size(); ++i) {
    first[i] = i;
    std::vector<size_t>& candidates = by_hash[StructuralHash(unnamed[i])];
    for (size_t j : candidates) {
      if (StructuralEqual(unnamed[j], unnamed[i])) {
        first[i] = j;
        break;
      }
    }
    if (first[i] == i) candidates.push_back(i);
  }
  return first;
}

}  // namespace

absl::StatusOr<proto::Executable> Build(const IRModule& mod, const BuildOptions& options) {
  PhaseTimer timer;
  timer.Start("verify");
  if (absl::Status s = VerifyModule(mod); !s.ok()) return s;
  timer.Start("lower");
  std::vector<std::pair<std::string, tir::PrimFunc>> lowered;
  std::map<std::string, int> kernel_index;
  IRModule lowered_module;
  for (const auto& [name, func] : mod.functions()) {
    tir::PrimFunc prim = func.as_ref<tir::PrimFunc>();
    if (!prim.defined()) continue;
    absl::StatusOr<tir::PrimFunc> l = LowerPrimFunc(prim);
    if (!l.ok()) return absl::Status(l.status().code(), absl::StrCat("lowering @", name, ": ", l.status().message()));
    kernel_index[name] = static_cast<int>(lowered.size());
    lowered.emplace_back(name, *l);
    lowered_module.Add(name, *l);
  }
  if (!options.dump_lowered_path.empty()) {
    if (absl::Status s = WriteFileAtomically(options.dump_lowered_path, PrintModule(lowered_module)); !s.ok()) return s;
  }
  timer.Start("bytecode");
  absl::StatusOr<Target> target = TargetFromAttrs(mod.attrs());
  if (!target.ok()) return target.status();
  absl::StatusOr<proto::Executable> exe = CompileBytecode(mod, kernel_index);
  if (!exe.ok()) return exe.status();
  for (proto::VMFunction& f : *exe->mutable_functions()) OrderParallelLoops(*exe, target->l2_bytes, &f);
  exe->set_magic(vm::kExecutableMagic);
  exe->set_format_version(vm::kExecutableFormatVersion);
  timer.Start("deduplicate");
  const std::vector<size_t> first_equal = FirstEqualKernel(lowered);
  std::vector<std::pair<std::string, tir::PrimFunc>> distinct;
  for (size_t i = 0; i < lowered.size(); ++i) {
    if (first_equal[i] == i) distinct.push_back(lowered[i]);
  }
  for (size_t i = 0; i < lowered.size(); ++i) {
    const auto& [name, prim] = lowered[i];
    proto::Kernel* k = exe->add_kernels();
    k->set_name(name);
    k->set_symbol(KernelSymbol(lowered[first_equal[i]].first));
    const tir::PrimFunc& source = mod.LookupPrimFunc(name);
    k->set_flops(tir::CountFlops(source));
    k->set_source_ops(GetStringAttr(source->attrs, kSourceOpsAttr));
    // The VM checks arguments against the buffers as declared (before flattening) and binds
    // the shape variables from them, in the order code generation reads them.
    ShapeVarTable shape_vars(tir::ShapeVarsOf(source.get()));
    if (tir::ShapeVarsOf(prim.get()) != shape_vars.vars()) {
      return absl::InternalError(absl::StrCat("build: @", name, ": lowering reordered the shape variables"));
    }
    for (const tir::Var& v : shape_vars.vars()) k->add_shape_vars(v->name);
    for (const tir::Buffer& b : source->params) {
      proto::TensorType* t = k->add_params();
      t->mutable_dtype()->set_code(b->dtype.code());
      t->mutable_dtype()->set_bits(b->dtype.bits());
      if (absl::Status s = SetTensorShape(b->shape, shape_vars, t); !s.ok()) {
        return absl::InvalidArgumentError(absl::StrCat("build: @", name, ": buffer ", b->name, ": ", s.message()));
      }
    }
  }
  BuildStats stats;
  stats.kernels = static_cast<int>(lowered.size());
  stats.distinct_kernels = static_cast<int>(distinct.size());
  if (!distinct.empty()) {
    timer.Stop();
    const absl::Time codegen_start = absl::Now();
    CodegenOptions codegen = options.codegen;
    codegen.keep_llvm_ir = codegen.keep_llvm_ir || !options.dump_llvm_path.empty();
    absl::StatusOr<CompiledKernels> compiled = CompileKernels(distinct, *target, codegen);
    if (!compiled.ok()) return compiled.status();
    stats.codegen_threads = compiled->threads;
    for (const CompiledKernels::Kernel& k : compiled->kernels) stats.cached_kernels += k.cached ? 1 : 0;
    const double codegen_seconds = absl::ToDoubleSeconds(absl::Now() - codegen_start);
    timer.Add(absl::StrCat("codegen (", stats.kernels, " kernels, ", stats.distinct_kernels, " distinct, ",
                           stats.cached_kernels, " cached, ", compiled->threads, " threads)"),
              codegen_seconds - compiled->link_seconds);
    timer.Add("link", compiled->link_seconds);
    timer.Start("finish");
    for (size_t i = 0; i < distinct.size(); ++i) {
      if (!compiled->kernels[i].cached)
        stats.kernel_seconds.emplace_back(distinct[i].first, compiled->kernels[i].compile_seconds);
    }
    std::stable_sort(stats.kernel_seconds.begin(), stats.kernel_seconds.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    exe->set_kernel_library(std::move(compiled->shared_object));
    exe->set_target(target->str());
    for (const std::string& f : target->features) exe->add_cpu_features(f);
    if (!options.dump_llvm_path.empty()) {
      std::string llvm_ir;
      for (const CompiledKernels::Kernel& k : compiled->kernels) llvm_ir += k.llvm_ir;
      if (absl::Status s = WriteFileAtomically(options.dump_llvm_path, llvm_ir); !s.ok()) return s;
    }
  }
  // An executable is one Protobuf message, which cannot reach 2 GiB.
  if (const size_t bytes = exe->ByteSizeLong(); bytes > size_t{INT32_MAX}) {
    return absl::ResourceExhaustedError(
        absl::StrCat("the executable would be ", HumanBytes(static_cast<int64_t>(bytes)),
                     "; one holds less than 2 GiB (keep large weights as parameters of main)"));
  }
  timer.Stop();
  stats.phases = timer.phases();
  if (options.stats != nullptr) *options.stats = std::move(stats);
  return exe;
}

}  // namespace codegen
}  // namespace mlc
