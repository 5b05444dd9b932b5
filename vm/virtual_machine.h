/*! \file virtual_machine.h
 *  \brief The virtual machine: loads an executable (bytecode + constants + kernels), checks
 *         it, and runs its graph-level functions on tensors.
 *
 *    absl::StatusOr<std::unique_ptr<VirtualMachine>> vm = VirtualMachine::LoadFile("mlp.mlcx");
 *    absl::StatusOr<Value> out = (*vm)->Invoke("main", {input, w0, b0, w1, b1});
 *
 *  Loading verifies the bytecode (register, constant, kernel and function indices; builtin
 *  names; argument counts of kernel calls) and resolves every runtime function the program
 *  calls, so a missing one is reported at load time by name. Invoke checks the number,
 *  shapes and dtypes of the arguments against the function's parameters and names the
 *  parameter that does not match. Kernel calls check their tensors against the kernel's
 *  buffers. Tensors are allocated from a pool that takes back memory as soon as the bytecode
 *  marks a register dead, or, for returned tensors, when the caller drops them; memory of a
 *  size from a symbolic shape waits one run for reuse, then goes back to the system
 *  (storage_pool.h).
 */
#ifndef MLC_VM_VIRTUAL_MACHINE_H_
#define MLC_VM_VIRTUAL_MACHINE_H_

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "vm/executable.pb.h"
#include "vm/kernel_library.h"
#include "vm/profiler.h"
#include "vm/runtime_registry.h"
#include "vm/symbolic_shape.h"
#include "vm/thread_choice.h"
#include "vm/value.h"

namespace mlc {
namespace vm {

/*! \brief A declared tensor type (a kernel's buffer, a function's parameter) decoded from the
 *         executable, so the interpreter checks an argument without reading proto messages. */
struct TensorParamType {
  DLDataType dtype{};
  bool any_dtype = false;     // the executable's unknown dtype (code 255)
  int ndim = -1;              // -1: any rank
  bool static_shape = false;  // `shape` is checked; symbolic dimensions are bound by the signature
  std::vector<int64_t> shape;

  static TensorParamType Decode(const proto::TensorType& t);
  /*! \brief Whether `a` has the dtype (unless any), the rank (unless any) and the static dimensions. */
  bool Fits(const NDArray& a) const;
};

class VirtualMachine {
 public:
  /*! \brief Parses and checks an executable; resolves kernels and runtime functions. */
  static absl::StatusOr<std::unique_ptr<VirtualMachine>> Load(
      proto::Executable exe, const RuntimeRegistry& registry = RuntimeRegistry::Global());
  /*! \brief From a *.mlcx file's bytes (sealed; vm/executable_format.h). With `trusted_keys`
   *         (raw Ed25519 public keys, support/signature.h) only an executable signed by one of
   *         them loads: loading runs the native code inside. */
  static absl::StatusOr<std::unique_ptr<VirtualMachine>> LoadBytes(
      absl::string_view bytes, const std::string& source, const RuntimeRegistry& registry = RuntimeRegistry::Global(),
      const std::vector<std::string>& trusted_keys = {});
  static absl::StatusOr<std::unique_ptr<VirtualMachine>> LoadFile(
      const std::string& path, const RuntimeRegistry& registry = RuntimeRegistry::Global(),
      const std::vector<std::string>& trusted_keys = {});

  ~VirtualMachine();

  /*! \brief Runs function `name`. */
  absl::StatusOr<Value> Invoke(const std::string& name, const std::vector<Value>& args);

  /*! \brief Times each function's runs on the thread pool and on the calling thread alone and
   *  runs it the faster way from then on (vm/thread_choice.h), or (false, the default: tools
   *  that time kernels themselves) always on the pool. vm/run, the Python module and the
   *  benchmark turn it on. */
  void ChooseThreadsByTiming(bool on) { choose_threads_ = on; }
  /*! \brief The choice for function `name` (nullptr before its first timed run). */
  const ThreadChoice* thread_choice(const std::string& name) const;

  std::vector<std::string> FunctionNames() const;
  /*! \brief Parameter names and types of a function, for tools ("x: float32 (1, 784)"). */
  absl::StatusOr<std::vector<std::string>> DescribeParams(const std::string& name) const;
  /*! \brief The loaded executable, without the bytes of its constants and kernel library
   *         (they live in the VM's own storage). */
  const proto::Executable& executable() const { return exe_; }
  const StoragePool& pool() const { return *pool_; }

  /*! \brief Starts recording every call, kernel, runtime function and parallel chunk into a
   *         new Profiler (attached to the global thread pool, so one VM profiles at a time), or
   *         stops recording; the profile stays readable until the next start. */
  void EnableProfiling(bool on);
  /*! \brief The last profile, or nullptr if profiling never started. */
  const Profiler* profiler() const { return profiler_.get(); }

  /*! \brief Memory the VM holds, in bytes. Results come from the pool and count while alive. */
  struct MemoryStats {
    int64_t tensors_peak = 0;    // most tensors from the pool alive at once (returned ones too)
    int64_t tensors_held = 0;    // what the storage pool holds now (in use, and kept for reuse)
    int64_t constants = 0;       // weights and other constants of the executable
    int64_t workspace_held = 0;  // kernels' scratch (packed operands), all live VMs of the process
  };
  MemoryStats Memory() const;
  /*! \brief The bytes of the constants function `func` reads (a decode step's weights when
   *  @prefill holds others of its own), 0 for an unknown function. */
  int64_t ConstantBytesReadBy(const std::string& func) const;
  /*! \brief What R.cache_append did since the VM was loaded: appends written in place after the
   *  cache (copying only the new rows) and appends that copied the cache into new storage. */
  struct CacheStats {
    int64_t appended_in_place = 0;
    int64_t appended_by_copy = 0;
  };
  CacheStats Caches() const { return {appended_in_place_.load(), appended_by_copy_.load()}; }
  /*! \brief What R.concat_in_place did since the VM was loaded: inputs found in place in the
   *  result (the memory plan put them there) and inputs copied into it. */
  struct ConcatStats {
    int64_t inputs_in_place = 0;
    int64_t inputs_copied = 0;
  };
  ConcatStats Concats() const { return {concat_inputs_in_place_.load(), concat_inputs_copied_.load()}; }

 private:
  /*! \brief Load, with the constants' bytes in `constant_data` when the message holds their
   *         offsets (a file's data section, vm/executable_format.h). */
  static absl::StatusOr<std::unique_ptr<VirtualMachine>> Load(proto::Executable exe, absl::string_view constant_data,
                                                              const RuntimeRegistry& registry);
  /*! \brief An instruction decoded at load time: enums and resolved callees, so the interpreter
   *         loop compares no strings and reads no proto messages. */
  struct Operand {
    enum Kind : uint8_t { kNone, kReg, kConstant, kImm, kShape, kDType, kTensorType } kind = kNone;
    int64_t value = 0;  // register, constant index or immediate
    std::vector<int64_t> shape;
    bool symbolic = false;                           // kShape: `dims` are evaluated when the instruction runs
    DeclaredShape dims;                              // kShape when symbolic; kTensorType when it has symbolic dims
    const proto::TensorType* tensor_type = nullptr;  // kTensorType (owned by the executable)
    TensorParamType declared;                        // kTensorType, decoded: what R.match_cast checks
    DLDataType dtype{};
  };
  enum class Op : uint8_t { kCall, kRet, kGoto, kIf };
  enum class Callee : uint8_t {
    kAllocTensor,
    kMakeTuple,
    kTupleGetItem,
    kMatchCast,
    kCacheAppend,
    kConcat,
    kMove,
    kKernel,
    kExtern,
    kAllocatingExtern,
    kFunction
  };
  struct Instr {
    Op op = Op::kCall;
    Callee callee = Callee::kFunction;
    int32_t index = -1;                                        // kernel or function index
    const RuntimeFunction* fn = nullptr;                       // kExtern
    const AllocatingRuntimeFunction* allocating_fn = nullptr;  // kAllocatingExtern
    std::string fn_name;                                       // kExtern, kAllocatingExtern: for errors and the profile
    std::vector<Operand> args;
    int32_t dst = -1;
    int64_t arena_offset = -1;  // kAllocTensor: the planned place in the arena, or -1
    int64_t arena_bound = 0;    // ... for at most this many bytes
    std::vector<int32_t> release;
    bool tail_call = false;   // kFunction: the caller returns what the callee returns
    bool descending = false;  // kKernel: parallel loops last to first (DescendingLaunches)
  };
  /*! \brief Declared shapes of the tensors a function or kernel takes, when any dimension is
   *         symbolic (nullptr entries for the others), and its shape variables. */
  struct ShapeSignature {
    std::vector<std::string> vars;
    std::vector<std::unique_ptr<DeclaredShape>> params;
    bool symbolic() const { return !vars.empty(); }
    /*! \brief Binds the variables from `args` (tensors where declared). */
    absl::StatusOr<std::vector<int64_t>> Bind(const std::vector<const std::vector<int64_t>*>& args,
                                              const std::function<std::string(size_t)>& describe) const;
  };
  /*! \brief A kernel as the interpreter calls it: its entry point, the types of its buffers, the
   *         symbolic shapes it binds, and its label while profiling. */
  struct LoadedKernel {
    KernelFunction fn = nullptr;
    std::vector<TensorParamType> params;
    ShapeSignature signature;
    int32_t label = -1;
  };
  struct Function {
    std::vector<Instr> code;
    int num_registers = 0;
    ShapeSignature signature;
    int64_t arena_bytes = 0;  // the memory plan's arena
  };

  VirtualMachine() = default;
  absl::Status Decode(int func_index);
  static void MarkTailCalls(std::vector<Instr>& code);
  absl::StatusOr<Value> Run(int func_index, std::vector<Value> args, std::vector<int64_t> shape_values, int depth);
  /*! \brief Checks the arguments against function `func_index`'s parameters; returns the
   *         values of its shape variables. */
  absl::StatusOr<std::vector<int64_t>> CheckArgs(int func_index, const std::vector<Value>& args) const;
  /*! \brief "in function f, instruction 3 (kernel dense): " for run-time errors. */
  std::string Where(int func_index, int pc) const;

  proto::Executable exe_;
  std::unique_ptr<KernelLibrary> library_;
  std::vector<LoadedKernel> kernels_;
  std::map<std::string, RuntimeFunction> externs_;
  std::map<std::string, AllocatingRuntimeFunction> allocating_externs_;
  std::vector<Value> constants_;  // each a tensor; Values so operands are read by reference
  std::map<std::string, int> function_index_;
  std::vector<Function> functions_;
  std::shared_ptr<StoragePool> pool_ = std::make_shared<StoragePool>();
  std::unique_ptr<Profiler> profiler_;
  Profiler* recording_ = nullptr;  // profiler_ while profiling is on
  std::atomic<int64_t> appended_in_place_{0}, appended_by_copy_{0};
  std::atomic<int64_t> concat_inputs_in_place_{0}, concat_inputs_copied_{0};
  bool choose_threads_ = false;
  struct TimedThreads {
    int pool_threads = 0;  // the pool's size when the choice was measured
    ThreadChoice choice;
  };
  mutable std::mutex choice_mu_;                // Invoke may run on several threads at once
  std::map<int, TimedThreads> thread_choices_;  // by function index, under choice_mu_
};

}  // namespace vm
}  // namespace mlc

#endif  // MLC_VM_VIRTUAL_MACHINE_H_
