/*! \file script_util.h
 *  \brief What the TVMScript converters share (the loop level's, the graph level's and the
 *         module's): position-aware errors, names of T./R. calls, argument checks, dtypes.
 */
#ifndef MLC_FRONTEND_SCRIPT_SCRIPT_UTIL_H_
#define MLC_FRONTEND_SCRIPT_SCRIPT_UTIL_H_

#include <initializer_list>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/core/attrs.h"
#include "support/python_syntax/ast.h"

namespace mlc {
namespace script {

/*! \brief Position-aware errors shared by the converters. */
class ErrorReporter {
 public:
  explicit ErrorReporter(const std::string& filename) : filename_(filename) {}
  absl::Status Error(const AstPtr& at, const std::string& message) const {
    return absl::InvalidArgumentError(absl::StrCat(filename_, ":", at->line, ":", at->col, ": ", message));
  }
  const std::string& filename() const { return filename_; }

 private:
  std::string filename_;
};

inline std::string Describe(const AstPtr& node) {
  switch (node->kind) {
    case AstKind::kName: return absl::StrCat("'", node->text, "'");
    case AstKind::kAttribute: {
      std::string dotted = DottedName(node);
      return dotted.empty() ? "an attribute" : absl::StrCat("'", dotted, "'");
    }
    case AstKind::kCall: {
      std::string callee = DottedName(node->a);
      return callee.empty() ? "a call" : absl::StrCat("a call of ", callee);
    }
    case AstKind::kInt: return absl::StrCat("integer ", node->int_value);
    case AstKind::kFloat: return "a float literal";
    case AstKind::kString: return absl::StrCat("string \"", node->text, "\"");
    case AstKind::kTuple: return "a tuple";
    case AstKind::kList: return "a list";
    case AstKind::kDict: return "a dict";
    case AstKind::kSubscript: return "a subscript";
    default: return "an expression";
  }
}

/*! \brief The part after "T." / "R." / "relax." / "tir." in a dotted callee, else "". */
inline std::string StripPrefix(const std::string& dotted, std::initializer_list<const char*> prefixes) {
  for (const char* p : prefixes) {
    std::string prefix = absl::StrCat(p, ".");
    if (absl::StartsWith(dotted, prefix)) return dotted.substr(prefix.size());
  }
  return "";
}

inline std::string TirName(const AstPtr& callee) { return StripPrefix(DottedName(callee), {"T", "tir", "tvm.tir"}); }
inline std::string RelaxName(const AstPtr& callee) {
  return StripPrefix(DottedName(callee), {"R", "relax", "tvm.relax"});
}

inline const AstPtr* FindKeyword(const AstPtr& call, const std::string& name) {
  for (const Keyword& kw : call->keywords) {
    if (kw.name == name) return &kw.value;
  }
  return nullptr;
}

/*! \brief Checks a call's positional and keyword arguments against what is accepted. */
inline absl::Status CheckArgs(const ErrorReporter& err, const AstPtr& call, const std::string& what, size_t min_args,
                              size_t max_args, std::initializer_list<const char*> keywords = {}) {
  if (call->elts.size() < min_args || call->elts.size() > max_args) {
    std::string expected = min_args == max_args ? absl::StrCat(min_args) : absl::StrCat(min_args, " to ", max_args);
    return err.Error(call, absl::StrCat(what, " takes ", expected, " positional argument", max_args == 1 ? "" : "s",
                                        ", got ", call->elts.size()));
  }
  for (const Keyword& kw : call->keywords) {
    bool known = false;
    for (const char* k : keywords) known = known || kw.name == k;
    if (!known) {
      return err.Error(
          kw.value,
          absl::StrCat(what, " has no keyword argument '", kw.name, "'",
                       keywords.size() ? absl::StrCat(" (accepted: ", absl::StrJoin(keywords, ", "), ")") : ""));
    }
  }
  return absl::OkStatus();
}

inline absl::StatusOr<DataType> ParseDtype(const ErrorReporter& err, const AstPtr& node) {
  if (node->kind != AstKind::kString)
    return err.Error(node, absl::StrCat("found ", Describe(node), ", expected a dtype string such as \"float32\""));
  absl::StatusOr<DataType> dtype = DataType::Parse(node->text);
  if (!dtype.ok()) return err.Error(node, std::string(dtype.status().message()));
  return dtype;
}

/*! \brief An integer literal, possibly negated or wrapped as T.int64(n) / T.int32(n). */
inline bool AsIntLiteral(const AstPtr& node, int64_t* value, DataType* dtype) {
  if (node->kind == AstKind::kInt) {
    *value = node->int_value;
    *dtype = DataType::Int32();
    return true;
  }
  if (node->kind == AstKind::kUnaryOp && node->text == "-" && node->a->kind == AstKind::kInt) {
    *value = -node->a->int_value;
    *dtype = DataType::Int32();
    return true;
  }
  if (node->kind == AstKind::kCall && node->elts.size() == 1) {
    std::string name = TirName(node->a);
    if (name == "int64" || name == "int32") {
      DataType ignored;
      if (!AsIntLiteral(node->elts[0], value, &ignored)) return false;
      *dtype = name == "int64" ? DataType::Int64() : DataType::Int32();
      return true;
    }
  }
  return false;
}

// =============================================================================================
// Loop level.

}  // namespace script
}  // namespace mlc

#endif  // MLC_FRONTEND_SCRIPT_SCRIPT_UTIL_H_
