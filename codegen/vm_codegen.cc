/*! \file vm_codegen.cc
 *  \brief Graph-level functions -> VM bytecode.
 *
 *  Each binding gets a register (parameters take 0..n-1; `x = y` aliases y's register and a
 *  bound constant is used in place). call_tir allocates its outputs with the ALLOC_TENSOR
 *  builtin and calls the kernel with inputs then outputs (destination
 *  passing, as lnumpy_call_tir in the seeds); call_dps_packed does the same with a runtime
 *  function. After code generation a liveness pass marks, on each instruction, the registers
 *  that die there, so their memory returns to the VM's pool for later allocations, and the
 *  memory planner (memory_plan.h) gives intermediates of bounded size fixed places in an arena.
 */
#include <map>
#include <set>

#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"
#include "codegen/build.h"
#include "codegen/memory_plan.h"
#include "codegen/tensor_type.h"
#include "ir/graph/op.h"
#include "ir/graph/printer.h"
#include "ir/graph/serialize.h"
#include "ir/graph/shape_bounds.h"
#include "ir/ops/op_attrs.h"

namespace mlc {
namespace codegen {
namespace {

using proto::Arg;
using proto::Instruction;

void DTypeToProto(DataType t, proto::DataTypeProto* out) {
  out->set_code(t.code());
  out->set_bits(t.bits());
}

absl::Status TensorTypeOf(const relax::TensorStructInfoNode* t, const ShapeVarTable& vars, proto::TensorType* out) {
  DTypeToProto(t->dtype, out->mutable_dtype());
  out->set_ndim(t->ndim);
  out->set_has_shape(t->HasKnownShape());
  if (t->HasKnownShape()) return SetTensorShape(t->Dims(), vars, out);
  return absl::OkStatus();
}

absl::Status ValueTypeOf(const relax::StructInfo& s, const ShapeVarTable& vars, proto::ValueType* out) {
  if (const auto* t = s.as<relax::TensorStructInfoNode>()) return TensorTypeOf(t, vars, out->mutable_tensor());
  if (const auto* tuple = s.as<relax::TupleStructInfoNode>()) {
    proto::TupleType* tt = out->mutable_tuple();
    for (const relax::StructInfo& f : tuple->fields) {
      if (const auto* ft = f.as<relax::TensorStructInfoNode>(); ft != nullptr && ft->IsSymbolic()) {
        return absl::UnimplementedError(
            "symbolic shapes inside tuple parameters are not supported; pass the tensors separately");
      }
      if (absl::Status st = ValueTypeOf(f, vars, tt->add_fields()); !st.ok()) return st;
    }
    return absl::OkStatus();
  }
  out->set_any(true);
  return absl::OkStatus();
}

/*! \brief The executable's constants, each stored once: the same object, or an equal tensor
 *  (dtype, shape and bytes). Equal copies arise where passes transform one weight for each
 *  function that uses it (a decoder's main and @prefill share every weight). */
class ConstantPool {
 public:
  explicit ConstantPool(proto::Executable* exe) : exe_(exe) {}

  int IndexOf(const relax::ConstantNode* c) {
    auto known = by_object_.find(c);
    if (known != by_object_.end()) return known->second;
    const TensorData& t = c->data;
    std::vector<int>& same_hash = by_hash_[absl::HashOf(t.dtype().ToString(), t.shape(), t.bytes())];
    for (int i : same_hash) {
      const TensorData& o = stored_[i];
      if (o.dtype() == t.dtype() && o.shape() == t.shape() && o.bytes() == t.bytes()) return by_object_[c] = i;
    }
    const int index = exe_->constants_size();
    TensorToProto(t, exe_->add_constants());
    stored_.push_back(t);  // shares the bytes
    same_hash.push_back(index);
    return by_object_[c] = index;
  }

 private:
  proto::Executable* exe_;
  std::map<const Object*, int> by_object_;
  std::map<size_t, std::vector<int>> by_hash_;
  std::vector<TensorData> stored_;
};

class FunctionCompiler {
 public:
  FunctionCompiler(const IRModule& mod, const relax::FunctionNode* func, const std::map<std::string, int>& kernel_index,
                   const std::map<std::string, int>& function_index, proto::Executable* exe, ConstantPool* constants,
                   std::set<std::string>* externs)
      : shape_vars_(func->ShapeVars()),
        mod_(mod),
        kernel_index_(kernel_index),
        function_index_(function_index),
        exe_(exe),
        constants_(constants),
        externs_(externs) {}

  absl::Status Compile(const std::string& name, const relax::FunctionNode* func, proto::VMFunction* out) {
    out_ = out;
    name_ = name;
    out->set_name(name);
    for (const tir::Var& v : shape_vars_.vars()) out->add_shape_vars(v->name);
    for (const relax::Var& p : func->params) {
      Arg a;
      a.set_reg(num_registers_++);
      values_[p.get()] = a;
      out->add_param_names(p->name_hint);
      binding_ = absl::StrCat("parameter ", p->name_hint);
      if (absl::Status s = ValueTypeOf(p->struct_info(), shape_vars_, out->add_param_types()); !s.ok())
        return Error(std::string(s.message()));
    }
    for (const relax::BindingBlock& block : func->body->blocks) {
      for (const relax::VarBinding& b : block->bindings) {
        binding_ = b->var->name_hint;
        absl::StatusOr<Arg> value = CompileExpr(b->value);
        if (!value.ok()) return value.status();
        values_[b->var.get()] = *value;
      }
    }
    binding_ = "return";
    absl::StatusOr<Arg> result = CompileExpr(func->body->body);
    if (!result.ok()) return result.status();
    Instruction* ret = out->add_instructions();
    ret->set_opcode(Instruction::RET);
    ret->set_dst(-1);
    *ret->add_args() = *result;
    out->set_num_registers(num_registers_);
    MarkReleases();
    return absl::OkStatus();
  }

 private:
  absl::Status Error(const std::string& message) const {
    return absl::InvalidArgumentError(
        absl::StrCat("build: in function @", name_, ", binding ", binding_, ": ", message));
  }

  Instruction* NewCall(Instruction::CalleeKind kind) {
    Instruction* inst = out_->add_instructions();
    inst->set_opcode(Instruction::CALL);
    inst->set_callee_kind(kind);
    inst->set_dst(-1);
    return inst;
  }

  Arg NewRegister() {
    Arg a;
    a.set_reg(num_registers_++);
    return a;
  }

  /*! \brief A shape operand: constants, or expressions the VM evaluates when it runs. */
  absl::Status ShapeOperand(const std::vector<tir::PrimExpr>& dims, proto::ShapeArg* shape) {
    bool symbolic = false;
    for (const tir::PrimExpr& d : dims) symbolic = symbolic || tir::AsConstInt(d) == nullptr;
    for (const tir::PrimExpr& d : dims) {
      if (!symbolic) {
        shape->add_values(*tir::AsConstInt(d));
      } else if (absl::Status s = DimToProto(d, shape_vars_, shape->add_symbolic_dims()); !s.ok()) {
        return Error(std::string(s.message()));
      }
    }
    return absl::OkStatus();
  }

  absl::StatusOr<Arg> AllocTensor(const relax::TensorStructInfoNode* t) {
    Instruction* inst = NewCall(Instruction::BUILTIN);
    inst->set_builtin(Instruction::ALLOC_TENSOR);
    if (absl::Status s = ShapeOperand(t->Dims(), inst->add_args()->mutable_shape()); !s.ok()) return s;
    DTypeToProto(t->dtype, inst->add_args()->mutable_dtype());
    Arg dst = NewRegister();
    inst->set_dst(dst.reg());
    return dst;
  }

  absl::StatusOr<Arg> CompileExpr(const relax::Expr& e) {
    switch (e->kind()) {
      case NodeKind::kVar:
      case NodeKind::kDataflowVar: {
        auto it = values_.find(e.get());
        if (it == values_.end())
          return Error(absl::StrCat("variable ", e.as<relax::VarNode>()->name_hint, " has no value"));
        return it->second;
      }
      case NodeKind::kConstant: {
        Arg a;
        a.set_constant(constants_->IndexOf(e.as<relax::ConstantNode>()));
        return a;
      }
      case NodeKind::kTuple: {
        std::vector<Arg> fields;
        for (const relax::Expr& f : e.as<relax::TupleNode>()->fields) {
          absl::StatusOr<Arg> a = CompileExpr(f);
          if (!a.ok()) return a.status();
          fields.push_back(*a);
        }
        Instruction* inst = NewCall(Instruction::BUILTIN);
        inst->set_builtin(Instruction::MAKE_TUPLE);
        for (const Arg& a : fields) *inst->add_args() = a;
        Arg dst = NewRegister();
        inst->set_dst(dst.reg());
        return dst;
      }
      case NodeKind::kTupleGetItem: {
        const auto* g = e.as<relax::TupleGetItemNode>();
        absl::StatusOr<Arg> tuple = CompileExpr(g->tuple);
        if (!tuple.ok()) return tuple.status();
        Instruction* inst = NewCall(Instruction::BUILTIN);
        inst->set_builtin(Instruction::TUPLE_GETITEM);
        *inst->add_args() = *tuple;
        inst->add_args()->set_imm(g->index);
        Arg dst = NewRegister();
        inst->set_dst(dst.reg());
        return dst;
      }
      case NodeKind::kCall: return CompileCall(e.as<relax::CallNode>());
      case NodeKind::kIf: return CompileIf(e.as<relax::IfNode>());
      case NodeKind::kShapeExpr: {
        // An operand (R.alloc_tensor's shape), not a value a register holds.
        Arg a;
        if (absl::Status s = ShapeOperand(e.as<relax::ShapeExprNode>()->values, a.mutable_shape()); !s.ok()) return s;
        return a;
      }
      // No run-time value of their own (yet): functions and operators as values.
      case NodeKind::kGlobalVar:
      case NodeKind::kExternFunc:
      case NodeKind::kOp:
      case NodeKind::kSeqExpr: MLC_CASES_NOT_EXPR break;
    }
    return Error(absl::StrCat("cannot compile ", PrintExpr(e), " to bytecode"));
  }

  /*! \brief IF cond (falls through when true), the true branch, GOTO the end, the false
   *         branch; each branch ends by moving its value into the register the if binds. */
  absl::StatusOr<Arg> CompileIf(const relax::IfNode* branch) {
    absl::StatusOr<Arg> cond = CompileExpr(branch->cond);
    if (!cond.ok()) return cond.status();
    const int if_pc = out_->instructions_size();
    Instruction* test = out_->add_instructions();
    test->set_opcode(Instruction::IF);
    test->set_dst(-1);
    *test->add_args() = *cond;
    Arg joined = NewRegister();
    auto compile_branch = [&](const relax::Expr& value) -> absl::Status {
      absl::StatusOr<Arg> result = CompileExpr(value);
      if (!result.ok()) return result.status();
      Instruction* move = NewCall(Instruction::BUILTIN);
      move->set_builtin(Instruction::MOVE);
      *move->add_args() = *result;
      move->set_dst(joined.reg());
      return absl::OkStatus();
    };
    if (absl::Status s = compile_branch(branch->true_branch); !s.ok()) return s;
    const int goto_pc = out_->instructions_size();
    Instruction* skip = out_->add_instructions();
    skip->set_opcode(Instruction::GOTO);
    skip->set_dst(-1);
    out_->mutable_instructions(if_pc)->add_args()->set_imm(out_->instructions_size() - if_pc);
    if (absl::Status s = compile_branch(branch->false_branch); !s.ok()) return s;
    out_->mutable_instructions(goto_pc)->add_args()->set_imm(out_->instructions_size() - goto_pc);
    return joined;
  }

  absl::StatusOr<Arg> CompileCall(const relax::CallNode* call) {
    if (const auto* gv = call->op.as<relax::GlobalVarNode>()) {
      auto it = function_index_.find(gv->name);
      if (it == function_index_.end())
        return Error(absl::StrCat("call of @", gv->name, ", which is not a graph function"));
      std::vector<Arg> args;
      for (const relax::Expr& a : call->args) {
        absl::StatusOr<Arg> arg = CompileExpr(a);
        if (!arg.ok()) return arg.status();
        args.push_back(*arg);
      }
      Instruction* inst = NewCall(Instruction::FUNCTION);
      inst->set_callee_index(it->second);
      inst->set_callee_name(gv->name);
      for (const Arg& a : args) *inst->add_args() = a;
      Arg dst = NewRegister();
      inst->set_dst(dst.reg());
      return dst;
    }
    const auto* op = call->op.as<relax::OpNode>();
    if (op == nullptr) return Error(absl::StrCat("cannot call ", PrintExpr(call->op), " directly"));
    const std::string& name = op->name();
    if (name == "call_tir" || name == "call_dps_packed") return CompileDestinationPassing(call, name == "call_tir");
    if (name == "call_pure_packed") {
      // The runtime function allocates its results: no ALLOC_TENSOR, a destination register.
      absl::StatusOr<std::vector<Arg>> args = CompileArgTuple(call);
      if (!args.ok()) return args.status();
      const std::string& callee = call->args[0].as<relax::ExternFuncNode>()->global_symbol;
      Instruction* inst = NewCall(Instruction::EXTERN_ALLOCATING);
      inst->set_callee_name(callee);
      externs_->insert(callee);
      for (const Arg& a : *args) *inst->add_args() = a;
      Arg dst = NewRegister();
      inst->set_dst(dst.reg());
      return dst;
    }
    if (const relax::TensorStructInfoNode* target = relax::MatchCastTarget(relax::Expr(call))) {
      // The value keeps its register; the check binds the target's new shape variables.
      absl::StatusOr<Arg> value = CompileExpr(call->args[0]);
      if (!value.ok()) return value.status();
      Instruction* inst = NewCall(Instruction::BUILTIN);
      inst->set_builtin(Instruction::MATCH_CAST);
      *inst->add_args() = *value;
      if (absl::Status s = TensorTypeOf(target, shape_vars_, inst->add_args()->mutable_tensor_type()); !s.ok()) {
        return Error(std::string(s.message()));
      }
      return *value;
    }
    if (name == "cache_append") {
      absl::StatusOr<Arg> cache = CompileExpr(call->args[0]);
      if (!cache.ok()) return cache.status();
      absl::StatusOr<Arg> rows = CompileExpr(call->args[1]);
      if (!rows.ok()) return rows.status();
      auto attrs = relax::ParseAttrs<relax::AxisAttrs>(call->attrs);
      const auto* t = call->struct_info().as<relax::TensorStructInfoNode>();
      if (!attrs.ok() || t == nullptr) return Error("R.cache_append needs an axis and a tensor result");
      Instruction* inst = NewCall(Instruction::BUILTIN);
      inst->set_builtin(Instruction::CACHE_APPEND);
      *inst->add_args() = *cache;
      *inst->add_args() = *rows;
      inst->add_args()->set_imm(attrs->axis < 0 ? attrs->axis + t->ndim : attrs->axis);
      Arg dst = NewRegister();
      inst->set_dst(dst.reg());
      return dst;
    }
    if (name == "concat_in_place") {
      // Destination passing, like a kernel: the memory plan places the inputs inside the result.
      const auto* t = call->struct_info().as<relax::TensorStructInfoNode>();
      if (t == nullptr || !t->HasKnownShape()) return Error("R.concat_in_place needs a result of known shape");
      std::vector<Arg> inputs;
      for (const relax::Expr& a : call->args) {
        absl::StatusOr<Arg> input = CompileExpr(a);
        if (!input.ok()) return input.status();
        inputs.push_back(*input);
      }
      absl::StatusOr<Arg> out = AllocTensor(t);
      if (!out.ok()) return out.status();
      Instruction* inst = NewCall(Instruction::BUILTIN);
      inst->set_builtin(Instruction::CONCAT);
      *inst->add_args() = *out;
      for (const Arg& a : inputs) *inst->add_args() = a;
      return *out;
    }
    if (name == "alloc_tensor") {
      const auto* t = call->struct_info().as<relax::TensorStructInfoNode>();
      if (t == nullptr || !t->HasKnownShape()) return Error("R.alloc_tensor needs a known shape");
      return AllocTensor(t);
    }
    return Error(absl::StrCat("operator R.", name, " is not lowered to a kernel; run the legalize pass (",
                              "--passes=legalize) before build"));
  }

  /*! \brief The operands of call_tir / call_dps_packed / call_pure_packed: its argument tuple. */
  absl::StatusOr<std::vector<Arg>> CompileArgTuple(const relax::CallNode* call) {
    std::vector<Arg> args;
    for (const relax::Expr& a : call->args[1].as<relax::TupleNode>()->fields) {
      absl::StatusOr<Arg> arg = CompileExpr(a);
      if (!arg.ok()) return arg.status();
      args.push_back(*arg);
    }
    return args;
  }

  absl::StatusOr<Arg> CompileDestinationPassing(const relax::CallNode* call, bool is_tir) {
    absl::StatusOr<std::vector<Arg>> args = CompileArgTuple(call);
    if (!args.ok()) return args.status();
    std::vector<const relax::TensorStructInfoNode*> outputs;
    if (const auto* tuple = call->sinfo_args[0].as<relax::TupleStructInfoNode>()) {
      for (const relax::StructInfo& f : tuple->fields) outputs.push_back(f.as<relax::TensorStructInfoNode>());
    } else {
      outputs.push_back(call->sinfo_args[0].as<relax::TensorStructInfoNode>());
    }
    std::vector<Arg> out_regs;
    for (const auto* t : outputs) {
      if (t == nullptr || !t->HasKnownShape()) return Error("outputs of destination-passing calls need known shapes");
      absl::StatusOr<Arg> reg = AllocTensor(t);
      if (!reg.ok()) return reg.status();
      out_regs.push_back(*reg);
    }
    Instruction* inst;
    if (is_tir) {
      const std::string& callee = call->args[0].as<relax::GlobalVarNode>()->name;
      auto it = kernel_index_.find(callee);
      if (it == kernel_index_.end()) return Error(absl::StrCat("R.call_tir of @", callee, ", which is not a PrimFunc"));
      inst = NewCall(Instruction::KERNEL);
      inst->set_callee_index(it->second);
      inst->set_callee_name(callee);
    } else {
      const std::string& callee = call->args[0].as<relax::ExternFuncNode>()->global_symbol;
      inst = NewCall(Instruction::EXTERN);
      inst->set_callee_name(callee);
      externs_->insert(callee);
    }
    for (const Arg& a : *args) *inst->add_args() = a;
    for (const Arg& a : out_regs) *inst->add_args() = a;
    if (out_regs.size() == 1) return out_regs[0];
    Instruction* tuple = NewCall(Instruction::BUILTIN);
    tuple->set_builtin(Instruction::MAKE_TUPLE);
    for (const Arg& a : out_regs) *tuple->add_args() = a;
    Arg dst = NewRegister();
    tuple->set_dst(dst.reg());
    return dst;
  }

  /*! \brief Each register is released after its last use (or right after its definition
   *         when it is never used). The returned register is never released. */
  void MarkReleases() {
    std::vector<int> last_use(num_registers_, -1), defined_at(num_registers_, -1);
    for (int p = 0; p < out_->param_names_size(); ++p) defined_at[p] = 0;
    int n = out_->instructions_size();
    int returned = -1;
    for (int i = 0; i < n; ++i) {
      const Instruction& inst = out_->instructions(i);
      for (const Arg& a : inst.args()) {
        if (a.kind_case() == Arg::kReg) last_use[a.reg()] = i;
      }
      if (inst.dst() >= 0 && defined_at[inst.dst()] < 0) defined_at[inst.dst()] = i;
      if (inst.opcode() == Instruction::RET && inst.args(0).kind_case() == Arg::kReg) returned = inst.args(0).reg();
    }
    for (int r = 0; r < num_registers_; ++r) {
      if (r == returned) continue;
      int at = last_use[r] >= 0 ? last_use[r] : defined_at[r];
      if (at < 0 || at >= n) continue;
      if (out_->instructions(at).opcode() == Instruction::RET) continue;
      out_->mutable_instructions(at)->add_release(r);
    }
  }

  const ShapeVarTable shape_vars_;
  const IRModule& mod_;
  const std::map<std::string, int>& kernel_index_;
  const std::map<std::string, int>& function_index_;
  proto::Executable* exe_;
  ConstantPool* constants_;
  std::set<std::string>* externs_;
  proto::VMFunction* out_ = nullptr;
  std::string name_, binding_;
  int num_registers_ = 0;
  std::map<const Object*, Arg> values_;
};

}  // namespace

absl::StatusOr<proto::Executable> CompileBytecode(const IRModule& mod, const std::map<std::string, int>& kernel_index) {
  proto::Executable exe;
  std::map<std::string, int> function_index;
  for (const auto& [name, func] : mod.functions()) {
    if (func->kind() == NodeKind::kFunction) {
      int index = static_cast<int>(function_index.size());
      function_index[name] = index;
    }
  }
  ConstantPool constants(&exe);
  std::set<std::string> externs;
  for (const auto& [name, func] : mod.functions()) {
    const auto* f = func.as<relax::FunctionNode>();
    if (f == nullptr) continue;
    FunctionCompiler compiler(mod, f, kernel_index, function_index, &exe, &constants, &externs);
    proto::VMFunction* compiled = exe.add_functions();
    absl::Status s = compiler.Compile(name, f, compiled);
    if (!s.ok()) return s;
    std::map<std::string, int64_t> bounds = ShapeVarUpperBounds(*f);
    std::vector<int64_t> upper_bounds;
    for (const std::string& v : compiled->shape_vars()) upper_bounds.push_back(bounds.count(v) ? bounds.at(v) : -1);
    PlanMemory(upper_bounds, compiled);
  }
  for (const std::string& e : externs) exe.add_extern_functions(e);
  return exe;
}

}  // namespace codegen
}  // namespace mlc
