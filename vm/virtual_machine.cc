/*! \file virtual_machine.cc
 *  \brief Executable checking and the interpreter loop.
 */
#include "vm/virtual_machine.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "support/checked_math.h"
#include "support/cpu_features.h"
#include "support/file_util.h"
#include "support/resource_limits.h"
#include "support/tensor_data.h"
#include "vm/executable_format.h"
#include "vm/executable_variants.h"
#include "vm/thread_pool.h"
#include "vm/workspace_pool.h"

namespace mlc {
namespace vm {
namespace {

constexpr int kMaxCallDepth = 256;

using proto::Arg;
using proto::Instruction;

DLDataType ToDL(const proto::DataTypeProto& p) {
  DLDataType t;
  t.code = static_cast<uint8_t>(p.code());
  t.bits = static_cast<uint8_t>(p.bits());
  t.lanes = 1;
  if (t.code == kDLBoolCode) t.bits = 8;
  return t;
}

/*! \brief Bytes of a tensor of this type and shape (for the profile). */
int64_t TensorBytes(DLDataType dtype, const int64_t* shape, int ndim) {
  int64_t n = DLDataTypeBytes(dtype);
  for (int i = 0; i < ndim; ++i) n *= shape[i];
  return n;
}

bool SameDType(DLDataType a, DLDataType b) { return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes; }

std::string DescribeType(const proto::TensorType& t, const std::vector<std::string>& shape_vars = {}) {
  if (t.symbolic_dims_size() > 0) {
    std::vector<std::string> dims;
    for (const proto::DimExpr& d : t.symbolic_dims()) {
      absl::StatusOr<DimProgram> p = DimProgram::Decode(d, static_cast<int>(shape_vars.size()));
      dims.push_back(p.ok() ? p->ToString(shape_vars) : "?");
    }
    return absl::StrCat(DLDataTypeName(ToDL(t.dtype())), " (", absl::StrJoin(dims, ", "),
                        dims.size() == 1 ? ",)" : ")");
  }
  if (t.has_shape()) return DescribeTensor(ToDL(t.dtype()), std::vector<int64_t>(t.shape().begin(), t.shape().end()));
  return absl::StrCat(DLDataTypeName(ToDL(t.dtype())), t.ndim() >= 0 ? absl::StrCat(" (ndim ", t.ndim(), ")") : "");
}

}  // namespace

TensorParamType TensorParamType::Decode(const proto::TensorType& t) {
  TensorParamType p;
  p.any_dtype = t.dtype().code() == 255;
  if (!p.any_dtype) p.dtype = ToDL(t.dtype());
  p.ndim = t.ndim();
  p.static_shape = t.symbolic_dims_size() == 0 && t.has_shape();
  if (p.static_shape) p.shape.assign(t.shape().begin(), t.shape().end());
  return p;
}

bool TensorParamType::Fits(const NDArray& a) const {
  if (!any_dtype && !SameDType(a.dtype(), dtype)) return false;
  if (ndim >= 0 && static_cast<int>(a.shape().size()) != ndim) return false;
  return !static_shape || a.shape() == shape;
}

namespace {

/*! \brief Checks dtype, rank and static dimensions against `declared`, `t` decoded; symbolic ones
 *  are BindShapes' work. `t` itself only names the type in the error. */
absl::Status CheckTensorValue(const Value& v, const TensorParamType& declared, const proto::TensorType& t,
                              const std::string& what, const std::vector<std::string>& shape_vars) {
  if (!v.is_tensor()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": expected a tensor ", DescribeType(t, shape_vars), ", got ", v.Describe()));
  }
  if (!declared.Fits(v.tensor())) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": expected ", DescribeType(t, shape_vars), ", got ", v.Describe()));
  }
  return absl::OkStatus();
}

absl::Status CheckValue(const Value& v, const proto::ValueType& t, const std::string& what,
                        const std::vector<std::string>& shape_vars) {
  switch (t.kind_case()) {
    case proto::ValueType::kTensor:
      return CheckTensorValue(v, TensorParamType::Decode(t.tensor()), t.tensor(), what, shape_vars);
    case proto::ValueType::kTuple: {
      if (!v.is_tuple() || v.tuple().size() != static_cast<size_t>(t.tuple().fields_size())) {
        return absl::InvalidArgumentError(
            absl::StrCat(what, ": expected a tuple of ", t.tuple().fields_size(), ", got ", v.Describe()));
      }
      for (int i = 0; i < t.tuple().fields_size(); ++i) {
        absl::Status s = CheckValue(v.tuple()[i], t.tuple().fields(i), absl::StrCat(what, "[", i, "]"), shape_vars);
        if (!s.ok()) return s;
      }
      return absl::OkStatus();
    }
    default: return absl::OkStatus();
  }
}

}  // namespace

absl::StatusOr<std::vector<int64_t>> VirtualMachine::ShapeSignature::Bind(
    const std::vector<const std::vector<int64_t>*>& args, const std::function<std::string(size_t)>& describe) const {
  std::vector<int64_t> values(vars.size(), -1);
  std::vector<const DeclaredShape*> declared;
  for (const auto& p : params) declared.push_back(p.get());
  if (absl::Status s = BindShapes(declared, args, vars, describe, &values); !s.ok()) return s;
  return values;
}

namespace {

/*! \brief A tensor type's symbolic dimensions, decoded over `num_vars` shape variables. */
absl::StatusOr<DeclaredShape> DecodeTensorTypeDims(const proto::TensorType& t, int num_vars) {
  if (t.ndim() != t.symbolic_dims_size()) return absl::DataLossError("tensor type: ndim disagrees with its dimensions");
  return DecodeShape(t.symbolic_dims(), num_vars);
}

/*! \brief The shape signature of tensors declared by `types` (nullptr: not a tensor). */
absl::Status DecodeSignature(const google::protobuf::RepeatedPtrField<std::string>& vars,
                             const std::vector<const proto::TensorType*>& types, std::vector<std::string>* var_names,
                             std::vector<std::unique_ptr<DeclaredShape>>* params) {
  var_names->assign(vars.begin(), vars.end());
  for (const proto::TensorType* t : types) {
    if (t == nullptr || t->symbolic_dims_size() == 0) {
      params->push_back(nullptr);
      continue;
    }
    absl::StatusOr<DeclaredShape> shape = DecodeTensorTypeDims(*t, vars.size());
    if (!shape.ok()) return shape.status();
    params->push_back(std::make_unique<DeclaredShape>(*std::move(shape)));
  }
  return absl::OkStatus();
}

}  // namespace

std::string Value::Describe() const {
  if (is_tensor()) return DescribeTensor(tensor().dtype(), tensor().shape());
  if (is_tuple()) {
    std::vector<std::string> parts;
    for (const Value& v : tuple()) parts.push_back(v.Describe());
    return absl::StrCat("(", absl::StrJoin(parts, ", "), ")");
  }
  return "None";
}

absl::StatusOr<std::unique_ptr<VirtualMachine>> VirtualMachine::Load(proto::Executable exe,
                                                                     const RuntimeRegistry& registry) {
  return Load(std::move(exe), absl::string_view(), registry);
}

absl::StatusOr<std::unique_ptr<VirtualMachine>> VirtualMachine::Load(proto::Executable exe,
                                                                     absl::string_view constant_data,
                                                                     const RuntimeRegistry& registry) {
  if (exe.magic() != kExecutableMagic) return absl::DataLossError("not an executable (bad magic)");
  if (exe.format_version() != kExecutableFormatVersion) {
    return absl::FailedPreconditionError(absl::StrCat("executable format version ", exe.format_version(),
                                                      " is not supported (this VM reads version ",
                                                      kExecutableFormatVersion, "; rebuild it)"));
  }
  if (exe.variants_size() > 0) {
    // A multi-target executable: the VM becomes the variant this CPU runs best.
    absl::StatusOr<int> chosen = SelectVariant(exe);
    if (!chosen.ok()) return chosen.status();
    proto::Executable variant = std::move(*exe.mutable_variants(*chosen));
    if (variant.variants_size() > 0) return absl::DataLossError("a variant of the executable is itself multi-target");
    return Load(std::move(variant), constant_data, registry);
  }
  std::unique_ptr<VirtualMachine> vm(new VirtualMachine());
  // Constants, in one block of storage: a model's weights then lie on huge pages together
  // (NDArray's storage asks for them from 2 MiB on) rather than one partly used page each.
  std::vector<int64_t> offsets;
  int64_t total = 0;
  // A file's constants lie in its data section (vm/executable_format.h); a message built in
  // memory holds them itself.
  const bool in_section = exe.constant_offsets_size() == exe.constants_size() && exe.constants_size() > 0;
  // A message that lists offsets must come with the data section they point into.
  if (in_section) {
    if (absl::Status s = CheckConstantOffsets(exe, constant_data); !s.ok()) return s;
  }
  auto bytes_of = [&](int i) -> absl::string_view {
    if (!in_section) return exe.constants(i).data();
    return constant_data.substr(exe.constant_offsets(i), static_cast<size_t>(ConstantBytes(exe.constants(i))));
  };
  for (int i = 0; i < exe.constants_size(); ++i) {
    offsets.push_back(total);
    total = SaturatingAdd(total, (static_cast<int64_t>(bytes_of(i).size()) + 63) / 64 * 64);
  }
  absl::StatusOr<NDArray> block = NDArray::Allocate({total}, DLDataType{kDLUInt, 8, 1});
  if (!block.ok()) return absl::ResourceExhaustedError(absl::StrCat("constants: ", block.status().message()));
  for (int i = 0; i < exe.constants_size(); ++i) {
    const proto::TensorProto& c = exe.constants(i);
    std::vector<int64_t> shape(c.shape().begin(), c.shape().end());
    DLDataType dt = ToDL(c.dtype());
    absl::StatusOr<NDArray> constant = NDArray::View(*block, offsets[i], shape, dt);
    absl::Status copied = constant.ok() ? constant->CopyFromBytes(bytes_of(i)) : constant.status();
    if (!copied.ok()) return absl::DataLossError(absl::StrCat("constant ", i, ": ", copied.message()));
    vm->constants_.push_back(*std::move(constant));
    std::string().swap(*exe.mutable_constants(i)->mutable_data());  // the VM keeps exe: not its weights twice
  }
  // Kernels.
  if (exe.kernels_size() > 0) {
    // Kernels compiled for features this CPU lacks would die of SIGILL mid-run: refuse now.
    std::vector<std::string> lacking = LackingCpuFeatures(exe);
    if (!lacking.empty()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "the kernels were compiled for target '", exe.target(),
          "' and use CPU features this CPU lacks: ", absl::StrJoin(lacking, ", "), " (this CPU: ", HostCpuName(),
          "); build the model again with --target=native or a target this CPU runs"));
    }
    absl::StatusOr<std::unique_ptr<KernelLibrary>> lib = KernelLibrary::Load(exe.kernel_library());
    if (!lib.ok()) return lib.status();
    vm->library_ = std::move(*lib);
    std::string().swap(*exe.mutable_kernel_library());  // loaded from its own copy
    for (const proto::Kernel& k : exe.kernels()) {
      absl::StatusOr<KernelFunction> fn = vm->library_->Lookup(k.symbol());
      if (!fn.ok()) return absl::DataLossError(absl::StrCat("kernel ", k.name(), ": ", fn.status().message()));
      LoadedKernel kernel;
      kernel.fn = *fn;
      std::vector<const proto::TensorType*> types;
      for (const proto::TensorType& t : k.params()) {
        types.push_back(&t);
        kernel.params.push_back(TensorParamType::Decode(t));
      }
      if (absl::Status s = DecodeSignature(k.shape_vars(), types, &kernel.signature.vars, &kernel.signature.params);
          !s.ok()) {
        return absl::DataLossError(absl::StrCat("kernel ", k.name(), ": ", s.message()));
      }
      vm->kernels_.push_back(std::move(kernel));
    }
  }
  // Runtime functions: all must exist now.
  std::vector<std::string> missing;
  for (const std::string& name : exe.extern_functions()) {
    if (const RuntimeFunction* fn = registry.Find(name)) {
      vm->externs_[name] = *fn;
    } else if (const AllocatingRuntimeFunction* afn = registry.FindAllocating(name)) {
      vm->allocating_externs_[name] = *afn;
    } else {
      missing.push_back(name);
    }
  }
  if (!missing.empty()) {
    return absl::NotFoundError(absl::StrCat(
        "the program calls runtime function", missing.size() > 1 ? "s " : " ", absl::StrJoin(missing, ", "),
        ", not registered (load the library that provides ", missing.size() > 1 ? "them" : "it", " with --plugin)"));
  }
  // Bytecode: checked and decoded once, here.
  vm->exe_ = std::move(exe);
  for (int f = 0; f < vm->exe_.functions_size(); ++f) {
    const proto::VMFunction& fn = vm->exe_.functions(f);
    if (!vm->function_index_.emplace(fn.name(), f).second)
      return absl::DataLossError(absl::StrCat("function ", fn.name(), " appears twice"));
  }
  for (int f = 0; f < vm->exe_.functions_size(); ++f) {
    if (absl::Status s = vm->Decode(f); !s.ok()) return s;
  }
  return vm;
}

/*! \brief Marks the function calls whose result the caller returns unchanged: the call's value
 *         reaches a RET through MOVEs and GOTOs only (an if's branch joining the function's
 *         end). Such a call replaces the caller's frame, so a loop written as recursion (ONNX
 *         Loop) runs in constant depth. */
void VirtualMachine::MarkTailCalls(std::vector<Instr>& code) {
  const int size = static_cast<int>(code.size());
  for (int pc = 0; pc < size; ++pc) {
    Instr& call = code[pc];
    if (call.op != Op::kCall || call.callee != Callee::kFunction || call.dst < 0) continue;
    int32_t value = call.dst;
    int at = pc + 1;
    for (int steps = 0; at < size && steps < size; ++steps) {
      const Instr& next = code[at];
      if (next.op == Op::kGoto) {
        at += static_cast<int>(next.args[0].value);
      } else if (next.op == Op::kCall && next.callee == Callee::kMove && next.args[0].kind == Operand::kReg &&
                 next.args[0].value == value) {
        value = next.dst;
        ++at;
      } else {
        call.tail_call = next.op == Op::kRet && next.args[0].kind == Operand::kReg && next.args[0].value == value;
        break;
      }
    }
  }
}

absl::Status VirtualMachine::Decode(int func_index) {
  const proto::Executable& exe = exe_;
  const proto::VMFunction& fn = exe.functions(func_index);
  if (fn.num_registers() < fn.param_types_size() || fn.param_names_size() != fn.param_types_size()) {
    return absl::DataLossError(absl::StrCat("function ", fn.name(), ": inconsistent parameter table"));
  }
  if (fn.instructions_size() == 0 || fn.instructions(fn.instructions_size() - 1).opcode() != Instruction::RET) {
    return absl::DataLossError(absl::StrCat("function ", fn.name(), " does not end with RET"));
  }
  Function out;
  out.num_registers = fn.num_registers();
  if (fn.arena_bytes() < 0) return absl::DataLossError(absl::StrCat("function ", fn.name(), ": negative arena size"));
  out.arena_bytes = fn.arena_bytes();
  std::vector<const proto::TensorType*> param_tensors;
  for (const proto::ValueType& t : fn.param_types()) param_tensors.push_back(t.has_tensor() ? &t.tensor() : nullptr);
  if (absl::Status s = DecodeSignature(fn.shape_vars(), param_tensors, &out.signature.vars, &out.signature.params);
      !s.ok()) {
    return absl::DataLossError(absl::StrCat("function ", fn.name(), ": ", s.message()));
  }
  auto where = [&](int pc) { return absl::StrCat("function ", fn.name(), ", instruction ", pc, ": "); };
  auto check_reg = [&](int64_t r) { return r >= 0 && r < fn.num_registers(); };
  for (int pc = 0; pc < fn.instructions_size(); ++pc) {
    const Instruction& inst = fn.instructions(pc);
    Instr d;
    for (const Arg& a : inst.args()) {
      Operand o;
      switch (a.kind_case()) {
        case Arg::kReg:
          if (!check_reg(a.reg()))
            return absl::DataLossError(absl::StrCat(where(pc), "register ", a.reg(), " out of range"));
          o.kind = Operand::kReg;
          o.value = a.reg();
          break;
        case Arg::kConstant:
          if (a.constant() < 0 || a.constant() >= exe.constants_size()) {
            return absl::DataLossError(absl::StrCat(where(pc), "constant ", a.constant(), " out of range"));
          }
          o.kind = Operand::kConstant;
          o.value = a.constant();
          break;
        case Arg::kImm:
          o.kind = Operand::kImm;
          o.value = a.imm();
          break;
        case Arg::kShape:
          o.kind = Operand::kShape;
          if (a.shape().symbolic_dims_size() > 0) {
            absl::StatusOr<DeclaredShape> dims = DecodeShape(a.shape().symbolic_dims(), fn.shape_vars_size());
            if (!dims.ok()) return absl::DataLossError(absl::StrCat(where(pc), dims.status().message()));
            o.symbolic = true;
            o.dims = *std::move(dims);
          }
          o.shape.assign(a.shape().values().begin(), a.shape().values().end());
          for (int64_t v : o.shape) {
            if (v < 0) return absl::DataLossError(absl::StrCat(where(pc), "negative dimension"));
          }
          break;
        case Arg::kDtype:
          o.kind = Operand::kDType;
          o.dtype = ToDL(a.dtype());
          break;
        case Arg::kTensorType:
          o.kind = Operand::kTensorType;
          o.tensor_type = &a.tensor_type();
          o.declared = TensorParamType::Decode(a.tensor_type());
          if (a.tensor_type().symbolic_dims_size() > 0) {
            absl::StatusOr<DeclaredShape> dims = DecodeTensorTypeDims(a.tensor_type(), fn.shape_vars_size());
            if (!dims.ok()) return absl::DataLossError(absl::StrCat(where(pc), dims.status().message()));
            o.symbolic = true;
            o.dims = *std::move(dims);
          }
          break;
        case Arg::KIND_NOT_SET: return absl::DataLossError(absl::StrCat(where(pc), "empty operand"));
      }
      d.args.push_back(std::move(o));
    }
    if (inst.dst() != -1 && !check_reg(inst.dst()))
      return absl::DataLossError(absl::StrCat(where(pc), "destination out of range"));
    d.dst = inst.dst();
    for (int r : inst.release()) {
      if (!check_reg(r)) return absl::DataLossError(absl::StrCat(where(pc), "released register out of range"));
      d.release.push_back(r);
    }
    auto jump = [&]() -> absl::Status {
      if (d.args.empty() || d.args.back().kind != Operand::kImm)
        return absl::DataLossError(absl::StrCat(where(pc), "jump without an offset"));
      int64_t target = pc + d.args.back().value;
      if (target < 0 || target >= fn.instructions_size())
        return absl::DataLossError(absl::StrCat(where(pc), "jump out of range"));
      return absl::OkStatus();
    };
    switch (inst.opcode()) {
      case Instruction::RET:
        if (d.args.size() != 1) return absl::DataLossError(absl::StrCat(where(pc), "RET takes one value"));
        d.op = Op::kRet;
        break;
      case Instruction::GOTO:
        d.op = Op::kGoto;
        if (absl::Status s = jump(); !s.ok()) return s;
        break;
      case Instruction::IF:
        d.op = Op::kIf;
        if (d.args.size() != 2)
          return absl::DataLossError(absl::StrCat(where(pc), "IF takes a condition and an offset"));
        if (absl::Status s = jump(); !s.ok()) return s;
        break;
      case Instruction::CALL:
        d.op = Op::kCall;
        switch (inst.callee_kind()) {
          case Instruction::KERNEL:
            if (inst.callee_index() < 0 || inst.callee_index() >= exe.kernels_size()) {
              return absl::DataLossError(absl::StrCat(where(pc), "kernel index out of range"));
            }
            if (inst.args_size() != exe.kernels(inst.callee_index()).params_size()) {
              return absl::DataLossError(absl::StrCat(where(pc), "kernel ", exe.kernels(inst.callee_index()).name(),
                                                      " takes ", exe.kernels(inst.callee_index()).params_size(),
                                                      " buffers, called with ", inst.args_size()));
            }
            d.callee = Callee::kKernel;
            d.index = inst.callee_index();
            d.descending = inst.parallel_descending();
            break;
          case Instruction::FUNCTION:
            if (inst.callee_index() < 0 || inst.callee_index() >= exe.functions_size()) {
              return absl::DataLossError(absl::StrCat(where(pc), "function index out of range"));
            }
            d.callee = Callee::kFunction;
            d.index = inst.callee_index();
            break;
          case Instruction::EXTERN: {
            auto it = externs_.find(inst.callee_name());
            if (it == externs_.end()) {
              return absl::DataLossError(absl::StrCat(where(pc), "runtime function ", inst.callee_name(),
                                                      " is not listed as one that takes its outputs"));
            }
            d.callee = Callee::kExtern;
            d.fn = &it->second;
            d.fn_name = inst.callee_name();
            break;
          }
          case Instruction::EXTERN_ALLOCATING: {
            auto it = allocating_externs_.find(inst.callee_name());
            if (it == allocating_externs_.end()) {
              return absl::DataLossError(absl::StrCat(where(pc), "runtime function ", inst.callee_name(),
                                                      " is not listed as one that allocates its results"));
            }
            if (d.dst < 0)
              return absl::DataLossError(
                  absl::StrCat(where(pc), "a call of ", inst.callee_name(), " needs a destination"));
            d.callee = Callee::kAllocatingExtern;
            d.allocating_fn = &it->second;
            d.fn_name = inst.callee_name();
            break;
          }
          case Instruction::BUILTIN:
            switch (inst.builtin()) {
              case Instruction::ALLOC_TENSOR:
                if ((d.args.size() != 2 && d.args.size() != 4) || d.args[0].kind != Operand::kShape ||
                    d.args[1].kind != Operand::kDType || d.dst < 0) {
                  return absl::DataLossError(
                      absl::StrCat(where(pc), "ALLOC_TENSOR takes a shape, a dtype and optionally an arena place"));
                }
                if (d.args.size() == 4) {
                  const int64_t offset = d.args[2].value, bound = d.args[3].value;
                  if (d.args[2].kind != Operand::kImm || d.args[3].kind != Operand::kImm || offset < 0 ||
                      offset % 64 != 0 || bound < 0 || offset > fn.arena_bytes() || bound > fn.arena_bytes() - offset) {
                    return absl::DataLossError(absl::StrCat(where(pc), "ALLOC_TENSOR: arena place out of range"));
                  }
                  d.arena_offset = offset;
                  d.arena_bound = bound;
                }
                d.callee = Callee::kAllocTensor;
                break;
              case Instruction::MAKE_TUPLE:
                if (d.dst < 0) return absl::DataLossError(absl::StrCat(where(pc), "MAKE_TUPLE needs a destination"));
                d.callee = Callee::kMakeTuple;
                break;
              case Instruction::TUPLE_GETITEM:
                if (d.args.size() != 2 || d.args[1].kind != Operand::kImm || d.dst < 0) {
                  return absl::DataLossError(absl::StrCat(where(pc), "TUPLE_GETITEM takes a tuple and an index"));
                }
                d.callee = Callee::kTupleGetItem;
                break;
              case Instruction::MATCH_CAST:
                if (d.args.size() != 2 || d.args[1].kind != Operand::kTensorType) {
                  return absl::DataLossError(absl::StrCat(where(pc), "MATCH_CAST takes a value and a tensor type"));
                }
                d.callee = Callee::kMatchCast;
                break;
              case Instruction::CACHE_APPEND:
                if (d.args.size() != 3 || d.args[0].kind == Operand::kImm || d.args[1].kind == Operand::kImm ||
                    d.args[2].kind != Operand::kImm || d.dst < 0) {
                  return absl::DataLossError(absl::StrCat(where(pc), "CACHE_APPEND takes a cache, rows and an axis"));
                }
                d.callee = Callee::kCacheAppend;
                break;
              case Instruction::CONCAT:
                if (d.args.size() < 2 || std::any_of(d.args.begin(), d.args.end(), [](const Operand& a) {
                      return a.kind != Operand::kReg && a.kind != Operand::kConstant;
                    })) {
                  return absl::DataLossError(absl::StrCat(where(pc), "CONCAT takes a result and its inputs"));
                }
                d.callee = Callee::kConcat;
                break;
              case Instruction::MOVE:
                if (d.args.size() != 1 || d.args[0].kind == Operand::kImm || d.dst < 0) {
                  return absl::DataLossError(absl::StrCat(where(pc), "MOVE takes a value and a destination"));
                }
                d.callee = Callee::kMove;
                break;
              default: return absl::DataLossError(absl::StrCat(where(pc), "unknown builtin ", inst.builtin()));
            }
            break;
          default: return absl::DataLossError(absl::StrCat(where(pc), "unknown callee kind"));
        }
        break;
      default: return absl::DataLossError(absl::StrCat(where(pc), "unknown opcode"));
    }
    out.code.push_back(std::move(d));
  }
  MarkTailCalls(out.code);
  functions_.push_back(std::move(out));
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<VirtualMachine>> VirtualMachine::LoadBytes(
    absl::string_view bytes, const std::string& source, const RuntimeRegistry& registry,
    const std::vector<std::string>& trusted_keys) {
  absl::StatusOr<ExecutableSections> file = ReadExecutable(bytes, source, trusted_keys);
  if (!file.ok()) return file.status();
  absl::StatusOr<std::unique_ptr<VirtualMachine>> vm = Load(std::move(file->exe), file->constant_data, registry);
  if (!vm.ok()) return absl::Status(vm.status().code(), absl::StrCat(source, ": ", vm.status().message()));
  return vm;
}

absl::StatusOr<std::unique_ptr<VirtualMachine>> VirtualMachine::LoadFile(const std::string& path,
                                                                         const RuntimeRegistry& registry,
                                                                         const std::vector<std::string>& trusted_keys) {
  // The file is mapped, not read onto the heap: each constant is copied once, from the file to
  // where it lives, and the mapping goes when the VM is loaded.
  absl::StatusOr<MappedFile> file = MappedFile::Open(path);
  if (!file.ok()) return file.status();
  return LoadBytes(file->bytes(), path, registry, trusted_keys);
}

std::vector<std::string> VirtualMachine::FunctionNames() const {
  std::vector<std::string> names;
  for (const auto& [name, index] : function_index_) names.push_back(name);
  return names;
}

absl::StatusOr<std::vector<std::string>> VirtualMachine::DescribeParams(const std::string& name) const {
  auto it = function_index_.find(name);
  if (it == function_index_.end()) return absl::NotFoundError(absl::StrCat("no function ", name));
  const proto::VMFunction& fn = exe_.functions(it->second);
  std::vector<std::string> out;
  for (int i = 0; i < fn.param_types_size(); ++i) {
    const proto::ValueType& t = fn.param_types(i);
    out.push_back(absl::StrCat(
        fn.param_names(i), ": ",
        t.has_tensor() ? DescribeType(t.tensor(), {fn.shape_vars().begin(), fn.shape_vars().end()}) : "value"));
  }
  return out;
}

absl::StatusOr<std::vector<int64_t>> VirtualMachine::CheckArgs(int func_index, const std::vector<Value>& args) const {
  const proto::VMFunction& fn = exe_.functions(func_index);
  if (static_cast<int>(args.size()) != fn.param_types_size()) {
    return absl::InvalidArgumentError(absl::StrCat("function ", fn.name(), " takes ", fn.param_types_size(),
                                                   " arguments (", absl::StrJoin(fn.param_names(), ", "), "), got ",
                                                   args.size()));
  }
  for (size_t i = 0; i < args.size(); ++i) {
    absl::Status s = CheckValue(args[i], fn.param_types(i), absl::StrCat("argument ", i, " (", fn.param_names(i), ")"),
                                functions_[func_index].signature.vars);
    if (!s.ok()) return absl::InvalidArgumentError(absl::StrCat("function ", fn.name(), ": ", s.message()));
  }
  const ShapeSignature& signature = functions_[func_index].signature;
  if (!signature.symbolic()) return std::vector<int64_t>();
  std::vector<const std::vector<int64_t>*> shapes;
  for (const Value& a : args) shapes.push_back(a.is_tensor() ? &a.tensor().shape() : nullptr);
  absl::StatusOr<std::vector<int64_t>> values =
      signature.Bind(shapes, [&](size_t i) { return absl::StrCat("argument ", i, " (", fn.param_names(i), ")"); });
  if (!values.ok())
    return absl::InvalidArgumentError(absl::StrCat("function ", fn.name(), ": ", values.status().message()));
  return values;
}

absl::StatusOr<Value> VirtualMachine::Invoke(const std::string& name, const std::vector<Value>& args) {
  auto it = function_index_.find(name);
  if (it == function_index_.end()) {
    return absl::NotFoundError(absl::StrCat(
        "no function ", name, " in the executable (functions: ", absl::StrJoin(FunctionNames(), ", "), ")"));
  }
  absl::StatusOr<std::vector<int64_t>> shape_values = CheckArgs(it->second, args);
  if (!shape_values.ok()) return shape_values.status();
  const int pool_threads = ThreadPool::Global().num_threads();
  const bool choose = choose_threads_ && pool_threads > 1;
  bool serial = false;
  if (choose) {
    std::lock_guard<std::mutex> lock(choice_mu_);
    TimedThreads& timed = thread_choices_[it->second];
    if (timed.pool_threads != pool_threads) timed = {pool_threads, ThreadChoice()};  // measured afresh
    serial = timed.choice.NextRunSerial();
  }
  ThreadPool::SerialLaunches one_thread(serial);
  const auto started = std::chrono::steady_clock::now();
  absl::StatusOr<Value> result;
  if (recording_ == nullptr) {
    result = Run(it->second, args, *std::move(shape_values), 0);
  } else {
    int32_t label = recording_->Intern({name, Profiler::Kind::kInvoke});
    int64_t start = recording_->Now();
    result = Run(it->second, args, *std::move(shape_values), 0);
    recording_->Record(Profiler::Kind::kInvoke, label, start, recording_->Now());
  }
  pool_->EndRun();
  if (choose && result.ok()) {
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::lock_guard<std::mutex> lock(choice_mu_);
    thread_choices_[it->second].choice.Record(serial, seconds);
  }
  return result;
}

const ThreadChoice* VirtualMachine::thread_choice(const std::string& name) const {
  auto it = function_index_.find(name);
  if (it == function_index_.end()) return nullptr;
  std::lock_guard<std::mutex> lock(choice_mu_);
  auto choice = thread_choices_.find(it->second);
  return choice == thread_choices_.end() ? nullptr : &choice->second.choice;
}

std::string VirtualMachine::Where(int func_index, int pc) const {
  const proto::VMFunction& fn = exe_.functions(func_index);
  const Instruction& inst = fn.instructions(pc);
  std::string callee =
      inst.callee_kind() == Instruction::BUILTIN ? Instruction::Builtin_Name(inst.builtin()) : inst.callee_name();
  return absl::StrCat("in function ", fn.name(), ", instruction ", pc, " (", callee, "): ");
}

absl::StatusOr<Value> VirtualMachine::Run(int func_index, std::vector<Value> args, std::vector<int64_t> shape_values,
                                          int depth) {
  if (depth > kMaxCallDepth) return absl::ResourceExhaustedError("call depth limit exceeded");
  const Function* fn_ptr = &functions_[func_index];
  std::vector<Value> regs(fn_ptr->num_registers);
  // The memory plan's arena, taken from the pool at first use and returned when the call ends.
  NDArray arena;
  for (size_t i = 0; i < args.size(); ++i) regs[i] = std::move(args[i]);
  // By reference: a copy per operand costs a reference count's two atomic updates per call.
  static const Value kNone;
  auto value_of = [&](const Operand& a) -> const Value& {
    if (a.kind == Operand::kReg) return regs[a.value];
    if (a.kind == Operand::kConstant) return constants_[a.value];
    return kNone;
  };
  std::vector<void*> kernel_args;
  std::vector<int64_t> kernel_shape_values;
  std::vector<const std::vector<int64_t>*> kernel_shapes;
  std::vector<DLTensor*> extern_args;
  int pc = 0;
  while (pc < static_cast<int>(fn_ptr->code.size())) {
    const Function& fn = *fn_ptr;
    const Instr& inst = fn.code[pc];
    switch (inst.op) {
      case Op::kRet: return value_of(inst.args[0]);
      case Op::kGoto: pc += static_cast<int>(inst.args[0].value); continue;
      case Op::kIf: {
        // True when the first element is nonzero (any of its bytes: a bool, an integer).
        const Value& cond = value_of(inst.args[0]);
        bool taken = false;
        if (cond.is_tensor() && cond.tensor().NumBytes() > 0) {
          const char* first = static_cast<const char*>(cond.tensor().data());
          const int bytes = DLDataTypeBytes(cond.tensor().dtype());
          for (int b = 0; b < bytes; ++b) taken = taken || first[b] != 0;
        }
        pc += taken ? 1 : static_cast<int>(inst.args[1].value);
        continue;
      }
      case Op::kCall: break;
    }
    switch (inst.callee) {
      case Callee::kAllocTensor: {
        const Operand& shape = inst.args[0];
        absl::StatusOr<std::vector<int64_t>> evaluated;
        if (shape.symbolic) {
          evaluated = EvaluateShape(shape.dims, shape_values, fn.signature.vars);
          if (!evaluated.ok())
            return absl::InvalidArgumentError(absl::StrCat(Where(func_index, pc), evaluated.status().message()));
        }
        const std::vector<int64_t>& dims = shape.symbolic ? *evaluated : shape.shape;
        absl::StatusOr<NDArray> t;
        if (inst.arena_offset >= 0 &&
            SaturatingMul(mlc::NumElements(dims), DLDataTypeBytes(inst.args[1].dtype)) <= inst.arena_bound) {
          if (!arena.defined()) {
            absl::StatusOr<NDArray> storage = NDArray::Allocate({fn.arena_bytes}, DLDataType{kDLUInt, 8, 1}, pool_);
            if (!storage.ok())
              return absl::Status(storage.status().code(),
                                  absl::StrCat(Where(func_index, pc), storage.status().message()));
            arena = *std::move(storage);
          }
          t = NDArray::View(arena, inst.arena_offset, dims, inst.args[1].dtype);
        } else {
          // Unplanned, or larger than the bound its place was planned for: the pool serves it.
          // A returned value too: its storage comes back to the pool only when the caller drops
          // it, so a later run never overwrites one still held, and a result of megabytes is not
          // a fresh block that page-faults at every run (FCN-ResNet50's 4.2 MB of logits: their
          // kernel took 0.5-3.9 ms on two threads, 0.12 ms in a reused block). A size from a
          // symbolic shape waits one run for reuse (storage_pool.h): a prompt length need not
          // recur.
          t = NDArray::Allocate(dims, inst.args[1].dtype, pool_,
                                shape.symbolic ? StoragePool::Reuse::kNextRun : StoragePool::Reuse::kAlways);
        }
        if (!t.ok()) return absl::Status(t.status().code(), absl::StrCat(Where(func_index, pc), t.status().message()));
        regs[inst.dst] = *std::move(t);
        break;
      }
      case Callee::kMakeTuple: {
        Tuple t;
        for (const Operand& a : inst.args) t.push_back(value_of(a));
        regs[inst.dst] = Value(std::move(t));
        break;
      }
      case Callee::kTupleGetItem: {
        Value t = value_of(inst.args[0]);
        int64_t index = inst.args[1].value;
        if (!t.is_tuple() || index < 0 || index >= static_cast<int64_t>(t.tuple().size())) {
          return absl::InvalidArgumentError(
              absl::StrCat(Where(func_index, pc), "index ", index, " into ", t.Describe()));
        }
        regs[inst.dst] = t.tuple()[index];
        break;
      }
      case Callee::kMove: regs[inst.dst] = value_of(inst.args[0]); break;
      case Callee::kMatchCast: {
        const Operand& type = inst.args[1];
        const Value& v = value_of(inst.args[0]);
        if (absl::Status s = CheckTensorValue(v, type.declared, *type.tensor_type, "R.match_cast", fn.signature.vars);
            !s.ok()) {
          return absl::InvalidArgumentError(absl::StrCat(Where(func_index, pc), s.message()));
        }
        if (type.symbolic) {
          absl::Status s = BindShapes(
              {&type.dims}, {&v.tensor().shape()}, fn.signature.vars,
              [](size_t) { return std::string("R.match_cast"); }, &shape_values);
          if (!s.ok()) return absl::InvalidArgumentError(absl::StrCat(Where(func_index, pc), s.message()));
        }
        break;
      }
      case Callee::kCacheAppend: {
        Value cache = value_of(inst.args[0]), rows = value_of(inst.args[1]);
        if (!cache.is_tensor() || !rows.is_tensor()) {
          return absl::InvalidArgumentError(absl::StrCat(Where(func_index, pc), "R.cache_append takes tensors, got ",
                                                         cache.Describe(), " and ", rows.Describe()));
        }
        bool in_place = false;
        absl::StatusOr<NDArray> grown =
            NDArray::AppendRows(cache.tensor(), rows.tensor(), static_cast<int>(inst.args[2].value), &in_place);
        if (!grown.ok())
          return absl::Status(grown.status().code(), absl::StrCat(Where(func_index, pc), grown.status().message()));
        (in_place ? appended_in_place_ : appended_by_copy_).fetch_add(1, std::memory_order_relaxed);
        regs[inst.dst] = *std::move(grown);
        break;
      }
      case Callee::kConcat: {
        const Value& out = value_of(inst.args[0]);
        size_t total = 0;
        for (size_t k = 1; k < inst.args.size(); ++k) {
          const Value& in = value_of(inst.args[k]);
          if (!out.is_tensor() || !in.is_tensor() || !SameDType(in.tensor().dtype(), out.tensor().dtype())) {
            return absl::InvalidArgumentError(absl::StrCat(Where(func_index, pc), "R.concat_in_place input ", k - 1,
                                                           " is ", in.Describe(), ", the result ", out.Describe()));
          }
          total += in.tensor().NumBytes();
        }
        if (total != out.tensor().NumBytes()) {
          return absl::InvalidArgumentError(absl::StrCat(Where(func_index, pc), "R.concat_in_place inputs hold ", total,
                                                         " bytes, the result ", out.tensor().NumBytes()));
        }
        char* dst = static_cast<char*>(out.tensor().data());
        for (size_t k = 1; k < inst.args.size(); ++k) {
          const NDArray& in = value_of(inst.args[k]).tensor();
          if (in.data() == dst) {
            concat_inputs_in_place_.fetch_add(1, std::memory_order_relaxed);
          } else {
            std::memmove(dst, in.data(), in.NumBytes());
            concat_inputs_copied_.fetch_add(1, std::memory_order_relaxed);
          }
          dst += in.NumBytes();
        }
        break;
      }
      case Callee::kKernel: {
        const LoadedKernel& kernel = kernels_[inst.index];
        kernel_args.clear();
        for (size_t i = 0; i < inst.args.size(); ++i) {
          const Value& v = value_of(inst.args[i]);
          if (!v.is_tensor() || !kernel.params[i].Fits(v.tensor())) {
            const proto::Kernel& declared = exe_.kernels(inst.index);
            return absl::InvalidArgumentError(absl::StrCat(Where(func_index, pc), "kernel ", declared.name(),
                                                           " buffer ", i, " expects ", DescribeType(declared.params(i)),
                                                           ", got ", v.Describe()));
          }
          kernel_args.push_back(v.tensor().data());
        }
        // Symbolic buffers: the kernel's shape variables, bound from the tensors, follow.
        if (const ShapeSignature& signature = kernel.signature; signature.symbolic()) {
          kernel_shapes.clear();
          for (const Operand& a : inst.args) kernel_shapes.push_back(&value_of(a).tensor().shape());
          absl::StatusOr<std::vector<int64_t>> values = signature.Bind(kernel_shapes, [&](size_t i) {
            return absl::StrCat("kernel ", exe_.kernels(inst.index).name(), " buffer ", i);
          });
          if (!values.ok())
            return absl::InvalidArgumentError(absl::StrCat(Where(func_index, pc), values.status().message()));
          kernel_shape_values = *std::move(values);
          for (int64_t& v : kernel_shape_values) kernel_args.push_back(&v);
        }
        int32_t rc;
        ThreadPool::DescendingLaunches order(inst.descending);
        if (recording_ == nullptr) {
          rc = kernel.fn(kernel_args.data());
        } else {
          recording_->SetCurrentCall(kernel.label);
          int64_t start = recording_->Now();
          rc = kernel.fn(kernel_args.data());
          recording_->Record(Profiler::Kind::kKernel, kernel.label, start, recording_->Now());
        }
        if (int64_t refused = WorkspacePool::Global().TakeFailure(); refused > 0) {
          return absl::ResourceExhaustedError(absl::StrCat(
              Where(func_index, pc), "kernel ", exe_.kernels(inst.index).name(), " could not allocate ",
              HumanBytes(refused), " of workspace (out of memory, or over the ", LimitHint("max_tensor_bytes"), ")"));
        }
        if (rc != 0)
          return absl::InternalError(
              absl::StrCat(Where(func_index, pc), "kernel ", exe_.kernels(inst.index).name(), " failed (", rc, ")"));
        break;
      }
      case Callee::kExtern: {
        extern_args.clear();
        for (const Operand& a : inst.args) {
          const Value& v = value_of(a);
          if (!v.is_tensor())
            return absl::InvalidArgumentError(absl::StrCat(Where(func_index, pc), "runtime functions take tensors"));
          extern_args.push_back(v.tensor().dl());
        }
        absl::Status s;
        if (recording_ == nullptr) {
          s = (*inst.fn)(absl::MakeSpan(extern_args));
        } else {
          int64_t bytes = 0, operations = 0;
          for (const DLTensor* t : extern_args) bytes += TensorBytes(t->dtype, t->shape, t->ndim);
          if (const OperationCount* count = RuntimeRegistry::Global().FindOperationCount(inst.fn_name))
            operations = (*count)(absl::MakeSpan(extern_args));
          int32_t label = recording_->Intern({inst.fn_name, Profiler::Kind::kRuntimeFunction});
          recording_->SetCurrentCall(label);  // its parallel loops (mlc.blas.conv2d's depthwise) too
          int64_t start = recording_->Now();
          s = (*inst.fn)(absl::MakeSpan(extern_args));
          recording_->RecordRuntimeCall(label, start, recording_->Now(), operations, bytes);
        }
        if (!s.ok()) return absl::Status(s.code(), absl::StrCat(Where(func_index, pc), s.message()));
        break;
      }
      case Callee::kAllocatingExtern: {
        std::vector<NDArray> inputs;
        for (const Operand& a : inst.args) {
          const Value& v = value_of(a);
          if (!v.is_tensor())
            return absl::InvalidArgumentError(absl::StrCat(Where(func_index, pc), "runtime functions take tensors"));
          inputs.push_back(v.tensor());
        }
        absl::StatusOr<std::vector<NDArray>> results;
        if (recording_ == nullptr) {
          results = (*inst.allocating_fn)(inputs);
        } else {
          int64_t bytes = 0;
          for (const NDArray& t : inputs)
            bytes += TensorBytes(t.dtype(), t.shape().data(), static_cast<int>(t.shape().size()));
          int32_t label = recording_->Intern({inst.fn_name, Profiler::Kind::kRuntimeFunction});
          recording_->SetCurrentCall(label);
          int64_t start = recording_->Now();
          results = (*inst.allocating_fn)(inputs);
          recording_->RecordRuntimeCall(label, start, recording_->Now(), 0, bytes);
        }
        if (!results.ok())
          return absl::Status(results.status().code(), absl::StrCat(Where(func_index, pc), results.status().message()));
        if (results->size() == 1) {
          regs[inst.dst] = std::move((*results)[0]);
        } else {
          Tuple fields;
          for (NDArray& r : *results) fields.push_back(Value(std::move(r)));
          regs[inst.dst] = Value(std::move(fields));
        }
        break;
      }
      case Callee::kFunction: {
        std::vector<Value> call_args;
        for (const Operand& a : inst.args) call_args.push_back(value_of(a));
        absl::StatusOr<std::vector<int64_t>> callee_shape_values = CheckArgs(inst.index, call_args);
        if (!callee_shape_values.ok()) return callee_shape_values.status();
        if (inst.tail_call) {
          // The callee's frame replaces this one (its values were copied out above); the
          // arena goes with it, kept alive by any of its tensors passed on.
          func_index = inst.index;
          fn_ptr = &functions_[func_index];
          regs.assign(fn_ptr->num_registers, Value());
          for (size_t i = 0; i < call_args.size(); ++i) regs[i] = std::move(call_args[i]);
          shape_values = *std::move(callee_shape_values);
          arena = NDArray();
          pc = 0;
          continue;
        }
        absl::StatusOr<Value> result =
            Run(inst.index, std::move(call_args), *std::move(callee_shape_values), depth + 1);
        if (!result.ok()) return result.status();
        if (inst.dst >= 0) regs[inst.dst] = std::move(*result);
        break;
      }
    }
    for (int r : inst.release) regs[r] = Value();
    ++pc;
  }
  return absl::InternalError(absl::StrCat("function ", exe_.functions(func_index).name(), " ran past its end"));
}

VirtualMachine::~VirtualMachine() {
  EnableProfiling(false);
  WorkspacePool::Global().ReleaseFree();
}

void VirtualMachine::EnableProfiling(bool on) {
  ThreadPool& pool = ThreadPool::Global();
  if (!on) {
    if (recording_ != nullptr) pool.SetProfiler(nullptr);
    recording_ = nullptr;
    return;
  }
  profiler_ = std::make_unique<Profiler>(pool.num_threads());
  for (int i = 0; i < exe_.kernels_size(); ++i) {
    const proto::Kernel& k = exe_.kernels(i);
    Profiler::Label l{k.name(), Profiler::Kind::kKernel, k.source_ops(), k.flops()};
    for (const proto::TensorType& t : k.params()) {
      l.bytes += TensorBytes(ToDL(t.dtype()), t.shape().data(), t.shape_size());
    }
    kernels_[i].label = profiler_->Intern(l);
  }
  recording_ = profiler_.get();
  pool.SetProfiler(recording_);
}

VirtualMachine::MemoryStats VirtualMachine::Memory() const {
  MemoryStats m;
  m.tensors_peak = static_cast<int64_t>(pool_->peak_live_bytes());
  m.tensors_held = static_cast<int64_t>(pool_->held_bytes());
  for (const Value& c : constants_) m.constants += c.tensor().NumBytes();
  m.workspace_held = WorkspacePool::Global().bytes_held();
  return m;
}

int64_t VirtualMachine::ConstantBytesReadBy(const std::string& func) const {
  std::set<int> read;
  for (const proto::VMFunction& f : exe_.functions()) {
    if (f.name() != func) continue;
    for (const proto::Instruction& in : f.instructions()) {
      for (const proto::Arg& a : in.args()) {
        if (a.kind_case() == proto::Arg::kConstant) read.insert(a.constant());
      }
    }
  }
  int64_t bytes = 0;
  for (int c : read) {
    if (c >= 0 && c < static_cast<int>(constants_.size()))
      bytes += static_cast<int64_t>(constants_[c].tensor().NumBytes());
  }
  return bytes;
}

}  // namespace vm
}  // namespace mlc
