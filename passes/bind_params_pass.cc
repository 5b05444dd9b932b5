/*! \file bind_params_pass.cc
 *  \brief The bind-params pass: BindParams (bind_params.h) with the tensors of an .npz file.
 */
#include "passes/bind_params.h"
#include "passes/pass.h"
#include "support/npy.h"

namespace mlc {
namespace passes {
namespace {

class BindParamsPass : public Pass {
 public:
  std::string name() const override { return "bind-params"; }
  std::string description() const override {
    return "Replaces parameters of a graph function by constants read from an .npz file, matched by name (the "
           "seeds' BindParams(\"main\", params)). Bound parameters leave the signature.";
  }
  absl::StatusOr<IRModule> Run(const IRModule& mod) override {
    if (params_->empty()) return absl::InvalidArgumentError("bind-params needs params=<file.npz>");
    absl::StatusOr<std::map<std::string, TensorData>> params = ReadNpz(*params_);
    if (!params.ok()) return params.status();
    return BindParams(mod, *func_, *params);
  }

 private:
  Option<std::string> func_{this, "func", "main", "the graph function whose parameters are bound"};
  Option<std::string> params_{this, "params", "", ".npz file of name -> tensor (required)"};
};

MLC_REGISTER_PASS(BindParamsPass);

}  // namespace

}  // namespace passes
}  // namespace mlc
