/*! \file buffer_alias_scopes.h
 *  \brief One LLVM alias scope per buffer of a kernel, so that every access says which buffer it
 *         touches and that it touches no other.
 *
 *  A kernel's parameters are `noalias`, and a workspace comes from a `noalias` allocation, but
 *  LLVM only turns those into facts about pairs of accesses where it can prove a pointer was not
 *  captured before the access. A heap workspace inside an outlined parallel body is passed to the
 *  runtime call that frees it, so once the body is inlined its loads lost the scope of the
 *  kernel's output: the vectorizer then versioned every loop over them on run-time overlap checks
 *  (3.3x slower, GoogLeNet's pools padded per plane). The compiler knows better: distinct TIR
 *  buffers of one kernel never overlap (the memory planner gives a call's inputs and outputs
 *  storage with overlapping lifetimes, never the same bytes), so it says so on every access.
 */
#ifndef MLC_CODEGEN_LLVM_BUFFER_ALIAS_SCOPES_H_
#define MLC_CODEGEN_LLVM_BUFFER_ALIAS_SCOPES_H_

#include <string>
#include <unordered_map>
#include <vector>

#include "llvm/IR/Function.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Value.h"

namespace mlc {
namespace codegen {

class BufferAliasScopes {
 public:
  /*! \brief Scopes in a domain of their own, named after the kernel. */
  BufferAliasScopes(llvm::LLVMContext& ctx, const std::string& kernel);

  /*! \brief Records that `base` (a parameter, an allocation, or a parallel body's copy of one)
   *  is the start of `buffer`, a key that stays the same for the buffer in every function. */
  void Bind(llvm::Value* base, const void* buffer);

  /*! \brief Tags every load and store of the kernel's functions whose address derives from a
   *  bound base: the buffer's scope, and `noalias` for the scopes of all other buffers. Accesses
   *  through other pointers (register tiles on the stack) keep no tag and so claim nothing. */
  void Annotate(const std::vector<llvm::Function*>& functions) const;

 private:
  llvm::LLVMContext& ctx_;
  llvm::MDBuilder md_;
  llvm::MDNode* domain_;
  std::unordered_map<const llvm::Value*, const void*> buffer_of_;
  std::unordered_map<const void*, llvm::MDNode*> scope_of_;
  std::vector<const void*> order_;  // buffers in binding order: deterministic metadata
};

}  // namespace codegen
}  // namespace mlc

#endif  // MLC_CODEGEN_LLVM_BUFFER_ALIAS_SCOPES_H_
