/*! \file operator_library_test.cc
 *  \brief Every operator-library (TOPI) kernel on odd shapes, compiled with LLVM and run by the
 *         VM, against references computed here in double precision.
 */
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <set>

#include "gtest/gtest.h"
#include "ir/graph/op.h"
#include "ir/graph/printer.h"
#include "ir/target/target.h"
#include "ir/topi/topi.h"
#include "passes/pass.h"
#include "support/cpu_features.h"
#include "support/status_macros.h"
#include "tools/testing/kernel_harness.h"
#include "vm/library/int8_common.h"
#include "vm/library/silu.h"

namespace mlc {
namespace {

using namespace testing_util;  // NOLINT: the harness is this test's vocabulary
using vm::NDArray;

TEST(OperatorLibrary, ElementwiseKernelsMatchReferences) {
  std::vector<std::vector<int64_t>> odd = {{7, 129}, {129}};
  std::vector<KernelCase> cases = {
      {"add", odd, Binary(topi::Add), Elementwise([](auto v) { return v[0] + v[1]; })},
      {"subtract", {{1, 7, 1}, {129, 1, 1}}, Binary(topi::Subtract), Elementwise([](auto v) { return v[0] - v[1]; })},
      {"multiply", {{7, 1}, {1, 129}}, Binary(topi::Multiply), Elementwise([](auto v) { return v[0] * v[1]; })},
      {"divide", odd, Binary(topi::Divide), Elementwise([](auto v) { return v[0] / v[1]; }), 0.5f, 2.0f},
      {"maximum", odd, Binary(topi::Maximum), Elementwise([](auto v) { return std::max(v[0], v[1]); })},
      {"minimum", odd, Binary(topi::Minimum), Elementwise([](auto v) { return std::min(v[0], v[1]); })},
      {"power", odd, Binary(topi::Power), Elementwise([](auto v) { return std::pow(v[0], v[1]); }), 0.5f, 2.0f},
      {"ewise_fma",
       {{7, 129}, {7, 129}, {7, 129}},
       [](const std::vector<te::Tensor>& t) -> absl::StatusOr<te::Tensor> { return topi::EwiseFma(t[0], t[1], t[2]); },
       Elementwise([](auto v) { return v[0] * v[1] + v[2]; })},
  };
  for (const KernelCase& c : cases) RunKernelCase(c);
}

/*! \brief Every unary elementwise operator of the registry, legalized (its formula from the
 *  operator definition), compiled and run, against a reference written here. An operator
 *  without a reference fails the test, so a new one cannot go untested. */
TEST(OperatorLibrary, EveryUnaryOperatorMatchesItsReference) {
  struct Ref {
    double (*f)(double);
    float lo = -1, hi = 1;
  };
  const std::map<std::string, Ref> references = {
      {"nn.relu", {[](double x) { return std::max(x, 0.0); }}},
      {"exp", {[](double x) { return std::exp(x); }}},
      {"log", {[](double x) { return std::log(x); }, 0.1f, 3.0f}},
      {"sqrt", {[](double x) { return std::sqrt(x); }, 0.0f, 3.0f}},
      {"tanh", {[](double x) { return std::tanh(x); }, -3.0f, 3.0f}},
      {"sigmoid", {[](double x) { return 1 / (1 + std::exp(-x)); }, -5, 5}},
      {"erf", {[](double x) { return std::erf(x); }, -3.0f, 3.0f}},
      {"negative", {[](double x) { return -x; }}},
      {"abs", {[](double x) { return std::fabs(x); }}},
      {"floor", {[](double x) { return std::floor(x); }, -3.0f, 3.0f}},
      {"ceil", {[](double x) { return std::ceil(x); }, -3.0f, 3.0f}},
      {"round", {[](double x) { return std::nearbyint(x); }, -3.0f, 3.0f}},
      {"sign", {[](double x) { return static_cast<double>((x > 0) - (x < 0)); }}},
      {"sin", {[](double x) { return std::sin(x); }, -3.0f, 3.0f}},
      {"cos", {[](double x) { return std::cos(x); }, -3.0f, 3.0f}},
      {"tan", {[](double x) { return std::tan(x); }, -1.2f, 1.2f}},
      {"asin", {[](double x) { return std::asin(x); }, -0.99f, 0.99f}},
      {"acos", {[](double x) { return std::acos(x); }, -0.99f, 0.99f}},
      {"atan", {[](double x) { return std::atan(x); }, -3.0f, 3.0f}},
      {"sinh", {[](double x) { return std::sinh(x); }, -3.0f, 3.0f}},
      {"cosh", {[](double x) { return std::cosh(x); }, -3.0f, 3.0f}},
      {"asinh", {[](double x) { return std::asinh(x); }, -3.0f, 3.0f}},
      {"acosh", {[](double x) { return std::acosh(x); }, 1.0f, 4.0f}},
      {"atanh", {[](double x) { return std::atanh(x); }, -0.99f, 0.99f}},
  };
  int tested = 0;
  for (const std::string& name : relax::OpRegistry::Global().ListNames()) {
    const relax::OpInfo* op = relax::OpRegistry::Global().Find(name);
    if (op->pattern != relax::OpPattern::kElemWise || op->num_inputs != 1 || !op->attrs.empty()) continue;
    // Operators of bool tensors (this harness feeds floats) are checked against NumPy by
    // //python:python_test (ComparisonAndLogicalOperators) and by the ONNX node tests.
    if (name.rfind("logical_", 0) == 0) continue;
    auto it = references.find(name);
    ASSERT_NE(it, references.end()) << "unary operator " << name << " has no reference in this test";
    auto f = it->second.f;
    RunOpCase(name, {}, {{7, 129}}, "legalize", Elementwise([f](auto v) { return f(v[0]); }), it->second.lo,
              it->second.hi);
    ++tested;
  }
  EXPECT_EQ(tested, static_cast<int>(references.size()));
}

/*! \brief Remainders (NumPy's sign of the divisor, C's of the dividend) and the product,
 *  running-sum and arg-reductions along the middle axis of a (5, 9, 7) tensor. */
TEST(OperatorLibrary, RemaindersAndProductCumsumAndArgReductionsMatchReferences) {
  RunOpCase("fmod", {}, {{7, 33}, {7, 33}}, "default", Elementwise([](auto v) { return std::fmod(v[0], v[1]); }), 0.5f,
            3.0f);
  RunOpCase("floor_mod", {}, {{7, 33}, {1, 33}}, "default", Elementwise([](auto v) { return std::fmod(v[0], v[1]); }),
            0.5f, 3.0f);
  // Reduces the middle axis of (5, 9, 7) with `combine`, or takes the first/last index of the extreme.
  auto along_middle = [](std::function<double(const std::vector<double>&)> combine) -> Reference {
    return [combine](const std::vector<NDArray>& in, const std::vector<int64_t>&) {
      std::vector<double> out;
      for (int i = 0; i < 5; ++i) {
        for (int k = 0; k < 7; ++k) {
          std::vector<double> row;
          for (int j = 0; j < 9; ++j) row.push_back(F(in[0])[(i * 9 + j) * 7 + k]);
          out.push_back(combine(row));
        }
      }
      return out;
    };
  };
  RunOpCase("prod", {{"axis", std::vector<int64_t>{1}}}, {{5, 9, 7}}, "default",
            along_middle([](const std::vector<double>& r) {
              double p = 1;
              for (double v : r) p *= v;
              return p;
            }),
            0.5f, 1.5f);
  // Running sums from the end, each leaving its own element out.
  RunOpCase("cumsum", {{"axis", int64_t{1}}, {"exclusive", true}, {"reverse", true}}, {{5, 9, 7}}, "default",
            [](const std::vector<NDArray>& in, const std::vector<int64_t>&) {
              std::vector<double> out(5 * 9 * 7);
              for (int i = 0; i < 5; ++i) {
                for (int k = 0; k < 7; ++k) {
                  double acc = 0;
                  for (int j = 8; j >= 0; --j) {
                    out[(i * 9 + j) * 7 + k] = acc;
                    acc += F(in[0])[(i * 9 + j) * 7 + k];
                  }
                }
              }
              return out;
            });
  RunOpCase("argmax", {{"axis", int64_t{1}}}, {{5, 9, 7}}, "default", along_middle([](const std::vector<double>& r) {
              return static_cast<double>(std::max_element(r.begin(), r.end()) - r.begin());
            }));
  RunOpCase("argmin", {{"axis", int64_t{1}}, {"select_last_index", true}}, {{5, 9, 7}}, "default",
            along_middle([](const std::vector<double>& r) {
              int best = 0;
              for (int j = 1; j < static_cast<int>(r.size()); ++j) best = r[j] <= r[best] ? j : best;
              return static_cast<double>(best);
            }));
}

TEST(OperatorLibrary, DenseMatmulTransposeMatchReferences) {
  auto dense_ref = [](const std::vector<NDArray>& in, const std::vector<int64_t>&) {
    int64_t n = in[0].shape()[0], k = in[0].shape()[1], m = in[1].shape()[0];
    std::vector<double> out(n * m);
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < m; ++j) {
        double acc = 0;
        for (int64_t p = 0; p < k; ++p) acc += static_cast<double>(F(in[0])[i * k + p]) * F(in[1])[j * k + p];
        out[i * m + j] = acc;
      }
    }
    return out;
  };
  RunKernelCase({"dense", {{7, 129}, {1, 129}}, Binary(topi::Dense), dense_ref});
  RunKernelCase({"dense", {{1, 7}, {129, 7}}, Binary(topi::Dense), dense_ref});
  // Batched matmul with broadcasting: (2, 1, 7, 129) @ (3, 129, 5) -> (2, 3, 7, 5).
  RunKernelCase({"matmul",
                 {{2, 1, 7, 129}, {3, 129, 5}},
                 Binary(topi::Matmul),
                 [](const std::vector<NDArray>& in, const std::vector<int64_t>&) {
                   std::vector<double> out(2 * 3 * 7 * 5);
                   for (int b0 = 0; b0 < 2; ++b0)
                     for (int b1 = 0; b1 < 3; ++b1)
                       for (int i = 0; i < 7; ++i)
                         for (int j = 0; j < 5; ++j) {
                           double acc = 0;
                           for (int k = 0; k < 129; ++k) {
                             acc += static_cast<double>(F(in[0])[(b0 * 7 + i) * 129 + k]) *
                                    F(in[1])[(b1 * 129 + k) * 5 + j];
                           }
                           out[((b0 * 3 + b1) * 7 + i) * 5 + j] = acc;
                         }
                   return out;
                 }});
  RunKernelCase({"reshape",
                 {{7, 1, 129}},
                 Unary([](const te::Tensor& t) {
                   return topi::Reshape(t, {129, 7});
                 }),
                 [](const std::vector<NDArray>& in, const std::vector<int64_t>&) {
                   return std::vector<double>(F(in[0]), F(in[0]) + 7 * 129);  // row-major order is kept
                 }});
  RunKernelCase({"transpose",
                 {{7, 1, 129}},
                 Unary([](const te::Tensor& t) {
                   return topi::Transpose(t, {2, 0, 1});
                 }),
                 [](const std::vector<NDArray>& in, const std::vector<int64_t>&) {
                   std::vector<double> out(129 * 7);
                   for (int a = 0; a < 129; ++a)
                     for (int b = 0; b < 7; ++b) out[a * 7 + b] = F(in[0])[b * 129 + a];
                   return out;
                 }});
}

// ---- Convolution, pooling and padding (NCHW, NCDHW).

/*! \brief Window geometry of one case, over n spatial axes: padding holds the n starts, then
 *  the n ends ((top, left, bottom, right) in 2-D). */
struct Window {
  std::vector<int64_t> kernel, strides, padding, dilation;
  size_t dims() const { return kernel.size(); }
};

/*! \brief The output extent of spatial axis d of a window over `in` elements. */
int64_t OutExtentOf(int64_t in, size_t d, const Window& w) {
  return (in + w.padding[d] + w.padding[d + w.dims()] - w.dilation[d] * (w.kernel[d] - 1) - 1) / w.strides[d] + 1;
}

/*! \brief A convolution case: data and weight shapes, window, groups. */
struct ConvCase {
  std::vector<int64_t> x, w;
  Window window;
  int64_t groups;
};

/*! \brief Calls f with every index of `shape`, in row-major order. */
void ForEachIndex(const std::vector<int64_t>& shape, const std::function<void(const std::vector<int64_t>&)>& f) {
  for (int64_t e : shape) {
    if (e <= 0) return;
  }
  std::vector<int64_t> i(shape.size(), 0);
  while (true) {
    f(i);
    size_t d = shape.size();
    while (d > 0 && ++i[d - 1] == shape[d - 1]) i[--d] = 0;
    if (d == 0) return;
  }
}

/*! \brief The input position of output position `out` at tap `tap` along spatial axis d. */
int64_t TapPosition(const Window& w, size_t d, int64_t out, int64_t tap) {
  return out * w.strides[d] + tap * w.dilation[d] - w.padding[d];
}

/*! \brief Direct convolution in double over any number of spatial axes:
 *  out[n, f, o...] = sum over the group's channels and the window. */
Reference ConvReference(Window w, int64_t groups) {
  return [w, groups](const std::vector<NDArray>& in, const std::vector<int64_t>& os) {
    const std::vector<int64_t>& xs = in[0].shape();
    const std::vector<int64_t>& ws = in[1].shape();
    const size_t n = w.dims();
    const int64_t cin_group = ws[1], cout_group = ws[0] / groups;
    std::vector<int64_t> taps_shape(ws.begin() + 1, ws.end());  // (channel of the group, k...)
    std::vector<double> out;
    // Offsets are built in place, without an index vector per tap: the sanitizer build's
    // allocator made that the test's main cost.
    ForEachIndex(os, [&](const std::vector<int64_t>& o) {
      double acc = 0;
      const int64_t first_channel = (o[1] / cout_group) * cin_group;
      ForEachIndex(taps_shape, [&](const std::vector<int64_t>& t) {
        int64_t x_at = o[0] * xs[1] + first_channel + t[0];
        for (size_t d = 0; d < n; ++d) {
          int64_t p = TapPosition(w, d, o[2 + d], t[1 + d]);
          if (p < 0 || p >= xs[2 + d]) return;
          x_at = x_at * xs[2 + d] + p;
        }
        int64_t w_at = o[1];
        for (size_t d = 0; d < t.size(); ++d) w_at = w_at * ws[1 + d] + t[d];
        acc += double(F(in[0])[x_at]) * F(in[1])[w_at];
      });
      out.push_back(acc);
    });
    return out;
  };
}

/*! \brief Max or average pooling in double over any number of spatial axes; average divides by
 *  the taps inside the input, or with count_include_pad inside the input and its padding
 *  (PyTorch's rule, ceil mode included). */
Reference PoolReference(Window w, bool is_max, bool count_include_pad) {
  return [=](const std::vector<NDArray>& in, const std::vector<int64_t>& os) {
    const std::vector<int64_t>& xs = in[0].shape();
    const size_t n = w.dims();
    std::vector<double> out;
    ForEachIndex(os, [&](const std::vector<int64_t>& o) {
      double acc = is_max ? -INFINITY : 0;
      int64_t inside = 0, with_pad = 0;
      ForEachIndex(w.kernel, [&](const std::vector<int64_t>& t) {
        int64_t x_at = o[0] * xs[1] + o[1];
        bool in_padded = true, in_input = true;
        for (size_t d = 0; d < n; ++d) {
          int64_t p = TapPosition(w, d, o[2 + d], t[d]);
          in_padded &= p >= -w.padding[d] && p < xs[2 + d] + w.padding[d + n];
          in_input &= p >= 0 && p < xs[2 + d];
          x_at = x_at * xs[2 + d] + p;
        }
        with_pad += in_padded;
        if (!in_input) return;
        double v = F(in[0])[x_at];
        acc = is_max ? std::max(acc, v) : acc + v;
        ++inside;
      });
      if (!is_max) acc /= count_include_pad ? double(with_pad) : double(inside);
      out.push_back(acc);
    });
    return out;
  };
}

TEST(OperatorLibrary, Conv2dMatchesTheDirectReference) {
  std::vector<ConvCase> cases = {
      {{1, 3, 9, 7}, {5, 3, 3, 3}, {{3, 3}, {1, 1}, {0, 0, 0, 0}, {1, 1}}, 1},    // valid
      {{2, 3, 9, 7}, {4, 3, 3, 2}, {{3, 2}, {2, 1}, {1, 0, 2, 1}, {1, 1}}, 1},    // stride, asymmetric padding
      {{1, 4, 11, 10}, {6, 2, 3, 3}, {{3, 3}, {2, 3}, {2, 2, 2, 2}, {2, 2}}, 2},  // groups, dilation
      {{1, 6, 7, 7}, {6, 1, 3, 3}, {{3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}}, 6},    // depthwise
      {{1, 5, 4, 3}, {7, 5, 1, 1}, {{1, 1}, {1, 1}, {0, 0, 0, 0}, {1, 1}}, 1},    // pointwise
  };
  for (const ConvCase& c : cases) {
    Window w = c.window;
    RunKernelCase({"conv2d",
                   {c.x, c.w},
                   [w, c](const std::vector<te::Tensor>& t) {
                     return topi::Conv(t[0], t[1], w.strides, w.padding, w.dilation, c.groups);
                   },
                   ConvReference(w, c.groups)});
  }
}

// 3-D windows (NCDHW, OIDHW): nn.conv3d and the 3-D pools, as written and after the default
// rules (RunKernelCase), and as operators through the default pipeline (its weight a constant,
// as an imported model's): valid, strides with asymmetric padding and dilation, groups,
// depthwise, pointwise; the pools with padding, dilation, both divisors and ceil mode.
TEST(OperatorLibrary, Conv3dAndPool3dMatchTheDirectReference) {
  const std::vector<ConvCase> convs = {
      {{1, 3, 5, 6, 7}, {4, 3, 3, 3, 3}, {{3, 3, 3}, {1, 1, 1}, {0, 0, 0, 0, 0, 0}, {1, 1, 1}}, 1},
      {{2, 3, 7, 6, 5}, {5, 3, 2, 3, 2}, {{2, 3, 2}, {2, 1, 2}, {1, 0, 1, 0, 2, 1}, {1, 2, 1}}, 1},
      {{1, 4, 6, 5, 7}, {6, 2, 3, 1, 3}, {{3, 1, 3}, {1, 2, 1}, {1, 1, 1, 1, 1, 1}, {2, 1, 1}}, 2},
      {{1, 5, 4, 6, 5}, {5, 1, 3, 3, 3}, {{3, 3, 3}, {1, 1, 1}, {1, 1, 1, 1, 1, 1}, {1, 1, 1}}, 5},
      {{1, 6, 3, 4, 5}, {7, 6, 1, 1, 1}, {{1, 1, 1}, {1, 1, 1}, {0, 0, 0, 0, 0, 0}, {1, 1, 1}}, 1},
  };
  for (const ConvCase& c : convs) {
    const Window w = c.window;
    RunKernelCase({"conv3d",
                   {c.x, c.w},
                   [w, c](const std::vector<te::Tensor>& t) {
                     return topi::Conv(t[0], t[1], w.strides, w.padding, w.dilation, c.groups, "NCDHW", "OIDHW");
                   },
                   ConvReference(w, c.groups)});
    Attrs attrs = {{"strides", w.strides}, {"padding", w.padding}, {"dilation", w.dilation}, {"groups", c.groups}};
    RunOpCaseWithConstants("nn.conv3d", attrs, {c.x, c.w}, {false, true}, "default", ConvReference(w, c.groups));
  }
  const std::vector<Window> pools = {
      {{2, 2, 2}, {2, 2, 2}, {0, 0, 0, 0, 0, 0}, {1, 1, 1}},
      {{3, 3, 3}, {2, 1, 2}, {1, 1, 1, 1, 0, 1}, {1, 1, 1}},
      {{2, 3, 2}, {1, 2, 1}, {0, 1, 1, 1, 0, 0}, {2, 1, 1}},
  };
  for (const Window& w : pools) {
    for (int kind = 0; kind < 3; ++kind) {
      const bool is_max = kind == 0, include_pad = kind == 1;
      RunKernelCase({is_max ? "max_pool3d" : "avg_pool3d",
                     {{2, 3, 6, 7, 5}},
                     [=](const std::vector<te::Tensor>& t) {
                       return topi::Pool(t[0], is_max, w.kernel, w.strides, w.padding, w.dilation, include_pad,
                                         /*ceil_mode=*/false, "NCDHW");
                     },
                     PoolReference(w, is_max, include_pad)});
    }
  }
  // Ceil mode through the operator: 5 -> 3 (floor: 2) along D and 7 -> 4 (floor: 3) along W, the
  // last windows reaching past the input.
  const Window ceil_window = {{2, 3, 3}, {2, 2, 2}, {0, 1, 0, 0, 1, 1}, {1, 1, 1}};
  for (bool is_max : {true, false}) {
    Attrs attrs = {{"pool_size", ceil_window.kernel},
                   {"strides", ceil_window.strides},
                   {"padding", ceil_window.padding},
                   {"dilation", ceil_window.dilation},
                   {"ceil_mode", true},
                   {"count_include_pad", false}};
    Reference check_shape = [ref = PoolReference(ceil_window, is_max, false)](const std::vector<NDArray>& in,
                                                                              const std::vector<int64_t>& os) {
      EXPECT_EQ(os, (std::vector<int64_t>{1, 2, 3, 4, 4}));
      return ref(in, os);
    };
    RunOpCase(is_max ? "nn.max_pool3d" : "nn.avg_pool3d", attrs, {{1, 2, 5, 7, 7}}, "default", check_shape);
  }
}

// Channel-blocked layouts (what alter-op-layout chooses): the kernel takes NCHW data and OIHW
// weights, converts them with layout_transform, convolves in the blocked layouts and converts
// the result back, so the direct NCHW reference checks it. Blocked input channels (the two
// reduction axes), NCHW data with a blocked result (a network's first convolution), a result
// blocked differently from the data, strides, dilation, asymmetric padding, depthwise (the
// data's block), grouped (channels indexed whole) and pointwise.
TEST(OperatorLibrary, Conv2dInBlockedLayoutsMatchesTheDirectReference) {
  struct ConvCase {
    std::vector<int64_t> x, w;
    Window window;
    int64_t groups;
    std::string data_layout, kernel_layout, out_layout;
  };
  std::vector<ConvCase> cases = {
      {{1, 8, 9, 7}, {16, 8, 3, 3}, {{3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}}, 1, "NCHW4c", "OIHW4i8o", "NCHW8c"},
      {{2, 3, 9, 7}, {8, 3, 3, 2}, {{3, 2}, {2, 1}, {1, 0, 2, 1}, {1, 1}}, 1, "NCHW", "OIHW8o", "NCHW8c"},
      {{1, 8, 11, 10}, {8, 8, 3, 3}, {{3, 3}, {2, 3}, {2, 2, 2, 2}, {2, 2}}, 1, "NCHW8c", "OIHW8i8o", "NCHW4c"},
      {{1, 16, 7, 9}, {16, 1, 3, 3}, {{3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}}, 16, "NCHW8c", "OIHW8o", "NCHW8c"},
      {{2, 8, 8, 9}, {8, 1, 5, 3}, {{5, 3}, {2, 2}, {2, 1, 1, 2}, {1, 2}}, 8, "NCHW4c", "OIHW4o", ""},
      {{1, 8, 11, 10}, {8, 4, 3, 3}, {{3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}}, 2, "NCHW4c", "OIHW4o", "NCHW4c"},
      {{1, 16, 5, 4}, {32, 16, 1, 1}, {{1, 1}, {1, 1}, {0, 0, 0, 0}, {1, 1}}, 1, "NCHW16c", "OIHW16i16o", "NCHW16c"},
  };
  for (const ConvCase& c : cases) {
    Window w = c.window;
    RunKernelCase({absl::StrCat("conv2d ", c.data_layout, " ", c.kernel_layout, " ", c.out_layout),
                   {c.x, c.w},
                   [w, c](const std::vector<te::Tensor>& t) -> absl::StatusOr<te::Tensor> {
                     MLC_ASSIGN_OR_RETURN(x, topi::LayoutTransform(t[0], "NCHW", c.data_layout));
                     MLC_ASSIGN_OR_RETURN(k, topi::LayoutTransform(t[1], "OIHW", c.kernel_layout));
                     MLC_ASSIGN_OR_RETURN(y, topi::Conv(x, k, w.strides, w.padding, w.dilation, c.groups, c.data_layout,
                                                        c.kernel_layout, c.out_layout));
                     return topi::LayoutTransform(y, c.out_layout.empty() ? c.data_layout : c.out_layout, "NCHW");
                   },
                   ConvReference(w, c.groups)});
  }
}

// The default pipeline's path for convolutions: alter-op-layout (channel blocks of the host's
// vector, weights packed at compile time), then the direct-convolution rule's register tile
// (T.gemm_tile_nd). Blocked data with two output blocks and an odd output width, NCHW data
// (three channels) with a batch, strides and asymmetric padding, depthwise with stride and
// dilation (the data converted to blocks), pointwise with three output blocks, dilation, and
// grouped convolutions (blocks that divide a group). Only the depthwise tile computes its padded
// window per tile.
TEST(OperatorLibrary, BlockedConvolutionsThroughTheDefaultRulesMatchTheDirectReference) {
  std::vector<ConvCase> cases = {
      {{1, 16, 9, 13}, {32, 16, 3, 3}, {{3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}}, 1},
      {{2, 3, 11, 10}, {16, 3, 3, 3}, {{3, 3}, {2, 2}, {1, 0, 2, 1}, {1, 1}}, 1},
      {{1, 16, 10, 9}, {16, 1, 3, 3}, {{3, 3}, {2, 1}, {1, 2, 1, 2}, {1, 2}}, 16},
      {{1, 32, 7, 7}, {48, 32, 1, 1}, {{1, 1}, {1, 1}, {0, 0, 0, 0}, {1, 1}}, 1},
      {{1, 8, 6, 6}, {24, 8, 3, 3}, {{3, 3}, {1, 1}, {2, 2, 2, 2}, {2, 2}}, 1},
      // Grouped: 4 groups of 8 channels (blocks of 8), and 4 groups of 4 inputs and 8 outputs
      // (blocks of 4) with strides.
      {{1, 32, 9, 11}, {32, 8, 3, 3}, {{3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}}, 4},
      {{1, 16, 9, 9}, {32, 4, 3, 3}, {{3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}}, 4},
      // 4.7 MB of weights, beyond half of any L2 here: the input channels in chunks, an init
      // pass, tiles that add to the result.
      {{1, 2048, 5, 5}, {64, 2048, 3, 3}, {{3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}}, 1},
      // Pointwise over 768 channels: chunks again, and the 32 output channels one group of
      // blocks, so the image rows go in parts outside the chunks (parallel).
      {{1, 768, 8, 6}, {32, 768, 1, 1}, {{1, 1}, {1, 1}, {0, 0, 0, 0}, {1, 1}}, 1},
  };
  for (const ConvCase& c : cases) {
    Attrs attrs = {{"strides", c.window.strides},
                   {"padding", c.window.padding},
                   {"dilation", c.window.dilation},
                   {"groups", c.groups}};
    const bool depthwise = c.groups > 1 && c.w[1] == 1;
    std::string text = RunOpCaseWithConstants(
        "nn.conv2d", attrs, {c.x, c.w}, {false, true},
        "alter-op-layout,fuse-ops,legalize,fuse-tir,default-schedule,remove-unused", ConvReference(c.window, c.groups),
        // 18432- and 768-term sums: values within +-0.15 keep float32's rounding
        // (summed in another order than the reference's) inside 1e-5.
        c.x[1] >= 768 ? -0.15f : -1.0f, c.x[1] >= 768 ? 0.15f : 1.0f);
    EXPECT_NE(text.find("T.gemm_tile_nd("), std::string::npos) << text;
    EXPECT_NE(text.find("conv2d_NCHWc"), std::string::npos) << text;
    EXPECT_EQ(text.find("conv2d_NCHWc_init") != std::string::npos, c.x[1] >= 768) << "chunked reduction\n" << text;
    // On AVX-512 the two blocks of 16 are one group of two, a single parallel iteration without
    // parts (AVX2's four blocks of 8 may be tiled in two groups, which need none); the pass
    // goldens conv_chunks_rows_in_parts{,_avx2}.py pin the loops on each.
    if (c.x[1] == 768 && HostHasCpuFeature("avx512f")) {
      EXPECT_NE(text.find("oh_0_fused in T.parallel("), std::string::npos) << "rows in parts\n" << text;
    }
    // Where the padding runs: a depthwise tile pads its own window inside the tile's parallel
    // loop; a regular convolution pads the whole input once, before that loop.
    const size_t tile = text.find("T.block(\"conv2d_NCHWc_o\")");
    const size_t tile_loop = text.rfind("T.parallel(", tile);
    const size_t pad = text.find("T.block(\"pad_temp\")");
    ASSERT_NE(tile_loop, std::string::npos) << text;
    if (pad == std::string::npos) continue;  // no padding
    EXPECT_EQ(pad > tile_loop && pad < tile, depthwise) << "groups " << c.groups << "\n" << text;
  }
}

/*! \brief The graph of testdata/passes/alter_op_layout/padded_channels.py (40 channels between
 *  convolutions, through a bias, ReLU, a per-channel divisor, a depthwise convolution, pooling,
 *  then a convolution and exp), lowered by the default pipeline for `target` and compiled. */
absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> CompileFortyChannelChain(const std::string& target,
                                                                             const std::vector<NDArray>& constants,
                                                                             std::string* text) {
  relax::BlockBuilder bb;
  relax::Var x = relax::MakeVar("x", relax::TensorSInfo({1, 16, 8, 8}, kF32));
  MLC_RETURN_IF_ERROR(bb.BeginFunction("main", std::vector<relax::Var>{x}));
  auto emit = [&](const std::string& op, std::vector<relax::Expr> args, Attrs attrs = {}) {
    return bb.Emit(relax::MakeCall(relax::GetOpOrDie(op), std::move(args), std::move(attrs)));
  };
  auto constant = [&](int i) { return relax::MakeConstant(ToTensorData(constants[i])); };
  const std::vector<int64_t> same = {1, 1, 1, 1};
  MLC_ASSIGN_OR_RETURN(conv, emit("nn.conv2d", {x, constant(0)}, {{"padding", same}}));
  MLC_ASSIGN_OR_RETURN(biased, emit("add", {conv, constant(1)}));
  MLC_ASSIGN_OR_RETURN(relu, emit("nn.relu", {biased}));
  MLC_ASSIGN_OR_RETURN(divided, emit("divide", {relu, constant(2)}));
  MLC_ASSIGN_OR_RETURN(depthwise, emit("nn.conv2d", {divided, constant(3)}, {{"padding", same}, {"groups", 40}}));
  MLC_ASSIGN_OR_RETURN(pooled,
                       emit("nn.max_pool2d", {depthwise},
                            {{"pool_size", std::vector<int64_t>{2, 2}}, {"strides", std::vector<int64_t>{2, 2}}}));
  MLC_ASSIGN_OR_RETURN(projected, emit("nn.conv2d", {pooled, constant(4)}));
  MLC_ASSIGN_OR_RETURN(exp, emit("exp", {pooled}));
  MLC_ASSIGN_OR_RETURN(out, bb.Emit(relax::MakeTuple({projected, exp})));
  MLC_RETURN_IF_ERROR(bb.EmitFuncOutput(out).status());
  MLC_ASSIGN_OR_RETURN(pipeline, passes::ParsePipeline("default"));
  IRModule mod = bb.Get();
  MLC_RETURN_IF_ERROR(RecordTargetFlag(&mod.mutable_attrs(), target));
  MLC_ASSIGN_OR_RETURN(lowered, passes::RunPipeline(mod, pipeline));
  *text = PrintModule(lowered);
  return Compile(lowered);
}

// 40 channels on AVX-512 (x86-64-v4) are padded to 3 blocks of 16 (alter-op-layout): the same
// graph compiled for AVX2 (x86-64-v3, 5 blocks of 8, nothing padded) gives the same results,
// both results (the projection that reads the padded blocks, and exp of the real channels).
// Runs where this CPU has AVX-512; the pass golden padded_channels.py pins the rewrite anywhere.
TEST(OperatorLibrary, PaddedChannelBlocksComputeWhatUnpaddedBlocksDo) {
  if (!HostHasCpuFeature("avx512f")) {
    GTEST_SKIP() << "this CPU (" << HostCpuName() << ") cannot run x86-64-v4 code";
  }
  std::mt19937 rng(11);
  std::vector<NDArray> constants = {Random({40, 16, 3, 3}, &rng), Random({40, 1, 1}, &rng),
                                    Random({40, 1, 1}, &rng, 0.5f, 2.0f), Random({40, 1, 3, 3}, &rng),
                                    Random({16, 40, 1, 1}, &rng)};
  NDArray input = Random({1, 16, 8, 8}, &rng);
  std::string padded_text, plain_text;
  absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> padded =
      CompileFortyChannelChain("x86-64-v4", constants, &padded_text);
  absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> plain =
      CompileFortyChannelChain("x86-64-v3", constants, &plain_text);
  ASSERT_TRUE(padded.ok()) << padded.status();
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_NE(padded_text.find("T.int64(3), T.int64(8), T.int64(8), T.int64(16))"), std::string::npos)
      << "not padded to 3 blocks of 16:\n"
      << padded_text;
  EXPECT_NE(plain_text.find("T.int64(5), T.int64(8), T.int64(8), T.int64(8))"), std::string::npos) << plain_text;
  absl::StatusOr<vm::Value> got = (*padded)->Invoke("main", {vm::Value(input)});
  absl::StatusOr<vm::Value> want = (*plain)->Invoke("main", {vm::Value(input)});
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_TRUE(want.ok()) << want.status();
  for (size_t i = 0; i < 2; ++i) {
    SCOPED_TRACE(i == 0 ? "the projection" : "exp");
    const NDArray& w = want->tuple()[i].tensor();
    std::vector<double> reference(F(w), F(w) + w.NumElements());
    ExpectClose(got->tuple()[i].tensor(), reference);
  }
}

// The same cases through the graph operator: legalized to loops, and dispatched to the BLAS
// runtime function (im2col + SGEMM; the direct depthwise loop for the depthwise case).
TEST(OperatorLibrary, Conv2dOperatorMatchesThroughLoopsAndThroughBlas) {
  std::vector<ConvCase> cases = {
      {{2, 3, 9, 7}, {4, 3, 3, 2}, {{3, 2}, {2, 1}, {1, 0, 2, 1}, {1, 1}}, 1},
      {{1, 4, 11, 10}, {6, 2, 3, 3}, {{3, 3}, {2, 3}, {2, 2, 2, 2}, {2, 2}}, 2},
      {{1, 6, 7, 9}, {6, 1, 3, 3}, {{3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}}, 6},
      {{2, 6, 8, 9}, {6, 1, 5, 3}, {{5, 3}, {2, 2}, {2, 1, 1, 2}, {1, 2}}, 6},
      {{2, 5, 4, 3}, {7, 5, 1, 1}, {{1, 1}, {1, 1}, {0, 0, 0, 0}, {1, 1}}, 1},
  };
  for (const ConvCase& c : cases) {
    Attrs attrs = {{"strides", c.window.strides},
                   {"padding", c.window.padding},
                   {"dilation", c.window.dilation},
                   {"groups", c.groups}};
    std::string loops = RunOpCase("nn.conv2d", attrs, {c.x, c.w}, "legalize", ConvReference(c.window, c.groups));
    EXPECT_EQ(loops.find("mlc.blas"), std::string::npos);
    std::string blas = RunOpCase("nn.conv2d", attrs, {c.x, c.w}, "dispatch-blas", ConvReference(c.window, c.groups));
    EXPECT_NE(blas.find("mlc.blas.conv2d"), std::string::npos);
  }
}

// conv2d-to-gemm's path: nn.conv2d_gemm, its windows packed per panel inside the GEMM kernel.
// Unit strides (windows as contiguous runs of the padded input, junk columns dropped), strides
// (contiguous runs of the input's stride phases), dilation (with and without strides), asymmetric padding, batches,
// pixel counts that are no multiple of the column tile, and a weight given at run time (reshaped by a kernel).
TEST(OperatorLibrary, Conv2dAsGemmMatchesTheDirectReference) {
  struct ConvCase {
    std::vector<int64_t> x, w;
    Window window;
  };
  std::vector<ConvCase> cases = {
      {{1, 8, 7, 7}, {16, 8, 3, 3}, {{3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}}},
      {{2, 3, 9, 7}, {4, 3, 3, 2}, {{3, 2}, {2, 1}, {1, 0, 2, 1}, {1, 1}}},
      {{1, 4, 11, 10}, {6, 4, 3, 3}, {{3, 3}, {1, 1}, {2, 2, 2, 2}, {2, 2}}},
      {{1, 5, 13, 12}, {8, 5, 1, 1}, {{1, 1}, {1, 1}, {0, 0, 0, 0}, {1, 1}}},
      {{1, 3, 16, 16}, {8, 3, 7, 7}, {{7, 7}, {2, 2}, {3, 3, 3, 3}, {1, 1}}},
      {{1, 4, 15, 14}, {6, 4, 3, 3}, {{3, 3}, {2, 2}, {2, 1, 1, 2}, {2, 2}}},  // stride and dilation
      {{1, 2, 9, 13}, {4, 2, 2, 3}, {{2, 3}, {1, 3}, {0, 1, 0, 1}, {1, 1}}},   // one stride only
      {{2, 6, 8, 8}, {8, 6, 1, 1}, {{1, 1}, {2, 2}, {0, 0, 0, 0}, {1, 1}}},    // 1x1 downsample
  };
  for (const ConvCase& c : cases) {
    Attrs attrs = {{"strides", c.window.strides}, {"padding", c.window.padding}, {"dilation", c.window.dilation}};
    std::string text =
        RunOpCase("nn.conv2d", attrs, {c.x, c.w}, "conv2d-to-gemm,fuse-ops,legalize,fuse-tir,default-schedule",
                  ConvReference(c.window, 1));
    EXPECT_NE(text.find("gemm_tile"), std::string::npos) << text;
  }
}

/*! \brief a[..., N, K] @ b[..., K, M] in double, b's batch broadcast when it is a matrix. */
Reference BatchedMatmulReference() {
  return [](const std::vector<NDArray>& in, const std::vector<int64_t>& os) {
    const std::vector<int64_t>& as = in[0].shape();
    const std::vector<int64_t>& bs = in[1].shape();
    int64_t n = as[as.size() - 2], k = as.back(), m = bs.back(), batch = 1;
    for (size_t d = 0; d + 2 < as.size(); ++d) batch *= as[d];
    bool shared_b = bs.size() == 2;
    std::vector<double> out;
    for (int64_t i = 0; i < batch; ++i)
      for (int64_t r = 0; r < n; ++r)
        for (int64_t c = 0; c < m; ++c) {
          double acc = 0;
          for (int64_t p = 0; p < k; ++p) {
            acc += double(F(in[0])[(i * n + r) * k + p]) * F(in[1])[((shared_b ? 0 : i) * k + p) * m + c];
          }
          out.push_back(acc);
        }
    EXPECT_EQ(static_cast<int64_t>(out.size()), NumElements(os));
    return out;
  };
}

/*! \brief GEMMs whose extents the register tiles divide take the micro-kernel path of the
 *  default schedule (packed panels, k blocking, rows folded over a batch) and stay exact. */
TEST(OperatorLibrary, DefaultScheduledGemmsUseTheMicroKernelAndMatch) {
  std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> cases = {
      {{12, 40}, {40, 32}},       // 6 x 16 tiles
      {{2, 8, 24}, {2, 24, 32}},  // batched
      {{3, 4, 16}, {16, 16}},     // batch folded into 12 rows
      {{8, 2048}, {2048, 16}},    // k blocked for L1
  };
  for (const auto& [a, b] : cases) {
    std::string scheduled =
        RunOpCase("matmul", {}, {a, b}, "legalize,default-schedule", BatchedMatmulReference(), -1, 1);
    EXPECT_NE(scheduled.find("T.gemm_tile("), std::string::npos) << scheduled;
    EXPECT_NE(scheduled.find("T.parallel("), std::string::npos) << scheduled;
  }
}

/*! \brief x @ w.T in double. */
Reference DenseReference() {
  return [](const std::vector<NDArray>& in, const std::vector<int64_t>& os) {
    int64_t m = in[0].shape()[0], k = in[0].shape()[1], n = in[1].shape()[0];
    std::vector<double> out;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0;
        for (int64_t p = 0; p < k; ++p) acc += double(F(in[0])[i * k + p]) * F(in[1])[j * k + p];
        out.push_back(acc);
      }
    EXPECT_EQ(static_cast<int64_t>(out.size()), NumElements(os));
    return out;
  };
}

// A dense layer of one to three rows (batch 1) with a constant weight: a few-row register tile
// over k-major panels of the weight, packed at compile time (pack-constants), no dot products.
TEST(OperatorLibrary, FewRowDenseLayersUseTheTileOverPackedWeights) {
  for (const auto& [x, w] : std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>>{
           {{1, 784}, {128, 784}}, {{3, 50}, {64, 50}}, {{1, 40}, {1000, 40}}}) {
    std::string text = RunOpCaseWithConstants(
        "nn.dense", {}, {x, w}, {false, true},
        "fuse-ops,legalize,fuse-tir,default-schedule,pack-constants,remove-unused", DenseReference());
    EXPECT_NE(text.find("T.gemm_tile("), std::string::npos) << text;
    EXPECT_NE(text.find("_packed"), std::string::npos) << "the weight is packed at compile time\n" << text;
  }
}

TEST(OperatorLibrary, MatmulOperatorMatchesThroughLoopsAndThroughBlas) {
  std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> cases = {
      {{7, 129}, {129, 5}}, {{2, 3, 7, 9}, {9, 5}}, {{2, 3, 7, 9}, {2, 3, 9, 5}}};
  for (const auto& [a, b] : cases) {
    std::string loops = RunOpCase("matmul", {}, {a, b}, "legalize", BatchedMatmulReference());
    EXPECT_EQ(loops.find("mlc.blas"), std::string::npos);
    std::string blas = RunOpCase("matmul", {}, {a, b}, "dispatch-blas", BatchedMatmulReference());
    EXPECT_NE(blas.find("mlc.blas.matmul"), std::string::npos);
  }
  // Broadcast batch dimensions stay with the loop programs: (2, 1, 7, 9) @ (3, 9, 5).
  std::string broadcast =
      RunOpCase("matmul", {}, {{2, 1, 7, 9}, {3, 9, 5}}, "dispatch-blas,legalize",
                [](const std::vector<NDArray>& in, const std::vector<int64_t>&) {
                  std::vector<double> out;
                  for (int i = 0; i < 2; ++i)
                    for (int j = 0; j < 3; ++j)
                      for (int r = 0; r < 7; ++r)
                        for (int c = 0; c < 5; ++c) {
                          double acc = 0;
                          for (int p = 0; p < 9; ++p) {
                            acc += double(F(in[0])[(i * 7 + r) * 9 + p]) * F(in[1])[(j * 9 + p) * 5 + c];
                          }
                          out.push_back(acc);
                        }
                  return out;
                });
  EXPECT_EQ(broadcast.find("mlc.blas"), std::string::npos);
}

// relu(add(multiply(conv2d(x, W), s), b)) with constant W, s and b (conv + eval batch norm +
// ReLU) becomes one mlc.blas.conv2d: fold-scale-into-conv scales W, dispatch-blas runs the
// bias and the ReLU as the call's epilogue; the numbers match the direct reference.
TEST(OperatorLibrary, ConvBatchNormReluRunsAsOneBlasCall) {
  Window win{{3, 3}, {2, 1}, {1, 1, 1, 1}, {1, 1}};
  std::mt19937 rng(11);
  NDArray w = Random({6, 3, 3, 3}, &rng), scale = Random({6, 1, 1}, &rng, 0.5f, 1.5f), bias = Random({6, 1, 1}, &rng);
  relax::BlockBuilder bb;
  relax::Var x = relax::MakeVar("x", relax::TensorSInfo({2, 3, 9, 8}, kF32));
  ASSERT_TRUE(bb.BeginFunction("main", std::vector<relax::Var>{x}).ok());
  Attrs attrs = {
      {"strides", win.strides}, {"padding", win.padding}, {"dilation", win.dilation}, {"groups", int64_t{1}}};
  absl::StatusOr<relax::Var> conv =
      bb.Emit(relax::MakeCall(relax::GetOpOrDie("nn.conv2d"), {x, relax::MakeConstant(ToTensorData(w))}, attrs));
  ASSERT_TRUE(conv.ok()) << conv.status();
  absl::StatusOr<relax::Var> scaled =
      bb.Emit(relax::MakeCall(relax::GetOpOrDie("multiply"), {*conv, relax::MakeConstant(ToTensorData(scale))}));
  ASSERT_TRUE(scaled.ok()) << scaled.status();
  absl::StatusOr<relax::Var> add =
      bb.Emit(relax::MakeCall(relax::GetOpOrDie("add"), {*scaled, relax::MakeConstant(ToTensorData(bias))}));
  ASSERT_TRUE(add.ok()) << add.status();
  absl::StatusOr<relax::Var> relu = bb.Emit(relax::MakeCall(relax::GetOpOrDie("nn.relu"), {*add}));
  ASSERT_TRUE(relu.ok()) << relu.status();
  ASSERT_TRUE(bb.EmitFuncOutput(*relu).ok());
  absl::StatusOr<std::vector<std::unique_ptr<passes::Pass>>> pipeline =
      passes::ParsePipeline("fold-scale-into-conv,dispatch-blas");
  ASSERT_TRUE(pipeline.ok());
  absl::StatusOr<IRModule> lowered = passes::RunPipeline(bb.Get(), *pipeline);
  ASSERT_TRUE(lowered.ok()) << lowered.status();
  std::string text = PrintModule(*lowered);
  EXPECT_NE(text.find("mlc.blas.conv2d"), std::string::npos) << text;
  EXPECT_EQ(text.find("R.add"), std::string::npos) << text;
  EXPECT_EQ(text.find("R.multiply"), std::string::npos) << text;
  EXPECT_EQ(text.find("R.nn.relu"), std::string::npos) << text;
  absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> vm = Compile(*lowered);
  ASSERT_TRUE(vm.ok()) << vm.status();
  NDArray input = Random({2, 3, 9, 8}, &rng);
  absl::StatusOr<vm::Value> out = (*vm)->Invoke("main", {vm::Value(input)});
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<double> want = ConvReference(win, 1)({input, w}, out->tensor().shape());
  int64_t spatial = out->tensor().shape()[2] * out->tensor().shape()[3];
  for (size_t i = 0; i < want.size(); ++i) {
    int64_t f = (i / spatial) % 6;
    want[i] = std::max(0.0, want[i] * F(scale)[f] + F(bias)[f]);
  }
  ExpectClose(out->tensor(), want);
}

/*! \brief One QDQ layer: relu(op(dequantize(xq, sx, zx), dequantize(wq, w_scale, 0)) + bias), the
 *  weight's scales along `w_axis`; what qdq-to-integer folds into one int8 kernel. */
struct QdqLayer {
  std::vector<int64_t> x_shape;
  DataType x_dtype;
  double sx, zx;
  TensorData wq;
  NDArray w_scale;
  int64_t w_axis;
  std::string op;
  Attrs op_attrs;
  NDArray bias;
  std::string target = "";  // the module's target; empty: the host
  // An integer out_dtype: the result goes through quantize(out, out_scale, out_zero) (the next
  // layer's input, which qdq-to-integer fuses into the kernel).
  DataType out_dtype = DataType::Float32();
  double out_scale = 1, out_zero = 0;
  double clip_hi = 0;               // > 0: the quantized result clipped to at most this first (ReLU6's minimum)
  std::string activation = "relu";  // or "silu" / "hardswish", as the importers write them
};

/*! \brief The dtype of the weight (the second argument) main's first call of `kernel` passes, or
 *  nullopt when there is none. */
std::optional<DataType> KernelWeightDtype(const IRModule& mod, const std::string& kernel) {
  const auto* seq = mod.LookupFunction("main")->body.as<relax::SeqExprNode>();
  for (const relax::BindingBlock& block : seq->blocks) {
    for (const relax::VarBinding& binding : block->bindings) {
      const auto* call = binding->value.as<relax::CallNode>();
      const auto* callee = call != nullptr && !call->args.empty() ? call->args[0].as<relax::ExternFuncNode>() : nullptr;
      if (callee == nullptr || callee->global_symbol != kernel || call->args.size() < 2) continue;
      const auto* operands = call->args[1].as<relax::TupleNode>();
      const auto* weight =
          operands != nullptr && operands->fields.size() > 1 ? operands->fields[1].as<relax::ConstantNode>() : nullptr;
      if (weight != nullptr) return weight->data.dtype();
    }
  }
  return std::nullopt;
}

/*! \brief The layer as main(xq), lowered by the default pipeline and compiled; `text` gets the
 *  lowered module's text and `weight_dtype` (if given) the dtype of the int8 kernel's weight. */
absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> CompileQdqLayer(const QdqLayer& l, std::string* text,
                                                                    std::optional<DataType>* weight_dtype = nullptr) {
  relax::BlockBuilder bb;
  relax::Var xq = relax::MakeVar("xq", relax::TensorSInfo(l.x_shape, l.x_dtype));
  MLC_RETURN_IF_ERROR(bb.BeginFunction("main", std::vector<relax::Var>{xq}));
  auto emit = [&](const std::string& op, std::vector<relax::Expr> args, Attrs attrs = {}) {
    return bb.Emit(relax::MakeCall(relax::GetOpOrDie(op), std::move(args), std::move(attrs)));
  };
  MLC_ASSIGN_OR_RETURN(x, emit("dequantize", {xq, relax::MakeConstant(ScalarTensor(l.sx, kF32)),
                                              relax::MakeConstant(ScalarTensor(l.zx, l.x_dtype))}));
  MLC_ASSIGN_OR_RETURN(w, emit("dequantize",
                               {relax::MakeConstant(l.wq), relax::MakeConstant(ToTensorData(l.w_scale)),
                                relax::MakeConstant(ScalarTensor(0, DataType::Int(8)))},
                               {{"axis", l.w_axis}}));
  MLC_ASSIGN_OR_RETURN(product, emit(l.op, {x, w}, l.op_attrs));
  MLC_ASSIGN_OR_RETURN(biased, emit("add", {product, relax::MakeConstant(ToTensorData(l.bias))}));
  relax::Expr out;
  if (l.activation == "silu") {
    MLC_ASSIGN_OR_RETURN(gate, emit("sigmoid", {biased}));
    MLC_ASSIGN_OR_RETURN(activated, emit("multiply", {biased, gate}));
    out = activated;
  } else if (l.activation == "hardswish") {  // as frontend/common/activations.cc writes it
    MLC_ASSIGN_OR_RETURN(scaled, emit("multiply", {biased, relax::MakeConstant(ScalarTensor(1.0 / 6.0, kF32))}));
    MLC_ASSIGN_OR_RETURN(shifted, emit("add", {scaled, relax::MakeConstant(ScalarTensor(0.5, kF32))}));
    MLC_ASSIGN_OR_RETURN(floor, emit("maximum", {shifted, relax::MakeConstant(ScalarTensor(0, kF32))}));
    MLC_ASSIGN_OR_RETURN(gate, emit("minimum", {floor, relax::MakeConstant(ScalarTensor(1, kF32))}));
    MLC_ASSIGN_OR_RETURN(activated, emit("multiply", {biased, gate}));
    out = activated;
  } else {
    MLC_ASSIGN_OR_RETURN(activated, emit("nn.relu", {biased}));
    out = activated;
  }
  if (l.clip_hi > 0) {
    MLC_ASSIGN_OR_RETURN(clipped, emit("minimum", {out, relax::MakeConstant(ScalarTensor(l.clip_hi, kF32))}));
    out = clipped;
  }
  if (l.out_dtype.is_integer()) {
    MLC_ASSIGN_OR_RETURN(quantized, emit("quantize",
                                         {out, relax::MakeConstant(ScalarTensor(l.out_scale, kF32)),
                                          relax::MakeConstant(ScalarTensor(l.out_zero, l.out_dtype))},
                                         {{"out_dtype", l.out_dtype}}));
    out = quantized;
  }
  MLC_RETURN_IF_ERROR(bb.EmitFuncOutput(out).status());
  MLC_ASSIGN_OR_RETURN(pipeline, passes::ParsePipeline("default"));
  IRModule mod = bb.Get();
  MLC_RETURN_IF_ERROR(RecordTargetFlag(&mod.mutable_attrs(), l.target));
  MLC_ASSIGN_OR_RETURN(lowered, passes::RunPipeline(mod, pipeline));
  *text = PrintModule(lowered);
  if (weight_dtype != nullptr)
    *weight_dtype = KernelWeightDtype(lowered, l.op == "nn.conv2d" ? "mlc.int8.conv2d" : "mlc.int8.dense");
  return Compile(lowered);
}

/*! \brief Random int8 or uint8 values over the type's whole range, and their dequantized values. */
std::pair<NDArray, std::vector<double>> RandomQuantized(const std::vector<int64_t>& shape, DataType dtype, double scale,
                                                        double zero_point, std::mt19937* rng) {
  NDArray q = NDArray::Empty(shape, DLDataType{static_cast<uint8_t>(dtype.is_int() ? kDLInt : kDLUInt), 8, 1});
  std::uniform_int_distribution<int> value(dtype.is_int() ? -128 : 0, dtype.is_int() ? 127 : 255);
  std::vector<double> real;
  for (int64_t i = 0; i < q.NumElements(); ++i) {
    int v = value(*rng);
    static_cast<uint8_t*>(q.data())[i] = static_cast<uint8_t>(v);
    real.push_back((v - zero_point) * scale);
  }
  return {q, real};
}

/*! \brief Calls `check` once per int8 code path (vm/library/int8_common.h) this CPU has, with
 *  MLC_INT8_PATH asking for it, and says which paths it skips. */
void ForEachInt8Path(const std::function<void()>& check) {
  for (const vm::Int8PathInfo& path : vm::Int8Paths()) {
    if (!path.available) {
      std::printf("[  SKIPPED ] the %s int8 path: this CPU (%s) lacks its features\n", path.name,
                  HostCpuName().c_str());
      continue;
    }
    setenv("MLC_INT8_PATH", path.name, 1);
    SCOPED_TRACE(absl::StrCat("on the ", path.name, " int8 path"));
    check();
  }
  unsetenv("MLC_INT8_PATH");
}

/*! \brief Runs main(input) on every int8 code path this CPU has, comparing each with `want`. */
void ExpectEveryInt8Path(vm::VirtualMachine* machine, const NDArray& input, const std::vector<double>& want) {
  ForEachInt8Path([&] {
    absl::StatusOr<vm::Value> got = machine->Invoke("main", {vm::Value(input)});
    ASSERT_TRUE(got.ok()) << got.status();
    ExpectClose(got->tensor(), want, 1e-4, 1e-4);
  });
}

/*! \brief Runs main(input) of `fused` (a layer whose result is quantized, the quantize fused into
 *  the int8 kernel) and of `unfused` (the same layer's float result) on every int8 code path
 *  this CPU has: the fused bytes must equal the float result quantized as topi::Quantize does
 *  (round half to even, zero point, saturation), exactly. */
void ExpectRequantizedOnEveryInt8Path(vm::VirtualMachine* fused, vm::VirtualMachine* unfused, const NDArray& input,
                                      float scale, float zero, DataType out_dtype,
                                      float clip_hi = std::numeric_limits<float>::infinity()) {
  const float lo = out_dtype.is_int() ? -128.0f : 0.0f, hi = out_dtype.is_int() ? 127.0f : 255.0f;
  const bool clipped = std::isfinite(clip_hi);
  int saturated = 0;
  ForEachInt8Path([&] {
    SCOPED_TRACE("requantized");
    absl::StatusOr<vm::Value> got = fused->Invoke("main", {vm::Value(input)});
    absl::StatusOr<vm::Value> real = unfused->Invoke("main", {vm::Value(input)});
    ASSERT_TRUE(got.ok()) << got.status();
    ASSERT_TRUE(real.ok()) << real.status();
    const NDArray& q = got->tensor();
    ASSERT_EQ(q.dtype().bits, 8);
    ASSERT_EQ(q.NumElements(), real->tensor().NumElements());
    for (int64_t i = 0; i < q.NumElements(); ++i) {
      const float v = static_cast<const float*>(real->tensor().data())[i];
      saturated += clipped ? v > clip_hi : std::nearbyint(v / scale) + zero > hi;
      float want = std::nearbyint(std::min(v, clip_hi) / scale) + zero;
      want = std::min(std::max(want, lo), hi);
      const int byte = static_cast<const uint8_t*>(q.data())[i];
      const int value = out_dtype.is_int() ? static_cast<int8_t>(byte) : byte;
      ASSERT_EQ(value, static_cast<int>(want)) << "element " << i;
    }
  });
  EXPECT_GT(saturated, 0) << "no value reached the saturation or the clip: the test does not check it";
}

/*! \brief An int8 tensor of random values over the whole range. */
TensorData RandomInt8(const std::vector<int64_t>& shape, std::mt19937* rng) {
  std::uniform_int_distribution<int> byte(-128, 127);
  TensorData t(DataType::Int(8), shape);
  for (int64_t i = 0; i < t.NumElements(); ++i)
    static_cast<int8_t*>(t.mutable_data())[i] = static_cast<int8_t>(byte(*rng));
  return t;
}

// conv2d(dequantize(xq), dequantize(wq)) + bias, ReLU (the QDQ format) becomes one
// mlc.int8.conv2d (qdq-to-integer) whose int32 accumulation matches the dequantized convolution
// computed here in double: uint8 and int8 activations, per-channel weight scales, a reduction
// of 45 (not a multiple of 4), 13 channels (a partial register tile), 4 x 5 = 20 pixels (a
// partial panel), strides, dilation and uneven padding; on every int8 path this CPU has, with
// the int8 weight of a VNNI target and the int16 weight of an AVX2 one.
/*! \brief The QDQ convolution of the test below, for one geometry (kernel 3 x 3). */
void CheckQdqConv(const Window& win, int64_t n, int64_t c, int64_t h, int64_t w, int64_t f, uint32_t seed) {
  std::mt19937 rng(seed);
  TensorData wq = RandomInt8({f, c, 3, 3}, &rng);
  NDArray w_scale = Random({f}, &rng, 0.001f, 0.01f), bias = Random({f, 1, 1}, &rng);
  NDArray wd = NDArray::Empty({f, c, 3, 3}, DLDataType{kDLFloat, 32, 1});
  for (int64_t i = 0; i < wd.NumElements(); ++i) {
    static_cast<float*>(wd.data())[i] = static_cast<float>(wq.data_as<int8_t>()[i] * F(w_scale)[i / (c * 9)]);
  }
  // Compiled for the host, for AVX2 without VNNI (x86-64-v3), where the weight is int16, and for
  // AVX2 with AVX-VNNI, where it is int8 (when this CPU runs that target).
  std::vector<std::string> targets = {"", "x86-64-v3"};
  if (HostHasCpuFeature("avxvnni"))
    targets.push_back("llvm -mcpu=x86-64-v3 -mattr=+avxvnni");
  else
    std::printf("[  SKIPPED ] the QDQ convolution for x86-64-v3 with AVX-VNNI: this CPU (%s) lacks avxvnni\n",
                HostCpuName().c_str());
  for (const std::string& target : targets) {
    absl::StatusOr<Target> parsed = target.empty() ? Target::Host() : Target::Parse(target);
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    for (DataType x_dtype : {DataType::UInt(8), DataType::Int(8)}) {
      SCOPED_TRACE(absl::StrCat(x_dtype.ToString(), " for ", target.empty() ? "the host" : target));
      const double sx = 0.03, zx = x_dtype == DataType::UInt(8) ? 131 : -7;
      Attrs conv = {{"strides", win.strides}, {"padding", win.padding}, {"dilation", win.dilation}};
      std::string text;
      std::optional<DataType> weight_dtype;
      absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> vm = CompileQdqLayer(
          {{n, c, h, w}, x_dtype, sx, zx, wq, w_scale, 0, "nn.conv2d", conv, bias, target}, &text, &weight_dtype);
      ASSERT_TRUE(vm.ok()) << vm.status();
      EXPECT_NE(text.find("mlc.int8.conv2d"), std::string::npos) << text;
      EXPECT_EQ(text.find("conv2d_gemm"), std::string::npos) << text;
      EXPECT_EQ(weight_dtype, parsed->has_int8_dot_product() ? DataType::Int(8) : DataType::Int(16));
      auto [input, real] = RandomQuantized({n, c, h, w}, x_dtype, sx, zx, &rng);
      // The reference: the float convolution of the dequantized operands (padding is real 0).
      NDArray xd = NDArray::Empty({n, c, h, w}, DLDataType{kDLFloat, 32, 1});
      for (size_t i = 0; i < real.size(); ++i) static_cast<float*>(xd.data())[i] = static_cast<float>(real[i]);
      const std::vector<int64_t> out_shape = {n, f, OutExtentOf(h, 0, win), OutExtentOf(w, 1, win)};
      std::vector<double> want = ConvReference(win, 1)({xd, wd}, out_shape);
      const int64_t spatial = out_shape[2] * out_shape[3];
      for (size_t i = 0; i < want.size(); ++i) want[i] = std::max(0.0, want[i] + F(bias)[(i / spatial) % f]);
      ExpectEveryInt8Path(vm->get(), input, want);
      // The next layer's quantize fused into the kernel (uint8 and int8 results): the bytes of
      // the float result quantized; a scale that saturates the largest values.
      double largest = *std::max_element(want.begin(), want.end());
      for (DataType out_dtype : {DataType::UInt(8), DataType::Int(8)}) {
        SCOPED_TRACE(out_dtype.ToString());
        const double out_scale = largest / 200, out_zero = out_dtype.is_int() ? -50 : 60;
        std::string fused_text;
        absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> fused = CompileQdqLayer({{n, c, h, w},
                                                                                     x_dtype,
                                                                                     sx,
                                                                                     zx,
                                                                                     wq,
                                                                                     w_scale,
                                                                                     0,
                                                                                     "nn.conv2d",
                                                                                     conv,
                                                                                     bias,
                                                                                     target,
                                                                                     out_dtype,
                                                                                     out_scale,
                                                                                     out_zero},
                                                                                    &fused_text);
        ASSERT_TRUE(fused.ok()) << fused.status();
        EXPECT_EQ(fused_text.find("T_quantize"), std::string::npos) << "the quantize was not fused:\n" << fused_text;
        ExpectRequantizedOnEveryInt8Path(fused->get(), vm->get(), input, static_cast<float>(out_scale),
                                         static_cast<float>(out_zero), out_dtype);
      }
      // ReLU6's clip between the layer and the quantize goes into the kernel too (its float
      // result clipped, then quantized): a clip at half the largest value.
      QdqLayer relu6{{n, c, h, w},      x_dtype,       sx, zx, wq, w_scale, 0, "nn.conv2d", conv, bias, target,
                     DataType::UInt(8), largest / 200, 60};
      relu6.clip_hi = largest / 2;
      std::string relu6_text;
      absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> clipped = CompileQdqLayer(relu6, &relu6_text);
      ASSERT_TRUE(clipped.ok()) << clipped.status();
      EXPECT_EQ(relu6_text.find("T_quantize"), std::string::npos) << "the clip and quantize were not fused:\n"
                                                                  << relu6_text;
      ExpectRequantizedOnEveryInt8Path(clipped->get(), vm->get(), input, static_cast<float>(largest / 200), 60,
                                       DataType::UInt(8), static_cast<float>(largest / 2));
    }
  }
}

/*! \brief A QDQ convolution followed by `activation` ("silu" or "hardswish", as the importers
 *  write them) runs as one mlc.int8.conv2d (no `leftover` op in the lowered module), and with
 *  it the next layer's quantize: the float result matches `act` of the dequantized convolution,
 *  and the fused bytes equal the float result quantized, on every int8 path this CPU has and
 *  for the AVX2 target's int16 weights. */
void CheckQdqConvActivation(const std::string& activation, const std::string& leftover,
                            const std::function<double(double)>& act) {
  const Window win{{3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}};
  const int64_t n = 1, c = 6, h = 9, w = 11, f = 19;
  std::mt19937 rng(11);
  TensorData wq = RandomInt8({f, c, 3, 3}, &rng);
  NDArray w_scale = Random({f}, &rng, 0.001f, 0.01f), bias = Random({f, 1, 1}, &rng);
  NDArray wd = NDArray::Empty({f, c, 3, 3}, DLDataType{kDLFloat, 32, 1});
  for (int64_t i = 0; i < wd.NumElements(); ++i)
    static_cast<float*>(wd.data())[i] = static_cast<float>(wq.data_as<int8_t>()[i] * F(w_scale)[i / (c * 9)]);
  const double sx = 0.03, zx = 131;
  Attrs conv = {{"strides", win.strides}, {"padding", win.padding}, {"dilation", win.dilation}};
  for (const std::string target : {"", "x86-64-v3"}) {
    SCOPED_TRACE(target.empty() ? "the host" : target);
    QdqLayer layer{{n, c, h, w}, DataType::UInt(8), sx, zx, wq, w_scale, 0, "nn.conv2d", conv, bias, target};
    layer.activation = activation;
    std::string text;
    absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> vm = CompileQdqLayer(layer, &text);
    ASSERT_TRUE(vm.ok()) << vm.status();
    EXPECT_NE(text.find("mlc.int8.conv2d"), std::string::npos) << text;
    EXPECT_EQ(text.find(leftover), std::string::npos) << "the " << activation << " was not fused:\n" << text;
    auto [input, real] = RandomQuantized({n, c, h, w}, DataType::UInt(8), sx, zx, &rng);
    NDArray xd = NDArray::Empty({n, c, h, w}, DLDataType{kDLFloat, 32, 1});
    for (size_t i = 0; i < real.size(); ++i) static_cast<float*>(xd.data())[i] = static_cast<float>(real[i]);
    const std::vector<int64_t> out_shape = {n, f, OutExtentOf(h, 0, win), OutExtentOf(w, 1, win)};
    std::vector<double> want = ConvReference(win, 1)({xd, wd}, out_shape);
    const int64_t spatial = out_shape[2] * out_shape[3];
    for (size_t i = 0; i < want.size(); ++i) {
      want[i] = act(want[i] + F(bias)[(i / spatial) % f]);
    }
    ExpectEveryInt8Path(vm->get(), input, want);
    const double largest = *std::max_element(want.begin(), want.end());
    QdqLayer quantized = layer;
    quantized.out_dtype = DataType::UInt(8);
    quantized.out_scale = largest / 200;
    quantized.out_zero = 60;
    std::string fused_text;
    absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> fused = CompileQdqLayer(quantized, &fused_text);
    ASSERT_TRUE(fused.ok()) << fused.status();
    EXPECT_EQ(fused_text.find("T_quantize"), std::string::npos) << "the quantize was not fused:\n" << fused_text;
    ExpectRequantizedOnEveryInt8Path(fused->get(), vm->get(), input, static_cast<float>(largest / 200), 60,
                                     DataType::UInt(8));
  }
}

// SiLU (multiply(y, sigmoid(y))) after a QDQ convolution goes into mlc.int8.conv2d's epilogue
// (qdq-to-integer), in the compiled kernels' steps (see the test below).
TEST(OperatorLibrary, QdqConvWithSiluRunsAsOneInt8CallAndMatchesTheDequantizedReference) {
  CheckQdqConvActivation("silu", "sigmoid", [](double y) { return y / (1 + std::exp(-y)); });
}

// HardSwish (y * min(max(y / 6 + 1/2, 0), 1), MobileNetV3's) too.
TEST(OperatorLibrary, QdqConvWithHardSwishRunsAsOneInt8CallAndMatchesTheDequantizedReference) {
  CheckQdqConvActivation("hardswish", "minimum",
                         [](double y) { return y * std::min(std::max(y / 6 + 0.5, 0.0), 1.0); });
}

// The runtime's SiLU (vm/library/silu.h: an int8 convolution's fused epilogue) gives the bits of
// the compiled x * sigmoid(x), in its portable, AVX2 and AVX-512 versions (those this CPU has),
// over values from -100 to 100, so fusing SiLU into the kernel changes no quantized byte.
TEST(OperatorLibrary, RuntimeSiluGivesTheBitsOfTheCompiledSilu) {
  const int64_t count = 4096;
  NDArray x = NDArray::Empty({count}, DLDataType{kDLFloat, 32, 1});
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> wide(-100.0f, 100.0f), narrow(-6.0f, 6.0f);
  float* xs = static_cast<float*>(x.data());
  for (int64_t i = 0; i < count; ++i) xs[i] = i % 2 == 0 ? wide(rng) : narrow(rng);
  xs[0] = 0.0f, xs[1] = -0.0f, xs[2] = -87.5f, xs[3] = 88.0f;
  xs[4] = -std::numeric_limits<float>::infinity(), xs[5] = std::numeric_limits<float>::infinity();
  relax::BlockBuilder bb;
  relax::Var in = relax::MakeVar("x", relax::TensorSInfo({count}, DataType::Float32()));
  ASSERT_TRUE(bb.BeginFunction("main", std::vector<relax::Var>{in}).ok());
  absl::StatusOr<relax::Var> gate = bb.Emit(relax::MakeCall(relax::GetOpOrDie("sigmoid"), {in}));
  ASSERT_TRUE(gate.ok());
  absl::StatusOr<relax::Var> silu = bb.Emit(relax::MakeCall(relax::GetOpOrDie("multiply"), {in, *gate}));
  ASSERT_TRUE(silu.ok());
  ASSERT_TRUE(bb.EmitFuncOutput(*silu).ok());
  absl::StatusOr<std::vector<std::unique_ptr<passes::Pass>>> pipeline = passes::ParsePipeline("default");
  ASSERT_TRUE(pipeline.ok());
  absl::StatusOr<IRModule> lowered = passes::RunPipeline(bb.Get(), *pipeline);
  ASSERT_TRUE(lowered.ok()) << lowered.status();
  absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> machine = Compile(*lowered);
  ASSERT_TRUE(machine.ok()) << machine.status();
  absl::StatusOr<vm::Value> compiled = (*machine)->Invoke("main", {vm::Value(x)});
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  const float* want = static_cast<const float*>(compiled->tensor().data());
  auto expect_bits = [&](const std::vector<float>& got, const char* version) {
    for (int64_t i = 0; i < count; ++i) {
      ASSERT_EQ(std::memcmp(&got[i], &want[i], 4), 0)
          << version << " SiLU of " << xs[i] << ": " << got[i] << " against the compiled " << want[i];
    }
  };
  std::vector<float> scalar(count);
  for (int64_t i = 0; i < count; ++i) scalar[i] = vm::Silu(xs[i]);
  expect_bits(scalar, "the portable");
  if (HostHasCpuFeature("avx2") && HostHasCpuFeature("fma")) {
    std::vector<float> v(xs, xs + count);
    vm::SiluInPlaceAvx2(v.data(), count);
    expect_bits(v, "the AVX2");
  } else {
    std::printf("[  SKIPPED ] the AVX2 SiLU: this CPU (%s) lacks avx2 or fma\n", HostCpuName().c_str());
  }
  if (HostHasCpuFeature("avx512f")) {
    std::vector<float> v(xs, xs + count);
    vm::SiluInPlaceAvx512(v.data(), count);
    expect_bits(v, "the AVX-512");
  } else {
    std::printf("[  SKIPPED ] the AVX-512 SiLU: this CPU (%s) lacks avx512f\n", HostCpuName().c_str());
  }
}

TEST(OperatorLibrary, QdqConvRunsAsOneInt8CallAndMatchesTheDequantizedReference) {
  CheckQdqConv(Window{{3, 3}, {2, 1}, {1, 2, 0, 1}, {1, 2}}, 2, 5, 9, 7, 13, 5);
}

// The same with rows of taps long enough for the packing's vector paths: 21 output columns at
// stride 2 (16 taps at a time, then the rest), and at stride 1.
TEST(OperatorLibrary, QdqConvWithLongStridedRowsMatchesTheDequantizedReference) {
  CheckQdqConv(Window{{3, 3}, {1, 2}, {1, 1, 1, 1}, {1, 1}}, 1, 3, 5, 41, 5, 6);
  CheckQdqConv(Window{{3, 3}, {1, 1}, {0, 1, 0, 1}, {1, 1}}, 1, 3, 4, 40, 5, 7);
}

// Without padding a uint8 image is read in place, not copied (pointwise convolutions): runs of
// taps up to the image's last byte, at strides 1 and 2, two images (each read up to its end,
// the second's the buffer's), on every path; under the sanitizers a read past the tensor fails.
TEST(OperatorLibrary, QdqConvReadingItsImageInPlaceMatchesTheDequantizedReference) {
  CheckQdqConv(Window{{3, 3}, {1, 1}, {0, 0, 0, 0}, {1, 1}}, 2, 3, 6, 37, 5, 9);
  CheckQdqConv(Window{{3, 3}, {2, 2}, {0, 0, 0, 0}, {1, 1}}, 2, 2, 7, 21, 4, 10);
}

// A reduction of 4608 (512 channels x 3 x 3) over 16 x 16 pixels: the kernel splits the pixels
// into cache blocks of at most half of L2 (several on a CPU with 2 MB of L2 or less).
TEST(OperatorLibrary, QdqConvOverSeveralCacheBlocksMatchesTheDequantizedReference) {
  CheckQdqConv(Window{{3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}}, 1, 512, 16, 16, 13, 8);
}

// A reduction of 576 (64 channels x 3 x 3, a whole number of AMX tile rows of 64 bytes) and 51
// output channels (a block of two 16-channel tiles, one of a single tile and 3 channels left to
// the VNNI tile) over 7 x 7 pixels (a panel and a partial one): on a CPU with AMX, the AMX path
// covers every case it has.
TEST(OperatorLibrary, QdqConvInWholeAmxTilesMatchesTheDequantizedReference) {
  CheckQdqConv(Window{{3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}}, 2, 64, 7, 7, 51, 9);
}

/*! \brief A QDQ inverted residual as main(xq): an int8 1 x 1 expansion (16 -> 32 channels, ReLU),
 *  a float depthwise 3 x 3 convolution (ReLU) and an int8 1 x 1 projection (32 -> 16), then the
 *  next block's expansion and depthwise convolution, each result quantized and dequantized,
 *  lowered by the default pipeline for `target` (without alter-op-layout unless `blocked`:
 *  everything in NCHW) and compiled. */
absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> CompileInvertedResidual(const std::string& target, bool blocked,
                                                                            std::string* text) {
  std::mt19937 rng(23);
  relax::BlockBuilder bb;
  relax::Var xq = relax::MakeVar("xq", relax::TensorSInfo({1, 16, 10, 10}, DataType::UInt(8)));
  MLC_RETURN_IF_ERROR(bb.BeginFunction("main", std::vector<relax::Var>{xq}));
  MLC_RETURN_IF_ERROR(bb.BeginDataflow());  // as the importers emit it: fuse-ops and split-padding act
  auto emit = [&](const std::string& op, std::vector<relax::Expr> args, Attrs attrs = {}) {
    return bb.Emit(relax::MakeCall(relax::GetOpOrDie(op), std::move(args), std::move(attrs)));
  };
  auto scalar = [](double v, DataType t) { return relax::MakeConstant(ScalarTensor(v, t)); };
  auto dequantize = [&](const relax::Expr& q, double scale, double zero) {
    return emit("dequantize", {q, scalar(scale, kF32), scalar(zero, DataType::UInt(8))});
  };
  auto requantized = [&](const relax::Expr& y, double scale, double zero) -> absl::StatusOr<relax::Var> {
    MLC_ASSIGN_OR_RETURN(q, emit("quantize", {y, scalar(scale, kF32), scalar(zero, DataType::UInt(8))},
                                 {{"out_dtype", DataType::UInt(8)}}));
    return dequantize(q, scale, zero);
  };
  auto int8_weight = [&](std::vector<int64_t> shape) {
    const int64_t f = shape[0];
    return emit("dequantize",
                {relax::MakeConstant(RandomInt8(shape, &rng)),
                 relax::MakeConstant(ToTensorData(Random({f}, &rng, 0.002f, 0.006f))), scalar(0, DataType::Int(8))},
                {{"axis", int64_t{0}}});
  };
  MLC_ASSIGN_OR_RETURN(x, dequantize(xq, 0.05, 3));
  MLC_ASSIGN_OR_RETURN(w1, int8_weight({32, 16, 1, 1}));
  MLC_ASSIGN_OR_RETURN(expanded, emit("nn.conv2d", {x, w1}));
  MLC_ASSIGN_OR_RETURN(biased, emit("add", {expanded, relax::MakeConstant(ToTensorData(Random({32, 1, 1}, &rng)))}));
  MLC_ASSIGN_OR_RETURN(relu, emit("nn.relu", {biased}));
  MLC_ASSIGN_OR_RETURN(d1, requantized(relu, 0.04, 0));
  MLC_ASSIGN_OR_RETURN(depthwise,
                       emit("nn.conv2d", {d1, relax::MakeConstant(ToTensorData(Random({32, 1, 3, 3}, &rng)))},
                            {{"padding", std::vector<int64_t>{1, 1, 1, 1}}, {"groups", int64_t{32}}}));
  MLC_ASSIGN_OR_RETURN(relu2, emit("nn.relu", {depthwise}));
  MLC_ASSIGN_OR_RETURN(d2, requantized(relu2, 0.05, 0));
  MLC_ASSIGN_OR_RETURN(w2, int8_weight({16, 32, 1, 1}));
  MLC_ASSIGN_OR_RETURN(projected, emit("nn.conv2d", {d2, w2}));
  MLC_ASSIGN_OR_RETURN(d3, requantized(projected, 0.02, 128));
  // A second block's expansion reads the projection's blocked bytes (mlc.int8.conv2d_nchwc) and
  // its depthwise convolution the expansion's floats, padded (fold-int8-dequantize).
  MLC_ASSIGN_OR_RETURN(w3, int8_weight({32, 16, 1, 1}));
  MLC_ASSIGN_OR_RETURN(expanded2, emit("nn.conv2d", {d3, w3}));
  MLC_ASSIGN_OR_RETURN(biased2, emit("add", {expanded2, relax::MakeConstant(ToTensorData(Random({32, 1, 1}, &rng)))}));
  MLC_ASSIGN_OR_RETURN(relu3, emit("nn.relu", {biased2}));
  MLC_ASSIGN_OR_RETURN(d4, requantized(relu3, 0.03, 0));
  MLC_ASSIGN_OR_RETURN(depthwise2,
                       emit("nn.conv2d", {d4, relax::MakeConstant(ToTensorData(Random({32, 1, 3, 3}, &rng)))},
                            {{"padding", std::vector<int64_t>{1, 1, 1, 1}}, {"groups", int64_t{32}}}));
  MLC_ASSIGN_OR_RETURN(out, requantized(depthwise2, 0.05, 128));
  MLC_ASSIGN_OR_RETURN(gv, bb.EmitOutput(out));
  MLC_RETURN_IF_ERROR(bb.EndDataflow());
  MLC_RETURN_IF_ERROR(bb.EmitFuncOutput(gv).status());
  MLC_ASSIGN_OR_RETURN(pipeline, passes::ParsePipeline("default"));
  if (!blocked) {
    pipeline.erase(
        std::remove_if(pipeline.begin(), pipeline.end(),
                       [](const std::unique_ptr<passes::Pass>& p) { return p->name() == "alter-op-layout"; }),
        pipeline.end());
  }
  IRModule mod = bb.Get();
  MLC_RETURN_IF_ERROR(RecordTargetFlag(&mod.mutable_attrs(), target));
  MLC_ASSIGN_OR_RETURN(lowered, passes::RunPipeline(mod, pipeline));
  *text = PrintModule(lowered);
  return Compile(lowered);
}

// The inverted residual's projection reads the depthwise convolution's blocked bytes in place
// (mlc.int8.conv2d_nchwc, alter-op-layout), and the next expansion writes its depthwise
// convolution's padded floats (fold-int8-dequantize), on x86-64-v3 (int16 weight panels, the AVX2 tile),
// on x86-64-v3 with AVX-VNNI and on this CPU where it has them (int8 panels), and gives the
// results of the NCHW path (the same module without alter-op-layout): every output within one
// level of the last quantize (the float depthwise convolution may round differently in another
// layout and move a byte by one), and nearly all equal; on every int8 path this CPU has.
TEST(OperatorLibrary, QdqInvertedResidualOnBlockedBytesMatchesTheNchwPath) {
  std::string nchw_text;
  absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> nchw =
      CompileInvertedResidual("x86-64-v3", /*blocked=*/false, &nchw_text);
  ASSERT_TRUE(nchw.ok()) << nchw.status();
  EXPECT_EQ(nchw_text.find("mlc.int8.conv2d_nchwc"), std::string::npos) << nchw_text;
  absl::StatusOr<Target> host_target = Target::Host();
  ASSERT_TRUE(host_target.ok());
  std::vector<std::string> targets = {"x86-64-v3"};
  if (host_target->has("avxvnni")) {
    targets.push_back("x86-64-v3 -mattr=+avxvnni");  // int8 panels, the 256-bit VNNI tile
  } else {
    std::printf("[  SKIPPED ] the AVX-VNNI blocked path: this CPU (%s) lacks avxvnni\n", HostCpuName().c_str());
  }
  if (host_target->has("avx512vnni") && host_target->has("avx512bw")) {
    targets.push_back("");  // the host
  } else {
    std::printf("[  SKIPPED ] the int8-panel blocked path: this CPU (%s) lacks avx512vnni\n", HostCpuName().c_str());
  }
  std::mt19937 rng(29);
  // Not a structured binding: clang 14 does not let the lambda below capture one.
  const NDArray input = RandomQuantized({1, 16, 10, 10}, DataType::UInt(8), 0.05, 3, &rng).first;
  absl::StatusOr<vm::Value> want = (*nchw)->Invoke("main", {vm::Value(input)});
  ASSERT_TRUE(want.ok()) << want.status();
  for (const std::string& target : targets) {
    SCOPED_TRACE(absl::StrCat("target ", target.empty() ? "host" : target));
    std::string blocked_text;
    absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> blocked =
        CompileInvertedResidual(target, /*blocked=*/true, &blocked_text);
    ASSERT_TRUE(blocked.ok()) << blocked.status();
    EXPECT_NE(blocked_text.find("mlc.int8.conv2d_nchwc"), std::string::npos) << blocked_text;
    // The second expansion writes the depthwise convolution's padded floats itself: no kernel
    // dequantizes and pads its bytes.
    const std::string padded_floats = target.rfind("x86-64-v3", 0) == 0 ? "(1, 4, 12, 12, 8)" : "(1, 2, 12, 12, 16)";
    EXPECT_NE(blocked_text.find("out_sinfo=R.Tensor(" + padded_floats + ", dtype=\"float32\")"), std::string::npos)
        << blocked_text;
    EXPECT_EQ(blocked_text.find("dequantize, nn.pad"), std::string::npos) << blocked_text;
    ForEachInt8Path([&] {
      absl::StatusOr<vm::Value> got = (*blocked)->Invoke("main", {vm::Value(input)});
      ASSERT_TRUE(got.ok()) << got.status();
      const float* g = static_cast<const float*>(got->tensor().data());
      const float* w = static_cast<const float*>(want->tensor().data());
      int64_t equal = 0, n = got->tensor().NumElements();
      for (int64_t i = 0; i < n; ++i) {
        ASSERT_LE(std::abs(g[i] - w[i]), 0.02f + 1e-6f) << "element " << i;
        equal += g[i] == w[i];
      }
      EXPECT_GE(equal, n * 95 / 100) << equal << " of " << n << " outputs equal";
      // Not a degenerate case: the outputs spread over many levels.
      EXPECT_GT(std::set<float>(g, g + n).size(), 20u);
    });
  }
}

// dense(dequantize(xq), dequantize(wq)) + bias, ReLU and matmul(dequantize(xq), dequantize(wq))
// by a [K, F] weight quantized per column become one mlc.int8.dense each (qdq-to-integer) whose
// int32 accumulation matches the dequantized product computed here in double: uint8 and int8
// activations of rank 3 (20 rows: two whole row tiles of 8 and four more; three of 6 and two
// more), a reduction of 45 (not a multiple of 4), 37 channels (two panels and a partial third);
// on every int8 path this CPU has.
TEST(OperatorLibrary, QdqLinearLayersRunAsOneInt8CallAndMatchTheDequantizedReference) {
  const int64_t b = 2, m = 10, k = 45, f = 37;
  std::mt19937 rng(7);
  TensorData wq = RandomInt8({f, k}, &rng);    // row o: output channel o's taps
  TensorData wq_kf(DataType::Int(8), {k, f});  // the same weight as a matmul's [K, F]
  for (int64_t o = 0; o < f; ++o)
    for (int64_t i = 0; i < k; ++i)
      static_cast<int8_t*>(wq_kf.mutable_data())[i * f + o] = wq.data_as<int8_t>()[o * k + i];
  NDArray w_scale = Random({f}, &rng, 0.001f, 0.01f), bias = Random({f}, &rng);
  for (DataType x_dtype : {DataType::UInt(8), DataType::Int(8)}) {
    for (bool as_matmul : {false, true}) {
      SCOPED_TRACE(absl::StrCat(x_dtype.ToString(), as_matmul ? " matmul" : " dense"));
      const double sx = 0.03, zx = x_dtype == DataType::UInt(8) ? 131 : -7;
      std::string text;
      absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> vm = CompileQdqLayer({{b, m, k},
                                                                                x_dtype,
                                                                                sx,
                                                                                zx,
                                                                                as_matmul ? wq_kf : wq,
                                                                                w_scale,
                                                                                as_matmul ? 1 : 0,
                                                                                as_matmul ? "matmul" : "nn.dense",
                                                                                {},
                                                                                bias},
                                                                               &text);
      ASSERT_TRUE(vm.ok()) << vm.status();
      EXPECT_NE(text.find("mlc.int8.dense"), std::string::npos) << text;
      EXPECT_EQ(text.find("dequantize"), std::string::npos) << text;
      auto [input, real] = RandomQuantized({b, m, k}, x_dtype, sx, zx, &rng);
      // The reference: the float product of the dequantized operands, + bias, ReLU.
      std::vector<double> want;
      for (int64_t r = 0; r < b * m; ++r) {
        for (int64_t o = 0; o < f; ++o) {
          double acc = 0;
          for (int64_t i = 0; i < k; ++i)
            acc += real[r * k + i] * (wq.data_as<int8_t>()[o * k + i] * double(F(w_scale)[o]));
          want.push_back(std::max(0.0, acc + F(bias)[o]));
        }
      }
      ExpectEveryInt8Path(vm->get(), input, want);
    }
  }
}

TEST(OperatorLibrary, PoolingMatchesTheReference) {
  std::vector<Window> windows = {
      {{2, 2}, {2, 2}, {0, 0, 0, 0}, {1, 1}},
      {{3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}},  // ResNet's stem pool
      {{3, 2}, {1, 2}, {1, 0, 0, 1}, {2, 1}},  // asymmetric padding, dilation
  };
  for (const Window& w : windows) {
    for (int kind = 0; kind < 3; ++kind) {
      bool is_max = kind == 0, include_pad = kind == 1;
      RunKernelCase({is_max ? "max_pool2d" : "avg_pool2d",
                     {{2, 3, 9, 8}},
                     [=](const std::vector<te::Tensor>& t) {
                       return topi::Pool(t[0], is_max, w.kernel, w.strides, w.padding, w.dilation, include_pad);
                     },
                     PoolReference(w, is_max, include_pad)});
    }
  }
  // Ceil mode: 8 rows, window 3, stride 2 -> 4 outputs (floor: 3), the last window reaching one
  // row past the input; the divisor counts only the input (and its real padding).
  // Expected output sizes from PyTorch 1.13: (4, 3) and (5, 4).
  const std::vector<std::pair<Window, std::vector<int64_t>>> ceil_cases = {
      {{{3, 3}, {2, 2}, {0, 0, 0, 0}, {1, 1}}, {1, 2, 4, 3}}, {{{3, 2}, {2, 2}, {1, 0, 1, 0}, {1, 1}}, {1, 2, 5, 4}}};
  for (const auto& ceil_case : ceil_cases) {
    const Window& w = ceil_case.first;  // named, not bound: C++17 lambdas cannot capture bindings
    const std::vector<int64_t>& want_shape = ceil_case.second;
    for (int kind = 0; kind < 3; ++kind) {
      bool is_max = kind == 0, include_pad = kind == 1;
      Reference check_shape = [=, ref = PoolReference(w, is_max, include_pad)](const std::vector<NDArray>& in,
                                                                               const std::vector<int64_t>& os) {
        EXPECT_EQ(os, want_shape);
        return ref(in, os);
      };
      RunKernelCase({"pool2d_ceil",
                     {{1, 2, 8, 7}},
                     [=](const std::vector<te::Tensor>& t) -> absl::StatusOr<te::Tensor> {
                       absl::StatusOr<te::Tensor> y = topi::Pool(t[0], is_max, w.kernel, w.strides, w.padding,
                                                                 w.dilation, include_pad, /*ceil_mode=*/true);
                       return y;
                     },
                     check_shape});
    }
  }
  RunKernelCase({"adaptive_avg_pool2d",
                 {{2, 5, 7, 3}},
                 Unary([](const te::Tensor& t) { return topi::GlobalAvgPool2d(t); }),
                 [](const std::vector<NDArray>& in, const std::vector<int64_t>&) {
                   std::vector<double> out(10, 0.0);
                   for (int64_t i = 0; i < 2 * 5 * 21; ++i) out[i / 21] += F(in[0])[i] / 21.0;
                   return out;
                 }});
}

// Pooling of channel-blocked data (NCHW4c), converted from and to NCHW around it.
TEST(OperatorLibrary, PoolingInBlockedLayoutMatchesTheReference) {
  const std::vector<Window> windows = {{{3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}}, {{2, 3}, {1, 2}, {0, 1, 1, 0}, {1, 1}}};
  for (const Window& w : windows) {
    for (int kind = 0; kind < 3; ++kind) {
      bool is_max = kind == 0, include_pad = kind == 1;
      RunKernelCase({"pool2d NCHW4c",
                     {{2, 8, 9, 7}},
                     [=](const std::vector<te::Tensor>& t) -> absl::StatusOr<te::Tensor> {
                       MLC_ASSIGN_OR_RETURN(x, topi::LayoutTransform(t[0], "NCHW", "NCHW4c"));
                       MLC_ASSIGN_OR_RETURN(
                           y, topi::Pool(x, is_max, w.kernel, w.strides, w.padding, w.dilation, include_pad,
                                         /*ceil_mode=*/false, "NCHW4c"));
                       return topi::LayoutTransform(y, "NCHW4c", "NCHW");
                     },
                     PoolReference(w, is_max, include_pad)});
    }
  }
  RunKernelCase({"adaptive_avg_pool2d NCHW8c",
                 {{2, 16, 7, 3}},
                 [](const std::vector<te::Tensor>& t) -> absl::StatusOr<te::Tensor> {
                   MLC_ASSIGN_OR_RETURN(x, topi::LayoutTransform(t[0], "NCHW", "NCHW8c"));
                   MLC_ASSIGN_OR_RETURN(y, topi::GlobalAvgPool2d(x, "NCHW8c"));
                   return topi::LayoutTransform(y, "NCHW8c", "NCHW");
                 },
                 [](const std::vector<NDArray>& in, const std::vector<int64_t>&) {
                   std::vector<double> out(32, 0.0);
                   for (int64_t i = 0; i < 2 * 16 * 21; ++i) out[i / 21] += F(in[0])[i] / 21.0;
                   return out;
                 }});
}

TEST(OperatorLibrary, PadAddsTheValueAroundEveryDimension) {
  std::vector<int64_t> before = {0, 2, 1}, after = {1, 0, 3};
  RunKernelCase({"pad",
                 {{2, 3, 4}},
                 Unary([=](const te::Tensor& t) { return topi::Pad(t, before, after, tir::Const(kF32, 0.5)); }),
                 [=](const std::vector<NDArray>& in, const std::vector<int64_t>& os) {
                   std::vector<double> out;
                   for (int64_t a = 0; a < os[0]; ++a)
                     for (int64_t b = 0; b < os[1]; ++b)
                       for (int64_t c = 0; c < os[2]; ++c) {
                         int64_t i = a - before[0], j = b - before[1], k = c - before[2];
                         bool inside = i >= 0 && i < 2 && j >= 0 && j < 3 && k >= 0 && k < 4;
                         out.push_back(inside ? F(in[0])[(i * 3 + j) * 4 + k] : 0.5);
                       }
                   return out;
                 }});
  // Zero widths are a copy.
  RunKernelCase({"pad",
                 {{3, 5}},
                 Unary([](const te::Tensor& t) {
                   return topi::Pad(t, {0, 0}, {0, 0}, tir::Const(kF32, 0));
                 }),
                 Elementwise([](const std::vector<double>& v) { return v[0]; })});
}

// ---- Reductions, softmax, layer norm, slicing: shape (3, 5, 7).

/*! \brief Element (a, b, c) of a (3, 5, 7) tensor. */
double At3(const NDArray& t, int64_t a, int64_t b, int64_t c) { return F(t)[(a * 5 + b) * 7 + c]; }

TEST(OperatorLibrary, ReductionsMatchTheReference) {
  struct Case {
    topi::ReduceOp op;
    std::vector<int64_t> axes;
    bool keepdims;
  };
  for (const Case& c : std::vector<Case>{{topi::ReduceOp::kSum, {1}, false},
                                         {topi::ReduceOp::kMean, {-1, 0}, true},
                                         {topi::ReduceOp::kMax, {2}, false},
                                         {topi::ReduceOp::kMin, {}, false}}) {
    RunKernelCase(
        {"reduce",
         {{3, 5, 7}},
         Unary([c](const te::Tensor& t) { return topi::Reduce(t, c.op, c.axes, c.keepdims); }),
         [c](const std::vector<NDArray>& in, const std::vector<int64_t>&) {
           std::vector<bool> mask(3, c.axes.empty());
           for (int64_t a : c.axes) mask[a < 0 ? a + 3 : a] = true;
           int64_t ext[3] = {3, 5, 7};
           std::vector<double> out;
           // Enumerate kept coordinates in order; reduce over the masked ones.
           for (int64_t a = 0; a < (mask[0] ? 1 : 3); ++a)
             for (int64_t b = 0; b < (mask[1] ? 1 : 5); ++b)
               for (int64_t d = 0; d < (mask[2] ? 1 : 7); ++d) {
                 double acc = c.op == topi::ReduceOp::kMax ? -INFINITY : c.op == topi::ReduceOp::kMin ? INFINITY : 0;
                 int64_t n = 0;
                 for (int64_t x = 0; x < (mask[0] ? ext[0] : 1); ++x)
                   for (int64_t y = 0; y < (mask[1] ? ext[1] : 1); ++y)
                     for (int64_t z = 0; z < (mask[2] ? ext[2] : 1); ++z) {
                       double v = At3(in[0], mask[0] ? x : a, mask[1] ? y : b, mask[2] ? z : d);
                       if (c.op == topi::ReduceOp::kMax)
                         acc = std::max(acc, v);
                       else if (c.op == topi::ReduceOp::kMin)
                         acc = std::min(acc, v);
                       else
                         acc += v;
                       ++n;
                     }
                 out.push_back(c.op == topi::ReduceOp::kMean ? acc / n : acc);
               }
           return out;
         }});
  }
}

TEST(OperatorLibrary, RowMaximaAndMinimaMatchTheReferenceWhenReducedAVectorAtATime) {
  // Rows of 48 floats, whole vectors: the row-reduction rule rfactors the max or min over the
  // lanes (softmax's row maximum, max and min reductions), with some NaN-free negative rows.
  constexpr int64_t kRows = 6, kLen = 48;
  auto row = [](const NDArray& t, int64_t r) { return F(t) + r * kLen; };
  RunKernelCase({"softmax_rows",
                 {{kRows, kLen}},
                 Unary([](const te::Tensor& t) { return topi::Softmax(t, -1); }),
                 [&](const std::vector<NDArray>& in, const std::vector<int64_t>&) {
                   std::vector<double> out;
                   for (int64_t r = 0; r < kRows; ++r) {
                     const float* x = row(in[0], r);
                     double mx = -INFINITY, sum = 0;
                     for (int64_t k = 0; k < kLen; ++k) mx = std::max<double>(mx, x[k]);
                     for (int64_t k = 0; k < kLen; ++k) sum += std::exp(x[k] - mx);
                     for (int64_t k = 0; k < kLen; ++k) out.push_back(std::exp(x[k] - mx) / sum);
                   }
                   return out;
                 },
                 -8.0f,
                 2.0f});
  for (topi::ReduceOp op : {topi::ReduceOp::kMax, topi::ReduceOp::kMin}) {
    RunKernelCase({"reduce_rows",
                   {{kRows, kLen}},
                   Unary([op](const te::Tensor& t) { return topi::Reduce(t, op, {1}, false); }),
                   [&, op](const std::vector<NDArray>& in, const std::vector<int64_t>&) {
                     std::vector<double> out;
                     for (int64_t r = 0; r < kRows; ++r) {
                       const float* x = row(in[0], r);
                       out.push_back(op == topi::ReduceOp::kMax ? *std::max_element(x, x + kLen)
                                                                : *std::min_element(x, x + kLen));
                     }
                     return out;
                   },
                   -8.0f,
                   -1.0f});
  }
}

TEST(OperatorLibrary, SoftmaxAndLayerNormMatchTheReference) {
  for (int64_t axis : {1, -1}) {
    RunKernelCase({"softmax",
                   {{3, 5, 7}},
                   Unary([axis](const te::Tensor& t) { return topi::Softmax(t, axis); }),
                   [axis](const std::vector<NDArray>& in, const std::vector<int64_t>&) {
                     std::vector<double> out(3 * 5 * 7);
                     for (int64_t a = 0; a < 3; ++a)
                       for (int64_t o = 0; o < (axis == 1 ? 7 : 5); ++o) {
                         int64_t len = axis == 1 ? 5 : 7;
                         auto at = [&](int64_t k) { return axis == 1 ? At3(in[0], a, k, o) : At3(in[0], a, o, k); };
                         double mx = -INFINITY, sum = 0;
                         for (int64_t k = 0; k < len; ++k) mx = std::max(mx, at(k));
                         for (int64_t k = 0; k < len; ++k) sum += std::exp(at(k) - mx);
                         for (int64_t k = 0; k < len; ++k) {
                           int64_t flat = axis == 1 ? (a * 5 + k) * 7 + o : (a * 5 + o) * 7 + k;
                           out[flat] = std::exp(at(k) - mx) / sum;
                         }
                       }
                     return out;
                   },
                   -4.0f,
                   4.0f});
  }
  RunKernelCase({"layer_norm",
                 {{3, 5, 7}, {5, 7}, {5, 7}},
                 [](const std::vector<te::Tensor>& t) { return topi::LayerNorm(t[0], t[1], t[2], 2, 1e-5); },
                 [](const std::vector<NDArray>& in, const std::vector<int64_t>&) {
                   std::vector<double> out;
                   for (int64_t a = 0; a < 3; ++a) {
                     double mean = 0, var = 0;
                     for (int64_t i = 0; i < 35; ++i) mean += F(in[0])[a * 35 + i] / 35.0;
                     for (int64_t i = 0; i < 35; ++i) var += std::pow(F(in[0])[a * 35 + i] - mean, 2) / 35.0;
                     for (int64_t i = 0; i < 35; ++i) {
                       out.push_back((F(in[0])[a * 35 + i] - mean) / std::sqrt(var + 1e-5) * F(in[1])[i] + F(in[2])[i]);
                     }
                   }
                   return out;
                 }},
                1e-4, 1e-5);
}

TEST(OperatorLibrary, StridedSliceMatchesTheReference) {
  // x[:, 4:0:-2, 1::3] spelled with axes (2, 1), clamped ends and a negative begin.
  RunKernelCase({"strided_slice",
                 {{3, 5, 7}},
                 Unary([](const te::Tensor& t) {
                   return topi::StridedSlice(t, {2, 1}, {-6, 4}, {100, 0}, {3, -2});
                 }),
                 [](const std::vector<NDArray>& in, const std::vector<int64_t>& os) {
                   EXPECT_EQ(os, (std::vector<int64_t>{3, 2, 2}));
                   std::vector<double> out;
                   for (int64_t a = 0; a < 3; ++a)
                     for (int64_t b : {4, 2})
                       for (int64_t c : {1, 4}) out.push_back(At3(in[0], a, b, c));
                   return out;
                 }});
}

}  // namespace
}  // namespace mlc
