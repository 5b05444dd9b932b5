/*! \file lexer.h
 *  \brief Tokens of the Python subset TVMScript is written in, with INDENT/DEDENT as Python
 *         emits them and brackets joining lines.
 */
#ifndef MLC_SUPPORT_PYTHON_SYNTAX_LEXER_H_
#define MLC_SUPPORT_PYTHON_SYNTAX_LEXER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace mlc {
namespace script {

enum class TokenKind { kName, kInt, kFloat, kString, kOp, kNewline, kIndent, kDedent, kEnd };

struct Token {
  TokenKind kind;
  std::string text;  // identifier, operator, or decoded string literal
  int line = 0;      // 1-based
  int col = 0;       // 1-based
};

const char* TokenKindName(TokenKind kind);

/*! \brief Splits `source` into tokens; errors are "file:line:col: message". */
absl::StatusOr<std::vector<Token>> Tokenize(const std::string& source, const std::string& filename);

}  // namespace script
}  // namespace mlc

#endif  // MLC_SUPPORT_PYTHON_SYNTAX_LEXER_H_
