/*! \file attrs.h
 *  \brief Attribute dictionaries of calls, functions and blocks ("axes", "Primitive",
 *         "tir.noalias", "layout_free_buffers"...): small typed values keyed by name.
 */
#ifndef MLC_IR_CORE_ATTRS_H_
#define MLC_IR_CORE_ATTRS_H_

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "support/dtype.h"

namespace mlc {

class AttrValue {
 public:
  using Storage = std::variant<std::monostate, bool, int64_t, double, std::string, std::vector<int64_t>, DataType,
                               std::vector<double>>;

  AttrValue() = default;
  AttrValue(bool v) : value_(v) {}                             // NOLINT
  AttrValue(int v) : value_(int64_t{v}) {}                     // NOLINT
  AttrValue(int64_t v) : value_(v) {}                          // NOLINT
  AttrValue(double v) : value_(v) {}                           // NOLINT
  AttrValue(std::string v) : value_(std::move(v)) {}           // NOLINT
  AttrValue(const char* v) : value_(std::string(v)) {}         // NOLINT
  AttrValue(std::vector<int64_t> v) : value_(std::move(v)) {}  // NOLINT
  AttrValue(std::vector<double> v) : value_(std::move(v)) {}   // NOLINT
  AttrValue(DataType v) : value_(v) {}                         // NOLINT

  bool is_none() const { return std::holds_alternative<std::monostate>(value_); }
  template <typename T>
  bool is() const {
    return std::holds_alternative<T>(value_);
  }
  template <typename T>
  const T& get() const {
    return std::get<T>(value_);
  }
  const Storage& storage() const { return value_; }

  bool operator==(const AttrValue& o) const { return value_ == o.value_; }
  bool operator!=(const AttrValue& o) const { return !(value_ == o.value_); }

 private:
  Storage value_;
};

/*! \brief Sorted by key, so printing and hashing are deterministic. */
using Attrs = std::map<std::string, AttrValue>;

/*! \brief PrimFunc attribute naming the graph-level operators it was made from, in program
 *         order ("nn.conv2d_gemm, add, nn.relu"): set by legalize and fuse-tir, carried into
 *         the executable for profiles. Provenance, like a source location: structural equality
 *         and hashing ignore it, so equal kernels of different origin are still one. */
inline constexpr char kSourceOpsAttr[] = "source_ops";

/*! \brief The attributes that describe a function's structure (without provenance). */
Attrs StructuralAttrs(const Attrs& attrs);

/*! \brief The int attribute `key`, or `fallback` when absent or not an int. */
int64_t GetIntAttr(const Attrs& attrs, const std::string& key, int64_t fallback);

/*! \brief The string attribute `key`, or `fallback` when absent or of another type. */
std::string GetStringAttr(const Attrs& attrs, const std::string& key, const std::string& fallback = "");

/*! \brief The int-list attribute `key`, or `fallback` when absent or of another type. With
 *  `n` > 0 a single int (or one-element list) is repeated to `n` values ("strides=2"). */
std::vector<int64_t> GetIntsAttr(const Attrs& attrs, const std::string& key, std::vector<int64_t> fallback = {},
                                 size_t n = 0);

}  // namespace mlc

#endif  // MLC_IR_CORE_ATTRS_H_
