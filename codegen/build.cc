/*! \file build.cc
 *  \brief The build: lower and compile PrimFuncs, compile graph functions to bytecode.
 */
#include "codegen/build.h"

#include "absl/strings/str_cat.h"
#include "codegen/lower_tir.h"
#include "codegen/tensor_type.h"
#include "ir/graph/printer.h"
#include "ir/tir/flop_count.h"
#include "ir/tir/shape_expr.h"
#include "ir/graph/serialize.h"
#include "ir/graph/verifier.h"
#include "support/file_util.h"
#include "support/resource_limits.h"

namespace mlc {
namespace codegen {

absl::StatusOr<proto::Executable> Build(const IRModule& mod, const BuildOptions& options) {
  if (absl::Status s = VerifyModule(mod); !s.ok()) return s;
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
  absl::StatusOr<proto::Executable> exe = CompileBytecode(mod, kernel_index);
  if (!exe.ok()) return exe.status();
  exe->set_magic(vm::kExecutableMagic);
  exe->set_format_version(vm::kExecutableFormatVersion);
  for (const auto& [name, prim] : lowered) {
    proto::Kernel* k = exe->add_kernels();
    k->set_name(name);
    k->set_symbol(KernelSymbol(name));
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
  if (!lowered.empty()) {
    CodegenOptions codegen = options.codegen;
    codegen.keep_llvm_ir = codegen.keep_llvm_ir || !options.dump_llvm_path.empty();
    absl::StatusOr<Target> target = TargetFromAttrs(mod.attrs());
    if (!target.ok()) return target.status();
    absl::StatusOr<CompiledKernels> compiled = CompileKernels(lowered, *target, codegen);
    if (!compiled.ok()) return compiled.status();
    exe->set_kernel_library(std::move(compiled->shared_object));
    exe->set_target(target->str());
    for (const std::string& f : target->features) exe->add_cpu_features(f);
    if (!options.dump_llvm_path.empty()) {
      if (absl::Status s = WriteFileAtomically(options.dump_llvm_path, compiled->llvm_ir); !s.ok()) return s;
    }
  }
  // An executable is one Protobuf message, which cannot reach 2 GiB.
  if (const size_t bytes = exe->ByteSizeLong(); bytes > size_t{INT32_MAX}) {
    return absl::ResourceExhaustedError(absl::StrCat("the executable would be ", HumanBytes(static_cast<int64_t>(bytes)),
                                                     "; one holds less than 2 GiB (keep large weights as parameters of main)"));
  }
  return exe;
}

}  // namespace codegen
}  // namespace mlc
