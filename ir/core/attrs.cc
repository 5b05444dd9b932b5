/*! \file attrs.cc
 *  \brief Attribute helpers.
 */
#include "ir/core/attrs.h"

namespace mlc {

Attrs StructuralAttrs(const Attrs& attrs) {
  if (attrs.count(kSourceOpsAttr) == 0) return attrs;
  Attrs out = attrs;
  out.erase(kSourceOpsAttr);
  return out;
}

std::string GetStringAttr(const Attrs& attrs, const std::string& key, const std::string& fallback) {
  auto it = attrs.find(key);
  return it != attrs.end() && it->second.is<std::string>() ? it->second.get<std::string>() : fallback;
}

int64_t GetIntAttr(const Attrs& attrs, const std::string& key, int64_t fallback) {
  auto it = attrs.find(key);
  if (it == attrs.end()) return fallback;
  if (it->second.is<int64_t>()) return it->second.get<int64_t>();
  if (it->second.is<bool>()) return it->second.get<bool>() ? 1 : 0;
  return fallback;
}

std::vector<int64_t> GetIntsAttr(const Attrs& attrs, const std::string& key, std::vector<int64_t> fallback, size_t n) {
  auto it = attrs.find(key);
  if (it == attrs.end()) return fallback;
  std::vector<int64_t> v;
  if (it->second.is<std::vector<int64_t>>()) {
    v = it->second.get<std::vector<int64_t>>();
  } else if (it->second.is<int64_t>() && n > 0) {
    v = {it->second.get<int64_t>()};
  } else {
    return fallback;
  }
  if (n > 0 && v.size() == 1) v.assign(n, v[0]);
  return v;
}

}  // namespace mlc
