/*! \file pass.h
 *  \brief The pass interface, the registry, and text pipelines.
 *
 *  A pass has a kebab-case name matching its file (fuse_ops.cc -> "fuse-ops"), a one-line
 *  description, and options declared once with their type, default and help text. Pipelines
 *  are text, MLIR-style: `bind-params{params=w.npz},fuse-ops{max-depth=4},legalize,fuse-tir`.
 *  An unknown pass or option is an error that lists the known ones.
 *
 *  Core passes are registered by RegisterCorePasses() (keep-sorted, pass_registry.cc). A pass
 *  in its own Bazel target registers itself with MLC_REGISTER_PASS in a library built with
 *  `alwayslink = True`; linking that target into //passes:opt (or loading it as a plug-in
 *  with --pass-plugin) makes it available by name, without editing core files.
 */
#ifndef MLC_PASSES_PASS_H_
#define MLC_PASSES_PASS_H_

#include <functional>
#include <map>
#include <memory>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/module.h"

namespace mlc {
namespace passes {

struct PassOption {
  std::string name;           // kebab-case: "max-depth"
  std::string type;           // "int", "bool", "string", "float"
  std::string default_value;  // as text
  std::string help;
};

class Pass {
 public:
  virtual ~Pass() = default;
  virtual std::string name() const = 0;
  virtual std::string description() const = 0;
  virtual std::vector<PassOption> options() const { return {}; }
  virtual absl::StatusOr<IRModule> Run(const IRModule& mod) = 0;

  /*! \brief Sets options from text; unknown names and ill-typed values are errors. */
  absl::Status Configure(const std::map<std::string, std::string>& values);

 protected:
  /*! \brief The option's value (its default when not given). */
  std::string GetString(const std::string& name) const;
  int64_t GetInt(const std::string& name) const;
  double GetFloat(const std::string& name) const;
  bool GetBool(const std::string& name) const;

 private:
  std::map<std::string, std::string> values_;
};

/*! \brief A pass applied to each graph-level function of the module (fused sub-functions
 *         included unless `skip_primitive()`). */
class FunctionPass : public Pass {
 public:
  absl::StatusOr<IRModule> Run(const IRModule& mod) override;

 protected:
  virtual absl::StatusOr<relax::Function> RunOnFunction(const relax::Function& func, const IRModule& mod) = 0;
  virtual bool skip_primitive() const { return false; }
};

using PassFactory = std::function<std::unique_ptr<Pass>()>;

class PassRegistry {
 public:
  static PassRegistry& Global();
  /*! \brief Registers a factory under the name its passes report. */
  void Register(PassFactory factory);
  /*! \brief A new instance, or an error listing the registered passes. */
  absl::StatusOr<std::unique_ptr<Pass>> Create(const std::string& name) const;
  std::vector<std::string> Names() const;
  /*! \brief Markdown reference of every pass and option (docs/passes.md is generated from it). */
  std::string Describe() const;

 private:
  std::map<std::string, PassFactory> factories_;
};

void RegisterCorePasses(PassRegistry& registry);

/*! \brief `a,b{k=v,k2=v2},c` -> configured passes. */
absl::StatusOr<std::vector<std::unique_ptr<Pass>>> ParsePipeline(const std::string& text);

struct PipelineOptions {
  bool verify_each = true;
  bool print_after_all = false;
  std::set<std::string> print_after;
  bool timing = false;
  /*! \brief Where --print-after* and timing go. */
  std::ostream* log = nullptr;
  /*! \brief When set, each pass's result is written here as TVMScript (module.0003.after_fuse-ops.py). */
  std::string dump_dir;
};

/*! \brief Runs the passes in order; the verifier runs after each (when verify_each), and a
 *         violation is reported with the pass that caused it. */
absl::StatusOr<IRModule> RunPipeline(const IRModule& mod, const std::vector<std::unique_ptr<Pass>>& passes,
                                     const PipelineOptions& options = {});

namespace detail {
struct PassRegistrar {
  explicit PassRegistrar(PassFactory factory) { PassRegistry::Global().Register(std::move(factory)); }
};
}  // namespace detail

#define MLC_PASS_CONCAT_INNER(a, b) a##b
#define MLC_PASS_CONCAT(a, b) MLC_PASS_CONCAT_INNER(a, b)
/*! \brief MLC_REGISTER_PASS(MyPass): registers a default-constructible Pass subclass. */
#define MLC_REGISTER_PASS(PassClass)                                                     \
  static ::mlc::passes::detail::PassRegistrar MLC_PASS_CONCAT(mlc_pass_registrar_, __COUNTER__)( \
      [] { return std::unique_ptr<::mlc::passes::Pass>(new PassClass()); })

}  // namespace passes
}  // namespace mlc

#endif  // MLC_PASSES_PASS_H_
