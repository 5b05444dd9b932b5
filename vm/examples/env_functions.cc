/*! \file env_functions.cc
 *  \brief The seeds' runtime functions, env.linear and env.relu, as a runtime plug-in
 *         (C ABI, see vm/plugin_api.h): `run --plugin libenv_functions.so`.
 *
 *  env.linear(x, w, b, out): out = x @ w.T + b for float32 x (n, k), w (m, k), b (m,).
 *  env.relu(x, out):         out = max(x, 0), float32, any shape.
 */
#include <cstdio>
#include <cstring>

#include "vm/plugin_api.h"

namespace {

bool IsF32(const DLTensor* t) { return t->dtype.code == kDLFloat && t->dtype.bits == 32 && t->dtype.lanes == 1; }

int64_t Elements(const DLTensor* t) {
  int64_t n = 1;
  for (int i = 0; i < t->ndim; ++i) n *= t->shape[i];
  return n;
}

int Fail(char* error, int len, const char* message) {
  std::snprintf(error, len, "%s", message);
  return 1;
}

int EnvLinear(DLTensor** args, int num_args, char* error, int error_len) {
  if (num_args != 4) return Fail(error, error_len, "takes (x, w, b, out)");
  const DLTensor *x = args[0], *w = args[1], *b = args[2];
  DLTensor* out = args[3];
  if (!IsF32(x) || !IsF32(w) || !IsF32(b) || !IsF32(out)) return Fail(error, error_len, "expects float32 tensors");
  if (x->ndim != 2 || w->ndim != 2 || b->ndim != 1 || out->ndim != 2 || x->shape[1] != w->shape[1] ||
      b->shape[0] != w->shape[0] || out->shape[0] != x->shape[0] || out->shape[1] != w->shape[0]) {
    return Fail(error, error_len, "shapes must be x (n, k), w (m, k), b (m,), out (n, m)");
  }
  int64_t n = x->shape[0], k = x->shape[1], m = w->shape[0];
  const float* xd = static_cast<const float*>(x->data);
  const float* wd = static_cast<const float*>(w->data);
  const float* bd = static_cast<const float*>(b->data);
  float* od = static_cast<float*>(out->data);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < m; ++j) {
      float acc = 0;
      for (int64_t p = 0; p < k; ++p) acc += xd[i * k + p] * wd[j * k + p];
      od[i * m + j] = acc + bd[j];
    }
  }
  return 0;
}

int EnvRelu(DLTensor** args, int num_args, char* error, int error_len) {
  if (num_args != 2) return Fail(error, error_len, "takes (x, out)");
  if (!IsF32(args[0]) || !IsF32(args[1]) || Elements(args[0]) != Elements(args[1])) {
    return Fail(error, error_len, "expects two float32 tensors of one size");
  }
  const float* x = static_cast<const float*>(args[0]->data);
  float* out = static_cast<float*>(args[1]->data);
  for (int64_t i = 0, n = Elements(args[0]); i < n; ++i) out[i] = x[i] > 0 ? x[i] : 0;
  return 0;
}

}  // namespace

extern "C" void mlc_plugin_init(MlcRegisterFunction reg, void* ctx) {
  reg(ctx, "env.linear", EnvLinear);
  reg(ctx, "env.relu", EnvRelu);
}
