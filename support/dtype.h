/*! \file dtype.h
 *  \brief Scalar element types shared by both IR levels and the runtime (float32, int64, bool...).
 */
#ifndef MLC_SUPPORT_DTYPE_H_
#define MLC_SUPPORT_DTYPE_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace mlc {

class DataType {
 public:
  // Codes follow DLPack's DLDataTypeCode where one exists, so conversion is a copy.
  enum Code : uint8_t {
    kInt = 0,
    kUInt = 1,
    kFloat = 2,
    kHandle = 3,
    kBFloat = 4,
    kBool = 6,
    kVoid = 255,
  };

  constexpr DataType() : code_(kVoid), bits_(0) {}
  constexpr DataType(Code code, int bits) : code_(code), bits_(static_cast<uint8_t>(bits)) {}

  static constexpr DataType Float(int bits) { return DataType(kFloat, bits); }
  static constexpr DataType Int(int bits) { return DataType(kInt, bits); }
  static constexpr DataType UInt(int bits) { return DataType(kUInt, bits); }
  static constexpr DataType Bool() { return DataType(kBool, 8); }
  static constexpr DataType BFloat16() { return DataType(kBFloat, 16); }
  static constexpr DataType Handle() { return DataType(kHandle, 64); }
  static constexpr DataType Void() { return DataType(); }
  static constexpr DataType Float32() { return Float(32); }
  static constexpr DataType Int32() { return Int(32); }
  static constexpr DataType Int64() { return Int(64); }

  /*! \brief Parses "float32", "int64", "bool", "bfloat16", "void"... */
  static absl::StatusOr<DataType> Parse(absl::string_view text);

  Code code() const { return code_; }
  int bits() const { return bits_; }
  int bytes() const { return (bits_ + 7) / 8; }
  bool is_float() const { return code_ == kFloat || code_ == kBFloat; }
  bool is_int() const { return code_ == kInt; }
  bool is_uint() const { return code_ == kUInt; }
  bool is_integer() const { return code_ == kInt || code_ == kUInt; }
  bool is_bool() const { return code_ == kBool; }
  bool is_void() const { return code_ == kVoid; }
  bool is_handle() const { return code_ == kHandle; }

  /*! \brief "float32", "int64", "bool", ... (the spelling the text format uses). */
  std::string ToString() const;

  bool operator==(const DataType& o) const { return code_ == o.code_ && bits_ == o.bits_; }
  bool operator!=(const DataType& o) const { return !(*this == o); }

 private:
  Code code_;
  uint8_t bits_;
};

}  // namespace mlc

#endif  // MLC_SUPPORT_DTYPE_H_
