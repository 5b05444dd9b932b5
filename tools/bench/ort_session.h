/*! \file ort_session.h
 *  \brief ONNX Runtime as a reference, through its C API, loaded at run time.
 *
 *  The benchmark compares against the ONNX Runtime a user would deploy: the shared library of
 *  the `onnxruntime-node` npm package (tools/bench/install_onnxruntime.sh puts it in a cache
 *  directory). No header ships with it, so this file reaches the few entries of the C API it
 *  needs by their position in the API table, which ONNX Runtime only ever appends to.
 */
#ifndef MLC_TOOLS_BENCH_ORT_SESSION_H_
#define MLC_TOOLS_BENCH_ORT_SESSION_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace mlc {
namespace bench {

struct OrtTensor {
  std::vector<int64_t> shape;
  std::vector<float> data;
  /*! \brief An int64 input (token ids, positions) when not empty; `data` is then unused. */
  std::vector<int64_t> int64_data;
};

class OrtSession {
 public:
  /*! \brief Loads `library` (libonnxruntime.so.1), then the model, with all graph
   *  optimizations and `threads` intra-op threads (sequential execution). */
  static absl::StatusOr<std::unique_ptr<OrtSession>> Create(const std::string& library, const std::string& model_path,
                                                            int threads);
  ~OrtSession();

  std::string version() const { return version_; }
  /*! \brief The model's input shapes as it declares them, -1 where a dimension is symbolic. */
  const std::vector<std::vector<int64_t>>& input_shapes() const;
  /*! \brief Runs the model on float32 or int64 inputs (in the order of the model's inputs); the
   *  outputs (float32). */
  absl::StatusOr<std::vector<OrtTensor>> Run(const std::vector<OrtTensor>& inputs);

 private:
  struct Impl;
  explicit OrtSession(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
  std::string version_;
};

}  // namespace bench
}  // namespace mlc

#endif  // MLC_TOOLS_BENCH_ORT_SESSION_H_
