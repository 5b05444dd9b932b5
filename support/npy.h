/*! \file npy.h
 *  \brief NumPy's .npy (one array) and .npz (a zip of named .npy files) <-> TensorData, for
 *         model inputs, outputs and parameters exchanged with NumPy and PyTorch.
 */
#ifndef MLC_SUPPORT_NPY_H_
#define MLC_SUPPORT_NPY_H_

#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "support/tensor_data.h"

namespace mlc {

/*! \brief Parses .npy bytes: little-endian numeric dtypes; Fortran-order data is converted
 *         to row-major. */
absl::StatusOr<TensorData> ParseNpy(const std::string& bytes, const std::string& source_name);
std::string SerializeNpy(const TensorData& tensor);

absl::StatusOr<TensorData> ReadNpy(const std::string& path);
/*! \brief Writes atomically. */
absl::Status WriteNpy(const std::string& path, const TensorData& tensor);

/*! \brief All arrays of an .npz, by name (without the ".npy" suffix). */
absl::StatusOr<std::map<std::string, TensorData>> ReadNpz(const std::string& path);
/*! \brief Writes atomically (stored, uncompressed entries, as np.savez does). */
absl::Status WriteNpz(const std::string& path, const std::map<std::string, TensorData>& arrays);

}  // namespace mlc

#endif  // MLC_SUPPORT_NPY_H_
