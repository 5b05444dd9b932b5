/*! \file pattern.h
 *  \brief A dataflow pattern language for graph-level rewrites.
 *
 *    Pattern fma = IsOp("add")({IsOp("multiply")({Wildcard(), Wildcard()}), Wildcard()});
 *    absl::StatusOr<Function> f = Rewrite(fma, func, [](const Match& m) -> Expr {...});
 *
 *  Patterns: Wildcard(), IsVar(), IsConst(), IsOp(name)(args), IsCallTIR(callee)(args),
 *  alternatives `a | b`. An operand pattern that is a call matches *through* a variable bound
 *  to that call in the same function, which is how `add(lv0, y)` matches
 *  add(multiply(_, _), _) when `lv0 = multiply(x, y)`. A Match maps each pattern node to the
 *  expression it matched, so the callback reads operands back by pattern.
 */
#ifndef MLC_PASSES_PATTERN_H_
#define MLC_PASSES_PATTERN_H_

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/graph/expr_functor.h"

namespace mlc {
namespace passes {

struct PatternNode;

class Pattern {
 public:
  Pattern() = default;
  explicit Pattern(std::shared_ptr<const PatternNode> node) : node_(std::move(node)) {}
  /*! \brief Call pattern with these argument patterns (for IsOp / IsCallTIR). */
  Pattern operator()(std::vector<Pattern> args) const;
  /*! \brief Alternative. */
  Pattern operator|(const Pattern& other) const;
  const PatternNode* get() const { return node_.get(); }

 private:
  std::shared_ptr<const PatternNode> node_;
};

struct PatternNode {
  enum Kind { kWildcard, kVar, kConst, kOp, kCallTIR, kOr };
  Kind kind;
  std::string name;           // operator name, or call_tir callee ("" = any)
  std::vector<Pattern> args;  // call arguments (kOp/kCallTIR) or alternatives (kOr)
  bool has_args = false;
};

Pattern Wildcard();
Pattern IsVar();
Pattern IsConst();
Pattern IsOp(const std::string& name);
/*! \brief R.call_tir of `callee` (any PrimFunc when empty); argument patterns match the
 *         call's tensor arguments. */
Pattern IsCallTIR(const std::string& callee = "");

/*! \brief What a pattern matched: per pattern node, the expression (a call matched through a
 *         variable maps to the call). */
class Match {
 public:
  relax::Expr operator[](const Pattern& p) const;
  void Set(const PatternNode* p, relax::Expr e) { map_[p] = std::move(e); }

 private:
  std::map<const PatternNode*, relax::Expr> map_;
};

using LookupFn = std::function<std::optional<relax::Expr>(const relax::Var&)>;

/*! \brief Matches `expr` (looking through variables with `lookup`). */
std::optional<Match> MatchPattern(const Pattern& pattern, const relax::Expr& expr, const LookupFn& lookup);

/*! \brief Replaces every binding value matching `pattern` by what `rewrite` returns (return
 *         the matched expression unchanged to decline). `builder` is the mutator's BlockBuilder,
 *         for adding functions; the rewritten module is `builder->module()` plus the result. */
/*! \brief The struct info of a float32 tensor of static shape and the given rank, else null
 *  (what the rewrites that hand a call to a kernel of fixed layout require). */
const relax::TensorStructInfoNode* StaticFloat32(const relax::Expr& e, size_t rank);

/*! \brief The dimensions of a tensor-typed expression; empty when it has no known shape. */
std::vector<tir::PrimExpr> DimsOf(const relax::Expr& e);

/*! \brief Whether two dimensions are the same expression. */
bool SameDim(const tir::PrimExpr& a, const tir::PrimExpr& b);

/*! \brief permute_dims(x, axes). */
relax::Expr MakePermuteDims(const relax::Expr& x, std::vector<int64_t> axes);

/*! \brief nn.pad(x) in constant mode: pad_width (before_0, after_0, before_1, ...) filled with
 *  `value`. */
relax::Expr MakeConstantPad(const relax::Expr& x, std::vector<int64_t> pad_width, double value);

/*! \brief Whether `call` is a permute_dims by exactly `axes`. */
bool PermutesBy(const relax::Expr& call, const std::vector<int64_t>& axes);

/*! \brief How often each variable is used (not defined) in `func`: a rewrite that absorbs a
 *  binding into another call checks that nothing else needs it. */
std::map<const relax::VarNode*, int> CountVarUses(const relax::Function& func);

/*! \brief The values of a constant (any dtype, as doubles), or nullopt when `e` is none. */
std::optional<std::vector<double>> ConstantValues(const relax::Expr& e);

/*! \brief The values of a float32 constant that holds one value per NCHW channel, shaped
 *  (C, 1, 1) or (1, C, 1, 1) so that it broadcasts over channels (a bias, a batch-norm scale),
 *  as a (C,) tensor; nullopt for anything else. */
std::optional<TensorData> PerChannelValues(const relax::Expr& e, int64_t channels);

/*! \brief R.call_dps_packed of the runtime function `name` on `args`, with the struct info of
 *  `like` (the call it replaces). */
relax::Expr CallDpsPacked(const std::string& name, std::vector<relax::Expr> args, const relax::Expr& like);

/*! \brief The operand tuple of `e` when it is an R.call_dps_packed of the runtime function
 *  `name` (CallDpsPacked's inverse), else nullptr. */
const relax::TupleNode* PackedCallOperands(const relax::Expr& e, const std::string& name);

using RewriteFn =
    std::function<relax::Expr(const relax::Expr& matched, const Match& match, relax::BlockBuilder* builder)>;
absl::StatusOr<relax::Function> Rewrite(const Pattern& pattern, const relax::Function& func, const RewriteFn& rewrite,
                                        relax::BlockBuilder* builder);

}  // namespace passes
}  // namespace mlc

#endif  // MLC_PASSES_PATTERN_H_
