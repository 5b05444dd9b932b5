/*! \file blas_functions.cc
 *  \brief Runtime functions backed by BLAS (OpenBLAS), the targets of the dispatch-blas pass.
 *
 *    mlc.blas.dense(x[N,K], w[M,K], out[N,M])          out = x @ w^T
 *    mlc.blas.matmul(a[...,N,K], b[K,M] or b[...,K,M], out[...,N,M])
 *                                                      out = a @ b (equal batch dimensions)
 *    mlc.blas.conv2d(x[N,C,H,W], w[F,C/g,KH,KW], geometry[9 or 10], [bias[F],] out[N,F,OH,OW])
 *        geometry = (stride_h, stride_w, pad_top, pad_left, pad_bottom, pad_right,
 *                    dilation_h, dilation_w, groups[, epilogue]); im2col + SGEMM per image and
 *        group, a direct loop for depthwise convolution (one input and one output channel per
 *        group). Epilogue, applied while the output is in cache: + bias, then ReLU if epilogue = 1.
 *
 *  All float32, contiguous. Unscheduled loop programs are far from BLAS speed on these
 *  operators; this is the library path a user would otherwise take by hand.
 */
#include <cblas.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "vm/library/dltensor_view.h"
#include "vm/runtime_registry.h"
#include "vm/thread_pool.h"

namespace mlc {
namespace vm {
namespace {

/*! \brief One pool for all parallel work: OpenBLAS runs single-threaded, inside the chunks
 *  that the VM's pool hands out (its own threads would spin after each call on the cores our
 *  kernels' workers need). Runs once, at first use. */
void SingleThreadedBlas() {
  static const bool done = [] {
    openblas_set_num_threads(1);
    return true;
  }();
  (void)done;
}

/*! \brief Row-major C[m, n] = A[m, k] @ op(B) over the pool: the rows of C (or, when there are
 *  fewer rows than columns, its columns) are split into blocks of 16, one range per thread. */
void Sgemm(bool b_transposed, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb,
           float* c, int64_t ldc) {
  SingleThreadedBlas();
  auto gemm = [&](int64_t rows, int64_t cols, const float* a0, const float* b0, float* c0) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, b_transposed ? CblasTrans : CblasNoTrans, static_cast<int>(rows),
                static_cast<int>(cols), static_cast<int>(k), 1.0f, a0, static_cast<int>(lda), b0, static_cast<int>(ldb),
                0.0f, c0, static_cast<int>(ldc));
  };
  constexpr int64_t kBlock = 16;
  bool by_rows = m >= n;
  int64_t blocks = ((by_rows ? m : n) + kBlock - 1) / kBlock;
  if (ThreadPool::Global().num_threads() == 1 || blocks < 2 || 2.0 * m * n * k < 2e5) {
    gemm(m, n, a, b, c);  // too small to be worth a launch
    return;
  }
  ParallelFor(blocks, [&](int64_t begin, int64_t end) {
    int64_t lo = begin * kBlock, hi = std::min(end * kBlock, by_rows ? m : n);
    if (by_rows) {
      gemm(hi - lo, n, a + lo * lda, b, c + lo * ldc);
    } else {
      gemm(m, hi - lo, a, b_transposed ? b + lo * ldb : b + lo, c + lo);
    }
  });
}

bool IsF32(const DLTensor* t) { return HasDtype(t, kDLFloat, 32); }
float* Data(DLTensor* t) { return reinterpret_cast<float*>(static_cast<char*>(t->data) + t->byte_offset); }

absl::Status Dense(absl::Span<DLTensor* const> args) {
  if (absl::Status s = CheckTensorArgs(args, 3, "mlc.blas.dense"); !s.ok()) return s;
  DLTensor *x = args[0], *w = args[1], *out = args[2];
  if (!IsF32(x) || !IsF32(w) || !IsF32(out) || x->ndim != 2 || w->ndim != 2 || x->shape[1] != w->shape[1]) {
    return absl::InvalidArgumentError("mlc.blas.dense expects float32 x[N,K] and w[M,K]");
  }
  int n = static_cast<int>(x->shape[0]), k = static_cast<int>(x->shape[1]), m = static_cast<int>(w->shape[0]);
  Sgemm(/*b_transposed=*/true, n, m, k, Data(x), k, Data(w), k, Data(out), m);
  return absl::OkStatus();
}

absl::Status Matmul(absl::Span<DLTensor* const> args) {
  if (absl::Status s = CheckTensorArgs(args, 3, "mlc.blas.matmul"); !s.ok()) return s;
  DLTensor *a = args[0], *b = args[1], *out = args[2];
  if (!IsF32(a) || !IsF32(b) || !IsF32(out) || a->ndim < 2 || b->ndim < 2 ||
      a->shape[a->ndim - 1] != b->shape[b->ndim - 2]) {
    return absl::InvalidArgumentError("mlc.blas.matmul expects float32 a[..., N, K] and b[..., K, M]");
  }
  int64_t k = a->shape[a->ndim - 1], m = b->shape[b->ndim - 1], n = a->shape[a->ndim - 2], batch = 1;
  for (int d = 0; d < a->ndim - 2; ++d) batch *= a->shape[d];
  if (b->ndim == 2) {
    // Every row of every batch against one matrix: a single SGEMM over batch * N rows.
    Sgemm(false, batch * n, m, k, Data(a), k, Data(b), m, Data(out), m);
    return absl::OkStatus();
  }
  bool same_batch = a->ndim == b->ndim;
  for (int d = 0; same_batch && d < a->ndim - 2; ++d) same_batch = a->shape[d] == b->shape[d];
  if (!same_batch)
    return absl::InvalidArgumentError("mlc.blas.matmul: batch dimensions must be equal (no broadcasting)");
  for (int64_t i = 0; i < batch; ++i) {
    Sgemm(false, n, m, k, Data(a) + i * n * k, k, Data(b) + i * k * m, m, Data(out) + i * n * m, m);
  }
  return absl::OkStatus();
}

struct ConvGeometry {
  int64_t n, c, h, w, f, cg, kh, kw, oh, ow;
  int64_t stride[2], pad[4], dilation[2], groups;
};

/*! \brief Rows (c, ky, kx) x columns (oy, ox) of one image's group of channels; zeros in the
 *  padding. The rows are independent: they are spread over the pool. */
void Im2Col(const float* x, const ConvGeometry& g, float* col) {
  ParallelFor(g.cg * g.kh * g.kw, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      int64_t c = r / (g.kh * g.kw), ky = r / g.kw % g.kh, kx = r % g.kw;
      float* row = col + r * g.oh * g.ow;
      for (int64_t oy = 0; oy < g.oh; ++oy) {
        int64_t y = oy * g.stride[0] + ky * g.dilation[0] - g.pad[0];
        float* dst = row + oy * g.ow;
        if (y < 0 || y >= g.h) {
          std::memset(dst, 0, sizeof(float) * g.ow);
          continue;
        }
        const float* src = x + (c * g.h + y) * g.w;
        for (int64_t ox = 0; ox < g.ow; ++ox) {
          int64_t xx = ox * g.stride[1] + kx * g.dilation[1] - g.pad[1];
          dst[ox] = (xx >= 0 && xx < g.w) ? src[xx] : 0.0f;
        }
      }
    }
  });
}

/*! \brief One input channel convolved with its own filter (depthwise), directly: for each
 *  filter tap, a multiply-add over the output row's valid columns (contiguous for stride 1,
 *  so the compiler vectorizes it; cloned for AVX-512, AVX2 and baseline x86-64). */
__attribute__((target_clones("avx512f", "avx2", "default"))) void DepthwiseChannel(const float* x, const float* w,
                                                                                   const ConvGeometry& g, float* out) {
  for (int64_t oy = 0; oy < g.oh; ++oy) {
    float* o = out + oy * g.ow;
    std::memset(o, 0, sizeof(float) * g.ow);
    for (int64_t ky = 0; ky < g.kh; ++ky) {
      int64_t y = oy * g.stride[0] + ky * g.dilation[0] - g.pad[0];
      if (y < 0 || y >= g.h) continue;
      const float* row = x + y * g.w;
      for (int64_t kx = 0; kx < g.kw; ++kx) {
        const float wv = w[ky * g.kw + kx];
        const int64_t offset = kx * g.dilation[1] - g.pad[1], s = g.stride[1];
        // Columns ox with 0 <= ox * s + offset < W.
        int64_t lo = offset >= 0 ? 0 : (-offset + s - 1) / s;
        int64_t hi = std::min(g.ow, g.w - 1 - offset < 0 ? 0 : (g.w - 1 - offset) / s + 1);
        if (s == 1) {
          const float* src = row + lo + offset;  // in bounds: lo + offset >= 0
          float* dst = o + lo;
          for (int64_t i = 0; i < hi - lo; ++i) dst[i] += wv * src[i];
        } else {
          for (int64_t ox = lo; ox < hi; ++ox) o[ox] += wv * row[ox * s + offset];
        }
      }
    }
  }
}

absl::Status Conv2d(absl::Span<DLTensor* const> args) {
  bool has_bias = args.size() == 5;
  if (absl::Status s = CheckTensorArgs(args, has_bias ? 5 : 4, "mlc.blas.conv2d"); !s.ok()) return s;
  DLTensor *x = args[0], *w = args[1], *geometry = args[2], *bias = has_bias ? args[3] : nullptr, *out = args.back();
  if (!IsF32(x) || !IsF32(w) || !IsF32(out) || x->ndim != 4 || w->ndim != 4 || out->ndim != 4) {
    return absl::InvalidArgumentError("mlc.blas.conv2d expects float32 NCHW data, OIHW weight and output");
  }
  if (geometry->dtype.code != kDLInt || geometry->dtype.bits != 64 || geometry->ndim != 1 ||
      (geometry->shape[0] != 9 && geometry->shape[0] != 10)) {
    return absl::InvalidArgumentError("mlc.blas.conv2d: geometry must be 9 or 10 int64 values");
  }
  const int64_t* p = reinterpret_cast<const int64_t*>(static_cast<char*>(geometry->data) + geometry->byte_offset);
  ConvGeometry g{x->shape[0],  x->shape[1], x->shape[2],   x->shape[3],   w->shape[0],  w->shape[1],
                 w->shape[2],  w->shape[3], out->shape[2], out->shape[3], {p[0], p[1]}, {p[2], p[3], p[4], p[5]},
                 {p[6], p[7]}, p[8]};
  if (g.groups <= 0 || g.c != g.cg * g.groups || g.f % g.groups != 0 || out->shape[0] != g.n || out->shape[1] != g.f) {
    return absl::InvalidArgumentError("mlc.blas.conv2d: shapes do not agree with the groups");
  }
  int64_t fg = g.f / g.groups, spatial = g.oh * g.ow, patch = g.cg * g.kh * g.kw;
  bool relu = geometry->shape[0] == 10 && p[9] == 1;
  if (has_bias && (!IsF32(bias) || bias->ndim != 1 || bias->shape[0] != g.f)) {
    return absl::InvalidArgumentError("mlc.blas.conv2d: bias must be float32 with one value per output channel");
  }
  const float* bias_data = has_bias ? Data(bias) : nullptr;
  // + bias, then ReLU, on `channels` output planes starting at channel `first`.
  auto epilogue = [&](float* planes, int64_t first, int64_t channels) {
    if (!has_bias && !relu) return;
    for (int64_t c = 0; c < channels; ++c) {
      float b = bias_data ? bias_data[first + c] : 0.0f;
      float* plane = planes + c * spatial;
      for (int64_t i = 0; i < spatial; ++i) {
        float v = plane[i] + b;
        plane[i] = relu && v < 0.0f ? 0.0f : v;
      }
    }
  };
  bool direct = g.kh == 1 && g.kw == 1 && g.stride[0] == 1 && g.stride[1] == 1 && g.pad[0] == 0 && g.pad[1] == 0 &&
                g.pad[2] == 0 && g.pad[3] == 0;  // pointwise: the input already is the column matrix
  if (g.cg == 1 && fg == 1) {
    // Depthwise: independent channels, spread over the VM's thread pool.
    const std::function<void(float*, int64_t, int64_t)> finish = epilogue;
    struct Closure {
      const ConvGeometry* g;
      const float *x, *w;
      float* out;
      const std::function<void(float*, int64_t, int64_t)>* finish;
    } closure{&g, Data(x), Data(w), Data(out), &finish};
    ThreadPool::Global().Run(
        [](void* p, int64_t begin, int64_t end) {
          const Closure& c = *static_cast<const Closure*>(p);
          const int64_t plane_in = c.g->h * c.g->w, plane_out = c.g->oh * c.g->ow;
          for (int64_t i = begin; i < end; ++i) {  // i = n * channels + channel
            DepthwiseChannel(c.x + i * plane_in, c.w + (i % c.g->c) * c.g->kh * c.g->kw, *c.g, c.out + i * plane_out);
            (*c.finish)(c.out + i * plane_out, i % c.g->c, 1);
          }
        },
        &closure, g.n * g.c);
    return absl::OkStatus();
  }
  // Otherwise one SGEMM per image and group, split over the pool.
  // The im2col matrix is reused across calls (per thread): a fresh one per call page-faulted
  // megabytes on every convolution.
  thread_local std::vector<float> col;
  if (!direct && col.size() < static_cast<size_t>(patch * spatial)) col.resize(patch * spatial);
  for (int64_t n = 0; n < g.n; ++n) {
    for (int64_t grp = 0; grp < g.groups; ++grp) {
      const float* xg = Data(x) + (n * g.c + grp * g.cg) * g.h * g.w;
      const float* wg = Data(w) + grp * fg * patch;
      float* og = Data(out) + (n * g.f + grp * fg) * spatial;
      const float* b = xg;
      if (!direct) {
        Im2Col(xg, g, col.data());
        b = col.data();
      }
      Sgemm(false, fg, spatial, patch, wg, patch, b, spatial, og, spatial);
      epilogue(og, grp * fg, fg);
    }
  }
  return absl::OkStatus();
}

MLC_REGISTER_RUNTIME_FUNC("mlc.blas.dense", Dense);
MLC_REGISTER_RUNTIME_FUNC("mlc.blas.matmul", Matmul);
MLC_REGISTER_RUNTIME_FUNC("mlc.blas.conv2d", Conv2d);

}  // namespace
}  // namespace vm
}  // namespace mlc
