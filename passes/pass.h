/*! \file pass.h
 *  \brief The pass interface, typed options, the registry, named pipelines and text pipelines.
 *
 *  A pass has a kebab-case name matching its file (fuse_ops.cc -> "fuse-ops"), a one-line
 *  description, and typed options declared once as members, MLIR-style:
 *
 *    class FuseOpsPass : public Pass {
 *      Option<int64_t> max_depth_{this, "max-depth", 16, "largest number of operators in a group"};
 *      ...  *max_depth_ in Run()
 *    };
 *    MLC_REGISTER_PASS(FuseOpsPass);
 *
 *  Every pass registers itself with MLC_REGISTER_PASS in a library built with
 *  `alwayslink = True` (the core passes in //passes:core_passes, a custom pass in its own
 *  target or a --pass-plugin shared library); linking the target makes the pass available by
 *  name. Pipelines are text, MLIR-style: `bind-params{params=w.npz},fuse-ops{max-depth=4},legalize`,
 *  and may name pipelines defined once with MLC_REGISTER_PIPELINE (`default`, `O0`...). An
 *  unknown pass or option, or an ill-typed value, is an error that lists what is known.
 *
 *  A pass never runs another pass inside it: what runs is what the pipeline says. A pass that
 *  has nothing to do returns the module's functions unchanged (the same objects), which is how
 *  the pipeline tells whether it changed the module.
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
#include "ir/graph/block_builder.h"
#include "ir/graph/module.h"

namespace mlc {
namespace passes {

/*! \brief An option as the docs and error messages show it. */
struct PassOption {
  std::string name;           // kebab-case: "max-depth"
  std::string type;           // "int", "bool", "string", "float"
  std::string default_value;  // as text
  std::string help;
};

class Pass;

/*! \brief The untyped side of an option: parsing and description. */
class PassOptionBase {
 public:
  PassOptionBase(Pass* owner, std::string name, std::string help);
  PassOptionBase(const PassOptionBase&) = delete;
  virtual ~PassOptionBase() = default;
  const std::string& name() const { return name_; }
  const std::string& help() const { return help_; }
  virtual std::string type() const = 0;
  virtual std::string default_text() const = 0;
  /*! \brief Sets the value from text; false if the text is not a value of the type. */
  virtual bool Parse(const std::string& text) = 0;

 private:
  std::string name_, help_;
};

/*! \brief A typed option: int64_t, double, bool or std::string. Read it with `*option`. */
template <typename T>
class Option : public PassOptionBase {
 public:
  Option(Pass* owner, const char* name, T default_value, const char* help)
      : PassOptionBase(owner, name, help), default_(default_value), value_(std::move(default_value)) {}
  const T& operator*() const { return value_; }
  const T* operator->() const { return &value_; }
  std::string type() const override;
  std::string default_text() const override;
  bool Parse(const std::string& text) override;

 private:
  T default_;
  T value_;
};

class Pass {
 public:
  Pass() = default;
  Pass(const Pass&) = delete;
  Pass& operator=(const Pass&) = delete;
  virtual ~Pass() = default;
  virtual std::string name() const = 0;
  virtual std::string description() const = 0;
  virtual absl::StatusOr<IRModule> Run(const IRModule& mod) = 0;

  /*! \brief The declared options, in declaration order. */
  std::vector<PassOption> options() const;
  /*! \brief Sets options from text; unknown names and ill-typed values are errors. */
  absl::Status Configure(const std::map<std::string, std::string>& values);

 private:
  friend class PassOptionBase;
  std::vector<PassOptionBase*> options_;
};

/*! \brief A pass that rewrites each graph-level function (Primitive sub-functions too unless
 *         `skip_primitive()`), with one builder over the whole module: a rewrite may add
 *         functions (PrimFuncs, fused sub-functions) through `bb`. Functions the rewrite returns
 *         unchanged stay the same objects. */
class FunctionPass : public Pass {
 public:
  absl::StatusOr<IRModule> Run(const IRModule& mod) final;

 protected:
  virtual absl::StatusOr<relax::Function> RunOnFunction(const relax::Function& func, relax::BlockBuilder* bb) = 0;
  virtual bool skip_primitive() const { return false; }
};

using PassFactory = std::function<std::unique_ptr<Pass>()>;

class PassRegistry {
 public:
  static PassRegistry& Global();
  /*! \brief Registers a factory under the name its passes report. */
  void Register(PassFactory factory);
  /*! \brief A named pipeline: `text` is a pipeline that may name passes and other pipelines. */
  void RegisterPipeline(const std::string& name, const std::string& text, const std::string& description);
  /*! \brief A new instance, or an error listing the registered passes. */
  absl::StatusOr<std::unique_ptr<Pass>> Create(const std::string& name) const;
  std::vector<std::string> Names() const;
  /*! \brief The text of a named pipeline, or nullptr. */
  const std::string* FindPipeline(const std::string& name) const;
  /*! \brief Markdown reference of every pass, option and named pipeline
   *         (docs/passes_reference.md is generated from it). */
  std::string Describe() const;

 private:
  struct NamedPipeline {
    std::string text, description;
  };
  std::map<std::string, PassFactory> factories_;
  std::map<std::string, NamedPipeline> pipelines_;
};

/*! \brief `a,b{k=v,k2=v2},c` -> configured passes; names of registered pipelines expand to
 *         their passes. */
absl::StatusOr<std::vector<std::unique_ptr<Pass>>> ParsePipeline(const std::string& text);

/*! \brief Puts apply-tuning-records{db=...} right before the pipeline's default-schedule (what
 *  `--tuning_db` means everywhere); an error when there is no default-schedule. */
absl::Status InsertTuningRecords(std::vector<std::unique_ptr<Pass>>* passes, const std::string& db);

/*! \brief `pipeline` with weight-only quantization in front (what `--quantize` / `quantize=`
 *  means everywhere): "q8" and "q4" prepend quantize-weights{bits=8|4} and remove-unused; ""
 *  and "none" leave it as it is; anything else is an error naming the choices. */
absl::StatusOr<std::string> WithWeightQuantization(const std::string& pipeline, const std::string& mode);

/*! \brief The passes of `pipeline` before its default-schedule, then remove-unused: the kernels
 *  as default-schedule would receive them, and no others (what tuning tunes). */
absl::StatusOr<std::vector<std::unique_ptr<Pass>>> PipelineBeforeScheduling(const std::string& pipeline);
/*! \brief The rest of `pipeline`: its default-schedule and what follows (a module from
 *  PipelineBeforeScheduling through these is what the whole pipeline makes). */
absl::StatusOr<std::vector<std::unique_ptr<Pass>>> PipelineFromScheduling(const std::string& pipeline);

/*! \brief What one pass did in a pipeline run. */
struct PassRecord {
  std::string pass;
  double ms = 0;
  bool changed = false;
};

struct PipelineOptions {
  bool verify_each = true;
  bool print_after_all = false;
  std::set<std::string> print_after;
  bool timing = false;
  /*! \brief Where --print-after* and timing go. */
  std::ostream* log = nullptr;
  /*! \brief When set, each pass's result is written here as TVMScript (module.0003.after_fuse-ops.py). */
  std::string dump_dir;
  /*! \brief When set, receives one record per pass run. */
  std::vector<PassRecord>* records = nullptr;
};

/*! \brief Runs the passes in order; the verifier runs after each (when verify_each), and a
 *         violation is reported with the pass that caused it. */
absl::StatusOr<IRModule> RunPipeline(const IRModule& mod, const std::vector<std::unique_ptr<Pass>>& passes,
                                     const PipelineOptions& options = {});

namespace detail {
struct PassRegistrar {
  explicit PassRegistrar(PassFactory factory) { PassRegistry::Global().Register(std::move(factory)); }
};
struct PipelineRegistrar {
  PipelineRegistrar(const char* name, const char* text, const char* description) {
    PassRegistry::Global().RegisterPipeline(name, text, description);
  }
};
}  // namespace detail

#define MLC_PASS_CONCAT_INNER(a, b) a##b
#define MLC_PASS_CONCAT(a, b) MLC_PASS_CONCAT_INNER(a, b)
/*! \brief MLC_REGISTER_PASS(MyPass): registers a default-constructible Pass subclass. */
#define MLC_REGISTER_PASS(PassClass)                           \
  static ::mlc::passes::detail::PassRegistrar MLC_PASS_CONCAT( \
      mlc_pass_registrar_, __COUNTER__)([] { return std::unique_ptr<::mlc::passes::Pass>(new PassClass()); })
/*! \brief MLC_REGISTER_PIPELINE("name", "pass,pass{k=v},...", "what it is for"). */
#define MLC_REGISTER_PIPELINE(name, text, description)                                                              \
  static ::mlc::passes::detail::PipelineRegistrar MLC_PASS_CONCAT(mlc_pipeline_registrar_, __COUNTER__)(name, text, \
                                                                                                        description)

}  // namespace passes
}  // namespace mlc

#endif  // MLC_PASSES_PASS_H_
