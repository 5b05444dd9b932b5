/*! \file kernel_main.cc */
#include "tools/testing/kernel_main.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "codegen/build.h"
#include "ir/graph/block_builder.h"
#include "ir/graph/op.h"
#include "ir/tir/tir_util.h"

namespace mlc {
namespace testing_util {
namespace {

absl::StatusOr<std::vector<int64_t>> ConstShape(const tir::Buffer& b) {
  std::vector<int64_t> shape;
  for (const tir::PrimExpr& d : b->shape) {
    const int64_t* v = tir::AsConstInt(d);
    if (v == nullptr) return absl::InvalidArgumentError(absl::StrCat("buffer ", b->name, " has a symbolic shape"));
    shape.push_back(*v);
  }
  return shape;
}

}  // namespace

absl::StatusOr<IRModule> WithMainCalling(const tir::PrimFunc& func, const std::string& name) {
  if (func->params.empty()) return absl::InvalidArgumentError(absl::StrCat(name, " has no output parameter"));
  IRModule mod;
  mod.Add(name, func);
  relax::BlockBuilder bb(mod);
  std::vector<relax::Var> params;
  for (size_t i = 0; i + 1 < func->params.size(); ++i) {
    absl::StatusOr<std::vector<int64_t>> shape = ConstShape(func->params[i]);
    if (!shape.ok()) return shape.status();
    params.push_back(relax::MakeVar(absl::StrCat("in", i), relax::TensorSInfo(*shape, func->params[i]->dtype)));
  }
  absl::StatusOr<std::vector<int64_t>> out_shape = ConstShape(func->params.back());
  if (!out_shape.ok()) return out_shape.status();
  if (absl::Status s = bb.BeginFunction("main", params); !s.ok()) return s;
  relax::Expr call = relax::MakeCall(
      relax::GetOpOrDie("call_tir"),
      {relax::MakeGlobalVar(name), relax::MakeTuple(std::vector<relax::Expr>(params.begin(), params.end()))}, {},
      {relax::TensorSInfo(*out_shape, func->params.back()->dtype)});
  absl::StatusOr<relax::Var> out = bb.Emit(call);
  if (!out.ok()) return out.status();
  if (absl::StatusOr<relax::GlobalVar> f = bb.EmitFuncOutput(*out); !f.ok()) return f.status();
  return bb.Get();
}

absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> Compile(const IRModule& mod) {
  absl::StatusOr<proto::Executable> exe = codegen::Build(mod);
  if (!exe.ok()) return exe.status();
  return vm::VirtualMachine::LoadBytes(vm::SerializeExecutable(*exe), "kernel.mlcx");
}

}  // namespace testing_util
}  // namespace mlc
