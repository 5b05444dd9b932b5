/*! \file ort_session.cc */
#include "tools/bench/ort_session.h"

#include <dlfcn.h>

#include "absl/strings/str_cat.h"

namespace mlc {
namespace bench {
namespace {

// Opaque handles of the C API.
using Status = void;
using Env = void;
using Session = void;
using SessionOptions = void;
using Value = void;
using MemoryInfo = void;
using TypeInfo = void;
using TensorInfo = void;
using Allocator = void;

// Positions in the OrtApi table (API version 13; later versions only append).
enum Slot : int {
  kGetErrorMessage = 2,
  kCreateEnv = 3,
  kCreateSession = 7,
  kRun = 9,
  kCreateSessionOptions = 10,
  kSetGraphOptimizationLevel = 23,
  kSetIntraOpNumThreads = 24,
  kSetInterOpNumThreads = 25,
  kSessionGetInputCount = 30,
  kSessionGetOutputCount = 31,
  kSessionGetInputTypeInfo = 33,
  kSessionGetInputName = 36,
  kSessionGetOutputName = 37,
  kCreateTensorWithDataAsOrtValue = 49,
  kGetTensorMutableData = 51,
  kCastTypeInfoToTensorInfo = 55,
  kGetDimensionsCount = 61,
  kGetDimensions = 62,
  kGetTensorTypeAndShape = 65,
  kCreateCpuMemoryInfo = 69,
  kAllocatorFree = 76,
  kGetAllocatorWithDefaultOptions = 78,
  kReleaseEnv = 92,
  kReleaseStatus = 93,
  kReleaseMemoryInfo = 94,
  kReleaseSession = 95,
  kReleaseValue = 96,
  kReleaseTypeInfo = 98,
  kReleaseTensorTypeAndShapeInfo = 99,
  kReleaseSessionOptions = 100,
};
constexpr uint32_t kApiVersion = 13;
constexpr int kLoggingWarning = 2;
constexpr int kEnableAllOptimizations = 99;
constexpr int kElementFloat = 1;
constexpr int kElementInt64 = 7;
constexpr int kArenaAllocator = 1;
constexpr int kMemTypeDefault = 0;

struct ApiBase {
  const void* const* (*get_api)(uint32_t version);
  const char* (*get_version_string)();
};

}  // namespace

struct OrtSession::Impl {
  void* library = nullptr;
  const void* const* api = nullptr;
  Env* env = nullptr;
  SessionOptions* options = nullptr;
  Session* session = nullptr;
  MemoryInfo* cpu = nullptr;
  std::vector<std::string> input_names, output_names;
  std::vector<std::vector<int64_t>> input_shapes;  // -1 where symbolic

  template <typename Fn>
  Fn At(Slot slot) const {
    return reinterpret_cast<Fn>(const_cast<void*>(api[slot]));
  }
  /*! \brief Ok, or the API's message (the status is released). */
  absl::Status Check(Status* status, const char* what) const {
    if (status == nullptr) return absl::OkStatus();
    std::string message = At<const char* (*)(const Status*)>(kGetErrorMessage)(status);
    At<void (*)(Status*)>(kReleaseStatus)(status);
    return absl::InternalError(absl::StrCat("onnxruntime: ", what, ": ", message));
  }
  ~Impl() {
    if (api != nullptr) {
      if (cpu) At<void (*)(MemoryInfo*)>(kReleaseMemoryInfo)(cpu);
      if (session) At<void (*)(Session*)>(kReleaseSession)(session);
      if (options) At<void (*)(SessionOptions*)>(kReleaseSessionOptions)(options);
      if (env) At<void (*)(Env*)>(kReleaseEnv)(env);
    }
    // The library stays loaded: its thread pools may outlive the session briefly.
  }
};

OrtSession::OrtSession(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
OrtSession::~OrtSession() = default;

absl::StatusOr<std::unique_ptr<OrtSession>> OrtSession::Create(const std::string& library,
                                                               const std::string& model_path, int threads) {
  auto impl = std::make_unique<Impl>();
  impl->library = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (impl->library == nullptr) return absl::NotFoundError(absl::StrCat("cannot load ", library, ": ", dlerror()));
  auto get_base = reinterpret_cast<const ApiBase* (*)()>(dlsym(impl->library, "OrtGetApiBase"));
  if (get_base == nullptr) return absl::NotFoundError(absl::StrCat(library, " has no OrtGetApiBase"));
  const ApiBase* base = get_base();
  impl->api = base->get_api(kApiVersion);
  if (impl->api == nullptr)
    return absl::FailedPreconditionError(absl::StrCat(library, " does not offer C API version 13"));
  const Impl& a = *impl;
  if (auto s = a.Check(a.At<Status* (*)(int, const char*, Env**)>(kCreateEnv)(kLoggingWarning, "bench", &impl->env),
                       "CreateEnv");
      !s.ok()) {
    return s;
  }
  if (auto s =
          a.Check(a.At<Status* (*)(SessionOptions**)>(kCreateSessionOptions)(&impl->options), "CreateSessionOptions");
      !s.ok()) {
    return s;
  }
  a.Check(a.At<Status* (*)(SessionOptions*, int)>(kSetGraphOptimizationLevel)(impl->options, kEnableAllOptimizations),
          "opt level")
      .IgnoreError();
  if (auto s =
          a.Check(a.At<Status* (*)(SessionOptions*, int)>(kSetIntraOpNumThreads)(impl->options, threads), "threads");
      !s.ok()) {
    return s;
  }
  a.Check(a.At<Status* (*)(SessionOptions*, int)>(kSetInterOpNumThreads)(impl->options, 1), "inter-op threads")
      .IgnoreError();
  if (auto s = a.Check(a.At<Status* (*)(Env*, const char*, SessionOptions*, Session**)>(kCreateSession)(
                           impl->env, model_path.c_str(), impl->options, &impl->session),
                       "CreateSession");
      !s.ok()) {
    return s;
  }
  if (auto s = a.Check(
          a.At<Status* (*)(int, int, MemoryInfo**)>(kCreateCpuMemoryInfo)(kArenaAllocator, kMemTypeDefault, &impl->cpu),
          "CreateCpuMemoryInfo");
      !s.ok()) {
    return s;
  }
  Allocator* allocator = nullptr;
  if (auto s = a.Check(a.At<Status* (*)(Allocator**)>(kGetAllocatorWithDefaultOptions)(&allocator), "allocator");
      !s.ok())
    return s;
  for (bool inputs : {true, false}) {
    size_t count = 0;
    if (auto s = a.Check(a.At<Status* (*)(Session*, size_t*)>(inputs ? kSessionGetInputCount : kSessionGetOutputCount)(
                             impl->session, &count),
                         "count");
        !s.ok()) {
      return s;
    }
    for (size_t i = 0; i < count; ++i) {
      char* name = nullptr;
      if (auto s =
              a.Check(a.At<Status* (*)(Session*, size_t, Allocator*, char**)>(
                          inputs ? kSessionGetInputName : kSessionGetOutputName)(impl->session, i, allocator, &name),
                      "name");
          !s.ok()) {
        return s;
      }
      (inputs ? impl->input_names : impl->output_names).push_back(name);
      a.Check(a.At<Status* (*)(Allocator*, void*)>(kAllocatorFree)(allocator, name), "free").IgnoreError();
    }
  }
  for (size_t i = 0; i < impl->input_names.size(); ++i) {
    TypeInfo* type = nullptr;
    const TensorInfo* info = nullptr;
    size_t rank = 0;
    std::vector<int64_t> dims;
    absl::Status st = a.Check(
        a.At<Status* (*)(Session*, size_t, TypeInfo**)>(kSessionGetInputTypeInfo)(impl->session, i, &type), "type");
    if (st.ok())
      st = a.Check(a.At<Status* (*)(const TypeInfo*, const TensorInfo**)>(kCastTypeInfoToTensorInfo)(type, &info),
                   "tensor");
    if (st.ok()) st = a.Check(a.At<Status* (*)(const TensorInfo*, size_t*)>(kGetDimensionsCount)(info, &rank), "rank");
    if (st.ok()) {
      dims.resize(rank);
      st = a.Check(a.At<Status* (*)(const TensorInfo*, int64_t*, size_t)>(kGetDimensions)(info, dims.data(), rank),
                   "dims");
    }
    if (type) a.At<void (*)(TypeInfo*)>(kReleaseTypeInfo)(type);
    if (!st.ok()) return st;
    impl->input_shapes.push_back(std::move(dims));
  }
  std::unique_ptr<OrtSession> out(new OrtSession(std::move(impl)));
  out->version_ = base->get_version_string();
  return out;
}

const std::vector<std::vector<int64_t>>& OrtSession::input_shapes() const { return impl_->input_shapes; }

absl::StatusOr<std::vector<OrtTensor>> OrtSession::Run(const std::vector<OrtTensor>& inputs) {
  const Impl& a = *impl_;
  if (inputs.size() != a.input_names.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the model takes ", a.input_names.size(), " inputs, got ", inputs.size()));
  }
  std::vector<Value*> in_values;
  auto release_all = [&](std::vector<Value*>& values) {
    for (Value* v : values) {
      if (v) a.At<void (*)(Value*)>(kReleaseValue)(v);
    }
  };
  for (const OrtTensor& t : inputs) {
    Value* v = nullptr;
    absl::Status s =
        a.Check(a.At<Status* (*)(const MemoryInfo*, void*, size_t, const int64_t*, size_t, int, Value**)>(
                    kCreateTensorWithDataAsOrtValue)(
                    a.cpu,
                    t.int64_data.empty() ? static_cast<void*>(const_cast<float*>(t.data.data()))
                                         : static_cast<void*>(const_cast<int64_t*>(t.int64_data.data())),
                    t.int64_data.empty() ? t.data.size() * sizeof(float) : t.int64_data.size() * sizeof(int64_t),
                    t.shape.data(), t.shape.size(), t.int64_data.empty() ? kElementFloat : kElementInt64, &v),
                "CreateTensor");
    if (!s.ok()) {
      release_all(in_values);
      return s;
    }
    in_values.push_back(v);
  }
  std::vector<const char*> in_names, out_names;
  for (const std::string& n : a.input_names) in_names.push_back(n.c_str());
  for (const std::string& n : a.output_names) out_names.push_back(n.c_str());
  std::vector<Value*> out_values(out_names.size(), nullptr);
  absl::Status s = a.Check(
      a.At<Status* (*)(Session*, const void*, const char* const*, const Value* const*, size_t, const char* const*,
                       size_t, Value**)>(kRun)(a.session, nullptr, in_names.data(), in_values.data(), in_values.size(),
                                               out_names.data(), out_names.size(), out_values.data()),
      "Run");
  release_all(in_values);
  if (!s.ok()) return s;
  std::vector<OrtTensor> outs;
  for (Value* v : out_values) {
    OrtTensor t;
    TensorInfo* info = nullptr;
    void* data = nullptr;
    size_t rank = 0;
    absl::Status st = a.Check(a.At<Status* (*)(const Value*, TensorInfo**)>(kGetTensorTypeAndShape)(v, &info), "shape");
    if (st.ok()) st = a.Check(a.At<Status* (*)(const TensorInfo*, size_t*)>(kGetDimensionsCount)(info, &rank), "rank");
    if (st.ok()) {
      t.shape.resize(rank);
      st = a.Check(a.At<Status* (*)(const TensorInfo*, int64_t*, size_t)>(kGetDimensions)(info, t.shape.data(), rank),
                   "dims");
    }
    if (info) a.At<void (*)(TensorInfo*)>(kReleaseTensorTypeAndShapeInfo)(info);
    if (st.ok()) st = a.Check(a.At<Status* (*)(Value*, void**)>(kGetTensorMutableData)(v, &data), "data");
    if (!st.ok()) {
      release_all(out_values);
      return st;
    }
    int64_t n = 1;
    for (int64_t d : t.shape) n *= d;
    t.data.assign(static_cast<float*>(data), static_cast<float*>(data) + n);
    outs.push_back(std::move(t));
  }
  release_all(out_values);
  return outs;
}

}  // namespace bench
}  // namespace mlc
