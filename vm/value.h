/*! \file value.h
 *  \brief What a VM register holds: a tensor, a tuple of values, or nothing.
 */
#ifndef MLC_VM_VALUE_H_
#define MLC_VM_VALUE_H_

#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "vm/ndarray.h"

namespace mlc {
namespace vm {

class Value;
using Tuple = std::vector<Value>;

class Value {
 public:
  Value() = default;
  Value(NDArray tensor) : v_(std::move(tensor)) {}                       // NOLINT
  Value(Tuple tuple) : v_(std::make_shared<Tuple>(std::move(tuple))) {}  // NOLINT

  bool is_none() const { return std::holds_alternative<std::monostate>(v_); }
  bool is_tensor() const { return std::holds_alternative<NDArray>(v_); }
  bool is_tuple() const { return std::holds_alternative<std::shared_ptr<Tuple>>(v_); }
  const NDArray& tensor() const { return std::get<NDArray>(v_); }
  const Tuple& tuple() const { return *std::get<std::shared_ptr<Tuple>>(v_); }
  /*! \brief "float32 (1, 10)", "(float32 (1,), float32 (2,))" or "None". */
  std::string Describe() const;

 private:
  std::variant<std::monostate, NDArray, std::shared_ptr<Tuple>> v_;
};

}  // namespace vm
}  // namespace mlc

#endif  // MLC_VM_VALUE_H_
