/*! \file attr_schema.cc
 *  \brief Parsing, writing and describing typed attribute structs.
 */
#include "ir/graph/attr_schema.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace mlc {
namespace relax {

const char* AttrKindName(AttrKind kind) {
  switch (kind) {
    case AttrKind::kInt: return "int";
    case AttrKind::kInts: return "int[]";
    case AttrKind::kFloat: return "float";
    case AttrKind::kFloats: return "float[]";
    case AttrKind::kBool: return "bool";
    case AttrKind::kString: return "str";
    case AttrKind::kDType: return "dtype";
  }
  return "?";
}

namespace detail {
namespace {

std::string Describe(const AttrValue& v) {
  if (v.is_none()) return "None";
  if (v.is<bool>()) return v.get<bool>() ? "True" : "False";
  if (v.is<int64_t>()) return absl::StrCat(v.get<int64_t>());
  if (v.is<double>()) return absl::StrCat(v.get<double>());
  if (v.is<std::string>()) return absl::StrCat("\"", v.get<std::string>(), "\"");
  if (v.is<std::vector<int64_t>>()) return absl::StrCat("[", absl::StrJoin(v.get<std::vector<int64_t>>(), ", "), "]");
  if (v.is<std::vector<double>>()) return absl::StrCat("[", absl::StrJoin(v.get<std::vector<double>>(), ", "), "]");
  if (v.is<DataType>()) return v.get<DataType>().ToString();
  return "?";
}

/*! \brief Stores `v` into the field, converting where the conversion loses nothing. */
absl::Status Assign(const AttrFieldDecl& f, const AttrValue& v) {
  auto mismatch = [&] {
    return absl::InvalidArgumentError(
        absl::StrCat("attribute ", f.name, " must be ", AttrKindName(f.kind), ", got ", Describe(v)));
  };
  switch (f.kind) {
    case AttrKind::kInt:
      if (v.is<int64_t>())
        *static_cast<int64_t*>(f.ptr) = v.get<int64_t>();
      else if (v.is<bool>())
        *static_cast<int64_t*>(f.ptr) = v.get<bool>() ? 1 : 0;
      else
        return mismatch();
      return absl::OkStatus();
    case AttrKind::kBool:
      if (v.is<bool>())
        *static_cast<bool*>(f.ptr) = v.get<bool>();
      else if (v.is<int64_t>() && (v.get<int64_t>() == 0 || v.get<int64_t>() == 1))
        *static_cast<bool*>(f.ptr) = v.get<int64_t>() != 0;
      else
        return mismatch();
      return absl::OkStatus();
    case AttrKind::kFloat:
      if (v.is<double>())
        *static_cast<double*>(f.ptr) = v.get<double>();
      else if (v.is<int64_t>())
        *static_cast<double*>(f.ptr) = static_cast<double>(v.get<int64_t>());
      else
        return mismatch();
      return absl::OkStatus();
    case AttrKind::kString:
      if (!v.is<std::string>()) return mismatch();
      *static_cast<std::string*>(f.ptr) = v.get<std::string>();
      return absl::OkStatus();
    case AttrKind::kDType:
      if (!v.is<DataType>()) return mismatch();
      *static_cast<DataType*>(f.ptr) = v.get<DataType>();
      return absl::OkStatus();
    case AttrKind::kInts: {
      std::vector<int64_t> values;
      if (v.is<std::vector<int64_t>>())
        values = v.get<std::vector<int64_t>>();
      else if (v.is<int64_t>())
        values = {v.get<int64_t>()};
      else
        return mismatch();
      if (f.length > 0 && values.size() == 1) values.assign(f.length, values[0]);
      if (f.length > 0 && values.size() != f.length) {
        return absl::InvalidArgumentError(
            absl::StrCat("attribute ", f.name, " needs ", f.length, " values, got ", values.size()));
      }
      *static_cast<std::vector<int64_t>*>(f.ptr) = std::move(values);
      return absl::OkStatus();
    }
    case AttrKind::kFloats: {
      std::vector<double> values;
      if (v.is<std::vector<double>>()) {
        values = v.get<std::vector<double>>();
      } else if (v.is<std::vector<int64_t>>()) {
        for (int64_t x : v.get<std::vector<int64_t>>()) values.push_back(static_cast<double>(x));
      } else {
        return mismatch();
      }
      if (f.length > 0 && values.size() != f.length) {
        return absl::InvalidArgumentError(
            absl::StrCat("attribute ", f.name, " needs ", f.length, " values, got ", values.size()));
      }
      *static_cast<std::vector<double>*>(f.ptr) = std::move(values);
      return absl::OkStatus();
    }
  }
  return mismatch();
}

AttrValue Read(const AttrFieldDecl& f) {
  switch (f.kind) {
    case AttrKind::kInt: return AttrValue(*static_cast<const int64_t*>(f.ptr));
    case AttrKind::kInts: return AttrValue(*static_cast<const std::vector<int64_t>*>(f.ptr));
    case AttrKind::kFloat: return AttrValue(*static_cast<const double*>(f.ptr));
    case AttrKind::kFloats: return AttrValue(*static_cast<const std::vector<double>*>(f.ptr));
    case AttrKind::kBool: return AttrValue(*static_cast<const bool*>(f.ptr));
    case AttrKind::kString: return AttrValue(*static_cast<const std::string*>(f.ptr));
    case AttrKind::kDType: return AttrValue(*static_cast<const DataType*>(f.ptr));
  }
  return AttrValue();
}

bool IsEmpty(const AttrValue& v) {
  return (v.is<std::vector<int64_t>>() && v.get<std::vector<int64_t>>().empty()) ||
         (v.is<std::vector<double>>() && v.get<std::vector<double>>().empty()) ||
         (v.is<std::string>() && v.get<std::string>().empty());
}

}  // namespace

std::vector<OpAttrSpec> DescribeFields(const std::vector<AttrFieldDecl>& fields) {
  std::vector<OpAttrSpec> out;
  for (const AttrFieldDecl& f : fields) {
    out.push_back({f.name, AttrKindName(f.kind), f.doc, f.default_value, f.default_value.is_none() && !f.optional});
  }
  return out;
}

absl::Status ParseFields(const Attrs& attrs, const std::vector<AttrFieldDecl>& fields) {
  std::set<std::string> known;
  for (const AttrFieldDecl& f : fields) {
    known.insert(f.name);
    auto it = attrs.find(f.name);
    if (it == attrs.end() || it->second.is_none()) {
      if (!f.default_value.is_none()) {
        if (absl::Status s = Assign(f, f.default_value); !s.ok()) return s;
      } else if (!f.optional) {
        return absl::InvalidArgumentError(absl::StrCat("attribute ", f.name, " is required"));
      }
      continue;
    }
    if (absl::Status s = Assign(f, it->second); !s.ok()) return s;
  }
  for (const auto& [key, value] : attrs) {
    if (!known.count(key)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown attribute ", key,
          known.empty() ? " (it takes none)" : absl::StrCat(" (attributes: ", absl::StrJoin(known, ", "), ")")));
    }
  }
  return absl::OkStatus();
}

Attrs WriteFields(const std::vector<AttrFieldDecl>& fields) {
  Attrs out;
  for (const AttrFieldDecl& f : fields) {
    AttrValue v = Read(f);
    if (v == f.default_value) continue;
    if (f.optional && IsEmpty(v)) continue;
    out[f.name] = std::move(v);
  }
  return out;
}

}  // namespace detail
}  // namespace relax
}  // namespace mlc
