/*! \file attrs.cc
 *  \brief Attribute helpers.
 */
#include "ir/attrs.h"

namespace mlc {

int64_t GetIntAttr(const Attrs& attrs, const std::string& key, int64_t fallback) {
  auto it = attrs.find(key);
  if (it == attrs.end()) return fallback;
  if (it->second.is<int64_t>()) return it->second.get<int64_t>();
  if (it->second.is<bool>()) return it->second.get<bool>() ? 1 : 0;
  return fallback;
}

}  // namespace mlc
