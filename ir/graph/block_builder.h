/*! \file block_builder.h
 *  \brief BlockBuilder: builds graph-level functions binding by binding, as the seeds'
 *         relax.BlockBuilder does, with struct info inferred for every emitted binding.
 *
 *    BlockBuilder bb;
 *    bb.BeginFunction("main");                         // or BeginFunction("main", params)
 *    bb.BeginDataflow();
 *    Var c = *te::EmitTE(&bb, "te_matmul", TeMatmul, {a, b});  // DataflowVar lv (ir/te/call_te.h)
 *    Var d = *te::EmitTE(&bb, "te_relu", TeRelu, {c});         // DataflowVar lv1
 *    Var r = *bb.EmitOutput(d);                           // Var gv = lv1
 *    bb.EndDataflow();
 *    bb.EmitFuncOutput(r, std::vector<Var>{a, b});
 *    IRModule mod = bb.Get();
 *
 *  Every method that can fail returns a Status naming what was wrong (a shape mismatch names
 *  the operator and both shapes; scope misuse names the call). Emitted names are unique per
 *  function (lv, lv1, ... and gv, gv1, ...); functions added to the module get unique global
 *  names (add, add1, ...), and a PrimFunc structurally equal to one already in the module is
 *  reused instead of added again.
 */
#ifndef MLC_IR_GRAPH_BLOCK_BUILDER_H_
#define MLC_IR_GRAPH_BLOCK_BUILDER_H_

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/graph/module.h"
#include "ir/graph/shape_util.h"

namespace mlc {
namespace relax {

class BlockBuilder {
 public:
  explicit BlockBuilder(IRModule mod = IRModule()) : mod_(std::move(mod)) {}

  // ---- Scopes.
  /*! \brief Starts a function; its parameters may be given here or to EmitFuncOutput. */
  absl::Status BeginFunction(const std::string& name, std::optional<std::vector<Var>> params = std::nullopt,
                             Attrs attrs = {});
  absl::Status BeginDataflow();
  absl::Status EndDataflow();
  bool InFunction() const { return func_.has_value(); }
  bool InDataflow() const { return func_.has_value() && func_->in_dataflow; }

  // ---- Bindings.
  /*! \brief Binds `value` (normalized) to a new variable: a DataflowVar inside a dataflow
   *         block, else a Var. Nested calls among the arguments are emitted first. */
  absl::StatusOr<Var> Emit(Expr value, const std::string& name_hint = "");
  /*! \brief Binds `value` to a Var that is visible after the dataflow block (R.output). */
  absl::StatusOr<Var> EmitOutput(Expr value, const std::string& name_hint = "");
  /*! \brief Ends the function with `result`; adds it to the module and returns its name. */
  absl::StatusOr<GlobalVar> EmitFuncOutput(Expr result, std::optional<std::vector<Var>> params = std::nullopt);

  // ---- Module.
  /*! \brief Adds `func` under a unique name derived from `name_hint` (or returns the name of
   *         an equal PrimFunc already present). */
  GlobalVar AddFunc(BaseFunc func, const std::string& name_hint);
  /*! \brief The names AddFunc added (not those it found an equal function for), in order: a
   *         pass marks the length before a step and reads what the step added. */
  const std::vector<std::string>& added_functions() const { return added_; }
  /*! \brief Replaces the function named `name`. */
  absl::Status UpdateFunc(const std::string& name, BaseFunc func);
  /*! \brief Infers struct info for an expression built by hand (calls, tuples...). */
  absl::StatusOr<Expr> Normalize(Expr expr);

  const IRModule& module() const { return mod_; }
  IRModule Get() const { return mod_; }

 private:
  struct FunctionFrame {
    std::string name;
    std::optional<std::vector<Var>> params;
    Attrs attrs;
    std::vector<BindingBlock> blocks;
    std::vector<VarBinding> current;
    bool in_dataflow = false;
    std::set<std::string> names;
    // Per hint, the suffix to try next: a thousand "lv"s cost a thousand lookups, not half a million.
    std::map<std::string, int> next_suffix;
  };

  absl::Status RequireFunction(const char* what) const;
  std::string FreshName(const std::string& hint);
  void FlushBlock();
  absl::StatusOr<Var> EmitBinding(Expr value, bool dataflow_var, const std::string& name);
  /*! \brief `call` with each argument whose shape inference assumed equal to another's (n to
   *         m, say) replaced by an R.match_cast of it to the assumed shape, emitted first. */
  absl::StatusOr<Call> CastToAssumedShapes(const Call& call, const std::vector<DimAssumptions::Equality>& assumed);

  /*! \brief A name for a new function from `hint`, probing from where the last one with this
   *         hint stopped (a linear probe from 1 each time is quadratic in the module's size). */
  std::string UniqueFunctionName(const std::string& hint);

  IRModule mod_;
  std::optional<FunctionFrame> func_;
  std::vector<std::string> added_;
  // AddFunc's index of the module's PrimFuncs by structural hash (built on first use), so that
  // finding an equal PrimFunc costs one hash, not one per function in the module.
  struct PrimIndex {
    std::unordered_multimap<size_t, std::string> by_hash;
    std::unordered_map<std::string, size_t> hash_of;
    void Insert(const std::string& name, const BaseFunc& f);
    void Erase(const std::string& name);
  };
  PrimIndex& Index();
  std::optional<PrimIndex> prim_index_;
  std::map<std::string, int> next_function_suffix_;
};

}  // namespace relax
}  // namespace mlc

#endif  // MLC_IR_GRAPH_BLOCK_BUILDER_H_
