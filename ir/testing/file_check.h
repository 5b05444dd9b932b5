/*! \file file_check.h
 *  \brief `# CHECK:` directives of a golden case against a stage's output: MLIR's FileCheck,
 *         simplified, shared by the golden tests of every stage (passes, lowering, LLVM IR).
 *
 *  In the case's text, `# CHECK: text` lines must match lines of the output in order (substring
 *  match); `# CHECK-NEXT:` must match the very next line, `# CHECK-SAME:` the line matched last;
 *  `# CHECK-NOT: text` must not appear between the neighbouring matches (or after the last one).
 *  Any other `# CHECK` spelling fails the case.
 */
#ifndef MLC_IR_TESTING_FILE_CHECK_H_
#define MLC_IR_TESTING_FILE_CHECK_H_

#include <string>

namespace mlc {
namespace testing {

/*! \brief Checks the directives of `text` against `output` (gtest failures). */
void CheckDirectives(const std::string& text, const std::string& output);

/*! \brief Whether `text` holds any directive. */
bool HasDirectives(const std::string& text);

}  // namespace testing
}  // namespace mlc

#endif  // MLC_IR_TESTING_FILE_CHECK_H_
