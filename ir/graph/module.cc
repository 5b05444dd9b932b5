/*! \file module.cc
 *  \brief IRModule lookups and unique naming.
 */
#include "ir/graph/module.h"

#include "absl/strings/str_cat.h"

namespace mlc {

BaseFunc IRModule::Lookup(const std::string& name) const {
  auto it = functions_.find(name);
  return it == functions_.end() ? BaseFunc() : it->second;
}

relax::Function IRModule::LookupFunction(const std::string& name) const {
  return Lookup(name).as_ref<relax::Function>();
}

tir::PrimFunc IRModule::LookupPrimFunc(const std::string& name) const { return Lookup(name).as_ref<tir::PrimFunc>(); }

bool IRModule::SameAs(const IRModule& other) const {
  if (functions_.size() != other.functions_.size() || attrs_ != other.attrs_) return false;
  for (auto a = functions_.begin(), b = other.functions_.begin(); a != functions_.end(); ++a, ++b) {
    if (a->first != b->first || !a->second.same_as(b->second)) return false;
  }
  return true;
}

std::string IRModule::GetUniqueName(const std::string& hint) const {
  if (!Contains(hint)) return hint;
  for (int i = 1;; ++i) {
    std::string candidate = absl::StrCat(hint, i);
    if (!Contains(candidate)) return candidate;
  }
}

}  // namespace mlc
