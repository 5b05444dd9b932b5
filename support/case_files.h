/*! \file case_files.h
 *  \brief Directories of test and benchmark cases: each case is a file with a known suffix,
 *         and may carry directives in comment lines (`# MODULE: gemm.py`, `# ERROR: ...`).
 */
#ifndef MLC_SUPPORT_CASE_FILES_H_
#define MLC_SUPPORT_CASE_FILES_H_

#include <string>
#include <vector>

namespace mlc {

/*! \brief The names (without the suffix) of the files in `dir` ending in `suffix` and not in
 *  `except_suffix` (when given), sorted; empty when the directory cannot be read. */
std::vector<std::string> CaseNames(const std::string& dir, const std::string& suffix,
                                   const std::string& except_suffix = "");

/*! \brief The value of the first `# KEY: value` comment line of `text`, trimmed; "" if none. */
std::string CaseDirective(const std::string& text, const std::string& key);

}  // namespace mlc

#endif  // MLC_SUPPORT_CASE_FILES_H_
