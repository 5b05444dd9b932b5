/*! \file llm_bench.cc
 *  \brief A compiled decoder's prefill and decode speed against ONNX Runtime on the same ONNX
 *         file (the past_key_values form, testdata/models/decoder/decoder.py --cache), in one
 *         process, with the memory bandwidth measured in the same run.
 *
 *    llm_bench --exe model.mlcx --onnx model.onnx --ort_library libonnxruntime.so.1
 *              [--threads 1] [--prompt_len 128] [--new_tokens 64] [--rounds 3]
 *              [--quantized q8=model.q8.mlcx,q4=model.q4.mlcx]
 *
 *  (tools/bench/bench_llm.sh exports and compiles the model and installs ONNX Runtime first).
 *  Both generate greedily from the same seeded prompt: ours through vm/generation.h, ONNX
 *  Runtime through the same loop written over its session (the caches it returns are passed
 *  back in; copying them through this harness costs it about one cache's bytes per step). The
 *  two must choose the same tokens. Rounds alternate the two; the best round of each is shown.
 *  Our prompt goes through @prefill (the last position's logits only, as llama.cpp computes
 *  them); a second row times it through main (every position's, as the ONNX graph).
 *  Decode is bound by memory: each token reads every weight once, so the bound is the weights'
 *  bytes over the read bandwidth (`threads` threads streaming an array of the weights' size)
 *  measured here. Executables of quantized weights (--quantized) are timed the same way, each
 *  against the bound of its own weights' bytes, and compared with the float one: the largest
 *  logit difference (relative to the largest float logit) over the steps both saw the same
 *  tokens, and how many greedy tokens agree before the first that differs.
 *  Nothing is asserted.
 */
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "tools/bench/ort_session.h"
#include "vm/generation.h"
#include "vm/virtual_machine.h"

namespace mlc {
namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::string exe, onnx, ort_library;
  std::vector<std::pair<std::string, std::string>> quantized;  // (name, executable)
  int threads = 1, prompt_len = 128, new_tokens = 64, rounds = 3;
};

struct Speed {
  double prefill_seconds = 1e30, decode_seconds = 1e30;
  std::vector<int64_t> tokens;
  void Keep(double prefill, double decode) {
    prefill_seconds = std::min(prefill_seconds, prefill);
    decode_seconds = std::min(decode_seconds, decode);
  }
};

/*! \brief Bytes read per second streaming an array of `bytes` (the weights' size, so the caches
 *  keep as much of it between passes as they keep of the weights between decode steps: a large
 *  L3 holds part of both) `threads` ways: the best of a few passes. */
double ReadBandwidth(int threads, size_t bytes) {
  const size_t n = std::max<size_t>(bytes / sizeof(uint64_t), size_t{1} << 20);
  std::vector<uint64_t> data(n);
  for (size_t i = 0; i < n; ++i) data[i] = i;
  double best = 0;
  uint64_t check = 0;
  for (int pass = 0; pass < 5; ++pass) {
    std::vector<uint64_t> sums(threads);
    const Clock::time_point start = Clock::now();
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t) {
      workers.emplace_back([&, t] {
        const size_t lo = n * t / threads, hi = n * (t + 1) / threads;
        // Vector sums (GCC's vector extension: whatever vectors the target has), four of them
        // so the loads are not serialized by one add chain: a scalar loop measured the adds.
        typedef uint64_t Words __attribute__((vector_size(32)));
        Words s[4] = {};
        size_t i = lo;
        for (; i + 16 <= hi; i += 16) {
          __builtin_prefetch(&data[std::min(i + 512, n - 1)]);  // 4 KiB ahead: +10-20% on one thread
          for (int j = 0; j < 4; ++j) {
            Words w;
            std::memcpy(&w, &data[i + 4 * j], sizeof(w));
            s[j] += w;
          }
        }
        uint64_t total = 0;
        for (; i < hi; ++i) total += data[i];
        for (const Words& w : s) total += w[0] + w[1] + w[2] + w[3];
        sums[t] = total;
      });
    }
    for (std::thread& w : workers) w.join();
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    best = std::max(best, n * sizeof(uint64_t) / seconds);
    check = 0;
    for (uint64_t v : sums) check += v;
  }
  if (check != n * (n - 1) / 2)
    std::fprintf(stderr, "llm_bench: the bandwidth pass summed %llu\n", static_cast<unsigned long long>(check));
  return best;
}

int64_t ArgmaxLastRow(const bench::OrtTensor& logits) {
  const int64_t vocab = logits.shape.back();
  const float* last = logits.data.data() + logits.data.size() - vocab;
  return std::max_element(last, last + vocab) - last;
}

/*! \brief ONNX Runtime generating greedily with the cache it returns (one round). */
absl::Status OrtGenerate(bench::OrtSession& ort, const std::vector<int64_t>& prompt, int new_tokens,
                         const std::vector<std::vector<int64_t>>& cache_dims, Speed* speed) {
  std::vector<bench::OrtTensor> caches;
  for (std::vector<int64_t> dims : cache_dims) {
    std::replace(dims.begin(), dims.end(), int64_t{-1}, int64_t{0});
    caches.push_back({dims, {}, {}});
  }
  std::vector<int64_t> step = prompt, tokens;
  int64_t position = 0;
  double prefill = 0, decode = 0;
  for (int n = 0; n <= new_tokens; ++n) {
    const Clock::time_point start = Clock::now();
    std::vector<int64_t> positions(step.size());
    for (size_t i = 0; i < step.size(); ++i) positions[i] = position + static_cast<int64_t>(i);
    std::vector<bench::OrtTensor> in = {{{1, static_cast<int64_t>(step.size())}, {}, step},
                                        {{1, static_cast<int64_t>(step.size())}, {}, positions}};
    in.insert(in.end(), caches.begin(), caches.end());
    absl::StatusOr<std::vector<bench::OrtTensor>> out = ort.Run(in);
    if (!out.ok()) return out.status();
    const int64_t token = ArgmaxLastRow((*out)[0]);
    for (size_t i = 0; i < caches.size(); ++i) caches[i] = std::move((*out)[i + 1]);
    (n == 0 ? prefill : decode) += std::chrono::duration<double>(Clock::now() - start).count();
    position += static_cast<int64_t>(step.size());
    tokens.push_back(token);
    step = {token};
  }
  speed->Keep(prefill, decode);
  speed->tokens = tokens;
  return absl::OkStatus();
}

/*! \brief A quantized executable's result against the float one's. */
struct Accuracy {
  double max_logit_error = 0;  // over the steps whose inputs were the same tokens
  size_t agreeing = 0;         // greedy tokens equal before the first that differs
};

Accuracy Compare(const vm::GenerationResult& q, const vm::GenerationResult& f) {
  Accuracy a;
  while (a.agreeing < q.tokens.size() && a.agreeing < f.tokens.size() && q.tokens[a.agreeing] == f.tokens[a.agreeing])
    ++a.agreeing;
  // Step i's input is the prompt and tokens 0..i-1: the same for both while they agree.
  for (size_t i = 0; i <= a.agreeing && i < q.logits.size() && i < f.logits.size(); ++i) {
    float largest = 0, diff = 0;
    for (size_t v = 0; v < f.logits[i].size(); ++v) {
      largest = std::max(largest, std::abs(f.logits[i][v]));
      diff = std::max(diff, std::abs(q.logits[i][v] - f.logits[i][v]));
    }
    a.max_logit_error = std::max(a.max_logit_error, static_cast<double>(diff / std::max(largest, 1e-12f)));
  }
  return a;
}

int Run(const Options& opt) {
  setenv("MLC_NUM_THREADS", std::to_string(opt.threads).c_str(), 1);
  absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> machine = vm::VirtualMachine::LoadFile(opt.exe);
  if (!machine.ok()) return std::fprintf(stderr, "llm_bench: %s\n", std::string(machine.status().message()).c_str()), 1;
  // What a decode step reads: main's weights (@prefill may hold a second layout of a few).
  const double weights = static_cast<double>((*machine)->ConstantBytesReadBy("main"));
  const double bandwidth = ReadBandwidth(opt.threads, static_cast<size_t>(weights));
  absl::StatusOr<vm::Generator> generator = vm::Generator::Create(machine->get());
  if (!generator.ok())
    return std::fprintf(stderr, "llm_bench: %s\n", std::string(generator.status().message()).c_str()), 1;
  if (!generator->cached())
    return std::fprintf(stderr, "llm_bench: the model has no key/value cache (export it with --cache)\n"), 1;
  absl::StatusOr<std::unique_ptr<bench::OrtSession>> ort =
      bench::OrtSession::Create(opt.ort_library, opt.onnx, opt.threads);
  if (!ort.ok()) return std::fprintf(stderr, "llm_bench: %s\n", std::string(ort.status().message()).c_str()), 1;
  // The cache tensors' shapes, as the ONNX model declares them (after ids and positions; ours
  // are sequence-major, kv-cache-append).
  const std::vector<std::vector<int64_t>> cache_dims((*ort)->input_shapes().begin() + 2, (*ort)->input_shapes().end());
  // The prompt: ids below 256 from a linear congruential generator that llama_cpp_times.mjs
  // repeats, so the three runtimes read the same ids.
  std::vector<int64_t> prompt(opt.prompt_len);
  int64_t seed = 1;
  for (int64_t& t : prompt) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    t = seed % 256;
  }

  vm::GenerationOptions options;
  options.max_new_tokens = opt.new_tokens + 1;  // the prefill's token, then new_tokens decode steps
  // The prompt through main, which computes every position's logits as the ONNX graph does
  // (ours above goes through @prefill, the last position's only, as llama.cpp does).
  vm::GenerationOptions all_logits;
  all_logits.max_new_tokens = 1;
  all_logits.use_prefill = false;
  Speed ours, ours_all_logits, theirs;
  for (int round = 0; round < opt.rounds; ++round) {
    absl::StatusOr<vm::GenerationResult> r = generator->Generate(prompt, options);
    if (!r.ok()) return std::fprintf(stderr, "llm_bench: ours: %s\n", std::string(r.status().message()).c_str()), 1;
    ours.Keep(r->prefill_seconds, r->decode_seconds);
    ours.tokens = r->tokens;
    if (generator->prompt_function() != "main") {
      absl::StatusOr<vm::GenerationResult> all = generator->Generate(prompt, all_logits);
      if (!all.ok())
        return std::fprintf(stderr, "llm_bench: ours: %s\n", std::string(all.status().message()).c_str()), 1;
      ours_all_logits.Keep(all->prefill_seconds, 0);
    }
    if (absl::Status s = OrtGenerate(**ort, prompt, opt.new_tokens, cache_dims, &theirs); !s.ok()) {
      return std::fprintf(stderr, "llm_bench: ONNX Runtime: %s\n", std::string(s.message()).c_str()), 1;
    }
  }
  // Quantized executables: the same prompt, timed the same way, then one more round keeping the
  // logits to compare with the float executable's.
  struct QuantizedRun {
    std::string name;
    double weights = 0, bandwidth = 0;
    Speed speed;
    Accuracy accuracy;
  };
  std::vector<QuantizedRun> quantized;
  absl::StatusOr<vm::GenerationResult> reference = generator->Generate(prompt, options, /*keep_logits=*/true);
  if (!reference.ok())
    return std::fprintf(stderr, "llm_bench: ours: %s\n", std::string(reference.status().message()).c_str()), 1;
  for (const auto& [name, path] : opt.quantized) {
    absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> qm = vm::VirtualMachine::LoadFile(path);
    if (!qm.ok())
      return std::fprintf(stderr, "llm_bench: %s: %s\n", name.c_str(), std::string(qm.status().message()).c_str()), 1;
    absl::StatusOr<vm::Generator> qg = vm::Generator::Create(qm->get());
    if (!qg.ok())
      return std::fprintf(stderr, "llm_bench: %s: %s\n", name.c_str(), std::string(qg.status().message()).c_str()), 1;
    QuantizedRun run;
    run.name = name;
    run.weights = static_cast<double>((*qm)->ConstantBytesReadBy("main"));
    run.bandwidth = ReadBandwidth(opt.threads, static_cast<size_t>(run.weights));
    for (int round = 0; round < opt.rounds; ++round) {
      absl::StatusOr<vm::GenerationResult> r = qg->Generate(prompt, options);
      if (!r.ok())
        return std::fprintf(stderr, "llm_bench: %s: %s\n", name.c_str(), std::string(r.status().message()).c_str()), 1;
      run.speed.Keep(r->prefill_seconds, r->decode_seconds);
      run.speed.tokens = r->tokens;
    }
    absl::StatusOr<vm::GenerationResult> r = qg->Generate(prompt, options, /*keep_logits=*/true);
    if (!r.ok())
      return std::fprintf(stderr, "llm_bench: %s: %s\n", name.c_str(), std::string(r.status().message()).c_str()), 1;
    run.accuracy = Compare(*r, *reference);
    quantized.push_back(std::move(run));
  }
  const double bound = bandwidth / weights;  // tokens/s if a step did nothing but read the weights once
  std::printf("model: %s (%.1f MB of weights); ONNX Runtime %s; %d thread%s; prompt %d tokens, %d decoded\n",
              opt.onnx.c_str(), weights / 1e6, (*ort)->version().c_str(), opt.threads, opt.threads > 1 ? "s" : "",
              opt.prompt_len, opt.new_tokens);
  std::printf("read bandwidth over the weights' size: %.1f GB/s -> decode bound %.1f tokens/s\n", bandwidth / 1e9,
              bound);
  std::printf("greedy tokens: %s (", ours.tokens == theirs.tokens ? "the same" : "DIFFER");
  for (size_t i = 0; i < std::min<size_t>(8, ours.tokens.size()); ++i)
    std::printf(i ? ",%lld" : "%lld", static_cast<long long>(ours.tokens[i]));
  std::printf(" ...)\n");
  std::printf(
      "(above 100%% of the bound: the probe's plain loads stream slower than the kernels' wide ones, and a large\n"
      " L3 keeps part of the weights between steps)\n\n");
  std::printf("| | prefill tokens/s | decode tokens/s | decode %% of bound |\n|---|---|---|---|\n");
  for (const auto& [name, s] : {std::pair<const char*, const Speed&>{"ours", ours}, {"ONNX Runtime", theirs}}) {
    const double decode = opt.new_tokens / s.decode_seconds;
    std::printf("| %s | %.1f | %.1f | %.0f%% |\n", name, opt.prompt_len / s.prefill_seconds, decode,
                100 * decode / bound);
  }
  std::printf("| ours / ONNX Runtime (time) | %.2f | %.2f | |\n", ours.prefill_seconds / theirs.prefill_seconds,
              ours.decode_seconds / theirs.decode_seconds);
  if (generator->prompt_function() != "main") {
    std::printf("| ours, the prompt through main (every position's logits, as ONNX Runtime) | %.1f | | |\n",
                opt.prompt_len / ours_all_logits.prefill_seconds);
    std::printf("| that / ONNX Runtime (time) | %.2f | | |\n",
                ours_all_logits.prefill_seconds / theirs.prefill_seconds);
  }
  for (const QuantizedRun& q : quantized) {
    const double decode = opt.new_tokens / q.speed.decode_seconds, q_bound = q.bandwidth / q.weights;
    std::printf("| ours %s (%.1f MB, %.1f GB/s) | %.1f | %.1f | %.0f%% |\n", q.name.c_str(), q.weights / 1e6,
                q.bandwidth / 1e9, opt.prompt_len / q.speed.prefill_seconds, decode, 100 * decode / q_bound);
  }
  for (const QuantizedRun& q : quantized) {
    std::printf(
        "%s against float: max logit error %.2e of the largest logit (while the tokens agree); %zu of %zu greedy "
        "tokens "
        "agree before the first difference\n",
        q.name.c_str(), q.accuracy.max_logit_error, q.accuracy.agreeing, reference->tokens.size());
  }
  return ours.tokens == theirs.tokens ? 0 : 1;
}

}  // namespace
}  // namespace mlc

int main(int argc, char** argv) {
  mlc::Options opt;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string arg = argv[i], value = argv[i + 1];
    if (arg == "--exe")
      opt.exe = value;
    else if (arg == "--onnx")
      opt.onnx = value;
    else if (arg == "--ort_library")
      opt.ort_library = value;
    else if (arg == "--threads")
      opt.threads = std::atoi(value.c_str());
    else if (arg == "--prompt_len")
      opt.prompt_len = std::atoi(value.c_str());
    else if (arg == "--new_tokens")
      opt.new_tokens = std::atoi(value.c_str());
    else if (arg == "--rounds")
      opt.rounds = std::atoi(value.c_str());
    else if (arg == "--quantized") {
      for (absl::string_view item : absl::StrSplit(value, ',', absl::SkipEmpty())) {
        std::pair<std::string, std::string> named = absl::StrSplit(item, absl::MaxSplits('=', 1));
        if (named.second.empty()) return std::fprintf(stderr, "llm_bench: --quantized takes name=executable,...\n"), 2;
        opt.quantized.push_back(named);
      }
    } else
      return std::fprintf(stderr, "llm_bench: unknown flag %s\n", arg.c_str()), 2;
  }
  if (opt.exe.empty() || opt.onnx.empty() || opt.ort_library.empty() || opt.threads < 1 || opt.prompt_len < 1 ||
      opt.new_tokens < 1 || opt.rounds < 1) {
    std::fprintf(stderr,
                 "usage: llm_bench --exe m.mlcx --onnx m.onnx --ort_library libonnxruntime.so.1 [--threads N] "
                 "[--prompt_len N] [--new_tokens N] [--rounds N]\n");
    return 2;
  }
  return mlc::Run(opt);
}
