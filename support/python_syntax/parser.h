/*! \file parser.h
 *  \brief Tokens -> Python-subset syntax tree (ast.h). Knows nothing of TVMScript meaning.
 */
#ifndef MLC_SUPPORT_PYTHON_SYNTAX_PARSER_H_
#define MLC_SUPPORT_PYTHON_SYNTAX_PARSER_H_

#include <string>

#include "absl/status/statusor.h"
#include "support/python_syntax/ast.h"

namespace mlc {
namespace script {

/*! \brief Parses a whole file; errors are "file:line:col: found X, expected Y". */
absl::StatusOr<AstPtr> ParsePython(const std::string& source, const std::string& filename);

}  // namespace script
}  // namespace mlc

#endif  // MLC_SUPPORT_PYTHON_SYNTAX_PARSER_H_
