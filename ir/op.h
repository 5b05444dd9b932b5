/*! \file op.h
 *  \brief The operator registry: every graph-level operator's name, arity, attributes,
 *         struct-info inference, purity and fusion pattern kind, in one table.
 *
 *  Core operators are registered by RegisterCoreOps() (files under ir/ops/) the first time the
 *  registry is used. Other targets add operators with MLC_REGISTER_OP in a library built
 *  with `alwayslink = True`. Attributes owned by later stages (such as the legalization rule,
 *  "FLegalize") are attached by those stages with OpRegistry::SetAttr.
 */
#ifndef MLC_IR_OP_H_
#define MLC_IR_OP_H_

#include <any>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/expr.h"

namespace mlc {

class IRModule;

namespace relax {

/*! \brief How an operator may fuse with its neighbours (TVM's OpPatternKind, same order). */
enum class OpPattern : int {
  kElemWise = 0,         // out[i] = f(in[i])
  kBroadcast = 1,        // elementwise with broadcasting of inputs
  kInjective = 2,        // each output element depends on one input element (reshape, transpose)
  kCommReduce = 3,       // reductions
  kOutEWiseFusable = 4,  // dense, matmul, conv: elementwise consumers may fuse into the output
  kTuple = 7,
  kOpaque = 8,  // never fused
};
const char* OpPatternName(OpPattern pattern);

/*! \brief Infers the struct info of a call of the operator, or says what is wrong with it. */
using FInferStructInfo = std::function<absl::StatusOr<StructInfo>(const CallNode& call)>;

struct OpAttrSpec {
  std::string name;
  std::string type;  // "int", "int[]", "float", "str", "dtype", "bool"; for docs and checks
  std::string doc;
  AttrValue default_value;  // printed when the call does not set the attribute (None if unset)
};

struct OpInfo {
  std::string name;            // "add", "nn.relu", "call_tir"
  int num_inputs = -1;         // -1: variadic
  std::vector<std::string> arg_names;
  std::vector<OpAttrSpec> attrs;
  std::string description;
  FInferStructInfo infer;
  bool pure = true;            // may appear in a dataflow block
  OpPattern pattern = OpPattern::kOpaque;
  /*! \brief Stage-owned attributes (e.g. "FLegalize"), keyed by name. */
  std::map<std::string, std::any> extra;
  Ref<OpNode> node;            // the unique Op expression for this operator
};

class OpRegistry {
 public:
  static OpRegistry& Global();

  /*! \brief Registers a new operator; the returned builder fills in its fields. */
  OpInfo& Register(const std::string& name);
  /*! \brief The operator, or nullptr. */
  const OpInfo* Find(const std::string& name) const;
  /*! \brief Every registered name, sorted. */
  std::vector<std::string> ListNames() const;

  /*! \brief Attaches a stage-owned attribute to an operator (fails if it is unknown). */
  absl::Status SetAttr(const std::string& op_name, const std::string& key, std::any value);

 private:
  OpRegistry() = default;
  std::map<std::string, std::unique_ptr<OpInfo>> ops_;
};

/*! \brief The Op expression for a registered name, or an error naming the known operators. */
absl::StatusOr<Op> GetOp(const std::string& name);
/*! \brief For core operators known to exist (crashes on a typo: a programming error). */
Op GetOpOrDie(const std::string& name);

/*! \brief A stage-owned attribute of `op`, or nullptr if absent or of another type. */
template <typename T>
const T* GetOpAttr(const OpInfo& op, const std::string& key) {
  auto it = op.extra.find(key);
  if (it == op.extra.end()) return nullptr;
  return std::any_cast<T>(&it->second);
}

/*! \brief Infers the struct info of any call: of an Op by its rule, of a graph function by its
 *         signature in `mod` (may be null), of call_tir/extern calls by their sinfo_args. */
absl::StatusOr<StructInfo> InferCallStructInfo(const CallNode& call, const IRModule* mod);

/*! \brief Whether the callee of `call` is pure (allowed inside a dataflow block). */
bool IsPureCall(const CallNode& call);

/*! \brief Registers the core operators; called once by OpRegistry::Global(). */
void RegisterCoreOps(OpRegistry& registry);

namespace detail {
struct OpRegistrar {
  explicit OpRegistrar(const std::function<void(OpInfo&)>& init, const std::string& name) {
    init(OpRegistry::Global().Register(name));
  }
};
}  // namespace detail

#define MLC_OP_CONCAT_INNER(a, b) a##b
#define MLC_OP_CONCAT(a, b) MLC_OP_CONCAT_INNER(a, b)
/*! \brief MLC_REGISTER_OP("my.op", [](OpInfo& op) { op.num_inputs = 1; ... }); */
#define MLC_REGISTER_OP(name, init) \
  static ::mlc::relax::detail::OpRegistrar MLC_OP_CONCAT(mlc_op_registrar_, __COUNTER__)(init, name)

}  // namespace relax
}  // namespace mlc

#endif  // MLC_IR_OP_H_
