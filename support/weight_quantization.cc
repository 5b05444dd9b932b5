#include "support/weight_quantization.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace mlc {
namespace {

int64_t Panels(int64_t n) { return (n + kWqPanel - 1) / kWqPanel; }

/*! \brief Byte offset and nibble shift of the 4-bit code of (k, lane) within panel p. */
int64_t Nibble4Offset(int64_t p, int64_t k, int64_t lane, int64_t kk, int* shift) {
  const int64_t block = k / kWqBlock, t = k % kWqBlock;
  *shift = t < kWqBlock / 2 ? 0 : 4;
  const int64_t row = block * (kWqBlock / 2) + t % (kWqBlock / 2);
  return (p * (kk / 2) + row) * kWqPanel + lane;
}

}  // namespace

absl::Status CheckWeightQuantization(int64_t k, int64_t n, int bits, int64_t group) {
  if (bits != 8 && bits != 4) return absl::InvalidArgumentError(absl::StrCat("bits is ", bits, ": 8 or 4 are supported"));
  if (group <= 0 || group % kWqBlock != 0) {
    return absl::InvalidArgumentError(absl::StrCat("group is ", group, ": a positive multiple of ", kWqBlock, " is needed"));
  }
  if (k <= 0 || n <= 0 || k % group != 0) {
    return absl::InvalidArgumentError(absl::StrCat("a ", k, " x ", n, " matrix: K must be a positive multiple of the group (", group, ")"));
  }
  return absl::OkStatus();
}

absl::StatusOr<QuantizedWeights> QuantizeWeights(const float* w, int64_t k, int64_t n, bool transposed, int bits, int64_t group) {
  if (absl::Status s = CheckWeightQuantization(k, n, bits, group); !s.ok()) return s;
  QuantizedWeights q;
  q.bits = bits;
  q.k = k;
  q.n = n;
  q.group = group;
  const int64_t panels = Panels(n), groups = k / group;
  q.codes = bits == 8 ? TensorData(DataType::Int(8), {panels, k, kWqPanel}) : TensorData(DataType::UInt(8), {panels, k / 2, kWqPanel});
  q.scales = TensorData(DataType::Float32(), {panels, groups, kWqPanel});
  auto* codes = static_cast<uint8_t*>(q.codes.mutable_data());
  auto* scales = static_cast<float*>(q.scales.mutable_data());
  std::fill_n(codes, q.codes.NumBytes(), bits == 8 ? 0 : 0x88);  // past N: code 0, value 0
  auto at = [&](int64_t kk, int64_t j) { return transposed ? w[j * k + kk] : w[kk * n + j]; };
  for (int64_t j = 0; j < n; ++j) {
    const int64_t p = j / kWqPanel, lane = j % kWqPanel;
    for (int64_t g = 0; g < groups; ++g) {
      const int64_t k0 = g * group;
      float amax = 0.0f, extreme = 0.0f;
      for (int64_t kk = k0; kk < k0 + group; ++kk) {
        const float v = at(kk, j);
        if (std::fabs(v) > amax) {
          amax = std::fabs(v);
          extreme = v;
        }
      }
      const float d = bits == 8 ? amax / 127.0f : extreme / -8.0f;
      const float inv = d != 0.0f ? 1.0f / d : 0.0f;
      scales[(p * groups + g) * kWqPanel + lane] = d;
      for (int64_t kk = k0; kk < k0 + group; ++kk) {
        const float x = at(kk, j) * inv;
        if (bits == 8) {
          codes[(p * k + kk) * kWqPanel + lane] = static_cast<uint8_t>(static_cast<int8_t>(std::lround(x)));
        } else {
          const int code = std::min(15, static_cast<int>(static_cast<int8_t>(x + 8.5f)));
          int shift = 0;
          uint8_t& byte = codes[Nibble4Offset(p, kk, lane, k, &shift)];
          byte = static_cast<uint8_t>((byte & ~(0xF << shift)) | (std::max(code, 0) << shift));
        }
      }
    }
  }
  return q;
}

std::vector<float> DequantizeWeights(const QuantizedWeights& q) {
  std::vector<float> out(q.k * q.n);
  const int64_t groups = q.k / q.group;
  const auto* codes = static_cast<const uint8_t*>(q.codes.data());
  const auto* scales = static_cast<const float*>(q.scales.data());
  for (int64_t kk = 0; kk < q.k; ++kk) {
    for (int64_t j = 0; j < q.n; ++j) {
      const int64_t p = j / kWqPanel, lane = j % kWqPanel;
      const float d = scales[(p * groups + kk / q.group) * kWqPanel + lane];
      int code;
      if (q.bits == 8) {
        code = static_cast<int8_t>(codes[(p * q.k + kk) * kWqPanel + lane]);
      } else {
        int shift = 0;
        code = ((codes[Nibble4Offset(p, kk, lane, q.k, &shift)] >> shift) & 0xF) - 8;
      }
      out[kk * q.n + j] = static_cast<float>(code) * d;
    }
  }
  return out;
}

}  // namespace mlc
