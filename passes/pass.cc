/*! \file pass.cc
 *  \brief Pass options, function passes, the registry, pipeline parsing and running.
 */
#include "passes/pass.h"

#include <chrono>
#include <cstdio>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "support/file_util.h"
#include "ir/printer.h"
#include "ir/verifier.h"

namespace mlc {
namespace passes {

absl::Status Pass::Configure(const std::map<std::string, std::string>& values) {
  std::vector<PassOption> known = options();
  for (const auto& [key, value] : values) {
    const PassOption* opt = nullptr;
    for (const PassOption& o : known) {
      if (o.name == key) opt = &o;
    }
    if (opt == nullptr) {
      std::vector<std::string> names;
      for (const PassOption& o : known) names.push_back(absl::StrCat(o.name, " (", o.help, ")"));
      return absl::InvalidArgumentError(absl::StrCat("pass ", name(), " has no option '", key, "'",
                                                     names.empty() ? "; it takes none" : absl::StrCat("; options: ", absl::StrJoin(names, ", "))));
    }
    bool ok = true;
    if (opt->type == "int") {
      int64_t v;
      ok = absl::SimpleAtoi(value, &v);
    } else if (opt->type == "float") {
      double v;
      ok = absl::SimpleAtod(value, &v);
    } else if (opt->type == "bool") {
      ok = value == "true" || value == "false" || value == "1" || value == "0";
    }
    if (!ok) {
      return absl::InvalidArgumentError(absl::StrCat("pass ", name(), ": option ", key, " must be ", opt->type, ", got '", value, "'"));
    }
    values_[key] = value;
  }
  return absl::OkStatus();
}

std::string Pass::GetString(const std::string& key) const {
  auto it = values_.find(key);
  if (it != values_.end()) return it->second;
  for (const PassOption& o : options()) {
    if (o.name == key) return o.default_value;
  }
  return "";
}
int64_t Pass::GetInt(const std::string& key) const {
  int64_t v = 0;
  (void)absl::SimpleAtoi(GetString(key), &v);
  return v;
}
double Pass::GetFloat(const std::string& key) const {
  double v = 0;
  (void)absl::SimpleAtod(GetString(key), &v);
  return v;
}
bool Pass::GetBool(const std::string& key) const {
  std::string v = GetString(key);
  return v == "true" || v == "1";
}

absl::StatusOr<IRModule> FunctionPass::Run(const IRModule& mod) {
  IRModule out = mod;
  for (const auto& [name, func] : mod.functions()) {
    relax::Function f = func.as_ref<relax::Function>();
    if (!f.defined() || (skip_primitive() && f->IsPrimitive())) continue;
    absl::StatusOr<relax::Function> result = RunOnFunction(f, out);
    if (!result.ok()) {
      return absl::Status(result.status().code(), absl::StrCat(this->name(), ": in @", name, ": ", result.status().message()));
    }
    if (!result->same_as(f)) out.Add(name, *result);
  }
  return out;
}

PassRegistry& PassRegistry::Global() {
  static PassRegistry* registry = [] {
    auto* r = new PassRegistry();
    RegisterCorePasses(*r);
    return r;
  }();
  return *registry;
}

void PassRegistry::Register(PassFactory factory) {
  std::string name = factory()->name();
  factories_[name] = std::move(factory);
}

absl::StatusOr<std::unique_ptr<Pass>> PassRegistry::Create(const std::string& name) const {
  auto it = factories_.find(name);
  if (it == factories_.end()) {
    return absl::NotFoundError(absl::StrCat("unknown pass '", name, "'; known passes: ", absl::StrJoin(Names(), ", ")));
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
  return out;
}

absl::StatusOr<std::vector<std::unique_ptr<Pass>>> ParsePipeline(const std::string& text) {
  std::vector<std::unique_ptr<Pass>> out;
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
    if (name.empty()) return absl::InvalidArgumentError(absl::StrCat("pipeline \"", text, "\": empty pass name at offset ", start));
    std::map<std::string, std::string> options;
    if (i < text.size() && text[i] == '{') {
      size_t close = text.find('}', i);
      if (close == std::string::npos) return absl::InvalidArgumentError(absl::StrCat("pipeline \"", text, "\": '{' without '}'"));
      std::string body = text.substr(i + 1, close - i - 1);
      for (absl::string_view item : absl::StrSplit(body, ',', absl::SkipWhitespace())) {
        size_t eq = item.find('=');
        if (eq == absl::string_view::npos) {
          return absl::InvalidArgumentError(absl::StrCat("pass ", name, ": option '", item, "' needs a value (key=value)"));
        }
        options[std::string(absl::StripAsciiWhitespace(item.substr(0, eq)))] =
            std::string(absl::StripAsciiWhitespace(item.substr(eq + 1)));
      }
      i = close + 1;
      skip_space();
    }
    absl::StatusOr<std::unique_ptr<Pass>> pass = PassRegistry::Global().Create(name);
    if (!pass.ok()) return pass.status();
    if (absl::Status s = (*pass)->Configure(options); !s.ok()) return s;
    out.push_back(std::move(*pass));
    if (i < text.size()) {
      if (text[i] != ',') return absl::InvalidArgumentError(absl::StrCat("pipeline \"", text, "\": expected ',' at offset ", i));
      ++i;
    }
  }
  return out;
}

absl::StatusOr<IRModule> RunPipeline(const IRModule& mod, const std::vector<std::unique_ptr<Pass>>& passes,
                                     const PipelineOptions& options) {
  IRModule current = mod;
  int index = 0;
  for (const std::unique_ptr<Pass>& pass : passes) {
    ++index;
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
        return absl::InternalError(absl::StrCat("pass ", pass->name(), " produced an ill-formed module: ", s.message()));
      }
    }
    current = std::move(*next);
    if (options.log != nullptr && options.timing) {
      *options.log << "pass " << pass->name() << ": " << ms << " ms\n";
    }
    if (options.log != nullptr && (options.print_after_all || options.print_after.count(pass->name()))) {
      *options.log << "# IR after " << pass->name() << "\n" << PrintModule(current) << "\n";
    }
    if (!options.dump_dir.empty()) {
      char file[128];
      std::snprintf(file, sizeof(file), "module.%04d.after_%s.py", index, pass->name().c_str());
      if (absl::Status s = WriteFileAtomically(absl::StrCat(options.dump_dir, "/", file), PrintModule(current)); !s.ok()) {
        return s;
      }
    }
  }
  return current;
}

}  // namespace passes
}  // namespace mlc
