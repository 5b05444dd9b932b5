/*! \file ast.h
 *  \brief A syntax tree of the Python subset TVMScript is written in. The parser produces it;
 *         the converter (converter.h) gives it TVMScript meaning. Every node keeps its position.
 */
#ifndef MLC_SUPPORT_PYTHON_SYNTAX_AST_H_
#define MLC_SUPPORT_PYTHON_SYNTAX_AST_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace mlc {
namespace script {

struct Ast;
using AstPtr = std::shared_ptr<const Ast>;

enum class AstKind {
  // Expressions.
  kName,       // text
  kAttribute,  // a.text
  kCall,       // a(args..., keywords...)
  kSubscript,  // a[b]
  kTuple,      // elts
  kList,       // elts
  kDict,       // elts: key, value, key, value...
  kInt,        // int_value
  kFloat,      // float_value
  kString,     // text
  kBool,       // int_value (0/1)
  kNone,
  kBinOp,    // a text b ("+", "-", "*", "/", "//", "%", "**")
  kUnaryOp,  // text a ("-", "+", "not")
  kCompare,  // a text b ("<", "<=", ">", ">=", "==", "!=")
  kBoolOp,   // a text b ("and", "or")
  kSlice,    // a:b (either may be null)
  kLambda,   // lambda params: a (schedule traces' index maps)
  // Statements.
  kModule,       // body
  kFunctionDef,  // text = name, decorators, params, returns = a, body
  kClassDef,     // text = name, decorators, body
  kFor,          // targets = elts, iter = a, body
  kWith,         // context = a, target = b (may be null), body
  kAssign,       // target = a, value = b
  kAnnAssign,    // target = a, annotation = c, value = b
  kAugAssign,    // target = a, text = op, value = b
  kExprStmt,     // a
  kReturn,       // a (may be null)
  kIf,           // test = a, body, orelse
  kPass,
  kImport,
};

struct Param {
  std::string name;
  AstPtr annotation;  // may be null
  int line = 0, col = 0;
};

struct Keyword {
  std::string name;
  AstPtr value;
};

struct Ast {
  AstKind kind;
  int line = 0, col = 0;
  std::string text;
  int64_t int_value = 0;
  double float_value = 0;
  AstPtr a, b, c;
  std::vector<AstPtr> elts;
  std::vector<Keyword> keywords;
  std::vector<AstPtr> decorators;
  std::vector<Param> params;
  std::vector<AstPtr> body, orelse;
  /*! \brief Levels below and including this node, as far as the parser tracked them: exact for
   *         the chains it builds iteratively (a + b + ..., a.b.c, f(x)(y)), which are what can
   *         grow deep without its recursion limit noticing. */
  int depth = 1;
};

/*! \brief "a.b.c" for a chain of names and attributes, else "". */
std::string DottedName(const AstPtr& node);

}  // namespace script
}  // namespace mlc

#endif  // MLC_SUPPORT_PYTHON_SYNTAX_AST_H_
