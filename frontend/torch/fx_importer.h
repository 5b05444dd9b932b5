/*! \file fx_importer.h
 *  \brief PyTorch FX graph (fx_graph.proto, from export_fx.py) -> IRModule, as the seeds'
 *         from_fx: nodes in order with a node -> value map; placeholder -> parameter,
 *         get_attr -> constant, call_function / call_module / call_method -> a converter looked
 *         up by target, module class or method name, output -> the function's result.
 *
 *  Converters emit graph-level operators (the seeds' "translate into high-level operators");
 *  the legalize pass lowers them to tensor expressions (the seeds' emit_te path). More converters are registered from
 * any target with MLC_REGISTER_FX_CONVERTER. An unsupported target is an error naming the node and the target; nothing
 * half-built is returned.
 */
#ifndef MLC_FRONTEND_TORCH_FX_IMPORTER_H_
#define MLC_FRONTEND_TORCH_FX_IMPORTER_H_

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "frontend/torch/fx_graph.pb.h"
#include "ir/graph/block_builder.h"
#include "ir/graph/module.h"

namespace mlc {
namespace fx {

/*! \brief What a converter sees: the builder, node values and parameters. */
class FxContext {
 public:
  FxContext(relax::BlockBuilder* bb, const proto::FxGraph* graph) : bb_(bb), graph_(graph) {}

  relax::BlockBuilder& bb() { return *bb_; }
  /*! \brief The value of a node argument (a node reference). */
  absl::StatusOr<relax::Expr> Value(const proto::FxArg& arg) const;
  /*! \brief Positional argument `i` of `node` as a value. */
  absl::StatusOr<relax::Expr> Arg(const proto::FxNode& node, int i) const;
  /*! \brief Argument `i` given positionally or as the keyword `keyword` (F.layer_norm(x, s, weight=w)). */
  absl::StatusOr<relax::Expr> Arg(const proto::FxNode& node, int i, const std::string& keyword) const;
  /*! \brief A parameter or buffer of the module ("linear0.weight") as a constant. */
  absl::StatusOr<relax::Expr> Param(const std::string& qualified_name) const;
  bool HasParam(const std::string& qualified_name) const;
  /*! \brief A number argument as a scalar constant of `dtype` (for x + 1.0). */
  static relax::Expr Scalar(double value, DataType dtype);
  /*! \brief Emits `op(args...)` (a high-level operator call) and returns its variable. */
  absl::StatusOr<relax::Expr> EmitOp(const std::string& op, std::vector<relax::Expr> args, Attrs attrs = {});
  /*! \brief The same with the result's struct info given (a result shape that depends on
   *  symbolic sizes the attributes cannot hold: reshape, broadcast_to, arange). */
  absl::StatusOr<relax::Expr> EmitOp(const std::string& op, std::vector<relax::Expr> args, Attrs attrs,
                                     std::vector<relax::StructInfo> sinfo_args);

  void SetValue(const std::string& node, relax::Expr value) { values_[node] = std::move(value); }
  /*! \brief A size expression of shape variables (`past + 1`) as a 0-d int64 tensor computed when
   *  the function runs, from the values so far (frontend/common/size_value.h). */
  absl::StatusOr<relax::Expr> SizeAsTensor(const tir::PrimExpr& size);
  /*! \brief arange(start, limit, step) of sizes (frontend/common/size_value.h). */
  absl::StatusOr<relax::Expr> SizeRange(const tir::PrimExpr& start, const tir::PrimExpr& limit,
                                        const tir::PrimExpr& step, DataType dtype);

 private:
  relax::BlockBuilder* bb_;
  const proto::FxGraph* graph_;
  std::map<std::string, relax::Expr> values_;
  mutable std::map<std::string, relax::Expr> params_;
};

using FxConverter = std::function<absl::StatusOr<relax::Expr>(FxContext& ctx, const proto::FxNode& node)>;

class FxConverterRegistry {
 public:
  static FxConverterRegistry& Global();
  enum Kind { kFunction, kModule, kMethod };
  /*! \brief key: call_function target ("torch.matmul"), module class ("Linear"), or method. */
  void Register(Kind kind, const std::string& key, FxConverter converter);
  const FxConverter* Find(Kind kind, const std::string& key) const;
  std::vector<std::string> Keys(Kind kind) const;

 private:
  std::map<std::string, FxConverter> converters_[3];
};

void RegisterCoreFxConverters(FxConverterRegistry& registry);

absl::StatusOr<IRModule> ImportFx(const proto::FxGraph& graph);
absl::StatusOr<IRModule> ImportFxFile(const std::string& path);

namespace detail {
struct FxConverterRegistrar {
  FxConverterRegistrar(FxConverterRegistry::Kind kind, const std::string& key, FxConverter converter) {
    FxConverterRegistry::Global().Register(kind, key, std::move(converter));
  }
};
}  // namespace detail

#define MLC_FX_CONCAT_INNER(a, b) a##b
#define MLC_FX_CONCAT(a, b) MLC_FX_CONCAT_INNER(a, b)
/*! \brief MLC_REGISTER_FX_CONVERTER(kFunction, "torch.erf", [](FxContext& ctx, const proto::FxNode& n) {...}); */
#define MLC_REGISTER_FX_CONVERTER(kind, key, fn)                                                \
  static ::mlc::fx::detail::FxConverterRegistrar MLC_FX_CONCAT(mlc_fx_converter_, __COUNTER__)( \
      ::mlc::fx::FxConverterRegistry::kind, key, fn)

}  // namespace fx
}  // namespace mlc

#endif  // MLC_FRONTEND_TORCH_FX_IMPORTER_H_
