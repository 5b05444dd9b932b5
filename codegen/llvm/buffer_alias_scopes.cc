#include "codegen/llvm/buffer_alias_scopes.h"

#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Metadata.h"

namespace mlc {
namespace codegen {

BufferAliasScopes::BufferAliasScopes(llvm::LLVMContext& ctx, const std::string& kernel)
    : ctx_(ctx), md_(ctx), domain_(md_.createAnonymousAliasScopeDomain(kernel)) {}

void BufferAliasScopes::Bind(llvm::Value* base, const void* buffer) {
  buffer_of_[base] = buffer;
  if (scope_of_.count(buffer)) return;
  scope_of_[buffer] = md_.createAnonymousAliasScope(domain_, base->getName());
  order_.push_back(buffer);
}

void BufferAliasScopes::Annotate(const std::vector<llvm::Function*>& functions) const {
  if (order_.size() < 2) return;  // one buffer: nothing to tell apart
  std::unordered_map<const void*, std::pair<llvm::MDNode*, llvm::MDNode*>> tags;
  for (const void* buffer : order_) {
    std::vector<llvm::Metadata*> others;
    for (const void* other : order_) {
      if (other != buffer) others.push_back(scope_of_.at(other));
    }
    tags[buffer] = {llvm::MDNode::get(ctx_, {scope_of_.at(buffer)}), llvm::MDNode::get(ctx_, others)};
  }
  for (llvm::Function* f : functions) {
    for (llvm::BasicBlock& bb : *f) {
      for (llvm::Instruction& inst : bb) {
        llvm::Value* address = nullptr;
        if (auto* load = llvm::dyn_cast<llvm::LoadInst>(&inst)) address = load->getPointerOperand();
        if (auto* store = llvm::dyn_cast<llvm::StoreInst>(&inst)) address = store->getPointerOperand();
        if (address == nullptr) continue;
        auto it = buffer_of_.find(llvm::getUnderlyingObject(address, /*MaxLookup=*/0));
        if (it == buffer_of_.end()) continue;
        const auto& [scope, noalias] = tags.at(it->second);
        inst.setMetadata(llvm::LLVMContext::MD_alias_scope, scope);
        inst.setMetadata(llvm::LLVMContext::MD_noalias, noalias);
      }
    }
  }
}

}  // namespace codegen
}  // namespace mlc
