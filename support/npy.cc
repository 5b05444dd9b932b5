/*! \file npy.cc
 *  \brief .npy parsing/writing by the format's specification; .npz through libzip.
 */
#include "support/npy.h"

#include <zip.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "support/checked_math.h"
#include "support/file_util.h"

namespace mlc {
namespace {

constexpr char kMagic[] = "\x93NUMPY";

absl::StatusOr<DataType> DtypeFromDescr(absl::string_view descr) {
  if (descr.size() < 3) return absl::InvalidArgumentError(absl::StrCat("unsupported dtype '", descr, "'"));
  char order = descr[0];
  if (order == '>') return absl::InvalidArgumentError("big-endian arrays are not supported");
  absl::string_view kind = descr.substr(1, 1);
  int bytes = 0;
  if (!absl::SimpleAtoi(descr.substr(2), &bytes))
    return absl::InvalidArgumentError(absl::StrCat("unsupported dtype '", descr, "'"));
  if (kind == "f" && (bytes == 2 || bytes == 4 || bytes == 8)) return DataType::Float(bytes * 8);
  if (kind == "i" && (bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8)) return DataType::Int(bytes * 8);
  if (kind == "u" && (bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8)) return DataType::UInt(bytes * 8);
  if (kind == "b" && bytes == 1) return DataType::Bool();
  return absl::InvalidArgumentError(absl::StrCat("unsupported dtype '", descr, "'"));
}

std::string DescrOf(DataType dtype) {
  switch (dtype.code()) {
    case DataType::kFloat: return absl::StrCat("<f", dtype.bytes());
    case DataType::kInt: return dtype.bytes() == 1 ? "|i1" : absl::StrCat("<i", dtype.bytes());
    case DataType::kUInt: return dtype.bytes() == 1 ? "|u1" : absl::StrCat("<u", dtype.bytes());
    case DataType::kBool: return "|b1";
    default: return "|V1";
  }
}

/*! \brief The value of 'key' in the header dict, as raw text. */
absl::StatusOr<std::string> HeaderField(const std::string& header, const std::string& key) {
  size_t pos = header.find(absl::StrCat("'", key, "'"));
  if (pos == std::string::npos) return absl::InvalidArgumentError(absl::StrCat("header has no '", key, "'"));
  pos = header.find(':', pos);
  if (pos == std::string::npos) return absl::InvalidArgumentError("malformed header");
  ++pos;
  while (pos < header.size() && header[pos] == ' ') ++pos;
  size_t end = pos;
  if (pos < header.size() && header[pos] == '(') {
    end = header.find(')', pos);
    if (end == std::string::npos) return absl::InvalidArgumentError("malformed shape");
    return header.substr(pos, end - pos + 1);
  }
  while (end < header.size() && header[end] != ',' && header[end] != '}') ++end;
  return header.substr(pos, end - pos);
}

}  // namespace

absl::StatusOr<TensorData> ParseNpy(const std::string& bytes, const std::string& source) {
  auto error = [&](const std::string& msg) { return absl::InvalidArgumentError(absl::StrCat(source, ": ", msg)); };
  if (bytes.size() < 10 || bytes.compare(0, 6, kMagic, 6) != 0) return error("not a .npy file (bad magic)");
  int major = static_cast<unsigned char>(bytes[6]);
  size_t header_len, offset;
  if (major == 1) {
    header_len = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return error("truncated header");
    header_len = 0;
    for (int i = 0; i < 4; ++i) header_len |= static_cast<size_t>(static_cast<unsigned char>(bytes[8 + i])) << (8 * i);
    offset = 12;
  } else {
    return error(absl::StrCat("unsupported .npy version ", major));
  }
  if (offset + header_len > bytes.size()) return error("truncated header");
  std::string header = bytes.substr(offset, header_len);
  absl::StatusOr<std::string> descr = HeaderField(header, "descr");
  absl::StatusOr<std::string> fortran = HeaderField(header, "fortran_order");
  absl::StatusOr<std::string> shape_text = HeaderField(header, "shape");
  if (!descr.ok() || !fortran.ok() || !shape_text.ok()) return error("malformed header");
  absl::string_view order = absl::StripAsciiWhitespace(*fortran);
  if (order != "False" && order != "True") return error("malformed fortran_order");
  bool fortran_order = order == "True";
  absl::string_view d = absl::StripAsciiWhitespace(*descr);
  if (d.size() < 2 || (d.front() != '\'' && d.front() != '"')) return error("malformed descr");
  absl::StatusOr<DataType> dtype = DtypeFromDescr(d.substr(1, d.size() - 2));
  if (!dtype.ok()) return error(std::string(dtype.status().message()));
  std::vector<int64_t> shape;
  absl::string_view s = *shape_text;
  s = absl::StripPrefix(absl::StripSuffix(s, ")"), "(");
  for (absl::string_view part : absl::StrSplit(s, ',', absl::SkipWhitespace())) {
    int64_t v;
    if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(part), &v) || v < 0) return error("malformed shape");
    shape.push_back(v);
  }
  size_t data_offset = offset + header_len;
  int64_t expected = TensorBytes(shape, *dtype);
  if (static_cast<int64_t>(bytes.size() - data_offset) != expected) {
    return error(absl::StrCat("holds ", bytes.size() - data_offset, " data bytes; shape (", absl::StrJoin(shape, ", "),
                              ") of ", dtype->ToString(), " needs ", expected));
  }
  if (!fortran_order || shape.size() < 2) return TensorData(*dtype, shape, bytes.substr(data_offset));
  // Column-major data: copy each element to its row-major place.
  TensorData out(*dtype, shape);
  const char* src = bytes.data() + data_offset;
  char* dst = static_cast<char*>(out.mutable_data());
  size_t elem = dtype->bytes(), rank = shape.size();
  std::vector<int64_t> index(rank, 0);
  for (int64_t f = 0, n = NumElements(shape); f < n; ++f) {
    // `index` is the multi-index of column-major element f (first dimension fastest).
    int64_t c = 0;
    for (size_t d = 0; d < rank; ++d) c = c * shape[d] + index[d];
    std::memcpy(dst + c * elem, src + f * elem, elem);
    for (size_t d = 0; d < rank && ++index[d] == shape[d]; ++d) index[d] = 0;
  }
  return out;
}

std::string SerializeNpy(const TensorData& t) {
  std::string shape = absl::StrJoin(t.shape(), ", ");
  if (t.shape().size() == 1) shape += ",";
  std::string header =
      absl::StrCat("{'descr': '", DescrOf(t.dtype()), "', 'fortran_order': False, 'shape': (", shape, "), }");
  // Pad so the data starts on a 64-byte boundary, ending the header with '\n'.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out(kMagic, 6);
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>((header.size() >> 8) & 0xff);
  out += header;
  out += t.bytes();
  return out;
}

absl::StatusOr<TensorData> ReadNpy(const std::string& path) {
  absl::StatusOr<std::string> bytes = ReadFile(path);
  if (!bytes.ok()) return bytes.status();
  return ParseNpy(*bytes, path);
}

absl::Status WriteNpy(const std::string& path, const TensorData& tensor) {
  return WriteFileAtomically(path, SerializeNpy(tensor));
}

absl::StatusOr<std::map<std::string, TensorData>> ReadNpz(const std::string& path) {
  int err = 0;
  zip_t* archive = zip_open(path.c_str(), ZIP_RDONLY, &err);
  if (archive == nullptr) {
    zip_error_t error;
    zip_error_init_with_code(&error, err);
    std::string msg = absl::StrCat(path, ": cannot open as .npz: ", zip_error_strerror(&error));
    zip_error_fini(&error);
    return absl::InvalidArgumentError(msg);
  }
  std::map<std::string, TensorData> out;
  zip_int64_t n = zip_get_num_entries(archive, 0);
  for (zip_int64_t i = 0; i < n; ++i) {
    zip_stat_t st;
    if (zip_stat_index(archive, i, 0, &st) != 0) continue;
    std::string name = st.name;
    zip_file_t* f = zip_fopen_index(archive, i, 0);
    if (f == nullptr) {
      zip_close(archive);
      return absl::DataLossError(absl::StrCat(path, ": cannot read entry ", name));
    }
    // The declared size is read from the file and not believed: memory grows only with the
    // bytes that really decompress (fuzzing found a 60-byte file declaring a 4 GB entry).
    std::string bytes;
    char chunk[1 << 16];
    zip_int64_t read = 0;
    while (static_cast<zip_uint64_t>(bytes.size()) < st.size) {
      read = zip_fread(f, chunk, std::min<zip_uint64_t>(sizeof(chunk), st.size - bytes.size()));
      if (read <= 0) break;
      bytes.append(chunk, static_cast<size_t>(read));
    }
    zip_fclose(f);
    if (static_cast<zip_uint64_t>(bytes.size()) != st.size) {
      zip_close(archive);
      return absl::DataLossError(absl::StrCat(path, ": entry ", name, " is truncated"));
    }
    std::string key = std::string(absl::StripSuffix(name, ".npy"));
    absl::StatusOr<TensorData> t = ParseNpy(bytes, absl::StrCat(path, ":", name));
    if (!t.ok()) {
      zip_close(archive);
      return t.status();
    }
    out[key] = std::move(*t);
  }
  zip_close(archive);
  return out;
}

absl::Status WriteNpz(const std::string& path, const std::map<std::string, TensorData>& arrays) {
  std::string tmp = absl::StrCat(path, ".tmp.npz");
  std::remove(tmp.c_str());
  int err = 0;
  zip_t* archive = zip_open(tmp.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err);
  if (archive == nullptr) return absl::PermissionDeniedError(absl::StrCat(path, ": cannot create"));
  std::vector<std::string> buffers;
  buffers.reserve(arrays.size());
  for (const auto& [name, tensor] : arrays) {
    buffers.push_back(SerializeNpy(tensor));
    zip_source_t* src = zip_source_buffer(archive, buffers.back().data(), buffers.back().size(), 0);
    zip_int64_t idx = src ? zip_file_add(archive, absl::StrCat(name, ".npy").c_str(), src, ZIP_FL_OVERWRITE) : -1;
    if (idx < 0) {
      if (src) zip_source_free(src);
      zip_discard(archive);
      return absl::DataLossError(absl::StrCat(path, ": cannot add ", name));
    }
    zip_set_file_compression(archive, idx, ZIP_CM_STORE, 0);
  }
  if (zip_close(archive) != 0) {
    zip_discard(archive);
    return absl::DataLossError(absl::StrCat(path, ": cannot write"));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    return absl::PermissionDeniedError(absl::StrCat(path, ": cannot rename"));
  return absl::OkStatus();
}

}  // namespace mlc
