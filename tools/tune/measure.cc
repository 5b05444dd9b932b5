/*! \file measure.cc */
#include "tools/tune/measure.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <set>

#include "absl/strings/str_cat.h"
#include "codegen/llvm/codegen_llvm.h"
#include "codegen/lower_tir.h"
#include "ir/tir/stmt_tree.h"
#include "vm/kernel_library.h"

namespace mlc {
namespace tune {
namespace {

/*! \brief `n` zeroed floats, 64-byte aligned. */
std::shared_ptr<float> ZeroedFloats(int64_t n) {
  std::shared_ptr<float> p(static_cast<float*>(std::aligned_alloc(64, (n * sizeof(float) + 63) / 64 * 64)), std::free);
  std::fill(p.get(), p.get() + n, 0.0f);
  return p;
}

}  // namespace

KernelArguments KernelArguments::For(const tir::PrimFunc& func, uint64_t seed) {
  std::set<const Object*> written;
  for (const tir::BlockRealizeNode* r : tir::AllBlocks(func->body)) {
    for (const tir::BufferRegion& w : r->block->writes) written.insert(w.buffer.get());
  }
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  KernelArguments out;
  for (const tir::Buffer& b : func->params) {
    int64_t n = 1;
    for (const tir::PrimExpr& d : b->shape) n *= *tir::AsConstInt(d);
    Arg a;
    a.output = written.count(b.get()) > 0;
    // Sized by the element type (an int64 index buffer takes twice a float's room), and 64
    // floats of slack: a misscheduled candidate that writes a little past its buffer is caught
    // by the comparison rather than corrupting the heap.
    a.size = (n * b->dtype.bytes() + sizeof(float) - 1) / sizeof(float) + 64;
    a.data = ZeroedFloats(a.size);
    // Float inputs random; integer ones (a gather's indices) and booleans stay zero, which
    // every index range holds: random bits would send a gather outside its table.
    if (!a.output && b->dtype == DataType::Float32()) {
      for (int64_t i = 0; i < n; ++i) a.data.get()[i] = dist(rng);
    }
    out.args_.push_back(std::move(a));
  }
  return out;
}

std::vector<void*> KernelArguments::pointers() {
  std::vector<void*> p;
  for (Arg& a : args_) p.push_back(a.data.get());
  return p;
}

TensorData KernelArguments::Tensor(size_t i, const std::vector<int64_t>& shape) const {
  TensorData t(DataType::Float(32), shape);
  std::memcpy(t.mutable_data(), args_.at(i).data.get(), t.NumElements() * sizeof(float));
  return t;
}

KernelArguments KernelArguments::With(size_t i, const TensorData& value) const {
  KernelArguments out = *this;
  Arg& a = out.args_.at(i);
  a.size = value.NumElements() + 64;
  a.data = ZeroedFloats(a.size);
  std::memcpy(a.data.get(), value.data(), value.NumElements() * sizeof(float));
  return out;
}

std::vector<std::string> KernelArguments::Outputs() const {
  std::vector<std::string> out;
  for (const Arg& a : args_) {
    if (a.output) out.emplace_back(reinterpret_cast<const char*>(a.data.get()), a.size * sizeof(float));
  }
  return out;
}

void KernelArguments::ZeroOutputs() {
  for (Arg& a : args_) {
    if (a.output) std::fill(a.data.get(), a.data.get() + a.size, 0.0f);
  }
}

absl::StatusOr<Measurement> Measure(const tir::PrimFunc& func, const std::string& name, const Target& target,
                                    KernelArguments* args, std::vector<std::string>* reference, int repeats,
                                    double min_block_seconds) {
  absl::StatusOr<tir::PrimFunc> lowered = codegen::LowerPrimFunc(func);
  if (!lowered.ok()) return lowered.status();
  absl::StatusOr<codegen::CompiledKernels> compiled = codegen::CompileKernels({{name, *lowered}}, target);
  if (!compiled.ok()) return compiled.status();
  absl::StatusOr<std::unique_ptr<vm::KernelLibrary>> lib = vm::KernelLibrary::Load(compiled->shared_object);
  if (!lib.ok()) return lib.status();
  absl::StatusOr<vm::KernelFunction> kernel = (*lib)->Lookup(codegen::KernelSymbol(name));
  if (!kernel.ok()) return kernel.status();
  std::vector<void*> pointers = args->pointers();
  args->ZeroOutputs();
  if (int32_t rc = (*kernel)(pointers.data()); rc != 0)
    return absl::InternalError(absl::StrCat("@", name, " failed (", rc, ")"));
  Measurement m;
  std::vector<std::string> outputs = args->Outputs();
  if (reference->empty()) {
    *reference = outputs;
  } else {
    double scale = 0;
    for (const std::string& r : *reference) {
      const float* f = reinterpret_cast<const float*>(r.data());
      for (size_t i = 0; i < r.size() / sizeof(float); ++i)
        scale = std::max(scale, static_cast<double>(std::fabs(f[i])));
    }
    for (size_t o = 0; o < outputs.size(); ++o) {
      const float* got = reinterpret_cast<const float*>(outputs[o].data());
      const float* want = reinterpret_cast<const float*>((*reference)[o].data());
      for (size_t i = 0; i < outputs[o].size() / sizeof(float); ++i) {
        m.max_abs_diff = std::max(m.max_abs_diff, static_cast<double>(std::fabs(got[i] - want[i])));
      }
    }
    if (!(m.max_abs_diff <= 1e-3 * scale + 1e-5)) {
      return absl::InternalError(absl::StrCat("@", name, " differs from the unscheduled function by ", m.max_abs_diff,
                                              " (outputs up to ", scale, ")"));
    }
  }
  if (repeats == 0) return m;  // checked (or made the reference), not timed
  // Calls per block: enough for the block to take min_block_seconds.
  auto now = [] { return std::chrono::steady_clock::now(); };
  auto start = now();
  (*kernel)(pointers.data());
  double once = std::chrono::duration<double>(now() - start).count();
  int64_t calls = std::max<int64_t>(1, static_cast<int64_t>(min_block_seconds / std::max(once, 1e-7)));
  std::vector<double> per_call;
  for (int r = 0; r < repeats; ++r) {
    start = now();
    for (int64_t c = 0; c < calls; ++c) (*kernel)(pointers.data());
    per_call.push_back(std::chrono::duration<double>(now() - start).count() / calls);
  }
  std::sort(per_call.begin(), per_call.end());
  m.seconds = per_call[per_call.size() / 2];
  return m;
}

}  // namespace tune
}  // namespace mlc
