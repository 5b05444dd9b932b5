/*! \file codegen_llvm.cc
 *  \brief Loop-level IR to LLVM IR, the O3 pipeline, object emission and linking.
 */
#include "codegen/llvm/codegen_llvm.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "codegen/llvm/buffer_alias_scopes.h"
#include "codegen/llvm/transposed_nest.h"
#include "ir/graph/printer.h"
#include "ir/tir/intrinsics.h"
#include "ir/tir/prim_expr_ops.h"
#include "ir/tir/shape_expr.h"
#include "ir/tir/tir_functor.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/Analysis/VectorUtils.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/IR/DiagnosticHandler.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"  // the default triple (x86_64 Linux)
#include "llvm/Transforms/InstCombine/InstCombine.h"
#include "llvm/Transforms/Scalar/DeadStoreElimination.h"
#include "llvm/Transforms/Scalar/GVN.h"
#include "support/checked_math.h"
#include "support/cpu_features.h"
#include "support/file_util.h"
#include "support/progress.h"
#include "support/sealed_file.h"
#include "support/sigmoid_approximation.h"
#include "vm/kernel_abi.h"

extern char** environ;

namespace mlc {
namespace codegen {

std::string KernelSymbol(const std::string& name) { return absl::StrCat(kernel_abi::kKernelPrefix, name); }

namespace {

using tir::PrimExpr;
using tir::Stmt;

// Floats in a cache line (64 bytes on every x86 CPU).
constexpr int64_t kFloatsPerLine = 16;

/*! \brief Buffers and variables a statement refers to (for outlining parallel bodies), in the
 *  order of their first use: the closure's layout follows it, so it must not depend on where
 *  the nodes happen to be allocated (builds are byte-reproducible). */
class UseCollector : public tir::StmtExprVisitor {
 public:
  std::vector<const Object*> vars, buffers;
  absl::flat_hash_set<const Object*> defined;

 protected:
  void VisitExpr_(const tir::TirVarNode* op) override { AddOnce(op, seen_vars_, vars); }
  void VisitExpr_(const tir::BufferLoadNode* op) override {
    AddOnce(op->buffer.get(), seen_buffers_, buffers);
    tir::StmtExprVisitor::VisitExpr_(op);
  }
  void VisitStmt_(const tir::BufferStoreNode* op) override {
    AddOnce(op->buffer.get(), seen_buffers_, buffers);
    tir::StmtExprVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const tir::ForNode* op) override {
    defined.insert(op->loop_var.get());
    tir::StmtExprVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const tir::AllocateNode* op) override {
    defined.insert(op->buffer.get());
    tir::StmtExprVisitor::VisitStmt_(op);
  }

 private:
  static void AddOnce(const Object* node, absl::flat_hash_set<const Object*>& seen, std::vector<const Object*>& out) {
    if (seen.insert(node).second) out.push_back(node);
  }
  absl::flat_hash_set<const Object*> seen_vars_, seen_buffers_;
};

class KernelEmitter {
 public:
  KernelEmitter(llvm::LLVMContext& ctx, llvm::Module& mod, const Target& target)
      : ctx_(ctx), mod_(mod), target_(target), b_(ctx) {
    fast_math_.setAllowReassoc();
    fast_math_.setAllowContract();
    fast_math_.setNoSignedZeros();
    fast_math_.setAllowReciprocal();
    fast_math_.setApproxFunc();
    b_.setFastMathFlags(fast_math_);
    ptr_ = llvm::PointerType::get(ctx_, 0);
    i64_ = llvm::Type::getInt64Ty(ctx_);
    // The runtime's services (vm/kernel_abi.h), set by the loader. Every kernel's object defines
    // them weakly; the linker keeps one, which the loader finds.
    auto runtime_pointer = [&](const char* symbol) {
      return new llvm::GlobalVariable(mod_, ptr_, false, llvm::GlobalValue::WeakAnyLinkage,
                                      llvm::ConstantPointerNull::get(llvm::PointerType::get(ctx_, 0)), symbol);
    };
    launch_global_ = runtime_pointer(kernel_abi::kParallelLaunchSymbol);
    workspace_alloc_global_ = runtime_pointer(kernel_abi::kWorkspaceAllocSymbol);
    workspace_free_global_ = runtime_pointer(kernel_abi::kWorkspaceFreeSymbol);
  }

  absl::Status EmitKernel(const std::string& name, const tir::PrimFuncNode* func) {
    error_ = absl::OkStatus();
    // Inner function with noalias buffer pointers, then the shape variables' values (the
    // runtime passes pointers to int64 after the buffers, in tir::ShapeVarsOf order).
    const std::vector<tir::Var> shape_vars = tir::ShapeVarsOf(func);
    std::vector<llvm::Type*> param_types(func->params.size(), ptr_);
    param_types.insert(param_types.end(), shape_vars.size(), i64_);
    auto* impl_type = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx_), param_types, false);
    llvm::Function* impl =
        llvm::Function::Create(impl_type, llvm::Function::InternalLinkage, absl::StrCat(name, "_impl"), &mod_);
    for (size_t i = 0; i < func->params.size(); ++i) {
      impl->addParamAttr(i, llvm::Attribute::NoAlias);
      impl->addParamAttr(i, llvm::Attribute::getWithAlignment(ctx_, llvm::Align(64)));
      impl->getArg(i)->setName(func->params[i]->name);
    }
    scopes_.emplace(ctx_, name);
    kernel_functions_.clear();
    for (size_t i = 0; i < func->params.size(); ++i) BindBuffer(func->params[i].get(), impl->getArg(i));
    BeginFunction(impl);
    for (size_t i = 0; i < shape_vars.size(); ++i) {
      llvm::Argument* arg = impl->getArg(func->params.size() + i);
      arg->setName(shape_vars[i]->name);
      vars_[shape_vars[i].get()] = b_.CreateSExtOrTrunc(arg, ScalarType(shape_vars[i]->dtype));
    }
    EmitStmt(func->body);
    b_.CreateRetVoid();
    EndFunction();
    scopes_->Annotate(kernel_functions_);
    // Exported entry: unpack the argument array.
    auto* entry_type = llvm::FunctionType::get(b_.getInt32Ty(), {ptr_}, false);
    llvm::Function* entry =
        llvm::Function::Create(entry_type, llvm::Function::ExternalLinkage, KernelSymbol(name), &mod_);
    b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", entry));
    std::vector<llvm::Value*> args;
    for (size_t i = 0; i < func->params.size(); ++i) {
      llvm::Value* slot = b_.CreateConstInBoundsGEP1_64(ptr_, entry->getArg(0), i);
      args.push_back(b_.CreateLoad(ptr_, slot, func->params[i]->name));
    }
    for (size_t i = 0; i < shape_vars.size(); ++i) {
      llvm::Value* slot = b_.CreateConstInBoundsGEP1_64(ptr_, entry->getArg(0), func->params.size() + i);
      args.push_back(b_.CreateLoad(i64_, b_.CreateLoad(ptr_, slot), shape_vars[i]->name));
    }
    b_.CreateCall(impl, args);
    b_.CreateRet(b_.getInt32(0));
    buffers_.clear();
    vars_.clear();
    return error_;
  }

 private:
  void BeginFunction(llvm::Function* f) {
    kernel_functions_.push_back(f);
    func_ = f;
    entry_ = llvm::BasicBlock::Create(ctx_, "entry", f);
    b_.SetInsertPoint(entry_);
  }
  void EndFunction() { func_ = nullptr; }

  /*! \brief `storage` holds `buffer` from here on in the function being emitted. */
  void BindBuffer(const Object* buffer, llvm::Value* storage) {
    buffers_[buffer] = storage;
    scopes_->Bind(storage, buffer);
  }

  void Fail(const std::string& message) {
    if (error_.ok()) error_ = absl::InternalError(message);
  }

  llvm::Type* ScalarType(DataType t) {
    switch (t.code()) {
      case DataType::kFloat:
        if (t.bits() == 16) return b_.getHalfTy();
        if (t.bits() == 64) return b_.getDoubleTy();
        return b_.getFloatTy();
      case DataType::kBFloat: return b_.getBFloatTy();
      case DataType::kBool: return b_.getInt1Ty();
      case DataType::kInt:
      case DataType::kUInt: return b_.getIntNTy(t.bits());
      default: return b_.getInt8Ty();
    }
  }
  /*! \brief Bools are i1 in registers and i8 in memory. */
  llvm::Type* MemoryType(DataType t) { return t.is_bool() ? b_.getInt8Ty() : ScalarType(t); }

  llvm::Value* Address(const tir::Buffer& buffer, const PrimExpr& index) {
    auto it = buffers_.find(buffer.get());
    if (it == buffers_.end()) {
      Fail(absl::StrCat("buffer ", buffer->name, " has no storage"));
      return llvm::UndefValue::get(ptr_);
    }
    llvm::Value* idx = b_.CreateSExtOrTrunc(EmitExpr(index), i64_);
    return b_.CreateInBoundsGEP(MemoryType(buffer->dtype), it->second, idx);
  }

  llvm::Value* CallIntrinsic(llvm::Intrinsic::ID id, llvm::Type* type, std::vector<llvm::Value*> args) {
    llvm::Function* f = llvm::Intrinsic::getDeclaration(&mod_, id, {type});
    return b_.CreateCall(f, args);
  }
  llvm::Value* CallLibm(const std::string& name, llvm::Type* type, std::vector<llvm::Value*> args) {
    if (type->isHalfTy() || type->isBFloatTy()) {  // libm has no 16-bit functions: compute in float
      for (llvm::Value*& a : args) a = b_.CreateFPExt(a, b_.getFloatTy());
      return b_.CreateFPTrunc(CallLibm(name, b_.getFloatTy(), args), type);
    }
    std::string fname = type->isFloatTy() ? name + "f" : name;
    std::vector<llvm::Type*> types(args.size(), type);
    llvm::FunctionCallee f = mod_.getOrInsertFunction(fname, llvm::FunctionType::get(type, types, false));
    llvm::CallInst* call = b_.CreateCall(f, args);
    call->setDoesNotAccessMemory();
    call->setDoesNotThrow();
    return call;
  }

  llvm::Value* EmitExpr(const PrimExpr& e) {
    switch (e->kind()) {
      case NodeKind::kIntImm: {
        const auto* imm = e.as<tir::IntImmNode>();
        return llvm::ConstantInt::get(ScalarType(e->dtype), imm->value, true);
      }
      case NodeKind::kFloatImm: return llvm::ConstantFP::get(ScalarType(e->dtype), e.as<tir::FloatImmNode>()->value);
      case NodeKind::kTirVar: {
        auto it = vars_.find(e.get());
        if (it == vars_.end()) {
          Fail(absl::StrCat("variable ", e.as<tir::TirVarNode>()->name, " is not bound"));
          return llvm::UndefValue::get(ScalarType(e->dtype));
        }
        return it->second;
      }
      case NodeKind::kBufferLoad: {
        const auto* load = e.as<tir::BufferLoadNode>();
        if (load->indices.size() != 1) {
          Fail("buffer load is not flattened (run LowerPrimFunc first)");
          return llvm::UndefValue::get(ScalarType(e->dtype));
        }
        llvm::Value* v = b_.CreateLoad(MemoryType(load->buffer->dtype), Address(load->buffer, load->indices[0]));
        if (e->dtype.is_bool()) v = b_.CreateICmpNE(v, b_.getInt8(0));
        return v;
      }
      case NodeKind::kNot: return b_.CreateNot(EmitExpr(e.as<tir::NotNode>()->a));
      case NodeKind::kSelect: {
        const auto* s = e.as<tir::SelectNode>();
        return b_.CreateSelect(EmitExpr(s->condition), EmitExpr(s->true_value), EmitExpr(s->false_value));
      }
      case NodeKind::kCast: return EmitCast(e.as<tir::CastNode>()->value, e->dtype);
      case NodeKind::kTirCall: return EmitIntrinsic(e.as<tir::TirCallNode>());
      case NodeKind::kStringImm:
        Fail("string immediates cannot be compiled");
        return llvm::UndefValue::get(b_.getInt8Ty());
        MLC_BINARY_CASES
        return EmitBinary(static_cast<const tir::BinaryNode*>(e.get()), e->kind());
        MLC_CASES_NOT_PRIM_EXPR
        break;
    }
    Fail(absl::StrCat("unexpected expression ", NodeKindName(e->kind())));
    return llvm::UndefValue::get(b_.getInt8Ty());
  }

  llvm::Value* EmitCast(const PrimExpr& value, DataType to) {
    llvm::Value* v = EmitExpr(value);
    DataType from = value->dtype;
    llvm::Type* t = ScalarType(to);
    if (from == to) return v;
    if (to.is_bool()) {
      return from.is_float() ? b_.CreateFCmpUNE(v, llvm::ConstantFP::get(v->getType(), 0.0))
                             : b_.CreateICmpNE(v, llvm::ConstantInt::get(v->getType(), 0));
    }
    if (from.is_float() && to.is_float()) return b_.CreateFPCast(v, t);
    if (from.is_float()) return to.is_uint() ? b_.CreateFPToUI(v, t) : b_.CreateFPToSI(v, t);
    bool from_signed = from.is_int();
    if (to.is_float()) return from_signed ? b_.CreateSIToFP(v, t) : b_.CreateUIToFP(v, t);
    return b_.CreateIntCast(v, t, from_signed);
  }

  llvm::Value* EmitBinary(const tir::BinaryNode* op, NodeKind kind) {
    llvm::Value* a = EmitExpr(op->a);
    llvm::Value* b = EmitExpr(op->b);
    DataType t = op->a->dtype;
    bool is_float = t.is_float();
    bool is_signed = t.is_int();
    switch (kind) {
      case NodeKind::kAdd: return is_float ? b_.CreateFAdd(a, b) : b_.CreateAdd(a, b, "", false, is_signed);
      case NodeKind::kSub: return is_float ? b_.CreateFSub(a, b) : b_.CreateSub(a, b, "", false, is_signed);
      case NodeKind::kMul: return is_float ? b_.CreateFMul(a, b) : b_.CreateMul(a, b, "", false, is_signed);
      case NodeKind::kDiv:
        return is_float ? b_.CreateFDiv(a, b) : (is_signed ? b_.CreateSDiv(a, b) : b_.CreateUDiv(a, b));
      case NodeKind::kMod:
        return is_float ? b_.CreateFRem(a, b) : (is_signed ? b_.CreateSRem(a, b) : b_.CreateURem(a, b));
      case NodeKind::kFloorDiv: {
        if (is_float) return CallIntrinsic(llvm::Intrinsic::floor, a->getType(), {b_.CreateFDiv(a, b)});
        if (!is_signed) return b_.CreateUDiv(a, b);
        // q = a / b rounded toward zero; subtract 1 when the remainder's sign differs from b's.
        llvm::Value* q = b_.CreateSDiv(a, b);
        llvm::Value* r = b_.CreateSRem(a, b);
        llvm::Value* zero = llvm::ConstantInt::get(a->getType(), 0);
        llvm::Value* adjust = b_.CreateAnd(b_.CreateICmpNE(r, zero),
                                           b_.CreateICmpNE(b_.CreateICmpSLT(r, zero), b_.CreateICmpSLT(b, zero)));
        return b_.CreateSub(q, b_.CreateZExt(adjust, a->getType()));
      }
      case NodeKind::kFloorMod: {
        if (is_float) {
          llvm::Value* q = CallIntrinsic(llvm::Intrinsic::floor, a->getType(), {b_.CreateFDiv(a, b)});
          return b_.CreateFSub(a, b_.CreateFMul(q, b));
        }
        if (!is_signed) return b_.CreateURem(a, b);
        llvm::Value* r = b_.CreateSRem(a, b);
        llvm::Value* zero = llvm::ConstantInt::get(a->getType(), 0);
        llvm::Value* adjust = b_.CreateAnd(b_.CreateICmpNE(r, zero),
                                           b_.CreateICmpNE(b_.CreateICmpSLT(r, zero), b_.CreateICmpSLT(b, zero)));
        return b_.CreateSelect(adjust, b_.CreateAdd(r, b), r);
      }
      case NodeKind::kMin:
        if (is_float) return CallIntrinsic(llvm::Intrinsic::minnum, a->getType(), {a, b});
        return CallIntrinsic(is_signed ? llvm::Intrinsic::smin : llvm::Intrinsic::umin, a->getType(), {a, b});
      case NodeKind::kMax:
        if (is_float) return CallIntrinsic(llvm::Intrinsic::maxnum, a->getType(), {a, b});
        return CallIntrinsic(is_signed ? llvm::Intrinsic::smax : llvm::Intrinsic::umax, a->getType(), {a, b});
      case NodeKind::kEQ: return is_float ? b_.CreateFCmpOEQ(a, b) : b_.CreateICmpEQ(a, b);
      case NodeKind::kNE: return is_float ? b_.CreateFCmpUNE(a, b) : b_.CreateICmpNE(a, b);
      case NodeKind::kLT:
        return is_float ? b_.CreateFCmpOLT(a, b) : (is_signed ? b_.CreateICmpSLT(a, b) : b_.CreateICmpULT(a, b));
      case NodeKind::kLE:
        return is_float ? b_.CreateFCmpOLE(a, b) : (is_signed ? b_.CreateICmpSLE(a, b) : b_.CreateICmpULE(a, b));
      case NodeKind::kGT:
        return is_float ? b_.CreateFCmpOGT(a, b) : (is_signed ? b_.CreateICmpSGT(a, b) : b_.CreateICmpUGT(a, b));
      case NodeKind::kGE:
        return is_float ? b_.CreateFCmpOGE(a, b) : (is_signed ? b_.CreateICmpSGE(a, b) : b_.CreateICmpUGE(a, b));
      case NodeKind::kAnd: return b_.CreateAnd(a, b);
      case NodeKind::kOr:
        return b_.CreateOr(a, b);
        MLC_CASES_NOT_BINARY
        break;
    }
    Fail(absl::StrCat("unexpected binary node ", NodeKindName(kind)));
    return a;
  }

  /*! \brief As the intrinsic table says: an LLVM intrinsic, a libm call, or its expansion; the
   *         built-in calls (address_of, gemm_tile) are emitted here. */
  llvm::Value* EmitIntrinsic(const tir::TirCallNode* call) {
    if (call->name == "address_of") {
      const auto* load = call->args.empty() ? nullptr : call->args[0].as<tir::BufferLoadNode>();
      if (load == nullptr || load->indices.size() != 1) {
        Fail("T.address_of takes one flattened buffer element");
        return llvm::UndefValue::get(ptr_);
      }
      return Address(load->buffer, load->indices[0]);
    }
    if (call->name == "gemm_tile" || call->name == "gemm_tile_partial") return EmitGemmTile(call);
    if (call->name == "gemm_tile_nd") return EmitGemmTileNd(call);
    if (call->name == "if_then_else" && call->args.size() == 3) return EmitIfThenElse(call);
    const tir::IntrinsicInfo* info = tir::LookupIntrinsic(call->name);
    if (info == nullptr || static_cast<int>(call->args.size()) != info->num_args) {
      Fail(absl::StrCat("no code generation for intrinsic T.", call->name));
      return llvm::UndefValue::get(ScalarType(call->dtype));
    }
    if (!call->args[0]->dtype.is_float()) {
      Fail(absl::StrCat("T.", call->name, " needs a floating-point argument"));
      return llvm::UndefValue::get(ScalarType(call->dtype));
    }
    std::optional<llvm::IRBuilder<>::FastMathFlagGuard> strict;
    if (info->strict_fp) {
      strict.emplace(b_);
      b_.setFastMathFlags(llvm::FastMathFlags());
    }
    if (call->name == "sigmoid" && call->args[0]->dtype == DataType::Float(32)) {
      return EmitSigmoidF32(EmitExpr(call->args[0]));
    }
    if (info->expand != nullptr) return EmitExpr(info->expand(call->args));
    std::vector<llvm::Value*> args;
    for (const PrimExpr& a : call->args) args.push_back(EmitExpr(a));
    llvm::Type* t = args[0]->getType();
    if (info->llvm_intrinsic != nullptr) {
      llvm::Intrinsic::ID id = llvm::Function::lookupIntrinsicID(info->llvm_intrinsic);
      if (id == llvm::Intrinsic::not_intrinsic) {
        Fail(absl::StrCat("LLVM has no intrinsic ", info->llvm_intrinsic));
        return args[0];
      }
      if (id == llvm::Intrinsic::exp && t->isFloatTy()) return EmitExpF32(args[0]);
      return CallIntrinsic(id, t, args);
    }
    if (call->name == "erf" && t->isFloatTy()) return EmitErfF32(args[0]);
    if (call->name == "tanh" && t->isFloatTy()) return EmitTanhF32(args[0]);
    return CallLibm(info->libm, t, args);
  }

  /*! \brief p(u) by Horner's rule, coefficients highest degree first, each step one fmuladd. */
  llvm::Value* EmitPolynomial(llvm::Value* u, std::initializer_list<double> highest_first) {
    llvm::Type* t = u->getType();
    llvm::Value* p = nullptr;
    for (double k : highest_first) {
      llvm::Value* c = llvm::ConstantFP::get(t, k);
      p = p == nullptr ? c : CallIntrinsic(llvm::Intrinsic::fmuladd, t, {p, u, c});
    }
    return p;
  }

  /*! \brief e^x for float32, inline, so the loop vectorizer makes vectors of it at any width
   *  (the libm call it replaces stayed a scalar call per lane at 16 lanes: 64 calls of expf in
   *  a SiLU epilogue tile, 3% of the peak). Cody-Waite reduction x = n ln2 + r and a
   *  degree-6 polynomial, within 1 ulp; below -87.3 (e^x subnormal or zero) 0, as under FTZ;
   *  above ln(FLT_MAX) +inf; NaN stays NaN. No fast-math flags: reassociating the reduction
   *  would lose its precision. Few instructions and constants, since with 16 vector registers
   *  (AVX2) the constants already crowd out the work: n is rounded by adding 1.5 * 2^23 (no
   *  SSE4.1 needed), whose bits then hold n in their low bits, so shifting them by 23 gives
   *  n's exponent field, added to e^r's bits to scale it (within the clamped range e^r's
   *  exponent plus n stays in 1..254, see the comment below). */
  llvm::Value* EmitExpF32(llvm::Value* x) {
    llvm::IRBuilder<>::FastMathFlagGuard guard(b_);
    b_.setFastMathFlags(llvm::FastMathFlags());
    llvm::Type* t = x->getType();
    auto c = [&](double v) { return llvm::ConstantFP::get(t, v); };
    // NaN counts as above (an unordered compare): no NaN reaches the integer scaling below,
    // whose add could turn a NaN with payload bits into a number; x + inf gives it back.
    llvm::Value* below = b_.CreateFCmpOLT(x, c(kExpLowest));
    llvm::Value* above = b_.CreateFCmpUGT(x, c(kExpHighest));
    llvm::Value* xc = b_.CreateSelect(below, c(kExpLowest), b_.CreateSelect(above, c(kExpHighest), x));
    const ExpParts parts = EmitExpPartsF32(xc);
    // n's exponent field added to e^r's bits. n is -126..128: at n = -126, r > 0 (x > -87.3),
    // so e^r >= 1 and its exponent field 127 - 126 = 1 stays normal; at n = 128, r <= 0 (x <=
    // ln(FLT_MAX)), so e^r <= 1 and the field is at most 254 (255 only for e^r rounded to 1:
    // +inf, correctly).
    llvm::Type* it = parts.exponent->getType();
    llvm::Value* e = b_.CreateBitCast(b_.CreateAdd(b_.CreateBitCast(parts.e_r, it), parts.exponent), t);
    llvm::Value* beyond = b_.CreateFAdd(x, llvm::ConstantFP::getInfinity(t));  // +inf, or NaN for NaN
    return b_.CreateSelect(below, c(0.0), b_.CreateSelect(above, beyond, e));
  }

  /*! \brief The range EmitExpPartsF32 takes: below, e^x is subnormal; above, it overflows. */
  static constexpr double kExpLowest = sigmoid_approximation::kExpLowest;
  static constexpr double kExpHighest = sigmoid_approximation::kExpHighest;

  /*! \brief e^x = e^r * 2^n: e^r, and n's exponent field (n << 23, int32 lanes). */
  struct ExpParts {
    llvm::Value* e_r;
    llvm::Value* exponent;
  };

  /*! \brief EmitExpF32's reduction and polynomial for x in [kExpLowest, kExpHighest]. */
  ExpParts EmitExpPartsF32(llvm::Value* xc) {
    llvm::Type* t = xc->getType();
    auto c = [&](double v) { return llvm::ConstantFP::get(t, v); };
    auto madd = [&](llvm::Value* a, llvm::Value* m, llvm::Value* add) {
      return CallIntrinsic(llvm::Intrinsic::fmuladd, t, {a, m, add});
    };
    // The steps and constants of support/sigmoid_approximation.h (vm/library computes the same).
    namespace approx = sigmoid_approximation;
    llvm::Value* magic = c(approx::kRoundingMagic);
    llvm::Value* shifted = madd(xc, c(approx::kLog2E), magic);
    llvm::Value* n = b_.CreateFSub(shifted, magic);
    llvm::Value* r = madd(n, c(approx::kMinusLn2High), xc);
    r = madd(n, c(approx::kMinusLn2Low), r);
    // e^r = 1 + r + r^2 P(r) on |r| <= ln2 / 2.
    const auto& k = approx::kExpPolynomial;
    llvm::Value* p = EmitPolynomial(r, {k[0], k[1], k[2], k[3], k[4]});
    llvm::Value* e_r = b_.CreateFAdd(madd(p, b_.CreateFMul(r, r), r), c(1.0));
    // shifted's bits are 0x4B400000 + n: shifted left by 23 the constant part leaves 32 bits,
    // n << 23 stays.
    llvm::Type* it = IntLanes(t);
    return {e_r, b_.CreateShl(b_.CreateBitCast(shifted, it), llvm::ConstantInt::get(it, 23))};
  }

  /*! \brief int32 with the lanes of float type `t` (or int32 for a scalar). */
  llvm::Type* IntLanes(llvm::Type* t) {
    return t->isVectorTy() ? llvm::VectorType::get(b_.getInt32Ty(), llvm::cast<llvm::VectorType>(t)->getElementCount())
                           : static_cast<llvm::Type*>(b_.getInt32Ty());
  }

  /*! \brief e^x for x <= 0 (or NaN), clamped below at kExpLowest: the expansion sigmoid, tanh
   *  and erf need, in fewer operations than EmitExpF32 (whose range checks and NaN care weigh
   *  on AVX2's 16 registers and two FMA pipes: EfficientNet-B0's SiLU epilogues took 30% of its
   *  time there, 18% at AVX-512's 16 lanes). Only the lower end is clamped, and e^r is scaled
   *  by 2^n (n in -126..0) as a float multiply, through which a NaN stays NaN where the integer
   *  scaling could turn one into a number. Below -87.3, e^-87.3 (1.2e-38) rather than less. */
  llvm::Value* EmitExpOfNonPositiveF32(llvm::Value* x) {
    llvm::Type* t = x->getType();
    llvm::Type* it = IntLanes(t);
    auto c = [&](double v) { return llvm::ConstantFP::get(t, v); };
    // A NaN passes the clamp (an ordered compare is false).
    const ExpParts parts = EmitExpPartsF32(b_.CreateSelect(b_.CreateFCmpOLT(x, c(kExpLowest)), c(kExpLowest), x));
    llvm::Value* scale =
        b_.CreateBitCast(b_.CreateAdd(parts.exponent, llvm::ConstantInt::get(it, sigmoid_approximation::kOneBits)), t);
    return b_.CreateFMul(parts.e_r, scale);
  }

  /*! \brief 1 / (1 + e^-x) for float32 (SiLU's sigmoid): e = e^-|x| is in (0, 1], and
   *  sigmoid(|x|) = 1 / (1 + e), sigmoid(-|x|) = e / (1 + e), the numerator chosen by x's sign
   *  bit (which x86's blend reads itself: no compare). Within 3 ulp; NaN stays NaN; below
   *  -87.3, 1.2e-38 or less rather than the subnormal value. */
  llvm::Value* EmitSigmoidF32(llvm::Value* x) {
    llvm::IRBuilder<>::FastMathFlagGuard guard(b_);
    b_.setFastMathFlags(llvm::FastMathFlags());
    llvm::Type* t = x->getType();
    llvm::Type* it = IntLanes(t);
    auto c = [&](double v) { return llvm::ConstantFP::get(t, v); };
    llvm::Value* e = EmitExpOfNonPositiveF32(b_.CreateFNeg(CallIntrinsic(llvm::Intrinsic::fabs, t, {x})));
    // -0 takes e / (1 + e) = 0.5 too.
    llvm::Value* negative = b_.CreateICmpSLT(b_.CreateBitCast(x, it), llvm::ConstantInt::get(it, 0));
    return b_.CreateFDiv(b_.CreateSelect(negative, e, c(1.0)), b_.CreateFAdd(e, c(1.0)));
  }

  /*! \brief erf(x) for float32, inline for the same reason as EmitExpF32 (GELU's erf was one
   *  libm call per lane). |x| < 1: x * P(x^2); above: 1 - e^Q(|x|) with Q fitted to
   *  log(erfc) on [1, 4] in |x| - 2.5 (erf is 1 in float32 beyond 4), the sign of x. Chebyshev
   *  fits of degree 6 and 8; within 1.6e-7 absolute, 2.5 ulp, of erf on [-5, 5]. */
  llvm::Value* EmitErfF32(llvm::Value* x) {
    llvm::IRBuilder<>::FastMathFlagGuard guard(b_);
    b_.setFastMathFlags(llvm::FastMathFlags());
    llvm::Type* t = x->getType();
    auto c = [&](double v) { return llvm::ConstantFP::get(t, v); };
    llvm::Value* a = CallIntrinsic(llvm::Intrinsic::fabs, t, {x});
    llvm::Value* small = b_.CreateFMul(
        x, EmitPolynomial(b_.CreateFMul(a, a),
                          {7.933494634926319e-05, -0.0008034846978262067, 0.005191218573600054, -0.02685539983212948,
                           0.11283625662326813, -0.3761262893676758, 1.128379225730896}));
    // A NaN passes the clamp (an ordered compare is false) and comes out of `large`.
    llvm::Value* u = b_.CreateFSub(b_.CreateSelect(b_.CreateFCmpOGT(a, c(4.0)), c(4.0), a), c(2.5));
    // Q is at most 3e-4 for |x| in [0, 4] (u in [-2.5, 1.5]), where e^Q needs no range checks.
    llvm::Value* q = EmitPolynomial(
        u, {1.6140616025950294e-06, -1.3309389942151029e-05, 7.739442662568763e-05, -0.0004201445553917438,
            0.0021651603747159243, -0.01085851714015007, -0.9438936114311218, -5.352680683135986, -7.806815147399902});
    llvm::Value* large =
        CallIntrinsic(llvm::Intrinsic::copysign, t, {b_.CreateFSub(c(1.0), EmitExpOfNonPositiveF32(q)), x});
    return b_.CreateSelect(b_.CreateFCmpOLT(a, c(1.0)), small, large);
  }

  /*! \brief tanh(x) for float32, inline for the same reason as EmitExpF32 (a recurrent cell's
   *  tanh was one libm call per lane, 3 us for 256 values). |x| < 0.625: x + x^3 P(x^2) (Cephes'
   *  minimax polynomial, where the quotient below would cancel); above: (1 - e^-2|x|) / (1 +
   *  e^-2|x|) with the sign of x. Within 3 ulp; NaN stays NaN. */
  llvm::Value* EmitTanhF32(llvm::Value* x) {
    llvm::IRBuilder<>::FastMathFlagGuard guard(b_);
    b_.setFastMathFlags(llvm::FastMathFlags());
    llvm::Type* t = x->getType();
    auto c = [&](double v) { return llvm::ConstantFP::get(t, v); };
    llvm::Value* a = CallIntrinsic(llvm::Intrinsic::fabs, t, {x});
    llvm::Value* z = b_.CreateFMul(x, x);
    llvm::Value* p = EmitPolynomial(
        z, {-5.70498872745e-3, 2.06390887954e-2, -5.37397155531e-2, 1.33314422036e-1, -3.33332819422e-1});
    llvm::Value* small = CallIntrinsic(llvm::Intrinsic::fmuladd, t, {b_.CreateFMul(p, z), x, x});
    // tanh |x| = (1 - e) / (1 + e) with e = e^-2|x| in (0, 0.29] here: no overflow, no
    // cancellation; a NaN comes out of it as NaN.
    llvm::Value* e = EmitExpOfNonPositiveF32(b_.CreateFMul(a, c(-2.0)));
    llvm::Value* large = CallIntrinsic(llvm::Intrinsic::copysign, t,
                                       {b_.CreateFDiv(b_.CreateFSub(c(1.0), e), b_.CreateFAdd(c(1.0), e)), x});
    return b_.CreateSelect(b_.CreateFCmpOLT(a, c(0.625)), small, large);
  }

  /*! \brief Where an operand of a call inside loops goes next (NextIteration), and which of
   *  the calls that share it this one is. */
  struct NextOperand {
    llvm::Value* address = nullptr;  // nullptr: none
    llvm::Value* call_index = nullptr;
    int64_t calls = 1;
  };

  /*! \brief The operand at `address` where the loops around the call take it next: the
   *  innermost loop that moves it outside the innermost one that does not (or, when none
   *  is outside a loop that does not, the innermost that moves it) stepped, or, in that loop's
   *  last iteration, that loop back at its start and the loop around it stepped (where that one
   *  moves the operand too; else the operand starts over). The loops inside it that do not move
   *  the operand run calls that share it: `calls` of them (their constant extents multiplied),
   *  this one `call_index` (their iteration, row-major); those inside it that do move it (a
   *  GEMM's panels inside its row tiles) keep their value, so each call's next is its own part
   *  of the next chunk. None where no loop moves it or a sharing loop's extent is not a
   *  constant. Inside a parallel loop's body the next iteration may be another thread's: a
   *  prefetch of it only costs the lines. */
  NextOperand NextIteration(const PrimExpr& address) {
    std::vector<tir::Var> used;
    tir::CollectVars(address, &used);
    auto moves = [&](const OpenLoop& l) {
      return std::any_of(used.begin(), used.end(), [&](const tir::Var& v) { return v.get() == l.var; });
    };
    int inner = static_cast<int>(open_loops_.size()) - 1;
    while (inner >= 0 && !moves(open_loops_[inner])) --inner;
    if (inner < 0) return {};
    // Loops that move it inside a sharing one (a GEMM's panels of a column block, inside its
    // row tiles) pick this call's part of the chunk: the chunk is stepped by the moving loop
    // outside the innermost sharing one, and each call prefetches its part's next.
    int sharing = inner - 1;
    while (sharing >= 0 && moves(open_loops_[sharing])) --sharing;
    int outer = sharing;
    while (outer >= 0 && !moves(open_loops_[outer])) --outer;
    if (sharing >= 0 && outer >= 0) inner = outer;
    NextOperand next;
    next.call_index = b_.getInt64(0);
    for (size_t i = inner + 1; i < open_loops_.size(); ++i) {
      const OpenLoop& l = open_loops_[i];
      if (moves(l)) continue;
      const auto* lo = llvm::dyn_cast<llvm::ConstantInt>(l.begin);
      const auto* hi = llvm::dyn_cast<llvm::ConstantInt>(l.end);
      if (lo == nullptr || hi == nullptr) return {};
      const int64_t extent = hi->getSExtValue() - lo->getSExtValue();
      llvm::Value* iteration = b_.CreateSExtOrTrunc(b_.CreateSub(l.value, l.begin), i64_);
      next.call_index = b_.CreateAdd(b_.CreateMul(next.call_index, b_.getInt64(extent)), iteration);
      next.calls *= extent;
    }
    // The address with some loops' variables at other values.
    auto address_with = [&](const std::vector<std::pair<const Object*, llvm::Value*>>& values) {
      std::vector<std::pair<const Object*, llvm::Value*>> saved;
      for (const auto& [var, value] : values) {
        saved.push_back({var, vars_[var]});
        vars_[var] = value;
      }
      llvm::Value* out = EmitExpr(address);
      for (const auto& [var, value] : saved) vars_[var] = value;
      return out;
    };
    auto stepped = [&](const OpenLoop& l) {
      return b_.CreateAdd(l.value, llvm::ConstantInt::get(l.value->getType(), 1));
    };
    const OpenLoop& loop = open_loops_[inner];
    std::vector<std::pair<const Object*, llvm::Value*>> wrapped = {{loop.var, loop.begin}};
    if (inner > 0 && moves(open_loops_[inner - 1])) {
      wrapped.push_back({open_loops_[inner - 1].var, stepped(open_loops_[inner - 1])});
    }
    next.address = b_.CreateSelect(b_.CreateICmpSLT(stepped(loop), loop.end), address_with({{loop.var, stepped(loop)}}),
                                   address_with(wrapped));
    return next;
  }

  /*! \brief A register tile: MR rows x NB blocks of NR columns accumulated in registers over
   *  nested reduction loops, then added to C. Offsets are in floats from the tile's origin. */
  struct RegisterTile {
    int64_t mr = 1, nb = 1, nr = 1;
    int64_t a_m = 0, c_m = 0;      // row strides
    int64_t b_nb = 0, c_nb = 0;    // column-block strides
    int64_t b_n = 1, c_n = 1;      // lane strides (1: vector loads and stores)
    bool vector_a = false;         // A varies along the lanes (contiguous): a vector per row, no broadcast
    bool overwrite = false;        // C = the sums (C is not read)
    bool prefetch_b = false;       // B streams from beyond L2: prefetched a memory latency ahead
    bool prefetch_next_a = false;  // the next tile's A (MR rows further) prefetched meanwhile
    NextOperand next_b;            // with kGemmTilePrefetchNextB: B's next chunk, a slice per call
    int64_t b_span = 0;            // floats of one block's B the tile reads (its reductions' reach)
    struct Reduction {
      llvm::Value* extent;
      int64_t a, b;  // strides
    };
    std::vector<Reduction> k;  // outermost first
  };

  /*! \brief Appends the constant arguments [first, end) of an intrinsic call to `out`; fails
   *  the build, naming the intrinsic and `what`, where one is not a constant. */
  bool ConstantArgs(const tir::TirCallNode* call, size_t first, size_t end, const char* what,
                    std::vector<int64_t>* out) {
    for (size_t i = first; i < end; ++i) {
      const int64_t* v = tir::AsConstInt(call->args[i]);
      if (v == nullptr) {
        Fail(absl::StrCat("T.", call->name, ": ", what, " must be constants"));
        return false;
      }
      out->push_back(*v);
    }
    return true;
  }

  /*! \brief T.gemm_tile(C, A, B, K, MR, NR, a_m, a_k, b_k, b_n, c_m, c_n): C[m, n] += sum_k
   *  A[m, k] * B[k, n] over an MR x NR tile, and T.gemm_tile_partial, which computes only its
   *  first `rows` rows (the last tile of rows known at run time). */
  llvm::Value* EmitGemmTile(const tir::TirCallNode* call) {
    llvm::Value* zero32 = b_.getInt32(0);
    const bool partial = call->name == "gemm_tile_partial";
    if (call->args.size() != (partial ? 13u : 12u)) {
      Fail(absl::StrCat("T.", call->name, " takes ", partial ? 13 : 12, " arguments"));
      return zero32;
    }
    std::vector<int64_t> c(4, 0);  // indexed like the arguments: 4..11 are constants
    if (!ConstantArgs(call, 4, 12, "tile sizes and strides", &c)) return zero32;
    RegisterTile tile;
    tile.mr = c[4];
    tile.nr = c[5];
    tile.a_m = c[6];
    tile.b_n = c[9];
    tile.c_m = c[10];
    tile.c_n = c[11];
    tile.k.push_back({b_.CreateSExtOrTrunc(EmitExpr(call->args[3]), i64_), c[7], c[8]});
    llvm::Value* cp = EmitExpr(call->args[0]);
    llvm::Value* ap = EmitExpr(call->args[1]);
    llvm::Value* bp = EmitExpr(call->args[2]);
    if (!partial) {
      EmitRegisterTile(tile, cp, ap, bp);
      return zero32;
    }
    EmitRowTiles(tile, b_.CreateSExtOrTrunc(EmitExpr(call->args[12]), i64_), cp, ap, bp);
    return zero32;
  }

  /*! \brief The first `rows` (at most MR, known when the kernel runs) rows of a register tile:
   *  the full tile when rows == MR, else tiles of the powers of two below MR that sum to rows
   *  (7 under MR 12: 4 + 2 + 1 rows), each a register tile of as many rows, so the last rows
   *  run the micro-kernel too instead of one row at a time, whose few accumulators leave the
   *  FMA units waiting on their latency. */
  void EmitRowTiles(const RegisterTile& tile, llvm::Value* rows, llvm::Value* cp, llvm::Value* ap, llvm::Value* bp) {
    auto* full_bb = llvm::BasicBlock::Create(ctx_, "gemm.full", func_);
    auto* tail_bb = llvm::BasicBlock::Create(ctx_, "gemm.tail", func_);
    auto* done_bb = llvm::BasicBlock::Create(ctx_, "gemm.done", func_);
    b_.CreateCondBr(b_.CreateICmpEQ(rows, b_.getInt64(tile.mr)), full_bb, tail_bb);
    b_.SetInsertPoint(full_bb);
    EmitRegisterTile(tile, cp, ap, bp);
    b_.CreateBr(done_bb);
    b_.SetInsertPoint(tail_bb);
    llvm::Type* f32 = b_.getFloatTy();
    int64_t part = 1;
    while (part * 2 < tile.mr) part *= 2;
    llvm::Value* done_rows = b_.getInt64(0);
    for (; part >= 1; part /= 2) {
      auto* run_bb = llvm::BasicBlock::Create(ctx_, "gemm.part", func_);
      auto* next_bb = llvm::BasicBlock::Create(ctx_, "gemm.part.next", func_);
      llvm::Value* has = b_.CreateICmpNE(b_.CreateAnd(rows, b_.getInt64(part)), b_.getInt64(0));
      b_.CreateCondBr(has, run_bb, next_bb);
      b_.SetInsertPoint(run_bb);
      RegisterTile some = tile;
      some.mr = part;
      some.next_b = {};  // the full tile's slice of the next chunk: a tail leaves it to the hardware
      EmitRegisterTile(some, b_.CreateInBoundsGEP(f32, cp, b_.CreateMul(done_rows, b_.getInt64(tile.c_m))),
                       b_.CreateInBoundsGEP(f32, ap, b_.CreateMul(done_rows, b_.getInt64(tile.a_m))), bp);
      b_.CreateBr(next_bb);
      b_.SetInsertPoint(next_bb);
      done_rows = b_.CreateSelect(has, b_.CreateAdd(done_rows, b_.getInt64(part)), done_rows);
    }
    b_.CreateBr(done_bb);
    b_.SetInsertPoint(done_bb);
  }

  /*! \brief T.if_then_else(cond, a, b): branches, so only the chosen side runs (LLVM may still
   *  if-convert it where both sides are safe to evaluate). */
  llvm::Value* EmitIfThenElse(const tir::TirCallNode* call) {
    llvm::Value* cond = EmitExpr(call->args[0]);
    auto* then_bb = llvm::BasicBlock::Create(ctx_, "ite.then", func_);
    auto* else_bb = llvm::BasicBlock::Create(ctx_, "ite.else", func_);
    auto* end_bb = llvm::BasicBlock::Create(ctx_, "ite.end", func_);
    b_.CreateCondBr(cond, then_bb, else_bb);
    b_.SetInsertPoint(then_bb);
    llvm::Value* a = EmitExpr(call->args[1]);
    llvm::BasicBlock* a_end = b_.GetInsertBlock();
    b_.CreateBr(end_bb);
    b_.SetInsertPoint(else_bb);
    llvm::Value* b = EmitExpr(call->args[2]);
    llvm::BasicBlock* b_end = b_.GetInsertBlock();
    b_.CreateBr(end_bb);
    b_.SetInsertPoint(end_bb);
    llvm::PHINode* phi = b_.CreatePHI(a->getType(), 2);
    phi->addIncoming(a, a_end);
    phi->addIncoming(b, b_end);
    return phi;
  }

  /*! \brief T.gemm_tile_nd(C, A, B, MR, NB, NR, a_m, c_m, b_nb, c_nb, K, (extent, a_k, b_k) x K):
   *  the register tile of a direct convolution (see the intrinsic table). */
  llvm::Value* EmitGemmTileNd(const tir::TirCallNode* call) {
    llvm::Value* zero32 = b_.getInt32(0);
    // With kGemmTilePartialRows the last argument is the row count, not a constant.
    const int64_t* flags = call->args.size() > 10 ? tir::AsConstInt(call->args[10]) : nullptr;
    const bool partial = flags != nullptr && (*flags & tir::kGemmTilePartialRows) != 0;
    std::vector<int64_t> c;
    if (!ConstantArgs(call, 3, call->args.size() - (partial ? 1 : 0), "tile sizes, extents and strides", &c))
      return zero32;
    if (c.size() < 9 || c[8] < 0 || c.size() != 9 + 3 * static_cast<size_t>(c[8])) {
      Fail(absl::StrCat("T.gemm_tile_nd: ", call->args.size(), " arguments do not match its reduction count"));
      return zero32;
    }
    RegisterTile tile;
    tile.mr = c[0];
    tile.nb = c[1];
    tile.nr = c[2];
    tile.a_m = c[3];
    tile.c_m = c[4];
    tile.b_nb = c[5];
    tile.c_nb = c[6];
    tile.vector_a = (c[7] & tir::kGemmTileVectorA) != 0;
    tile.overwrite = (c[7] & tir::kGemmTileOverwrite) != 0;
    tile.prefetch_b = (c[7] & tir::kGemmTilePrefetchB) != 0;
    tile.prefetch_next_a = (c[7] & tir::kGemmTilePrefetchNextA) != 0;
    if ((c[7] & tir::kGemmTilePrefetchNextB) != 0 && tile.b_n == 1) {
      tile.next_b = NextIteration(call->args[2]);
      tile.b_span = tile.nr;
      for (int64_t k = 0; k < c[8]; ++k) tile.b_span += (c[9 + 3 * k] - 1) * c[11 + 3 * k];
    }
    if (tile.vector_a && tile.nb != 1) {
      Fail("T.gemm_tile_nd: a vector A takes one column block");
      return zero32;
    }
    // Reduction loops that walk A and B as one (a 3x3 convolution's kernel column and input
    // lanes in NCHWc: A and B both contiguous across the two) become one longer loop: an
    // innermost loop of 8 lanes left the FMA units idle at each of its frequent exits.
    std::vector<std::array<int64_t, 3>> reductions;  // (extent, a stride, b stride), outermost first
    for (int64_t k = c[8]; k-- > 0;) {
      std::array<int64_t, 3> outer = {c[9 + 3 * k], c[10 + 3 * k], c[11 + 3 * k]};
      if (!reductions.empty()) {
        std::array<int64_t, 3>& inner = reductions.front();
        if (outer[1] == inner[1] * inner[0] && outer[2] == inner[2] * inner[0]) {
          inner[0] *= outer[0];
          continue;
        }
      }
      reductions.insert(reductions.begin(), outer);
    }
    for (const auto& [extent, a, b] : reductions) tile.k.push_back({b_.getInt64(extent), a, b});
    llvm::Value* cp = EmitExpr(call->args[0]);
    llvm::Value* ap = EmitExpr(call->args[1]);
    llvm::Value* bp = EmitExpr(call->args[2]);
    if (partial) {
      EmitRowTiles(tile, b_.CreateSExtOrTrunc(EmitExpr(call->args.back()), i64_), cp, ap, bp);
    } else {
      EmitRegisterTile(tile, cp, ap, bp);
    }
    return zero32;
  }

  /*! \brief The register tile itself. Each row of each column block is one accumulator of NR
   *  floats, held in registers across the reduction loops: per innermost step, one vector load
   *  of B per block, one broadcast of A per row (a vector load with vector_a) and MR x NB fused
   *  multiply-adds. An NR that is not a power of two is kept as pieces that are (40 = 32 + 8):
   *  LLVM splits those into the target's vectors, where a <40 x float> was scalarized lane by
   *  lane at every step (a 512 x 1000 dense layer ran at 2% of the peak). Accumulators start at
   *  zero and C is added after the reductions, so C's loads do not stall the first FMAs (the tile
   *  may come from L2 or L3). Strided B or C lanes are gathered and scattered element by
   *  element. The accumulators are stack slots of the entry block, which SROA turns into
   *  registers. */
  void EmitRegisterTile(const RegisterTile& tile, llvm::Value* cp, llvm::Value* ap, llvm::Value* bp) {
    llvm::Type* f32 = b_.getFloatTy();
    struct Piece {
      int64_t start, width;
      llvm::FixedVectorType* type;
      llvm::Function* fma;
    };
    std::vector<Piece> pieces;
    for (int64_t start = 0, left = tile.nr; left > 0;) {
      int64_t width = 1;
      while (width * 2 <= left) width *= 2;
      auto* type = llvm::FixedVectorType::get(f32, static_cast<unsigned>(width));
      pieces.push_back({start, width, type, llvm::Intrinsic::getDeclaration(&mod_, llvm::Intrinsic::fmuladd, {type})});
      start += width;
      left -= width;
    }
    const int64_t np = static_cast<int64_t>(pieces.size());
    auto at = [&](llvm::Value* base, llvm::Value* offset) { return b_.CreateInBoundsGEP(f32, base, offset); };
    // Lanes [start, start + width) of a row of NR floats at `offset`, `stride` apart.
    auto load_piece = [&](const Piece& p, llvm::Value* base, llvm::Value* offset, int64_t stride) -> llvm::Value* {
      if (stride == 1)
        return b_.CreateAlignedLoad(p.type, at(base, b_.CreateAdd(offset, b_.getInt64(p.start))), llvm::Align(4));
      llvm::Value* v = llvm::UndefValue::get(p.type);
      for (int64_t j = 0; j < p.width; ++j) {
        llvm::Value* e = b_.CreateLoad(f32, at(base, b_.CreateAdd(offset, b_.getInt64((p.start + j) * stride))));
        v = b_.CreateInsertElement(v, e, b_.getInt64(j));
      }
      return v;
    };
    const int64_t count = tile.mr * tile.nb;
    // A tile of fewer vector registers of accumulators than the FMA units need to hide their
    // latency (a vector-matrix product: 1 x 8 columns is one chain, one FMA per 4 cycles; the
    // last pixel of a convolution's 7-wide row under 3-pixel tiles, 4 chains on AVX2) keeps
    // `sets` copies of them over the innermost reduction loop, step k adding into copy k %
    // sets, summed after the loops: ceil(chains needed / chains), within the registers left
    // beside B's vectors and A's broadcasts.
    int64_t registers = 0;
    for (const Piece& p : pieces) registers += (p.width + target_.float_lanes() - 1) / target_.float_lanes();
    const int64_t chains = count * registers;
    int64_t sets = tile.k.empty() ? 1 : target_.AccumulatorCopies(chains, tile.nb * registers + tile.mr);
    if (sets > 1) {
      // Under outer reduction loops, only an innermost loop whose steps the sets divide (a
      // depthwise tile's 3 taps would leave each set one step and a remainder: no faster).
      const auto* inner = llvm::dyn_cast<llvm::ConstantInt>(tile.k.back().extent);
      if (tile.k.size() > 1 && (inner == nullptr || inner->getSExtValue() % sets != 0)) sets = 1;
    }
    llvm::IRBuilder<> entry_builder(entry_, entry_->begin());
    std::vector<llvm::AllocaInst*> acc(sets * count * np);  // [set][row][block][piece]
    for (int64_t i = 0; i < sets * count * np; ++i) {
      acc[i] = entry_builder.CreateAlloca(pieces[i % np].type);
      b_.CreateStore(llvm::ConstantFP::get(pieces[i % np].type, 0.0), acc[i]);
    }
    // Row r's A at offset a_off as one value per piece: a broadcast of its element, or its lanes (vector_a).
    auto a_value = [&](llvm::Value* a_off, int64_t r) {
      llvm::Value* a_at = b_.CreateAdd(a_off, b_.getInt64(r * tile.a_m));
      std::vector<llvm::Value*> out;
      llvm::Value* scalar = tile.vector_a ? nullptr : b_.CreateLoad(f32, at(ap, a_at));
      for (const Piece& p : pieces) {
        out.push_back(tile.vector_a ? load_piece(p, ap, a_at, 1)
                                    : b_.CreateVectorSplat(static_cast<unsigned>(p.width), scalar));
      }
      return out;
    };
    // With prefetch_b, each innermost step prefetches each block's B a memory latency ahead
    // along B's stream (the steps' B stride), which the packed weights follow from one tile
    // call to the next: a step takes chains / fma_units cycles.
    int64_t prefetch_distance = 0;
    if (tile.prefetch_b && !tile.k.empty() && tile.b_n == 1) {
      const int64_t latency = int64_t{target_.memory_latency_cycles()} * target_.fma_units();
      prefetch_distance = (latency + chains - 1) / chains * tile.k.back().b;
    }
    // A prefetch of the line at `address` for reading (or for writing), kept in all cache
    // levels (locality 3) unless told otherwise (2: L2 and beyond).
    auto prefetch_line = [&](llvm::Value* address, bool for_write = false, int locality = 3) {
      llvm::Function* prefetch = llvm::Intrinsic::getDeclaration(&mod_, llvm::Intrinsic::prefetch, {ptr_});
      b_.CreateCall(prefetch, {address, b_.getInt32(for_write ? 1 : 0), b_.getInt32(locality), b_.getInt32(1)});
    };
    auto b_value = [&](llvm::Value* b_off, int64_t j) {
      std::vector<llvm::Value*> out;
      if (prefetch_distance > 0) {
        prefetch_line(at(bp, b_.CreateAdd(b_off, b_.getInt64(j * tile.b_nb + prefetch_distance))));
      }
      for (const Piece& p : pieces)
        out.push_back(load_piece(p, bp, b_.CreateAdd(b_off, b_.getInt64(j * tile.b_nb)), tile.b_n));
      return out;
    };
    auto accumulate = [&](int64_t set, int64_t r, int64_t j, const std::vector<llvm::Value*>& a,
                          const std::vector<llvm::Value*>& bv) {
      for (int64_t q = 0; q < np; ++q) {
        llvm::AllocaInst* slot = acc[((set * tile.mr + r) * tile.nb + j) * np + q];
        b_.CreateStore(b_.CreateCall(pieces[q].fma, {a[q], bv[q], b_.CreateLoad(pieces[q].type, slot)}), slot);
      }
    };
    // One step of the innermost reduction at these offsets of A and B, into accumulator set `set`.
    auto step = [&](llvm::Value* a_off, llvm::Value* b_off, int64_t set) {
      if (!tile.vector_a && tile.mr < tile.nb) {
        // Fewer rows than column blocks (3 x 4 on AVX2's 16 registers): the MR broadcasts stay
        // live and each B vector is loaded as it is used, so the tile needs MR + 1 registers
        // beside its accumulators, not NB + 1.
        std::vector<std::vector<llvm::Value*>> arow(tile.mr);
        for (int64_t r = 0; r < tile.mr; ++r) arow[r] = a_value(a_off, r);
        for (int64_t j = 0; j < tile.nb; ++j) {
          std::vector<llvm::Value*> bv = b_value(b_off, j);
          for (int64_t r = 0; r < tile.mr; ++r) accumulate(set, r, j, arow[r], bv);
        }
      } else {
        std::vector<std::vector<llvm::Value*>> brow(tile.nb);
        for (int64_t j = 0; j < tile.nb; ++j) brow[j] = b_value(b_off, j);
        for (int64_t r = 0; r < tile.mr; ++r) {
          std::vector<llvm::Value*> a = a_value(a_off, r);
          for (int64_t j = 0; j < tile.nb; ++j) accumulate(set, r, j, a, brow[j]);
        }
      }
    };
    // A counted loop k = begin, begin + step_size, ... while k + step_size <= end (k < end for
    // a step of 1); `body` emits the step at k. Not unrolled: the accumulators fill the
    // registers, and an unrolled step would spill them.
    auto loop = [&](llvm::Value* begin, llvm::Value* end, int64_t step_size,
                    const std::function<void(llvm::Value*)>& body) {
      llvm::BasicBlock* pre = b_.GetInsertBlock();
      auto* header = llvm::BasicBlock::Create(ctx_, "tile.k", func_);
      auto* loop_body = llvm::BasicBlock::Create(ctx_, "tile.k.body", func_);
      auto* exit = llvm::BasicBlock::Create(ctx_, "tile.k.end", func_);
      b_.CreateBr(header);
      b_.SetInsertPoint(header);
      llvm::PHINode* k = b_.CreatePHI(i64_, 2, "k");
      k->addIncoming(begin, pre);
      b_.CreateCondBr(b_.CreateICmpSLE(b_.CreateAdd(k, b_.getInt64(step_size)), end), loop_body, exit);
      b_.SetInsertPoint(loop_body);
      body(k);
      llvm::Value* k_next = b_.CreateAdd(k, b_.getInt64(step_size), "", true, true);
      llvm::BranchInst* back = b_.CreateBr(header);
      k->addIncoming(k_next, b_.GetInsertBlock());
      llvm::MDNode* loop_id = llvm::MDNode::getDistinct(
          ctx_, {nullptr, llvm::MDNode::get(ctx_, llvm::MDString::get(ctx_, "llvm.loop.mustprogress")),
                 llvm::MDNode::get(ctx_, llvm::MDString::get(ctx_, "llvm.loop.unroll.disable"))});
      loop_id->replaceOperandWith(0, loop_id);
      back->setMetadata(llvm::LLVMContext::MD_loop, loop_id);
      b_.SetInsertPoint(exit);
    };
    // With prefetch_next_a, each step of the reduction loops outside the innermost prefetches
    // the next tile's rows at the same offset, a line per row: the innermost loop reads a line
    // of each row (a pixel's channel block), so the next tile's data is in L1 when it starts.
    // Where that data was written by another core, or spilled from L2, its lines are many short
    // streams (one per input-channel block) that the hardware prefetcher does not follow.
    const int64_t rows_per_line =
        std::max<int64_t>(1, 64 / std::max<int64_t>(1, tile.a_m * static_cast<int64_t>(sizeof(float))));
    auto prefetch_next_a = [&](llvm::Value* a_off) {
      for (int64_t r = 0; r < tile.mr; r += rows_per_line) {
        // Not inbounds: the last tile's next one lies past the end of A (a prefetch never faults).
        prefetch_line(b_.CreateGEP(f32, ap, b_.CreateAdd(a_off, b_.getInt64((tile.mr + r) * tile.a_m))));
      }
    };
    // With next_b, this call's slice of each block's B in the next chunk: its share of the
    // lines (of the `calls` that share this chunk), prefetched into L2 while this one is
    // computed, so the next chunk streams in rather than at the pace of its first tile. Spread
    // over the steps of the outermost reduction loop where the slice has a line for each (a
    // convolution's few input-channel blocks, a group of the accumulator copies' turns being a
    // step where they take turns over it); a slice of fewer lines than steps (a GEMM row tile's
    // long k loop) is asked for before the loop, since a test at every step (a line every
    // `steps / lines` of them) cost AVX2's 6 x 16 tiles 15-18%.
    // (T.gemm_tile_nd's extents, the only tiles with next_b, are constants.)
    const auto* outer_extent = tile.k.empty() ? nullptr : llvm::dyn_cast<llvm::ConstantInt>(tile.k.front().extent);
    const bool copies_over_outer = sets > 1 && tile.k.size() == 1;
    const int64_t outer_steps = std::max<int64_t>(
        1, (outer_extent != nullptr ? outer_extent->getSExtValue() : 1) / (copies_over_outer ? sets : 1));
    const int64_t next_b_lines = (tile.b_span + kFloatsPerLine - 1) / kFloatsPerLine;
    const int64_t next_b_per_call = (next_b_lines + tile.next_b.calls - 1) / tile.next_b.calls;
    const bool next_b_per_step = tile.next_b.address != nullptr && next_b_per_call >= outer_steps;
    // The lines [first, first + count) of this call's slice, each block's.
    auto prefetch_next_b_lines = [&](llvm::Value* first, int64_t count) {
      for (int64_t u = 0; u < count; ++u) {
        // Past the chunk's last line (the last call's slice rounded up) the last line again.
        llvm::Value* line = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, b_.CreateAdd(first, b_.getInt64(u)),
                                                     b_.getInt64(next_b_lines - 1));
        for (int64_t j = 0; j < tile.nb; ++j) {
          llvm::Value* offset =
              b_.CreateAdd(b_.getInt64(j * tile.b_nb), b_.CreateMul(line, b_.getInt64(kFloatsPerLine)));
          // Not inbounds: the next chunk of the last iteration may lie past B's end (a prefetch never faults).
          // Locality 2: into L2, where the chunk waits for the tiles still to run on this one.
          prefetch_line(b_.CreateGEP(f32, tile.next_b.address, offset), /*for_write=*/false, /*locality=*/2);
        }
      }
    };
    auto slice_start = [&]() { return b_.CreateMul(tile.next_b.call_index, b_.getInt64(next_b_per_call)); };
    // Step k's lines of the slice.
    auto prefetch_next_b_step = [&](llvm::Value* k) {
      const int64_t per_step = (next_b_per_call + outer_steps - 1) / outer_steps;
      prefetch_next_b_lines(b_.CreateAdd(slice_start(), b_.CreateMul(k, b_.getInt64(per_step))), per_step);
    };
    // The reduction loops, outermost first; offsets of A and B accumulate their strides.
    std::function<void(size_t, llvm::Value*, llvm::Value*)> nest = [&](size_t level, llvm::Value* a_off,
                                                                       llvm::Value* b_off) {
      if (level == tile.k.size()) return step(a_off, b_off, 0);
      const RegisterTile::Reduction& red = tile.k[level];
      if (tile.prefetch_next_a && level > 0 && level + 1 == tile.k.size() && tile.a_m > 0) prefetch_next_a(a_off);
      auto offsets = [&](llvm::Value* k) {
        return std::make_pair(b_.CreateAdd(a_off, b_.CreateMul(k, b_.getInt64(red.a))),
                              b_.CreateAdd(b_off, b_.CreateMul(k, b_.getInt64(red.b))));
      };
      // The sets take turns over the innermost loop (a convolution's input channels), whose
      // steps follow one another; over an outer one each set would run a whole inner loop alone.
      const bool slices_next_b = level == 0 && next_b_per_step;
      if (sets == 1 || level + 1 < tile.k.size()) {
        loop(b_.getInt64(0), red.extent, 1, [&](llvm::Value* k) {
          if (slices_next_b) prefetch_next_b_step(k);
          auto [a_k, b_k] = offsets(k);
          nest(level + 1, a_k, b_k);
        });
        return;
      }
      // Whole groups of `sets` steps, then the rest into the first set.
      llvm::Value* whole = b_.CreateMul(b_.CreateSDiv(red.extent, b_.getInt64(sets)), b_.getInt64(sets));
      loop(b_.getInt64(0), whole, sets, [&](llvm::Value* k) {
        if (slices_next_b) prefetch_next_b_step(b_.CreateExactSDiv(k, b_.getInt64(sets)));
        for (int64_t u = 0; u < sets; ++u) {
          auto [a_k, b_k] = offsets(b_.CreateAdd(k, b_.getInt64(u)));
          step(a_k, b_k, u);
        }
      });
      loop(whole, red.extent, 1, [&](llvm::Value* k) {
        auto [a_k, b_k] = offsets(k);
        step(a_k, b_k, 0);
      });
    };
    // A tile that overwrites C asks for C's lines for writing before its reduction runs. On two
    // threads those lines were most often last read by the other core as well (a convolution
    // split over channel groups reads all of its input on both cores, and the memory plan reuses
    // that storage), and a store to such a line waits for the other core to give it up: 7-10
    // GB/s in the far state (support/cross_core.h). Asked for here, the lines arrive while the
    // tile computes. ResNet-50 on two threads of a Zen 5: 2.9% faster; one thread unchanged.
    if (tile.overwrite && tile.c_n == 1) {
      for (int64_t r = 0; r < tile.mr; ++r) {
        for (int64_t j = 0; j < tile.nb; ++j) {
          for (int64_t l = 0; l < tile.nr; l += kFloatsPerLine) {
            prefetch_line(at(cp, b_.getInt64(r * tile.c_m + j * tile.c_nb + l)), /*for_write=*/true);
          }
        }
      }
    }
    if (tile.next_b.address != nullptr && !next_b_per_step) {
      loop(b_.getInt64(0), b_.getInt64(next_b_per_call), 1,
           [&](llvm::Value* u) { prefetch_next_b_lines(b_.CreateAdd(slice_start(), u), 1); });
    }
    nest(0, b_.getInt64(0), b_.getInt64(0));
    // The sets summed into the first (a tree: halves added).
    for (int64_t width = sets; width > 1; width = (width + 1) / 2) {
      const int64_t half = (width + 1) / 2;
      for (int64_t set = half; set < width; ++set) {
        for (int64_t i = 0; i < count * np; ++i) {
          llvm::AllocaInst *into = acc[(set - half) * count * np + i], *from = acc[set * count * np + i];
          llvm::Type* type = pieces[i % np].type;
          b_.CreateStore(b_.CreateFAdd(b_.CreateLoad(type, into), b_.CreateLoad(type, from)), into);
        }
      }
    }
    for (int64_t r = 0; r < tile.mr; ++r) {
      for (int64_t j = 0; j < tile.nb; ++j) {
        llvm::Value* offset = b_.getInt64(r * tile.c_m + j * tile.c_nb);
        for (int64_t q = 0; q < np; ++q) {
          const Piece& p = pieces[q];
          llvm::Value* sum = b_.CreateLoad(p.type, acc[(r * tile.nb + j) * np + q]);
          if (!tile.overwrite) sum = b_.CreateFAdd(load_piece(p, cp, offset, tile.c_n), sum);
          if (tile.c_n == 1) {
            b_.CreateAlignedStore(sum, at(cp, b_.CreateAdd(offset, b_.getInt64(p.start))), llvm::Align(4));
          } else {
            for (int64_t l = 0; l < p.width; ++l) {
              b_.CreateStore(b_.CreateExtractElement(sum, b_.getInt64(l)),
                             at(cp, b_.CreateAdd(offset, b_.getInt64((p.start + l) * tile.c_n))));
            }
          }
        }
      }
    }
  }

  void EmitStmt(const Stmt& s) {
    switch (s->kind()) {
      case NodeKind::kBufferStore: {
        const auto* store = s.as<tir::BufferStoreNode>();
        if (store->indices.size() != 1) return Fail("buffer store is not flattened (run LowerPrimFunc first)");
        llvm::Value* v = EmitExpr(store->value);
        if (store->buffer->dtype.is_bool()) v = b_.CreateZExt(v, b_.getInt8Ty());
        b_.CreateStore(v, Address(store->buffer, store->indices[0]));
        return;
      }
      case NodeKind::kSeqStmt:
        for (const Stmt& inner : s.as<tir::SeqStmtNode>()->seq) EmitStmt(inner);
        return;
      case NodeKind::kEvaluate: EmitExpr(s.as<tir::EvaluateNode>()->value); return;
      case NodeKind::kIfThenElse: return EmitIf(s.as<tir::IfThenElseNode>());
      case NodeKind::kFor: {
        const auto* loop = s.as<tir::ForNode>();
        if (loop->for_kind == tir::ForKind::kParallel) return EmitParallelFor(loop);
        return EmitSerialFor(loop);
      }
      case NodeKind::kAllocate: return EmitAllocate(s.as<tir::AllocateNode>());
      case NodeKind::kBlock:
      case NodeKind::kBlockRealize: MLC_CASES_NOT_STMT break;
    }
    Fail(absl::StrCat("statement ", NodeKindName(s->kind()), " must be lowered before code generation"));
  }

  void EmitIf(const tir::IfThenElseNode* op) {
    llvm::Value* cond = EmitExpr(op->condition);
    auto* then_bb = llvm::BasicBlock::Create(ctx_, "if.then", func_);
    auto* else_bb = op->else_case.defined() ? llvm::BasicBlock::Create(ctx_, "if.else", func_) : nullptr;
    auto* end_bb = llvm::BasicBlock::Create(ctx_, "if.end", func_);
    b_.CreateCondBr(cond, then_bb, else_bb ? else_bb : end_bb);
    b_.SetInsertPoint(then_bb);
    EmitStmt(op->then_case);
    b_.CreateBr(end_bb);
    if (else_bb) {
      b_.SetInsertPoint(else_bb);
      EmitStmt(op->else_case);
      b_.CreateBr(end_bb);
    }
    b_.SetInsertPoint(end_bb);
  }

  /*! \brief for (v = begin; v < end; ++v) body, with loop metadata for the loop kind; a
   *  vectorized loop of a known `vector_width` (0: unknown) becomes vectors of that many lanes. */
  void EmitLoop(const tir::Var& var, llvm::Value* begin, llvm::Value* end, tir::ForKind kind, const Stmt& body,
                int64_t vector_width = 0) {
    EmitLoop(
        var, begin, end, kind, [&] { EmitStmt(body); }, vector_width);
  }
  void EmitLoop(const tir::Var& var, llvm::Value* begin, llvm::Value* end, tir::ForKind kind,
                const std::function<void()>& emit_body, int64_t vector_width = 0) {
    llvm::Type* t = ScalarType(var->dtype);
    begin = b_.CreateSExtOrTrunc(begin, t);
    end = b_.CreateSExtOrTrunc(end, t);
    llvm::BasicBlock* pre = b_.GetInsertBlock();
    auto* header = llvm::BasicBlock::Create(ctx_, absl::StrCat("for.", var->name), func_);
    auto* body_bb = llvm::BasicBlock::Create(ctx_, absl::StrCat("for.", var->name, ".body"), func_);
    auto* exit = llvm::BasicBlock::Create(ctx_, absl::StrCat("for.", var->name, ".end"), func_);
    b_.CreateBr(header);
    b_.SetInsertPoint(header);
    llvm::PHINode* phi = b_.CreatePHI(t, 2, var->name);
    phi->addIncoming(begin, pre);
    b_.CreateCondBr(b_.CreateICmpSLT(phi, end), body_bb, exit);
    b_.SetInsertPoint(body_bb);
    vars_[var.get()] = phi;
    open_loops_.push_back({var.get(), begin, end, phi});
    // How many times the innermost bodies inside run per iteration of this loop (0: none
    // inside), for the unrolling decision below; a loop of one vector is one instruction.
    const int64_t enclosing_bodies = nested_bodies_;
    nested_bodies_ = 0;
    emit_body();
    const int64_t bodies_per_iteration = nested_bodies_;
    const bool one_vector = kind == tir::ForKind::kVectorized && vector_width > 0;
    const auto* static_begin = llvm::dyn_cast<llvm::ConstantInt>(begin);
    const auto* static_end = llvm::dyn_cast<llvm::ConstantInt>(end);
    const int64_t trip_count = static_begin && static_end
                                   ? std::max<int64_t>(0, static_end->getSExtValue() - static_begin->getSExtValue())
                                   : std::numeric_limits<int32_t>::max();
    const int64_t bodies = one_vector ? std::max<int64_t>(1, bodies_per_iteration)
                                      : SaturatingMul(trip_count, std::max<int64_t>(1, bodies_per_iteration));
    nested_bodies_ = std::max(enclosing_bodies, bodies);
    open_loops_.pop_back();
    vars_.erase(var.get());
    llvm::Value* next = b_.CreateAdd(phi, llvm::ConstantInt::get(t, 1), "", true, true);
    llvm::BranchInst* back = b_.CreateBr(header);
    phi->addIncoming(next, b_.GetInsertBlock());
    std::vector<llvm::Metadata*> md = {nullptr,
                                       llvm::MDNode::get(ctx_, llvm::MDString::get(ctx_, "llvm.loop.mustprogress"))};
    if (kind == tir::ForKind::kVectorized) {
      md.push_back(llvm::MDNode::get(ctx_, {llvm::MDString::get(ctx_, "llvm.loop.vectorize.enable"),
                                            llvm::ConstantAsMetadata::get(b_.getTrue())}));
      // Not unrolled before the vectorizer sees it: a short loop (one vector of lanes) fully
      // unrolled into scalars leaves the loop around it to be vectorized with gathers.
      md.push_back(llvm::MDNode::get(ctx_, llvm::MDString::get(ctx_, "llvm.loop.unroll.disable")));
      if (vector_width > 0) {
        // The whole loop as one vector: the schedule chose the extent for this target's registers
        // (a multiple of its lanes), and a vector of it is what LLVM splits into registers. Left to
        // itself, LLVM's cost model picks a narrower width for some targets and leaves a loop
        // that the late passes cannot turn into straight-line code.
        auto width_md = [&](const char* name, int64_t value) {
          return llvm::MDNode::get(
              ctx_, {llvm::MDString::get(ctx_, name), llvm::ConstantAsMetadata::get(b_.getInt32(value))});
        };
        md.push_back(width_md("llvm.loop.vectorize.width", vector_width));
        md.push_back(width_md("llvm.loop.interleave.count", 1));
      }
    } else if (kind == tir::ForKind::kUnrolled) {
      md.push_back(llvm::MDNode::get(ctx_, llvm::MDString::get(ctx_, "llvm.loop.unroll.full")));
    } else if (bodies_per_iteration > 0 && bodies > kMaxUnrolledNestBodies) {
      // LLVM fully unrolls outer loops around small ones, then the small ones too: an epilogue
      // of 8 x 14 x 28 vectors became one block of 3136 (12 s in the post-RA scheduler;
      // DenseNet-121 took 35 s to build). A loop around loops is left rolled when unrolling it
      // whole would copy the innermost body more than this many times; innermost loops and
      // small nests (a window's taps) stay LLVM's to unroll, and T.unroll still unrolls.
      md.push_back(llvm::MDNode::get(ctx_, llvm::MDString::get(ctx_, "llvm.loop.unroll.disable")));
    }
    llvm::MDNode* loop_id = llvm::MDNode::getDistinct(ctx_, md);
    loop_id->replaceOperandWith(0, loop_id);
    back->setMetadata(llvm::LLVMContext::MD_loop, loop_id);
    b_.SetInsertPoint(exit);
  }

  void EmitSerialFor(const tir::ForNode* loop) {
    if (std::optional<TransposedNest> nest = PlanTransposedNest(loop, target_.vector_bits)) {
      return EmitTransposedNest(*nest);
    }
    llvm::Value* begin = EmitExpr(loop->min);
    llvm::Value* end = b_.CreateAdd(begin, EmitExpr(loop->extent));
    EmitLoop(loop->loop_var, begin, end, loop->for_kind, loop->body, OneVectorWidth(loop));
  }

  /*! \brief A nest planned by PlanTransposedNest: per block of i and chunk of rows, each row j
   *  computed as one vector along i into a [chunk][block] tile on the stack, then the tile
   *  transposed with one shuffle and stored as `block` vectors of `chunk`, one per column's
   *  contiguous run of D. */
  void EmitTransposedNest(const TransposedNest& nest) {
    llvm::Type* element = MemoryType(nest.out->dtype);
    int64_t tile_elements = 0;
    for (const TransposedNest::Segment& s : nest.segments) tile_elements = std::max(tile_elements, s.chunk * s.block);
    llvm::IRBuilder<> entry_builder(entry_, entry_->begin());
    llvm::Value* tile_storage = entry_builder.CreateAlloca(llvm::ArrayType::get(element, tile_elements));
    tir::Buffer tile = tir::MakeBuffer("transposed_tile", {tir::I64(tile_elements)}, nest.out->dtype);
    BindBuffer(tile.get(), tile_storage);
    llvm::Type* index_type = ScalarType(nest.row_var->dtype);
    auto constant = [&](int64_t v) { return llvm::ConstantInt::get(index_type, v); };
    const llvm::Align element_align(element->getScalarSizeInBits() / 8);
    const int64_t lanes = std::max<int64_t>(1, target_.vector_bits / element->getScalarSizeInBits());
    for (const TransposedNest::Segment& segment : nest.segments) {
      const int64_t block = segment.block, chunk = segment.chunk;
      const DataType row_type = nest.row_var->dtype;
      PrimExpr chunk_start = tir::IntImm(row_type, nest.row_min) + nest.chunk_var * chunk;
      Stmt fill_row = tir::Store(tile, {(nest.row_var - chunk_start) * block + nest.lane_var}, segment.value);
      auto* row_vector = llvm::FixedVectorType::get(element, block);
      EmitLoop(nest.block_var, constant(0), constant(segment.blocks), tir::ForKind::kSerial, [&] {
        EmitLoop(nest.chunk_var, constant(0), constant(nest.rows / chunk), tir::ForKind::kSerial, [&] {
          llvm::Value* first_row = EmitExpr(chunk_start);
          EmitLoop(nest.row_var, first_row, b_.CreateAdd(first_row, constant(chunk)), tir::ForKind::kSerial, [&] {
            EmitLoop(nest.lane_var, constant(0), constant(block), tir::ForKind::kVectorized, fill_row, block);
          });
          std::vector<llvm::Value*> row_vectors;
          for (int64_t r = 0; r < chunk; ++r) {
            llvm::Value* at = b_.CreateConstInBoundsGEP1_64(element, tile_storage, r * block);
            row_vectors.push_back(b_.CreateAlignedLoad(row_vector, at, element_align));
          }
          // The rows side by side in one vector, transposed with one shuffle (LLVM lowers that
          // better than a strided shuffle per column: 25 against 48 shuffle instructions for a
          // 4 x 16 tile on znver5), then stored column by column. A column longer than one
          // register is transposed in groups of a register's rows: on AVX2 one 16 x 4 shuffle
          // kept 31 values spilled, two 8 x 4 shuffles keep none.
          llvm::Value* chunk_offset = b_.CreateMul(vars_.at(nest.chunk_var.get()), constant(chunk));
          for (int64_t group_start = 0; group_start < chunk; group_start += lanes) {
            const int64_t group = std::min(lanes, chunk - group_start);
            std::vector<int> columns;
            for (int64_t c = 0; c < block; ++c) {
              for (int64_t r = 0; r < group; ++r) columns.push_back(static_cast<int>(r * block + c));
            }
            llvm::ArrayRef<llvm::Value*> group_rows(row_vectors.data() + group_start, group);
            llvm::Value* transposed = b_.CreateShuffleVector(llvm::concatenateVectors(b_, group_rows), columns);
            for (int64_t c = 0; c < block; ++c) {
              vars_[nest.column_var.get()] = constant(c);
              llvm::Value* column = b_.CreateShuffleVector(transposed, llvm::createSequentialMask(c * group, group, 0));
              llvm::Value* at = b_.CreateInBoundsGEP(element, Address(nest.out, segment.column_start),
                                                     b_.CreateAdd(chunk_offset, constant(group_start)));
              b_.CreateAlignedStore(column, at, element_align);
            }
          }
          vars_.erase(nest.column_var.get());
        });
      });
    }
    buffers_.erase(tile.get());
  }

  /*! \brief The lanes a vectorized loop becomes as one vector: its extent when that is a known
   *  power of two up to kMaxVectorLoopWidth, otherwise 0 (LLVM chooses). */
  static int64_t OneVectorWidth(const tir::ForNode* loop) {
    constexpr int64_t kMaxVectorLoopWidth = 64;
    const auto* extent = loop->extent.as<tir::IntImmNode>();
    if (loop->for_kind != tir::ForKind::kVectorized || extent == nullptr) return 0;
    int64_t n = extent->value;
    return n >= 2 && n <= kMaxVectorLoopWidth && (n & (n - 1)) == 0 ? n : 0;
  }

  /*! \brief Outlines the body into fn(closure, begin, end) and hands it to the thread pool. */
  void EmitParallelFor(const tir::ForNode* loop) {
    UseCollector uses;
    uses.VisitStmt(loop->body);
    uses.VisitExpr(loop->min);
    std::vector<const Object*> captured_vars, captured_buffers;
    for (const Object* v : uses.vars) {
      if (v != loop->loop_var.get() && !uses.defined.count(v) && vars_.count(v)) captured_vars.push_back(v);
    }
    for (const Object* buf : uses.buffers) {
      if (!uses.defined.count(buf) && buffers_.count(buf)) captured_buffers.push_back(buf);
    }
    // Closure: captured scalars widened to i64, then buffer pointers.
    std::vector<llvm::Type*> fields(captured_vars.size(), i64_);
    fields.insert(fields.end(), captured_buffers.size(), ptr_);
    llvm::StructType* closure_type = llvm::StructType::get(ctx_, fields);
    llvm::IRBuilderBase::InsertPoint saved_ip = b_.saveIP();
    llvm::Function* outer = func_;
    llvm::BasicBlock* outer_entry = entry_;
    // Allocate the closure in the entry block.
    llvm::IRBuilder<> entry_builder(outer_entry, outer_entry->begin());
    llvm::Value* closure = entry_builder.CreateAlloca(closure_type);
    std::vector<llvm::Value*> field_values;
    for (const Object* v : captured_vars) field_values.push_back(b_.CreateSExtOrTrunc(vars_[v], i64_));
    for (const Object* buf : captured_buffers) field_values.push_back(buffers_[buf]);
    for (size_t i = 0; i < field_values.size(); ++i) {
      b_.CreateStore(field_values[i], b_.CreateStructGEP(closure_type, closure, i));
    }
    llvm::Value* extent = b_.CreateSExtOrTrunc(EmitExpr(loop->extent), i64_);
    // The outlined body, in two functions: `impl(begin, end, scalars..., buffers...)` with
    // noalias buffer pointers, as the kernel itself has (without them a copy loop between two
    // captured buffers does not vectorize), and the launcher's `body(closure, begin, end)`,
    // which unpacks the closure and calls it.
    std::string base = absl::StrCat(outer->getName().str(), "_par", parallel_counter_++);
    std::vector<llvm::Type*> impl_params = {i64_, i64_};
    impl_params.insert(impl_params.end(), captured_vars.size(), i64_);
    impl_params.insert(impl_params.end(), captured_buffers.size(), ptr_);
    auto* impl_type = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx_), impl_params, false);
    llvm::Function* impl = llvm::Function::Create(impl_type, llvm::Function::InternalLinkage, base + "_impl", &mod_);
    for (size_t i = 0; i < captured_buffers.size(); ++i)
      impl->addParamAttr(2 + captured_vars.size() + i, llvm::Attribute::NoAlias);
    auto saved_vars = vars_;
    auto saved_buffers = buffers_;
    std::vector<OpenLoop> saved_loops = std::move(open_loops_);
    open_loops_.clear();
    BeginFunction(impl);
    for (size_t i = 0; i < captured_vars.size(); ++i) {
      const auto* var = static_cast<const tir::TirVarNode*>(captured_vars[i]);
      vars_[captured_vars[i]] = b_.CreateSExtOrTrunc(impl->getArg(2 + i), ScalarType(var->dtype));
    }
    for (size_t i = 0; i < captured_buffers.size(); ++i)
      BindBuffer(captured_buffers[i], impl->getArg(2 + captured_vars.size() + i));
    llvm::Value* loop_min = b_.CreateSExtOrTrunc(EmitExpr(loop->min), i64_);
    EmitLoop(loop->loop_var, b_.CreateAdd(loop_min, impl->getArg(0)), b_.CreateAdd(loop_min, impl->getArg(1)),
             tir::ForKind::kSerial, loop->body);
    b_.CreateRetVoid();
    auto* body_type = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx_), {ptr_, i64_, i64_}, false);
    llvm::Function* body_fn = llvm::Function::Create(body_type, llvm::Function::InternalLinkage, base, &mod_);
    BeginFunction(body_fn);
    std::vector<llvm::Value*> impl_args = {body_fn->getArg(1), body_fn->getArg(2)};
    for (size_t i = 0; i < field_values.size(); ++i) {
      impl_args.push_back(b_.CreateLoad(i < captured_vars.size() ? i64_ : ptr_,
                                        b_.CreateStructGEP(closure_type, body_fn->getArg(0), i)));
    }
    b_.CreateCall(impl, impl_args);
    b_.CreateRetVoid();
    vars_ = std::move(saved_vars);
    buffers_ = std::move(saved_buffers);
    open_loops_ = std::move(saved_loops);
    func_ = outer;
    entry_ = outer_entry;
    b_.restoreIP(saved_ip);
    llvm::Value* launch = b_.CreateLoad(ptr_, launch_global_);
    auto* launch_type = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx_), {ptr_, ptr_, i64_}, false);
    // A loop whose iterations add up to less than kMinParallelIterations innermost steps runs
    // on the calling thread: handing chunks to the pool and waiting for them costs microseconds,
    // which such a loop (an elementwise kernel of a decode step) would not win back.
    std::optional<tir::PrimExpr> per_iteration = InnerIterations(loop->body);
    if (!per_iteration) {
      b_.CreateCall(launch_type, launch, {body_fn, closure, extent});
      return;
    }
    llvm::Value* work = b_.CreateMul(extent, b_.CreateSExtOrTrunc(EmitExpr(*per_iteration), i64_));
    llvm::Value* small = b_.CreateICmpSLT(work, llvm::ConstantInt::get(i64_, kMinParallelIterations));
    auto* serial_bb = llvm::BasicBlock::Create(ctx_, "par.serial", func_);
    auto* launch_bb = llvm::BasicBlock::Create(ctx_, "par.launch", func_);
    auto* done_bb = llvm::BasicBlock::Create(ctx_, "par.done", func_);
    b_.CreateCondBr(small, serial_bb, launch_bb);
    b_.SetInsertPoint(serial_bb);
    b_.CreateCall(body_type, body_fn, {closure, llvm::ConstantInt::get(i64_, 0), extent});
    b_.CreateBr(done_bb);
    b_.SetInsertPoint(launch_bb);
    b_.CreateCall(launch_type, launch, {body_fn, closure, extent});
    b_.CreateBr(done_bb);
    b_.SetInsertPoint(done_bb);
  }

  /*! \brief How many stores one iteration of a loop with body `s` runs (loop extents
   *  multiplied, sequences and both branches added), as an expression of variables defined
   *  outside the loop; nullopt when an extent depends on a variable of the loop nest or the body
   *  calls something (a GEMM micro-kernel: work of unknown size). */
  std::optional<tir::PrimExpr> InnerIterations(const tir::Stmt& s) const {
    switch (s->kind()) {
      case NodeKind::kFor: {
        const auto* loop = s.as<tir::ForNode>();
        std::vector<tir::Var> used;
        tir::CollectVars(loop->extent, &used);
        for (const tir::Var& v : used) {
          if (!vars_.count(v.get())) return std::nullopt;
        }
        std::optional<tir::PrimExpr> inner = InnerIterations(loop->body);
        if (!inner) return std::nullopt;
        return tir::operator*(tir::Cast(DataType::Int64(), loop->extent), *inner);
      }
      case NodeKind::kSeqStmt: {
        tir::PrimExpr total = tir::I64(0);
        for (const tir::Stmt& inner : s.as<tir::SeqStmtNode>()->seq) {
          std::optional<tir::PrimExpr> n = InnerIterations(inner);
          if (!n) return std::nullopt;
          total = tir::operator+(total, *n);
        }
        return total;
      }
      case NodeKind::kIfThenElse: {
        const auto* branch = s.as<tir::IfThenElseNode>();
        std::optional<tir::PrimExpr> then_n = InnerIterations(branch->then_case);
        if (!then_n) return std::nullopt;
        if (!branch->else_case.defined()) return then_n;
        std::optional<tir::PrimExpr> else_n = InnerIterations(branch->else_case);
        if (!else_n) return std::nullopt;
        return tir::operator+(*then_n, *else_n);
      }
      case NodeKind::kAllocate: return InnerIterations(s.as<tir::AllocateNode>()->body);
      case NodeKind::kBufferStore: return tir::I64(1);
      default:  // a call (a GEMM micro-kernel) is work of unknown size
        return std::nullopt;
    }
  }

  void EmitAllocate(const tir::AllocateNode* op) {
    const int64_t* size = tir::AsConstInt(op->buffer->shape[0]);
    // A symbolic size (a buffer of (n, 128)) is computed at run time and always on the heap.
    int64_t bytes = size != nullptr ? *size * op->buffer->dtype.bytes() : -1;
    llvm::Value* storage;
    bool heap = size == nullptr || bytes > kernel_abi::kMaxStackBytes;
    if (!heap) {
      llvm::IRBuilder<> entry_builder(entry_, entry_->begin());
      llvm::AllocaInst* a =
          entry_builder.CreateAlloca(MemoryType(op->buffer->dtype), entry_builder.getInt64(*size), op->buffer->name);
      a->setAlignment(llvm::Align(64));
      storage = a;
    } else {
      auto* alloc_type = llvm::FunctionType::get(ptr_, {i64_}, false);
      llvm::Value* num_bytes = size != nullptr
                                   ? b_.getInt64(bytes)
                                   : b_.CreateMul(b_.CreateSExtOrTrunc(EmitExpr(op->buffer->shape[0]), i64_),
                                                  b_.getInt64(op->buffer->dtype.bytes()), "", true, true);
      llvm::CallInst* call =
          b_.CreateCall(alloc_type, b_.CreateLoad(ptr_, workspace_alloc_global_), {num_bytes}, op->buffer->name);
      // A fresh block, as malloc's: no other pointer of the kernel reaches it, so loops over it
      // and the parameters need no run-time overlap checks.
      call->addRetAttr(llvm::Attribute::NoAlias);
      storage = call;
    }
    // A refused workspace request (out of memory, over the runtime's size limit) skips the
    // work that needed it; the runtime recorded the failure and reports it after the kernel.
    llvm::BasicBlock* done = nullptr;
    if (heap) {
      auto* body = llvm::BasicBlock::Create(ctx_, absl::StrCat(op->buffer->name, ".allocated"), func_);
      done = llvm::BasicBlock::Create(ctx_, absl::StrCat(op->buffer->name, ".done"), func_);
      b_.CreateCondBr(b_.CreateIsNull(storage), done, body);
      b_.SetInsertPoint(body);
    }
    BindBuffer(op->buffer.get(), storage);
    EmitStmt(op->body);
    buffers_.erase(op->buffer.get());
    if (heap) {
      auto* free_type = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx_), {ptr_}, false);
      b_.CreateCall(free_type, b_.CreateLoad(ptr_, workspace_free_global_), {storage});
      b_.CreateBr(done);
      b_.SetInsertPoint(done);
    }
  }

  llvm::LLVMContext& ctx_;
  llvm::Module& mod_;
  const Target& target_;
  llvm::IRBuilder<> b_;
  llvm::FastMathFlags fast_math_;
  llvm::Type* ptr_;
  llvm::Type* i64_;
  llvm::GlobalVariable* launch_global_;
  llvm::GlobalVariable* workspace_alloc_global_;
  llvm::GlobalVariable* workspace_free_global_;
  llvm::Function* func_ = nullptr;
  llvm::BasicBlock* entry_ = nullptr;
  int parallel_counter_ = 0;
  std::optional<BufferAliasScopes> scopes_;        // of the kernel being emitted
  std::vector<llvm::Function*> kernel_functions_;  // its functions, tagged once it is complete
  std::unordered_map<const Object*, llvm::Value*> vars_;
  /*! \brief A loop being emitted: its variable, bounds and value in this iteration. */
  struct OpenLoop {
    const Object* var;
    llvm::Value *begin, *end, *value;
  };
  std::vector<OpenLoop> open_loops_;  // around the statement being emitted, outermost first (this function's)
  int64_t nested_bodies_ = 0;         // see EmitLoop
  static constexpr int64_t kMaxUnrolledNestBodies = 64;
  std::unordered_map<const Object*, llvm::Value*> buffers_;
  absl::Status error_;
};

/*! \brief Runs a program with arguments, capturing its standard error. */
absl::Status RunTool(const std::vector<std::string>& argv, const std::string& stderr_path) {
  std::vector<char*> cargv;
  for (const std::string& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 2, stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid;
  int rc = posix_spawnp(&pid, cargv[0], &actions, nullptr, cargv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return absl::FailedPreconditionError(absl::StrCat("cannot run ", argv[0], ": ", std::strerror(rc)));
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    absl::StatusOr<std::string> err = ReadFile(stderr_path);
    return absl::InternalError(absl::StrCat(absl::StrJoin(argv, " "), " failed: ", err.ok() ? *err : ""));
  }
  return absl::OkStatus();
}

void InitializeLLVM() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    // LLVM's own options for investigating code generation, as clang's -mllvm takes them:
    // MLC_LLVM_ARGS="-time-passes" or "-debug-pass-manager".
    if (const char* args = std::getenv("MLC_LLVM_ARGS"); args != nullptr && *args != '\0') {
      std::vector<std::string> words = absl::StrSplit(args, ' ', absl::SkipEmpty());
      std::vector<const char*> argv = {"mlc"};
      for (const std::string& w : words) argv.push_back(w.c_str());
      llvm::cl::ParseCommandLineOptions(static_cast<int>(argv.size()), argv.data(), "", &llvm::errs(), "MLC_LLVM_ARGS");
    }
  });
}

}  // namespace

namespace {

// LLVM's objects for one thread: a context is not thread-safe, so every compiling thread owns
// one, with its own target machine.
struct CompilerThread {
  llvm::LLVMContext ctx;
  std::unique_ptr<llvm::TargetMachine> tm;
  std::string triple;
};

absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> MakeTargetMachine(const Target& mlc_target,
                                                                       const std::string& triple, int opt_level) {
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (target == nullptr) return absl::InternalError(absl::StrCat("LLVM has no target for ", triple, ": ", error));
  // Every feature the target names is on and every other one we can detect is off, so the
  // code runs wherever the executable's feature check passes.
  std::vector<std::string> features;
  for (const std::string& f : DetectableCpuFeatures())
    features.push_back(absl::StrCat(mlc_target.has(f) ? "+" : "-", f));
  llvm::TargetOptions target_options;
  return std::unique_ptr<llvm::TargetMachine>(target->createTargetMachine(
      triple, mlc_target.mcpu, absl::StrJoin(features, ","), target_options, llvm::Reloc::PIC_, std::nullopt,
      opt_level >= 2 ? llvm::CodeGenOptLevel::Aggressive : llvm::CodeGenOptLevel::Default));
}

// LLVM's default pipeline at `opt_level`, with libmvec for vectorized math calls.
void Optimize(llvm::Module& mod, llvm::TargetMachine& tm, const std::string& triple, int opt_level) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = true;
  tuning.SLPVectorization = true;
  llvm::PassBuilder pb(&tm, tuning);
  llvm::TargetLibraryInfoImpl tlii{llvm::Triple(triple)};
  tlii.addVectorizableFunctionsFromVecLib(llvm::TargetLibraryInfoImpl::LIBMVEC_X86, llvm::Triple(triple));
  fam.registerPass([&] { return llvm::TargetLibraryAnalysis(tlii); });
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::OptimizationLevel level = opt_level >= 3   ? llvm::OptimizationLevel::O3
                                  : opt_level == 2 ? llvm::OptimizationLevel::O2
                                  : opt_level == 1 ? llvm::OptimizationLevel::O1
                                                   : llvm::OptimizationLevel::O0;
  // After the vectorizer and the late unrolling: an accumulator a schedule keeps in a buffer
  // (a pool's window maximum: init, then one read-modify-write per tap) becomes straight-line
  // code only then, too late for the pipeline's own load forwarding. GVN forwards each
  // stored value to the next load and DSE drops the stores but the last, so the accumulator
  // lives in a register.
  pb.registerOptimizerLastEPCallback([](llvm::ModulePassManager& mpm, llvm::OptimizationLevel) {
    llvm::FunctionPassManager fpm;
    fpm.addPass(llvm::GVNPass());
    fpm.addPass(llvm::DSEPass());
    fpm.addPass(llvm::InstCombinePass());
    mpm.addPass(llvm::createModuleToFunctionPassAdaptor(std::move(fpm)));
  });
  llvm::ModulePassManager mpm =
      level == llvm::OptimizationLevel::O0 ? pb.buildO0DefaultPipeline(level) : pb.buildPerModuleDefaultPipeline(level);
  mpm.run(mod, mam);
}

// One kernel: its own LLVM module, verified, optimized and emitted as an object file.
absl::Status CompileKernel(CompilerThread& thread, const std::string& name, const tir::PrimFunc& func,
                           const Target& target, const CodegenOptions& options, CompiledKernels::Kernel* out) {
  const absl::Time start = absl::Now();
  llvm::Module mod(name, thread.ctx);
  mod.setTargetTriple(thread.triple);
  mod.setDataLayout(thread.tm->createDataLayout());
  KernelEmitter emitter(thread.ctx, mod, target);
  if (absl::Status s = emitter.EmitKernel(name, func.get()); !s.ok()) {
    return absl::Status(s.code(), absl::StrCat("codegen of PrimFunc @", name, ": ", s.message()));
  }
  std::string verify_errors;
  llvm::raw_string_ostream verify_os(verify_errors);
  if (llvm::verifyModule(mod, &verify_os)) {
    return absl::InternalError(absl::StrCat("generated LLVM IR of @", name, " is invalid: ", verify_os.str()));
  }
  Optimize(mod, *thread.tm, thread.triple, options.opt_level);
  if (options.keep_llvm_ir) {
    llvm::raw_string_ostream os(out->llvm_ir);
    mod.print(os, nullptr);
  }
  llvm::SmallVector<char, 0> object;
  {
    llvm::raw_svector_ostream os(object);
    llvm::legacy::PassManager pm;
    if (thread.tm->addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::ObjectFile)) {
      return absl::InternalError("LLVM cannot emit an object file for this target");
    }
    pm.run(mod);
  }
  out->object.assign(object.data(), object.size());
  out->compile_seconds = absl::ToDoubleSeconds(absl::Now() - start);
  return absl::OkStatus();
}

// Links object files into one shared object with the system linker.
absl::StatusOr<std::string> LinkSharedObject(const std::vector<const std::string*>& objects) {
  const char* tmpdir = std::getenv("TMPDIR");
  std::string dir_pattern = absl::StrCat(tmpdir != nullptr ? tmpdir : "/tmp", "/mlc_codegen_XXXXXX");
  std::vector<char> dir_buf(dir_pattern.begin(), dir_pattern.end());
  dir_buf.push_back('\0');
  char* dir = mkdtemp(dir_buf.data());
  char dir_template[] = "/tmp/mlc_codegen_XXXXXX";
  if (dir == nullptr) dir = mkdtemp(dir_template);
  if (dir == nullptr) return absl::InternalError("cannot create a temporary directory for linking");
  const std::string so_path = absl::StrCat(dir, "/kernels.so"), log_path = absl::StrCat(dir, "/link.log");
  // The linker driver needs PATH to find ld; Bazel actions may run with an empty environment.
  setenv("PATH", "/usr/local/bin:/usr/bin:/bin", /*overwrite=*/0);
  // An absolute path: through /bin/cc (merged /usr) gcc looks for its plug-ins under /libexec.
  std::vector<std::string> argv = {access("/usr/bin/cc", X_OK) == 0 ? "/usr/bin/cc" : "cc", "-shared",
                                   "-fno-use-linker-plugin", "-o", so_path};
  absl::Status status = absl::OkStatus();
  for (size_t i = 0; i < objects.size() && status.ok(); ++i) {
    argv.push_back(absl::StrCat(dir, "/k", i, ".o"));
    status = WriteFileAtomically(argv.back(), *objects[i]);
  }
  argv.insert(argv.end(), {"-lmvec", "-lm"});
  if (status.ok()) status = RunTool(argv, log_path);
  absl::StatusOr<std::string> so = status.ok() ? ReadFile(so_path) : absl::StatusOr<std::string>(status);
  for (size_t i = 0; i < objects.size(); ++i) std::remove(absl::StrCat(dir, "/k", i, ".o").c_str());
  std::remove(so_path.c_str());
  std::remove(log_path.c_str());
  rmdir(dir);
  return so;
}

// What a kernel object depends on besides the kernel: the LLVM version and the code generator
// itself, by the digest of the binary or shared library this function is in.
const std::string& CodegenIdentity() {
  static const std::string identity = [] {
    std::string id = absl::StrCat("mlc-kernel-object-1 llvm-", LLVM_VERSION_STRING);
    Dl_info info;
    if (dladdr(reinterpret_cast<void*>(&CodegenIdentity), &info) != 0 && info.dli_fname != nullptr) {
      if (absl::StatusOr<std::string> self = ReadFile(info.dli_fname); self.ok())
        absl::StrAppend(&id, " ", Sha256(*self));
    }
    return id;
  }();
  return identity;
}

std::string KernelCacheKey(const std::string& name, const tir::PrimFunc& func, const Target& target,
                           const CodegenOptions& options) {
  const std::string material =
      absl::StrCat(CodegenIdentity(), "\n", target.str(), "\n", absl::StrJoin(target.features, ","), "\nO",
                   options.opt_level, "\n", PrintPrimFunc(func, name));
  return absl::BytesToHexString(Sha256(material));
}

}  // namespace

int CodegenThreads(const CodegenOptions& options, size_t kernels) {
  int n = options.num_threads > 0 ? options.num_threads : static_cast<int>(std::thread::hardware_concurrency());
  return std::max(1, std::min(n, static_cast<int>(kernels)));
}

absl::StatusOr<CompiledKernels> CompileKernels(const std::vector<std::pair<std::string, tir::PrimFunc>>& funcs,
                                               const Target& mlc_target, const CodegenOptions& options) {
  InitializeLLVM();
  if (!options.kernel_cache_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(options.kernel_cache_dir, ec);
  }
  if (mlc_target.kind != "llvm") {
    return absl::InvalidArgumentError(
        absl::StrCat("the LLVM backend cannot compile for target '", mlc_target.str(), "'"));
  }
  CompiledKernels out;
  out.kernels.resize(funcs.size());
  for (size_t i = 0; i < funcs.size(); ++i) out.kernels[i].symbol = KernelSymbol(funcs[i].first);
  // Kernels are independent modules: thread t compiles kernel t, then each thread takes the next
  // one not yet taken. The objects are linked in the kernels' order, so the result does not
  // depend on which thread ran what.
  const int num_threads = CodegenThreads(options, funcs.size());
  std::atomic<size_t> next{static_cast<size_t>(num_threads)};
  std::vector<absl::Status> errors(funcs.size(), absl::OkStatus());
  std::vector<absl::Status> thread_errors(num_threads, absl::OkStatus());
  Progress progress("build: compiling kernels", static_cast<int64_t>(funcs.size()));
  auto work = [&](int t) {
    CompilerThread thread;
    thread.triple = llvm::sys::getDefaultTargetTriple();
    absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> tm =
        MakeTargetMachine(mlc_target, thread.triple, options.opt_level);
    if (!tm.ok()) {
      thread_errors[t] = tm.status();
      return;
    }
    thread.tm = *std::move(tm);
    // Loop metadata (vectorize, unroll) are hints: LLVM declining one is no concern of the
    // user's, so its remarks and warnings about them are not printed. Errors still are.
    struct QuietHints : llvm::DiagnosticHandler {
      bool handleDiagnostics(const llvm::DiagnosticInfo& info) override { return info.getSeverity() != llvm::DS_Error; }
    };
    thread.ctx.setDiagnosticHandler(std::make_unique<QuietHints>());
    const bool use_cache = !options.kernel_cache_dir.empty() && !options.keep_llvm_ir;
    for (size_t i = static_cast<size_t>(t); i < funcs.size(); i = next++) {
      CompiledKernels::Kernel& k = out.kernels[i];
      k.thread = t;
      std::string cached_path;
      if (use_cache) {
        cached_path = absl::StrCat(options.kernel_cache_dir, "/",
                                   KernelCacheKey(funcs[i].first, funcs[i].second, mlc_target, options), ".o");
        if (absl::StatusOr<std::string> object = ReadFile(cached_path); object.ok() && !object->empty()) {
          k.object = *std::move(object);
          k.cached = true;
          progress.Advance();
          continue;
        }
      }
      errors[i] = CompileKernel(thread, funcs[i].first, funcs[i].second, mlc_target, options, &k);
      progress.Advance();
      // A cache that cannot be written costs speed, not correctness: the kernel is compiled.
      if (use_cache && errors[i].ok()) (void)WriteFileAtomically(cached_path, k.object);
    }
  };
  std::vector<std::thread> threads;
  for (int t = 1; t < num_threads; ++t) threads.emplace_back(work, t);
  work(0);
  for (std::thread& t : threads) t.join();
  for (const absl::Status& s : thread_errors) {
    if (!s.ok()) return s;
  }
  for (const absl::Status& s : errors) {
    if (!s.ok()) return s;
  }
  out.threads = num_threads;
  const absl::Time link_start = absl::Now();
  std::vector<const std::string*> objects;
  for (const CompiledKernels::Kernel& k : out.kernels) objects.push_back(&k.object);
  absl::StatusOr<std::string> so = LinkSharedObject(objects);
  if (!so.ok()) return so.status();
  out.link_seconds = absl::ToDoubleSeconds(absl::Now() - link_start);
  out.shared_object = std::move(*so);
  return out;
}

}  // namespace codegen
}  // namespace mlc
