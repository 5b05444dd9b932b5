/*! \file generate_main.cc
 *  \brief //tools:generate — generates tokens with a compiled decoder (vm/generation.h).
 *
 *    generate --exe m.mlcx --prompt_ids 1,2,3 [--max_new_tokens 64]
 *             [--temperature 0.8 --top_k 40 --seed 1] [--stop_id 2] [--out ids.npy]
 *
 *  Prints the new ids as they come (one line), then the prefill and decode speeds (tokens per
 *  second) and the memory the VM held. Greedy without --temperature.
 */
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "support/file_util.h"
#include "support/npy.h"
#include "support/resource_limit_flag.h"
#include "support/signature.h"
#include "vm/generation.h"
#include "vm/virtual_machine.h"

ABSL_FLAG(std::string, exe, "", "the compiled decoder (*.mlcx)");
ABSL_FLAG(std::string, func, "main", "its function (see vm/generation.h for the two forms it may take)");
ABSL_FLAG(std::string, prompt_ids, "", "comma-separated token ids of the prompt");
ABSL_FLAG(int, max_new_tokens, 32, "tokens to generate");
ABSL_FLAG(double, temperature, 0, "0: greedy; else sample softmax(logits / temperature)");
ABSL_FLAG(int, top_k, 0, "with sampling, only the k most likely tokens (0: all)");
ABSL_FLAG(uint64_t, seed, 1, "the sampler's seed");
ABSL_FLAG(int64_t, stop_id, -1, "stop after this token id (-1: never)");
ABSL_FLAG(std::string, out, "", "write the new ids here (.npy, int64)");
ABSL_FLAG(std::string, trusted_keys, "",
          "comma-separated Ed25519 public keys (PEM); when given, only an executable signed by one of them is loaded");

namespace {

int Fail(const std::string& message) {
  std::cerr << "generate: " << message << "\n";
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "generate --exe m.mlcx --prompt_ids 1,2,3 [--max_new_tokens 64] [--temperature 0.8 --top_k 40]");
  absl::ParseCommandLine(argc, argv);
  mlc::EnterUserDirectory();  // relative paths are the user's under ./bazelw run
  if (absl::Status s = mlc::ApplyResourceLimitFlag(); !s.ok()) return Fail(std::string(s.message()));
  if (absl::GetFlag(FLAGS_exe).empty()) return Fail("--exe is required");
  std::vector<int64_t> prompt;
  for (absl::string_view t : absl::StrSplit(absl::GetFlag(FLAGS_prompt_ids), ',', absl::SkipEmpty())) {
    int64_t id;
    if (!absl::SimpleAtoi(t, &id) || id < 0) return Fail(absl::StrCat("--prompt_ids: '", t, "' is not a token id"));
    prompt.push_back(id);
  }
  if (prompt.empty()) return Fail("--prompt_ids is required (comma-separated token ids)");
  if (absl::GetFlag(FLAGS_max_new_tokens) < 1) return Fail("--max_new_tokens must be at least 1");
  std::vector<std::string> key_paths = absl::StrSplit(absl::GetFlag(FLAGS_trusted_keys), ',', absl::SkipEmpty());
  absl::StatusOr<std::vector<std::string>> trusted = mlc::ReadPublicKeys(key_paths);
  if (!trusted.ok()) return Fail(std::string(trusted.status().message()));
  absl::StatusOr<std::unique_ptr<mlc::vm::VirtualMachine>> vm =
      mlc::vm::VirtualMachine::LoadFile(absl::GetFlag(FLAGS_exe), mlc::vm::RuntimeRegistry::Global(), *trusted);
  if (!vm.ok()) return Fail(std::string(vm.status().message()));
  absl::StatusOr<mlc::vm::Generator> generator = mlc::vm::Generator::Create(vm->get(), absl::GetFlag(FLAGS_func));
  if (!generator.ok()) return Fail(std::string(generator.status().message()));

  mlc::vm::GenerationOptions options;
  options.max_new_tokens = absl::GetFlag(FLAGS_max_new_tokens);
  options.temperature = absl::GetFlag(FLAGS_temperature);
  options.top_k = absl::GetFlag(FLAGS_top_k);
  options.seed = absl::GetFlag(FLAGS_seed);
  options.stop_token = absl::GetFlag(FLAGS_stop_id);
  bool first = true;
  options.on_token = [&first](int64_t id) {
    std::printf(first ? "%lld" : ",%lld", static_cast<long long>(id));
    std::fflush(stdout);
    first = false;
  };
  absl::StatusOr<mlc::vm::GenerationResult> r = generator->Generate(prompt, options);
  std::printf("\n");
  if (!r.ok()) return Fail(std::string(r.status().message()));
  const size_t decoded = r->tokens.size() - 1;
  std::printf("prefill: %zu tokens in %.2f ms (%.1f tokens/s) through @%s%s\n", prompt.size(), r->prefill_seconds * 1e3,
              prompt.size() / r->prefill_seconds, generator->prompt_function().c_str(),
              generator->cached() ? "" : "; the model has no cache: every step runs the whole sequence");
  if (decoded > 0) {
    std::printf("decode: %zu tokens in %.2f ms (%.1f tokens/s)\n", decoded, r->decode_seconds * 1e3,
                decoded / r->decode_seconds);
  }
  const mlc::vm::VirtualMachine::MemoryStats m = (*vm)->Memory();
  std::printf(
      "memory: %.2f MB of constants, %.2f MB of tensors held (intermediates and results; peak live %.2f MB), %.2f MB "
      "of kernel workspace\n",
      m.constants / 1e6, m.tensors_held / 1e6, m.tensors_peak / 1e6, m.workspace_held / 1e6);
  if (generator->cached()) {
    const mlc::vm::VirtualMachine::CacheStats c = (*vm)->Caches();
    std::printf("cache: %.2f MB for %zu positions; %lld appends in place, %lld copied the cache\n",
                r->cache_bytes / 1e6, prompt.size() + options.max_new_tokens,
                static_cast<long long>(c.appended_in_place), static_cast<long long>(c.appended_by_copy));
  }
  if (!absl::GetFlag(FLAGS_out).empty()) {
    mlc::TensorData ids(
        mlc::DataType::Int64(), {static_cast<int64_t>(r->tokens.size())},
        std::string(reinterpret_cast<const char*>(r->tokens.data()), r->tokens.size() * sizeof(int64_t)));
    if (absl::Status s = mlc::WriteNpy(absl::GetFlag(FLAGS_out), ids); !s.ok()) return Fail(std::string(s.message()));
  }
  return 0;
}
