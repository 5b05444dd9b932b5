/*! \file pass.cc
 *  \brief Pass options, function passes, the registry, pipeline parsing and running.
 */
#include "passes/pass.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "ir/graph/printer.h"
#include "ir/graph/verifier.h"
#include "support/file_util.h"
#include "support/progress.h"

namespace mlc {
namespace passes {

PassOptionBase::PassOptionBase(Pass* owner, std::string name, std::string help)
    : name_(std::move(name)), help_(std::move(help)) {
  owner->options_.push_back(this);
}

template <>
std::string Option<int64_t>::type() const {
  return "int";
}
template <>
std::string Option<double>::type() const {
  return "float";
}
template <>
std::string Option<bool>::type() const {
  return "bool";
}
template <>
std::string Option<std::string>::type() const {
  return "string";
}
template <>
std::string Option<int64_t>::default_text() const {
  return absl::StrCat(default_);
}
template <>
std::string Option<double>::default_text() const {
  return absl::StrCat(default_);
}
template <>
std::string Option<bool>::default_text() const {
  return default_ ? "true" : "false";
}
template <>
std::string Option<std::string>::default_text() const {
  return default_;
}
template <>
bool Option<int64_t>::Parse(const std::string& text) {
  return absl::SimpleAtoi(text, &value_);
}
template <>
bool Option<double>::Parse(const std::string& text) {
  return absl::SimpleAtod(text, &value_);
}
template <>
bool Option<bool>::Parse(const std::string& text) {
  if (text != "true" && text != "false" && text != "1" && text != "0") return false;
  value_ = text == "true" || text == "1";
  return true;
}
template <>
bool Option<std::string>::Parse(const std::string& text) {
  value_ = text;
  return true;
}

std::vector<PassOption> Pass::options() const {
  std::vector<PassOption> out;
  for (const PassOptionBase* o : options_) out.push_back({o->name(), o->type(), o->default_text(), o->help()});
  return out;
}

absl::Status Pass::Configure(const std::map<std::string, std::string>& values) {
  for (const auto& [key, value] : values) {
    PassOptionBase* opt = nullptr;
    for (PassOptionBase* o : options_) {
      if (o->name() == key) opt = o;
    }
    if (opt == nullptr) {
      std::vector<std::string> names;
      for (const PassOptionBase* o : options_) names.push_back(absl::StrCat(o->name(), " (", o->help(), ")"));
      return absl::InvalidArgumentError(
          absl::StrCat("pass ", name(), " has no option '", key, "'",
                       names.empty() ? "; it takes none" : absl::StrCat("; options: ", absl::StrJoin(names, ", "))));
    }
    if (!opt->Parse(value)) {
      return absl::InvalidArgumentError(
          absl::StrCat("pass ", name(), ": option ", key, " must be ", opt->type(), ", got '", value, "'"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<IRModule> FunctionPass::Run(const IRModule& mod) {
  relax::BlockBuilder builder(mod);
  for (const auto& [name, func] : mod.functions()) {
    relax::Function f = func.as_ref<relax::Function>();
    if (!f.defined() || (skip_primitive() && f->IsPrimitive())) continue;
    absl::StatusOr<relax::Function> result = RunOnFunction(f, &builder);
    if (!result.ok()) {
      return absl::Status(result.status().code(),
                          absl::StrCat(this->name(), ": in @", name, ": ", result.status().message()));
    }
    if (!result->same_as(f)) {
      if (absl::Status s = builder.UpdateFunc(name, *result); !s.ok()) return s;
    }
  }
  return builder.Get();
}

PassRegistry& PassRegistry::Global() {
  static PassRegistry* registry = new PassRegistry();
  return *registry;
}

void PassRegistry::Register(PassFactory factory) {
  std::string name = factory()->name();
  factories_[name] = std::move(factory);
}

void PassRegistry::RegisterPipeline(const std::string& name, const std::string& text, const std::string& description) {
  pipelines_[name] = {text, description};
}

const std::string* PassRegistry::FindPipeline(const std::string& name) const {
  auto it = pipelines_.find(name);
  return it == pipelines_.end() ? nullptr : &it->second.text;
}

absl::StatusOr<std::unique_ptr<Pass>> PassRegistry::Create(const std::string& name) const {
  auto it = factories_.find(name);
  if (it == factories_.end()) {
    std::vector<std::string> pipelines;
    for (const auto& [p, info] : pipelines_) pipelines.push_back(p);
    return absl::NotFoundError(absl::StrCat("unknown pass '", name, "'; known passes: ", absl::StrJoin(Names(), ", "),
                                            "; named pipelines: ", absl::StrJoin(pipelines, ", ")));
  }
  return it->second();
}

std::vector<std::string> PassRegistry::Names() const {
  std::vector<std::string> names;
  for (const auto& [name, f] : factories_) names.push_back(name);
  return names;
}

std::string PassRegistry::Describe() const {
  std::string out;
  for (const auto& [name, factory] : factories_) {
    std::unique_ptr<Pass> p = factory();
    absl::StrAppend(&out, "### `", name, "`\n\n", p->description(), "\n\n");
    std::vector<PassOption> opts = p->options();
    if (!opts.empty()) {
      absl::StrAppend(&out, "| option | type | default | meaning |\n|---|---|---|---|\n");
      for (const PassOption& o : opts) {
        absl::StrAppend(&out, "| `", o.name, "` | ", o.type, " | `", o.default_value, "` | ", o.help, " |\n");
      }
      out += "\n";
    }
  }
  absl::StrAppend(&out, "## Named pipelines\n\nUse a name wherever a pipeline is expected (`--passes=default`).\n\n",
                  "| name | passes | meaning |\n|---|---|---|\n");
  for (const auto& [name, p] : pipelines_)
    absl::StrAppend(&out, "| `", name, "` | `", p.text, "` | ", p.description, " |\n");
  return out;
}

namespace {

absl::Status ParseInto(const std::string& text, std::vector<std::unique_ptr<Pass>>* out_ptr, int depth) {
  if (depth > 16)
    return absl::InvalidArgumentError(absl::StrCat("named pipelines nest too deep (a cycle?) at \"", text, "\""));
  std::vector<std::unique_ptr<Pass>>& out = *out_ptr;
  size_t i = 0;
  auto skip_space = [&] {
    while (i < text.size() && absl::ascii_isspace(static_cast<unsigned char>(text[i]))) ++i;
  };
  while (true) {
    skip_space();
    if (i >= text.size()) break;
    size_t start = i;
    while (i < text.size() && text[i] != ',' && text[i] != '{') ++i;
    std::string name(absl::StripAsciiWhitespace(text.substr(start, i - start)));
    if (name.empty())
      return absl::InvalidArgumentError(absl::StrCat("pipeline \"", text, "\": empty pass name at offset ", start));
    std::map<std::string, std::string> options;
    if (i < text.size() && text[i] == '{') {
      size_t close = text.find('}', i);
      if (close == std::string::npos)
        return absl::InvalidArgumentError(absl::StrCat("pipeline \"", text, "\": '{' without '}'"));
      std::string body = text.substr(i + 1, close - i - 1);
      for (absl::string_view item : absl::StrSplit(body, ',', absl::SkipWhitespace())) {
        size_t eq = item.find('=');
        if (eq == absl::string_view::npos) {
          return absl::InvalidArgumentError(
              absl::StrCat("pass ", name, ": option '", item, "' needs a value (key=value)"));
        }
        options[std::string(absl::StripAsciiWhitespace(item.substr(0, eq)))] =
            std::string(absl::StripAsciiWhitespace(item.substr(eq + 1)));
      }
      i = close + 1;
      skip_space();
    }
    const std::string* named = PassRegistry::Global().FindPipeline(name);
    if (named != nullptr) {
      if (!options.empty())
        return absl::InvalidArgumentError(absl::StrCat("named pipeline ", name, " takes no options"));
      if (absl::Status s = ParseInto(*named, out_ptr, depth + 1); !s.ok()) return s;
    } else {
      absl::StatusOr<std::unique_ptr<Pass>> pass = PassRegistry::Global().Create(name);
      if (!pass.ok()) return pass.status();
      if (absl::Status s = (*pass)->Configure(options); !s.ok()) return s;
      out.push_back(std::move(*pass));
    }
    if (i < text.size()) {
      if (text[i] != ',')
        return absl::InvalidArgumentError(absl::StrCat("pipeline \"", text, "\": expected ',' at offset ", i));
      ++i;
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<std::unique_ptr<Pass>>> ParsePipeline(const std::string& text) {
  std::vector<std::unique_ptr<Pass>> out;
  if (absl::Status s = ParseInto(text, &out, 0); !s.ok()) return s;
  return out;
}

absl::StatusOr<IRModule> RunPipeline(const IRModule& mod, const std::vector<std::unique_ptr<Pass>>& passes,
                                     const PipelineOptions& options) {
  IRModule current = mod;
  if (!options.dump_dir.empty()) {  // made here, so a new directory name works
    std::error_code ec;
    std::filesystem::create_directories(options.dump_dir, ec);
    if (ec) return absl::InvalidArgumentError(absl::StrCat("dump directory ", options.dump_dir, ": ", ec.message()));
  }
  int index = 0;
  Progress progress("opt: passes", static_cast<int64_t>(passes.size()));
  for (const std::unique_ptr<Pass>& pass : passes) {
    ++index;
    progress.Advance(0, pass->name());
    auto start = std::chrono::steady_clock::now();
    absl::StatusOr<IRModule> next = pass->Run(current);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (!next.ok()) {
      std::string message(next.status().message());
      if (message.rfind(pass->name(), 0) != 0) message = absl::StrCat(pass->name(), ": ", message);
      return absl::Status(next.status().code(), message);
    }
    if (options.verify_each) {
      if (absl::Status s = VerifyModule(*next); !s.ok()) {
        // Over a resource limit is the model's doing (the pass made the kernel it asked for);
        // anything else is the pass's bug.
        if (absl::IsResourceExhausted(s))
          return absl::Status(s.code(), absl::StrCat("after pass ", pass->name(), ": ", s.message()));
        return absl::InternalError(
            absl::StrCat("pass ", pass->name(), " produced an ill-formed module: ", s.message()));
      }
    }
    bool changed = !next->SameAs(current);
    current = std::move(*next);
    progress.Advance();
    if (options.records != nullptr) options.records->push_back({pass->name(), ms, changed});
    if (options.log != nullptr && options.timing) {
      *options.log << "pass " << pass->name() << ": " << ms << " ms" << (changed ? "" : " (no change)") << "\n";
    }
    if (options.log != nullptr && (options.print_after_all || options.print_after.count(pass->name()))) {
      *options.log << "# IR after " << pass->name() << "\n" << PrintModule(current) << "\n";
    }
    if (!options.dump_dir.empty()) {
      char file[128];
      std::snprintf(file, sizeof(file), "module.%04d.after_%s.py", index, pass->name().c_str());
      if (absl::Status s = WriteFileAtomically(absl::StrCat(options.dump_dir, "/", file), PrintModule(current));
          !s.ok()) {
        return s;
      }
    }
  }
  return current;
}

namespace {
std::vector<std::unique_ptr<Pass>>::iterator FindDefaultSchedule(std::vector<std::unique_ptr<Pass>>* passes) {
  return std::find_if(passes->begin(), passes->end(), [](const auto& p) { return p->name() == "default-schedule"; });
}
}  // namespace

absl::StatusOr<std::string> WithWeightQuantization(const std::string& pipeline, const std::string& mode) {
  if (mode.empty() || mode == "none") return pipeline;
  if (mode != "q8" && mode != "q4") {
    return absl::InvalidArgumentError(absl::StrCat("quantize: '", mode, "' is not a weight format (q8, q4 or none)"));
  }
  // prefill-entry first: it does not see through the quantized matmuls' library calls (a
  // pipeline that runs it again finds @prefill made and changes nothing).
  return absl::StrCat("prefill-entry,quantize-weights{bits=", mode == "q8" ? 8 : 4, "},remove-unused",
                      pipeline.empty() ? "" : ",", pipeline);
}

absl::Status InsertTuningRecords(std::vector<std::unique_ptr<Pass>>* passes, const std::string& db) {
  auto at = FindDefaultSchedule(passes);
  if (at == passes->end())
    return absl::InvalidArgumentError("tuning records need a pipeline with default-schedule (they replace its rules)");
  absl::StatusOr<std::vector<std::unique_ptr<Pass>>> apply =
      ParsePipeline(absl::StrCat("apply-tuning-records{db=", db, "}"));
  if (!apply.ok()) return apply.status();
  passes->insert(at, std::move(apply->front()));
  return absl::OkStatus();
}

namespace {
/*! \brief `pipeline`'s passes split at its default-schedule: those before it, or it and those
 *  after it; an error when there is none. */
absl::StatusOr<std::vector<std::unique_ptr<Pass>>> SplitAtDefaultSchedule(const std::string& pipeline, bool before) {
  absl::StatusOr<std::vector<std::unique_ptr<Pass>>> passes = ParsePipeline(pipeline);
  if (!passes.ok()) return passes.status();
  auto at = FindDefaultSchedule(&*passes);
  if (at == passes->end())
    return absl::InvalidArgumentError(absl::StrCat("the pipeline '", pipeline, "' has no default-schedule"));
  if (before) {
    passes->erase(at, passes->end());
  } else {
    passes->erase(passes->begin(), at);
  }
  return passes;
}
}  // namespace

absl::StatusOr<std::vector<std::unique_ptr<Pass>>> PipelineBeforeScheduling(const std::string& pipeline) {
  absl::StatusOr<std::vector<std::unique_ptr<Pass>>> passes = SplitAtDefaultSchedule(pipeline, /*before=*/true);
  if (!passes.ok()) return passes.status();
  // Only the kernels the model calls: fuse-tir leaves the unfused functions behind.
  absl::StatusOr<std::vector<std::unique_ptr<Pass>>> cleanup = ParsePipeline("remove-unused");
  if (!cleanup.ok()) return cleanup.status();
  passes->push_back(std::move(cleanup->front()));
  return passes;
}

absl::StatusOr<std::vector<std::unique_ptr<Pass>>> PipelineFromScheduling(const std::string& pipeline) {
  return SplitAtDefaultSchedule(pipeline, /*before=*/false);
}

}  // namespace passes
}  // namespace mlc
