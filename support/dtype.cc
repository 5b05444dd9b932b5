/*! \file dtype.cc
 *  \brief DataType parsing and printing.
 */
#include "support/dtype.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace mlc {

absl::StatusOr<DataType> DataType::Parse(absl::string_view text) {
  if (text == "bool") return Bool();
  if (text == "void") return Void();
  if (text == "handle") return Handle();
  if (text == "bfloat16") return BFloat16();
  struct Prefix {
    const char* name;
    Code code;
  };
  for (Prefix p : {Prefix{"float", kFloat}, Prefix{"uint", kUInt}, Prefix{"int", kInt}}) {
    absl::string_view name(p.name);
    if (text.substr(0, name.size()) != name) continue;
    int bits = 0;
    if (!absl::SimpleAtoi(text.substr(name.size()), &bits)) break;
    bool ok = p.code == kFloat ? (bits == 16 || bits == 32 || bits == 64)
                               : (bits == 8 || bits == 16 || bits == 32 || bits == 64);
    if (!ok) break;
    return DataType(p.code, bits);
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown dtype \"", text, "\" (expected float16/32/64, bfloat16, int8..int64, uint8..uint64, bool or void)"));
}

std::string DataType::ToString() const {
  switch (code_) {
    case kInt: return absl::StrCat("int", bits_);
    case kUInt: return absl::StrCat("uint", bits_);
    case kFloat: return absl::StrCat("float", bits_);
    case kBFloat: return "bfloat16";
    case kBool: return "bool";
    case kHandle: return "handle";
    case kVoid: return "void";
  }
  return "unknown";
}

}  // namespace mlc
