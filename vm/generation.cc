/*! \file generation.cc */
#include "vm/generation.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <random>

#include "absl/strings/str_cat.h"

namespace mlc {
namespace vm {
namespace {

bool IsInt64(const proto::TensorType& t) { return t.dtype().code() == kDLInt && t.dtype().bits() == 64; }

/*! \brief A tensor's dimensions: constants, -1 for a lone shape variable, nullopt otherwise. */
std::optional<std::vector<int64_t>> Dims(const proto::TensorType& t) {
  if (!t.has_shape()) return std::nullopt;
  if (t.symbolic_dims_size() == 0) return std::vector<int64_t>(t.shape().begin(), t.shape().end());
  std::vector<int64_t> dims;
  for (const proto::DimExpr& d : t.symbolic_dims()) {
    if (d.has_value())
      dims.push_back(d.value());
    else if (d.kind_case() == proto::DimExpr::kVar)
      dims.push_back(-1);
    else
      return std::nullopt;
  }
  return dims;
}

NDArray Int64Row(const std::vector<int64_t>& values) {
  DLDataType dt{kDLInt, 64, 1};
  std::string bytes(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(int64_t));
  return *NDArray::FromBytes({1, static_cast<int64_t>(values.size())}, dt, bytes);
}

/*! \brief The next token from the last row of logits [1, seq, vocab]. */
int64_t Choose(const NDArray& logits, const GenerationOptions& o, std::mt19937_64* rng, std::vector<float>* kept) {
  const int64_t vocab = logits.shape().back();
  const int64_t rows = logits.NumElements() / vocab;
  const float* last = static_cast<const float*>(logits.data()) + (rows - 1) * vocab;
  if (kept != nullptr) kept->assign(last, last + vocab);
  if (o.temperature <= 0) return std::max_element(last, last + vocab) - last;
  std::vector<int64_t> order(vocab);
  for (int64_t i = 0; i < vocab; ++i) order[i] = i;
  int64_t k = o.top_k > 0 ? std::min<int64_t>(o.top_k, vocab) : vocab;
  std::partial_sort(order.begin(), order.begin() + k, order.end(),
                    [&](int64_t a, int64_t b) { return last[a] > last[b]; });
  std::vector<double> weights(k);
  for (int64_t i = 0; i < k; ++i) weights[i] = std::exp((last[order[i]] - last[order[0]]) / o.temperature);
  std::discrete_distribution<int64_t> pick(weights.begin(), weights.end());
  return order[pick(*rng)];
}

}  // namespace

absl::StatusOr<Generator> Generator::Create(VirtualMachine* vm, const std::string& func) {
  const proto::VMFunction* fn = nullptr;
  for (const proto::VMFunction& f : vm->executable().functions()) {
    if (f.name() == func) fn = &f;
  }
  if (fn == nullptr) return absl::NotFoundError(absl::StrCat("the executable has no function ", func));
  auto param = [&](int i) { return absl::StrCat(func, "'s parameter ", i, " (", fn->param_names(i), ")"); };
  auto ids_like = [&](int i) -> absl::Status {
    const proto::ValueType& v = fn->param_types(i);
    std::optional<std::vector<int64_t>> d = v.has_tensor() ? Dims(v.tensor()) : std::nullopt;
    if (!v.has_tensor() || !IsInt64(v.tensor()) || !d || d->size() != 2 || (*d)[0] != 1 || (*d)[1] != -1) {
      return absl::InvalidArgumentError(
          absl::StrCat(param(i), " must be int64 [1, seq] (token ids or their positions)"));
    }
    return absl::OkStatus();
  };
  if (fn->param_types_size() < 1)
    return absl::InvalidArgumentError(absl::StrCat(func, " takes no parameters; a decoder takes token ids"));
  if (absl::Status s = ids_like(0); !s.ok()) return s;
  Generator g;
  g.vm_ = vm;
  g.func_ = func;
  for (const proto::VMFunction& f : vm->executable().functions()) {
    if (func == "main" && f.name() == "prefill" && f.param_types_size() == fn->param_types_size())
      g.prompt_func_ = f.name();
  }
  if (fn->param_types_size() == 1) return g;  // full
  if (absl::Status s = ids_like(1); !s.ok()) return s;
  for (int i = 2; i < fn->param_types_size(); ++i) {
    const proto::ValueType& v = fn->param_types(i);
    std::optional<std::vector<int64_t>> d = v.has_tensor() ? Dims(v.tensor()) : std::nullopt;
    if (!d || std::count(d->begin(), d->end(), -1) != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat(param(i), " must be a cache tensor with one symbolic dimension, the cached length"));
    }
    const proto::DataTypeProto& t = v.tensor().dtype();
    g.cache_types_.push_back({*d, DLDataType{static_cast<uint8_t>(t.code()), static_cast<uint8_t>(t.bits()), 1}});
  }
  if (g.cache_types_.empty())
    return absl::InvalidArgumentError(absl::StrCat(func, " takes positions but no cache tensors"));
  return g;
}

absl::StatusOr<GenerationResult> Generator::Generate(const std::vector<int64_t>& prompt, const GenerationOptions& o,
                                                     bool keep_logits) const {
  if (prompt.empty()) return absl::InvalidArgumentError("the prompt is empty");
  GenerationResult result;
  std::mt19937_64 rng(o.seed);
  std::vector<Value> caches;
  // Each cache starts empty with room for the whole generation: a function that grows its
  // caches with R.cache_append (kv-cache-append) then appends in place at every step.
  const int64_t positions = static_cast<int64_t>(prompt.size()) + o.max_new_tokens;
  for (const CacheType& c : cache_types_) {
    std::vector<int64_t> empty = c.dims;
    int64_t row_bytes = DLDataTypeBytes(c.dtype);
    for (int64_t d : c.dims) row_bytes *= d == -1 ? 1 : d;
    std::replace(empty.begin(), empty.end(), int64_t{-1}, int64_t{0});
    absl::StatusOr<NDArray> t = NDArray::AllocateWithCapacity(empty, c.dtype, positions * row_bytes);
    if (!t.ok()) return t.status();
    result.cache_bytes += positions * row_bytes;
    caches.push_back(Value(*t));
  }
  std::vector<int64_t> sequence = prompt;
  std::vector<int64_t> step = prompt;  // the ids this call adds
  using Clock = std::chrono::steady_clock;
  for (int n = 0; n < o.max_new_tokens; ++n) {
    const Clock::time_point start = Clock::now();
    std::vector<Value> args;
    NDArray logits;
    if (cached()) {
      std::vector<int64_t> positions(step.size());
      for (size_t i = 0; i < step.size(); ++i) positions[i] = static_cast<int64_t>(sequence.size() - step.size() + i);
      args = {Value(Int64Row(step)), Value(Int64Row(positions))};
      args.insert(args.end(), caches.begin(), caches.end());
      absl::StatusOr<Value> out = vm_->Invoke(n == 0 && o.use_prefill ? prompt_function() : func_, args);
      if (!out.ok()) return out.status();
      if (!out->is_tuple() || out->tuple().size() != caches.size() + 1 || !out->tuple()[0].is_tensor()) {
        return absl::InvalidArgumentError(
            absl::StrCat(func_, " must return (logits, ", caches.size(), " grown caches)"));
      }
      logits = out->tuple()[0].tensor();
      for (size_t i = 0; i < caches.size(); ++i) caches[i] = out->tuple()[i + 1];
    } else {
      absl::StatusOr<Value> out = vm_->Invoke(o.use_prefill ? prompt_function() : func_, {Value(Int64Row(sequence))});
      if (!out.ok()) return out.status();
      if (!out->is_tensor()) return absl::InvalidArgumentError(absl::StrCat(func_, " must return the logits"));
      logits = out->tensor();
    }
    if (logits.dtype().code != kDLFloat || logits.dtype().bits != 32 || logits.shape().empty()) {
      return absl::InvalidArgumentError("the logits must be float32 [1, seq, vocab]");
    }
    std::vector<float> kept;
    const int64_t token = Choose(logits, o, &rng, keep_logits ? &kept : nullptr);
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    (n == 0 ? result.prefill_seconds : result.decode_seconds) += seconds;
    result.tokens.push_back(token);
    if (keep_logits) result.logits.push_back(std::move(kept));
    if (o.on_token) o.on_token(token);
    if (token == o.stop_token) break;
    sequence.push_back(token);
    step = {token};
  }
  return result;
}

}  // namespace vm
}  // namespace mlc
