/*! \file op.h
 *  \brief The operator registry: every graph-level operator's name, arity, attributes,
 *         struct-info inference, purity and fusion pattern kind, in one table.
 *
 *  The operators the IR itself needs (call_tir, match_cast...) are registered when the registry is first
 *  used; the operator library (//ir/ops) and user libraries register theirs with
 *  MLC_REGISTER_OP in libraries built with `alwayslink = True`. One registration carries all
 *  of an operator's facts: arity and argument names, typed attributes, inference, purity,
 *  fusion pattern and the legalization rule.
 */
#ifndef MLC_IR_GRAPH_OP_H_
#define MLC_IR_GRAPH_OP_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/graph/attr_schema.h"
#include "ir/graph/expr.h"

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

class BlockBuilder;
/*! \brief Lowers a call of the operator to loop-level code (normally a call_tir of a PrimFunc
 *         built from tensor expressions), emitting through `bb`. */
using FLegalize = std::function<absl::StatusOr<Expr>(BlockBuilder* bb, const CallNode& call)>;

/*! \brief Everything known about one operator. Registration fills it through the chainable
 *         setters:
 *
 *    MLC_REGISTER_OP("nn.conv2d")
 *        .set_description("2-D convolution, NCHW data, OIHW weight")
 *        .set_inputs({"data", "weight"})
 *        .set_attrs_type<Conv2DAttrs>()
 *        .set_infer<Conv2DAttrs>(InferConv2d)
 *        .set_pattern(OpPattern::kOutEWiseFusable)
 *        .set_legalize(...);
 */
struct OpInfo {
  std::string name;     // "add", "nn.relu", "call_tir"
  int num_inputs = -1;  // -1: variadic
  std::vector<std::string> arg_names;
  std::vector<OpAttrSpec> attrs;
  std::string description;
  FInferStructInfo infer;
  /*! \brief Checks a call's attribute dictionary against the typed attributes (if declared). */
  std::function<absl::Status(const Attrs&)> check_attrs;
  bool pure = true;  // may appear in a dataflow block
  OpPattern pattern = OpPattern::kOpaque;
  FLegalize legalize;    // empty: the operator stays as it is through legalize
  bool builtin = false;  // the compiler and VM implement it themselves (no legalization)
  /*! \brief Evaluated on constants it gives a bigger constant that says less (dequantize: int8
   *  weights and their scale become float weights). Importers leave such calls for the passes:
   *  qdq-to-integer reads them; fold-constant folds what is left. */
  bool keep_on_import = false;
  Ref<OpNode> node;  // the unique Op expression for this operator

  OpInfo& set_description(std::string text) {
    description = std::move(text);
    return *this;
  }
  /*! \brief Fixed arity with argument names. */
  OpInfo& set_inputs(std::vector<std::string> names) {
    num_inputs = static_cast<int>(names.size());
    arg_names = std::move(names);
    return *this;
  }
  /*! \brief Any number of inputs, documented as `name`. */
  OpInfo& set_variadic(std::string name) {
    num_inputs = -1;
    arg_names = {std::move(name)};
    return *this;
  }
  /*! \brief The typed attributes (attr_schema.h); calls are checked against them. */
  template <typename A>
  OpInfo& set_attrs_type() {
    attrs = DescribeAttrs<A>();
    check_attrs = [](const Attrs& a) { return ParseAttrs<A>(a).status(); };
    return *this;
  }
  OpInfo& set_infer(FInferStructInfo f) {
    infer = std::move(f);
    return *this;
  }
  /*! \brief Inference that receives the parsed attributes. */
  template <typename A, typename F>
  OpInfo& set_infer(F f) {
    infer = [f](const CallNode& call) -> absl::StatusOr<StructInfo> {
      absl::StatusOr<A> attrs = ParseAttrs<A>(call.attrs);
      if (!attrs.ok()) return attrs.status();
      return f(call, *attrs);
    };
    return *this;
  }
  OpInfo& set_pattern(OpPattern p) {
    pattern = p;
    return *this;
  }
  OpInfo& set_builtin() {
    builtin = true;
    return *this;
  }
  OpInfo& set_keep_on_import() {
    keep_on_import = true;
    return *this;
  }
  OpInfo& set_impure() {
    pure = false;
    return *this;
  }
  OpInfo& set_legalize(FLegalize f) {
    legalize = std::move(f);
    return *this;
  }
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

  /*! \brief The operator for changing a rule after registration (a user's legalization of a
   *         core operator), or nullptr. */
  OpInfo* FindMutable(const std::string& name);

 private:
  OpRegistry() = default;
  std::map<std::string, std::unique_ptr<OpInfo>> ops_;
};

/*! \brief The Op expression for a registered name, or an error naming the known operators. */
absl::StatusOr<Op> GetOp(const std::string& name);
/*! \brief For core operators known to exist (crashes on a typo: a programming error). */
Op GetOpOrDie(const std::string& name);

/*! \brief Infers the struct info of any call: of an Op by its rule, of a graph function by its
 *         signature in `mod` (may be null), of call_tir/extern calls by their sinfo_args. */
absl::StatusOr<StructInfo> InferCallStructInfo(const CallNode& call, const IRModule* mod);

/*! \brief Whether the callee of `call` is pure (allowed inside a dataflow block). */
bool IsPureCall(const CallNode& call);

/*! \brief The target when `value` is R.match_cast(x, target), else nullptr. A match_cast
 *         defines the shape variables of its target that nothing before it defined. */
const TensorStructInfoNode* MatchCastTarget(const Expr& value);

/*! \brief Registers the operators the IR itself needs (call_tir, call_dps_packed,
 *         alloc_tensor); called once by OpRegistry::Global(). The operator library registers
 *         itself (//ir/ops, MLC_REGISTER_OP). */
void RegisterBuiltinOps(OpRegistry& registry);

#define MLC_OP_CONCAT_INNER(a, b) a##b
#define MLC_OP_CONCAT(a, b) MLC_OP_CONCAT_INNER(a, b)
/*! \brief MLC_REGISTER_OP("my.op").set_inputs({"x"}).set_infer(...)...; in a library built with
 *         `alwayslink = True`. */
#define MLC_REGISTER_OP(name)                                                         \
  [[maybe_unused]] static ::mlc::relax::OpInfo& MLC_OP_CONCAT(mlc_op_, __COUNTER__) = \
      ::mlc::relax::OpRegistry::Global().Register(name)

}  // namespace relax
}  // namespace mlc

#endif  // MLC_IR_GRAPH_OP_H_
