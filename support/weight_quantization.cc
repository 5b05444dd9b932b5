#include "support/weight_quantization.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace mlc {
namespace {

int64_t Panels(int64_t n) { return (n + kWqPanel - 1) / kWqPanel; }

/*! \brief Byte offset of the code of (k, lane) in panel p, and (4 bits) its nibble's shift. */
int64_t CodeOffset(int bits, int64_t p, int64_t k, int64_t lane, int64_t kk, int* shift) {
  if (bits == 8) {
    *shift = 0;
    return ((p * (kk / 4) + k / 4) * kWqPanel + lane) * 4 + k % 4;
  }
  const int64_t block = k / kWqBlock, t = k % kWqBlock, u = t % 16;
  *shift = t < 16 ? 0 : 4;
  return ((p * (kk / 8) + 4 * block + u / 4) * kWqPanel + lane) * 4 + u % 4;
}

}  // namespace

absl::StatusOr<WqLayout> WqLayoutOf(const std::vector<int64_t>& codes, const std::vector<int64_t>& scales, int64_t k) {
  if (codes.size() != 4 || codes[2] != kWqPanel || codes[3] != 4 || scales.size() != 3 || scales[2] != kWqPanel) {
    return absl::InvalidArgumentError("codes must be [P, K/4 or K/8, 16, 4] and scales [P, K/group, 16]");
  }
  WqLayout layout;
  layout.bits = k > 0 && codes[1] * 8 == k ? 4 : 8;
  layout.panels = codes[0];
  if (k <= 0 || k % kWqBlock != 0 || codes[1] * (layout.bits == 8 ? 4 : 8) != k || scales[0] != layout.panels ||
      scales[1] <= 0 || k % scales[1] != 0 || !CheckWeightFormat(layout.bits, k / scales[1]).ok()) {
    return absl::InvalidArgumentError(absl::StrCat(layout.bits, "-bit codes of ", codes[0], " panels x ", codes[1],
                                                   " rows and scales of ", scales[0], " x ", scales[1],
                                                   " groups do not fit K = ", k));
  }
  layout.group = k / scales[1];
  return layout;
}

uint16_t FloatToHalf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  const uint32_t sign = u & 0x80000000u;
  u ^= sign;
  uint32_t out;
  if (u >= 0x47800000u) {  // 65536 or more, infinity, NaN
    out = u > 0x7f800000u ? 0x7e00u : 0x7c00u;
  } else if (u < 0x38800000u) {  // below 2^-14: a subnormal half; adding 0.5 aligns its bits
    float t;
    std::memcpy(&t, &u, 4);
    t += 0.5f;
    std::memcpy(&out, &t, 4);
    out -= 0x3f000000u;
  } else {  // rebias the exponent, round the 13 dropped bits to nearest even
    const uint32_t odd = (u >> 13) & 1u;
    u += (static_cast<uint32_t>(15 - 127) << 23) + 0xfffu + odd;
    out = u >> 13;
  }
  return static_cast<uint16_t>(out | (sign >> 16));
}

float HalfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16, exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
  uint32_t bits;
  if (exponent == 0) {
    const float v = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -v : v;
  }
  bits = exponent == 31 ? sign | 0x7f800000u | (mantissa << 13) : sign | ((exponent + 112) << 23) | (mantissa << 13);
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

absl::Status CheckWeightFormat(int bits, int64_t group) {
  if (bits != 8 && bits != 4)
    return absl::InvalidArgumentError(absl::StrCat("bits is ", bits, ": 8 or 4 are supported"));
  if (group <= 0 || group % kWqBlock != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("group is ", group, ": a positive multiple of ", kWqBlock, " is needed"));
  }
  return absl::OkStatus();
}

absl::Status CheckWeightQuantization(int64_t k, int64_t n, int bits, int64_t group) {
  if (absl::Status s = CheckWeightFormat(bits, group); !s.ok()) return s;
  if (k <= 0 || n <= 0 || k % group != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("a ", k, " x ", n, " matrix: K must be a positive multiple of the group (", group, ")"));
  }
  return absl::OkStatus();
}

absl::StatusOr<QuantizedWeights> QuantizeWeights(const float* w, int64_t k, int64_t n, bool transposed, int bits,
                                                 int64_t group) {
  if (absl::Status s = CheckWeightQuantization(k, n, bits, group); !s.ok()) return s;
  QuantizedWeights q;
  q.bits = bits;
  q.k = k;
  q.n = n;
  q.group = group;
  const int64_t panels = Panels(n), groups = k / group;
  q.codes = TensorData(DataType::UInt(8), {panels, k / (bits == 8 ? 4 : 8), kWqPanel, 4});
  q.scales = TensorData(DataType::UInt(16), {panels, groups, kWqPanel});
  auto* codes = static_cast<uint8_t*>(q.codes.mutable_data());
  auto* scales = static_cast<uint16_t*>(q.scales.mutable_data());
  std::fill_n(codes, q.codes.NumBytes(), bits == 8 ? 0x80 : 0x88);  // past N: code 0, value 0
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
      scales[(p * groups + g) * kWqPanel + lane] = FloatToHalf(d);  // the codes come from the float d, as in llama.cpp
      for (int64_t kk = k0; kk < k0 + group; ++kk) {
        const float x = at(kk, j) * inv;
        int shift = 0;
        uint8_t& byte = codes[CodeOffset(bits, p, kk, lane, k, &shift)];
        if (bits == 8) {
          byte = static_cast<uint8_t>(std::lround(x) + 128);
        } else {
          const int code = std::max(0, std::min(15, static_cast<int>(static_cast<int8_t>(x + 8.5f))));
          byte = static_cast<uint8_t>((byte & ~(0xF << shift)) | (code << shift));
        }
      }
    }
  }
  return q;
}

void QuantizeActivations(const float* x, int64_t k, int8_t* q, float* d, int32_t* sums) {
  for (int64_t b = 0; b < k / kWqBlock; ++b) {
    const float* xb = x + b * kWqBlock;
    float amax = 0.0f;
    for (int i = 0; i < kWqBlock; ++i) amax = std::max(amax, std::fabs(xb[i]));
    const float scale = amax / 127.0f, inv = scale != 0.0f ? 1.0f / scale : 0.0f;
    int32_t sum = 0;
    for (int i = 0; i < kWqBlock; ++i) {
      const float y = xb[i] * inv;  // rounded half away from zero, as roundf, in a form that vectorizes
      const int8_t v = static_cast<int8_t>(static_cast<int32_t>(y + std::copysign(0.5f, y)));
      q[b * kWqBlock + i] = v;
      sum += v;
    }
    d[b] = scale;
    sums[b] = sum;
  }
}

int WqCodeAt(const uint8_t* codes, int bits, int64_t k_rows, int64_t k, int64_t column) {
  int shift = 0;
  const uint8_t byte = codes[CodeOffset(bits, column / kWqPanel, k, column % kWqPanel, k_rows, &shift)];
  return ((byte >> shift) & (bits == 8 ? 0xFF : 0xF)) - WqCodeOffset(bits);
}

std::vector<float> DequantizeWeights(const QuantizedWeights& q) {
  std::vector<float> out(q.k * q.n);
  const int64_t groups = q.k / q.group;
  const auto* codes = static_cast<const uint8_t*>(q.codes.data());
  const auto* scales = static_cast<const uint16_t*>(q.scales.data());
  for (int64_t kk = 0; kk < q.k; ++kk) {
    for (int64_t j = 0; j < q.n; ++j) {
      const int64_t p = j / kWqPanel, lane = j % kWqPanel;
      const float d = HalfToFloat(scales[(p * groups + kk / q.group) * kWqPanel + lane]);
      const int code = WqCodeAt(codes, q.bits, q.k, kk, j);
      out[kk * q.n + j] = static_cast<float>(code) * d;
    }
  }
  return out;
}

}  // namespace mlc
