/*! \file symbolic_shape.h
 *  \brief Symbolic shapes at run time: declared dimensions (constants, shape variables and
 *         expressions of them, proto::DimExpr) decoded once at load, bound from the tensors a
 *         function or kernel is called with, and evaluated to allocate results.
 */
#ifndef MLC_VM_SYMBOLIC_SHAPE_H_
#define MLC_VM_SYMBOLIC_SHAPE_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "vm/executable.pb.h"

namespace mlc {
namespace vm {

/*! \brief One dimension as a postfix program over the shape variables' values. */
class DimProgram {
 public:
  /*! \brief Checks variable indices against `num_vars` and the nesting depth. */
  static absl::StatusOr<DimProgram> Decode(const proto::DimExpr& e, int num_vars);
  static DimProgram Constant(int64_t value);

  /*! \brief The value for `vars`; an error on division by zero or overflow. */
  absl::StatusOr<int64_t> Evaluate(const std::vector<int64_t>& vars) const;
  /*! \brief The variable index when the dimension is a variable by itself, else -1. */
  int AsVar() const {
    return steps_.size() == 1 && steps_[0].op == Step::kVar ? static_cast<int>(steps_[0].value) : -1;
  }
  /*! \brief A dimension that binds a variable: `v * scale + offset` (v, v * c, c * v, v + c,
   *         v - c, as the compiler's tir::BindingVarOf accepts), with the variable's index. */
  struct Linear {
    int var = -1;
    int64_t scale = 1, offset = 0;
  };
  Linear AsLinear() const;
  /*! \brief The variables it reads. */
  std::vector<int> VarsUsed() const;
  /*! \brief "n * 2" with the variables' names. */
  std::string ToString(const std::vector<std::string>& names) const;

 private:
  struct Step {
    enum Op : uint8_t { kConst, kVar, kAdd, kSub, kMul, kFloorDiv, kFloorMod, kMin, kMax } op;
    int64_t value;  // kConst: the constant; kVar: the index
  };
  absl::Status Append(const proto::DimExpr& e, int num_vars, int depth);
  std::vector<Step> steps_;
};

/*! \brief A declared shape whose dimensions may be symbolic. */
using DeclaredShape = std::vector<DimProgram>;

absl::StatusOr<DeclaredShape> DecodeShape(const google::protobuf::RepeatedPtrField<proto::DimExpr>& dims, int num_vars);

/*! \brief Binds shape variables (values start at -1: unbound) from the tensors' shapes: each
 *         variable from the first dimension that is the variable itself, then every
 *         dimension is checked. A mismatch names the value (`describe(i)` for the i-th
 *         tensor), the dimension and both values. */
absl::Status BindShapes(const std::vector<const DeclaredShape*>& declared,
                        const std::vector<const std::vector<int64_t>*>& actual,
                        const std::vector<std::string>& var_names, const std::function<std::string(size_t)>& describe,
                        std::vector<int64_t>* vars);

/*! \brief Evaluates a declared shape; a negative dimension is an error. */
absl::StatusOr<std::vector<int64_t>> EvaluateShape(const DeclaredShape& shape, const std::vector<int64_t>& vars,
                                                   const std::vector<std::string>& var_names);

}  // namespace vm
}  // namespace mlc

#endif  // MLC_VM_SYMBOLIC_SHAPE_H_
