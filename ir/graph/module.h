/*! \file module.h
 *  \brief IRModule: global name -> function (graph-level Function or loop-level PrimFunc).
 */
#ifndef MLC_IR_GRAPH_MODULE_H_
#define MLC_IR_GRAPH_MODULE_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ir/core/attrs.h"
#include "ir/graph/function.h"
#include "ir/tir/prim_func.h"

namespace mlc {

/*! \brief A value type: copying a module copies the name table, never the functions. */
class IRModule {
 public:
  IRModule() = default;

  /*! \brief Functions by name, sorted (the order the proto and the verifier use). */
  const std::map<std::string, BaseFunc>& functions() const { return functions_; }
  const Attrs& attrs() const { return attrs_; }
  Attrs& mutable_attrs() { return attrs_; }

  bool Contains(const std::string& name) const { return functions_.count(name) > 0; }
  /*! \brief The function named `name`, or null. */
  BaseFunc Lookup(const std::string& name) const;
  relax::Function LookupFunction(const std::string& name) const;
  tir::PrimFunc LookupPrimFunc(const std::string& name) const;

  /*! \brief Adds or replaces. */
  void Add(const std::string& name, BaseFunc func) { functions_[name] = std::move(func); }
  void Remove(const std::string& name) { functions_.erase(name); }

  /*! \brief Whether both hold the very same function objects under the same names and equal
   *         attributes: how a pass run tells that nothing changed (rewrites keep identity). */
  bool SameAs(const IRModule& other) const;

  /*! \brief `hint` if unused, else hint1, hint2, ... (the seeds' add, add1, dense1 naming). */
  std::string GetUniqueName(const std::string& hint) const;

 private:
  std::map<std::string, BaseFunc> functions_;
  Attrs attrs_;
};

}  // namespace mlc

#endif  // MLC_IR_GRAPH_MODULE_H_
