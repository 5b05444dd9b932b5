/*! \file resource_limits.cc */
#include "support/resource_limits.h"

#include <unistd.h>

#include <fstream>
#include <iterator>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "support/checked_math.h"

namespace mlc {
namespace {

// The one list of limits: parsing, descriptions and hints all read it.
struct LimitField {
  const char* name;
  int64_t ResourceLimits::*field;
  bool bytes;  // printed as a size
  const char* what;
};

constexpr LimitField kFields[] = {
    {"max_tensor_bytes", &ResourceLimits::max_tensor_bytes, true,
     "bytes of one tensor or buffer (compile time and run time)"},
    {"max_kernel_iterations", &ResourceLimits::max_kernel_iterations, false, "block iterations of one kernel"},
    {"max_nesting_depth", &ResourceLimits::max_nesting_depth, false,
     "nesting of expressions and statements (text, .irpb)"},
    {"max_constant_bytes", &ResourceLimits::max_constant_bytes, true,
     "bytes of all constants of a module (a .irpb holds < 2 GiB)"},
    {"max_fold_steps", &ResourceLimits::max_fold_steps, false,
     "stores the constant folder runs for one operator, beyond four per element it reads and writes"},
};

ResourceLimits& Global() {
  static ResourceLimits limits;
  return limits;
}

const LimitField* Find(absl::string_view name) {
  for (const LimitField& f : kFields) {
    if (name == f.name) return &f;
  }
  return nullptr;
}

std::string Show(const LimitField& f, int64_t v) {
  if (f.bytes) return HumanBytes(v);
  if (v > 0 && (v & (v - 1)) == 0 && v >= 1024) return absl::StrCat("2^", __builtin_ctzll(static_cast<uint64_t>(v)));
  return absl::StrCat(v);
}

bool ParseValue(absl::string_view text, int64_t* out) {
  text = absl::StripAsciiWhitespace(text);
  if (absl::StartsWith(text, "2^")) {
    int power = 0;
    if (!absl::SimpleAtoi(text.substr(2), &power) || power < 0 || power > 62) return false;
    *out = int64_t{1} << power;
    return true;
  }
  int shift = 0;
  if (!text.empty()) {
    switch (absl::ascii_toupper(text.back())) {
      case 'K': shift = 10; break;
      case 'M': shift = 20; break;
      case 'G': shift = 30; break;
      case 'T': shift = 40; break;
      default: break;
    }
    if (shift > 0) text.remove_suffix(1);
  }
  int64_t v = 0;
  if (!absl::SimpleAtoi(text, &v) || v <= 0) return false;
  *out = SaturatingMul(v, int64_t{1} << shift);
  return true;
}

}  // namespace

const ResourceLimits& GetResourceLimits() { return Global(); }

void SetResourceLimits(const ResourceLimits& limits) { Global() = limits; }

absl::Status ParseResourceLimits(absl::string_view spec, ResourceLimits* limits) {
  for (absl::string_view item : absl::StrSplit(spec, ',', absl::SkipWhitespace())) {
    std::pair<absl::string_view, absl::string_view> kv = absl::StrSplit(item, absl::MaxSplits('=', 1));
    const LimitField* f = Find(absl::StripAsciiWhitespace(kv.first));
    if (f == nullptr) {
      std::string known;
      for (const LimitField& k : kFields) absl::StrAppend(&known, known.empty() ? "" : ", ", k.name);
      return absl::InvalidArgumentError(absl::StrCat("--limits: unknown limit '", kv.first, "' (known: ", known, ")"));
    }
    if (!ParseValue(kv.second, &(limits->*(f->field)))) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--limits: ", f->name, " takes a positive integer (K/M/G/T suffix or 2^N), got '", kv.second, "'"));
    }
  }
  return absl::OkStatus();
}

std::string DescribeResourceLimits(const ResourceLimits& limits) {
  std::string out;
  for (const LimitField& f : kFields) {
    absl::StrAppend(&out, absl::StrFormat("  %-22s %-10s %s\n", f.name, Show(f, limits.*(f.field)), f.what));
  }
  return out;
}

std::string LimitHint(absl::string_view name) {
  const LimitField* f = Find(name);
  if (f == nullptr) return std::string(name);
  return absl::StrCat("limit ", f->name, " = ", Show(*f, GetResourceLimits().*(f->field)),
                      "; change it with --limits=", f->name, "=...");
}

std::string HumanBytes(int64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = static_cast<double>(bytes);
  size_t unit = 0;
  while (v >= 1024 && unit + 1 < std::size(kUnits)) {
    v /= 1024;
    ++unit;
  }
  if (unit == 0) return absl::StrCat(bytes, " B");
  std::string number = absl::StrFormat("%.2f", v);  // 1.75, 2.00 -> 2, 3.50 -> 3.5
  while (number.back() == '0') number.pop_back();
  if (number.back() == '.') number.pop_back();
  return absl::StrCat(number, " ", kUnits[unit]);
}

int64_t ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  int64_t pages = 0, resident = 0;
  if (!(statm >> pages >> resident)) return 0;
  return resident * sysconf(_SC_PAGESIZE);
}

}  // namespace mlc
