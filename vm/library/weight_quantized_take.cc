/*! \file weight_quantized_take.cc
 *  \brief mlc.wq.take: rows of an embedding table kept as quantized weights, the
 *         quantize-weights pass's target for take(table, ids) on a constant table.
 *
 *    mlc.wq.take(ids[...] int64 or int32, codes uint8, scales fp16 bits uint16, rows int64 [1], out[..., D] float32)
 *
 *  The table [V, D] is stored as the matrix table^T [D, V] of mlc.wq.matmul (support/
 *  weight_quantization.h): a language model whose head is tied to its embedding keeps one
 *  quantized copy for both. Row `id` is column `id` of that matrix (WqCodeAt reads it). A few rows
 *  per step, so plain C++.
 */
#include "absl/strings/str_cat.h"
#include "support/weight_quantization.h"
#include "vm/library/dltensor_view.h"
#include "vm/runtime_registry.h"

namespace mlc {
namespace vm {
namespace {

absl::Status Take(absl::Span<DLTensor* const> args) {
  constexpr const char* kName = "mlc.wq.take";
  if (absl::Status s = CheckTensorArgs(args, 5, kName); !s.ok()) return s;
  const DLTensor *ids = args[0], *codes = args[1], *scales = args[2], *rows = args[3];
  DLTensor* out = args[4];
  const bool ids_ok = HasDtype(ids, kDLInt, 64) || HasDtype(ids, kDLInt, 32);
  if (!ids_ok || !HasDtype(codes, kDLUInt, 8) || !HasDtype(scales, kDLUInt, 16) || !IsInt64Vector(rows, 1) ||
      !HasDtype(out, kDLFloat, 32) || out->ndim != ids->ndim + 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(kName,
                     " expects int64/int32 ids[...], uint8 codes [P, D/4 or D/8, 16, 4], fp16 scales "
                     "as uint16 [P, D/group, 16], int64 rows [1] and float32 out[..., D]"));
  }
  const int64_t d = out->shape[out->ndim - 1], vocab = *reinterpret_cast<const int64_t*>(DataOf(rows));
  absl::StatusOr<WqLayout> layout = WqLayoutOf(DimsOf(codes), DimsOf(scales), d);
  if (!layout.ok()) return absl::InvalidArgumentError(absl::StrCat(kName, ": ", layout.status().message()));
  const int64_t panels = layout->panels;
  if (vocab <= 0 || vocab > panels * kWqPanel || vocab <= (panels - 1) * kWqPanel) {
    return absl::InvalidArgumentError(
        absl::StrCat(kName, ": a table of ", vocab, " rows does not fill ", panels, " panels of 16"));
  }
  const int bits = layout->bits;
  const int64_t group = layout->group, groups = d / group, count = CountOf(DimsOf(ids));
  const uint8_t* c = reinterpret_cast<const uint8_t*>(DataOf(codes));
  const uint16_t* s = reinterpret_cast<const uint16_t*>(DataOf(scales));
  float* o = reinterpret_cast<float*>(DataOf(out));
  for (int64_t i = 0; i < count; ++i) {
    const int64_t id = ids->dtype.bits == 64 ? reinterpret_cast<const int64_t*>(DataOf(ids))[i]
                                             : reinterpret_cast<const int32_t*>(DataOf(ids))[i];
    if (id < 0 || id >= vocab) {
      return absl::InvalidArgumentError(
          absl::StrCat(kName, ": id ", id, " at position ", i, " is outside the table's ", vocab, " rows"));
    }
    const int64_t p = id / kWqPanel, lane = id % kWqPanel;
    for (int64_t k = 0; k < d; ++k) {
      o[i * d + k] =
          static_cast<float>(WqCodeAt(c, bits, d, k, id)) * HalfToFloat(s[(p * groups + k / group) * kWqPanel + lane]);
    }
  }
  return absl::OkStatus();
}

}  // namespace

MLC_REGISTER_RUNTIME_FUNC("mlc.wq.take", Take);

}  // namespace vm
}  // namespace mlc
