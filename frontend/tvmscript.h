/*! \file tvmscript.h
 *  \brief Parses TVMScript text (both spellings the seeds use) into an IRModule.
 *
 *  Accepted syntax is documented in docs/frontend_parse.md. Every error names the file, line
 *  and column, what was found and what was expected.
 */
#ifndef MLC_FRONTEND_TVMSCRIPT_H_
#define MLC_FRONTEND_TVMSCRIPT_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/graph/module.h"

namespace mlc {

struct ParseOptions {
  /*! \brief Constants for metadata["relax.expr.Constant"][i] when the text has no metadata
   *         section (a sidecar file, see ParseMetadataFile). */
  std::optional<std::vector<TensorData>> constants;
  /*! \brief Run the well-formedness verifier on the result (on by default). */
  bool verify = true;
};

absl::StatusOr<IRModule> ParseTVMScript(const std::string& source, const std::string& filename,
                                        const ParseOptions& options = {});

/*! \brief Reads the constants of a metadata section (`metadata = {"relax.expr.Constant": [...]}`,
 *         as PrintOptions::show_meta prints it) from a file of its own. */
absl::StatusOr<std::vector<TensorData>> ParseMetadata(const std::string& source, const std::string& filename);

}  // namespace mlc

#endif  // MLC_FRONTEND_TVMSCRIPT_H_
