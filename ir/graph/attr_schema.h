/*! \file attr_schema.h
 *  \brief Typed attribute structs of operators, declared once.
 *
 *  An operator's attributes are a plain struct with a VisitAttrs method that declares each
 *  field with its name, default (or that it is required), length and meaning:
 *
 *    struct Conv2DAttrs {
 *      std::vector<int64_t> strides;
 *      int64_t groups;
 *      void VisitAttrs(AttrVisitor* v) {
 *        v->Field("strides", &strides).Default({1, 1}).Length(2).Describe("(stride_h, stride_w)");
 *        v->Field("groups", &groups).Default(1).Describe("channel groups");
 *      }
 *    };
 *
 *  Everything else comes from that declaration: the attribute table the printer, the parser
 *  and the generated docs read (DescribeAttrs), the typed view of a call's attribute
 *  dictionary with defaults filled in and types, lengths and unknown names checked
 *  (ParseAttrs), and the dictionary of a struct (ToAttrs), which leaves out default values so
 *  that two spellings of one call compare equal.
 */
#ifndef MLC_IR_GRAPH_ATTR_SCHEMA_H_
#define MLC_IR_GRAPH_ATTR_SCHEMA_H_

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/core/attrs.h"

namespace mlc {
namespace relax {

enum class AttrKind { kInt, kInts, kFloat, kFloats, kBool, kString, kDType };
/*! \brief "int", "int[]", "float", "float[]", "bool", "str", "dtype". */
const char* AttrKindName(AttrKind kind);

template <typename T>
struct AttrKindOf;
template <>
struct AttrKindOf<int64_t> {
  static constexpr AttrKind value = AttrKind::kInt;
};
template <>
struct AttrKindOf<std::vector<int64_t>> {
  static constexpr AttrKind value = AttrKind::kInts;
};
template <>
struct AttrKindOf<double> {
  static constexpr AttrKind value = AttrKind::kFloat;
};
template <>
struct AttrKindOf<std::vector<double>> {
  static constexpr AttrKind value = AttrKind::kFloats;
};
template <>
struct AttrKindOf<bool> {
  static constexpr AttrKind value = AttrKind::kBool;
};
template <>
struct AttrKindOf<std::string> {
  static constexpr AttrKind value = AttrKind::kString;
};
template <>
struct AttrKindOf<DataType> {
  static constexpr AttrKind value = AttrKind::kDType;
};

/*! \brief One declared field. */
struct AttrFieldDecl {
  std::string name;
  AttrKind kind;
  void* ptr;                // the struct's member, of the C++ type of `kind`
  AttrValue default_value;  // None: required, unless `optional`
  bool optional = false;    // may be absent (None); the member keeps its empty value
  size_t length = 0;        // lists: the required length; a single value is repeated to it
  std::string doc;
};

/*! \brief What the struct's fields are visited by: the parser, the writer, the describer. */
class AttrVisitor {
 public:
  virtual ~AttrVisitor() = default;
  virtual void Visit(const AttrFieldDecl& field) = 0;

  /*! \brief Declares a field; the declaration is complete at the end of the statement. */
  template <typename T>
  class FieldBuilder {
   public:
    FieldBuilder(AttrVisitor* visitor, const char* name, T* ptr) : visitor_(visitor) {
      decl_.name = name;
      decl_.kind = AttrKindOf<T>::value;
      decl_.ptr = ptr;
    }
    FieldBuilder(const FieldBuilder&) = delete;
    ~FieldBuilder() { visitor_->Visit(decl_); }
    FieldBuilder& Default(T value) {
      decl_.default_value = AttrValue(std::move(value));
      return *this;
    }
    /*! \brief May be left unset (printed None); the member then stays empty. */
    FieldBuilder& Optional() {
      decl_.optional = true;
      return *this;
    }
    FieldBuilder& Length(size_t n) {
      decl_.length = n;
      return *this;
    }
    FieldBuilder& Describe(const char* doc) {
      decl_.doc = doc;
      return *this;
    }

   private:
    AttrVisitor* visitor_;
    AttrFieldDecl decl_;
  };

  template <typename T>
  FieldBuilder<T> Field(const char* name, T* ptr) {
    return FieldBuilder<T>(this, name, ptr);
  }
};

/*! \brief A field as the printer, the parser and the docs see it. */
struct OpAttrSpec {
  std::string name;
  std::string type;  // AttrKindName
  std::string doc;
  AttrValue default_value;  // printed when a call does not set the attribute (None if unset)
  bool required = false;
};

namespace detail {
std::vector<OpAttrSpec> DescribeFields(const std::vector<AttrFieldDecl>& fields);
absl::Status ParseFields(const Attrs& attrs, const std::vector<AttrFieldDecl>& fields);
Attrs WriteFields(const std::vector<AttrFieldDecl>& fields);

/*! \brief Collects the declarations of a struct instance. */
class Collector : public AttrVisitor {
 public:
  void Visit(const AttrFieldDecl& field) override { fields.push_back(field); }
  std::vector<AttrFieldDecl> fields;
};
template <typename A>
std::vector<AttrFieldDecl> Fields(A* attrs) {
  Collector c;
  attrs->VisitAttrs(&c);
  return c.fields;
}
}  // namespace detail

/*! \brief The attribute table of A. */
template <typename A>
std::vector<OpAttrSpec> DescribeAttrs() {
  A a;
  return detail::DescribeFields(detail::Fields(&a));
}

/*! \brief The typed view of `attrs`: defaults filled in; a missing required field, a value of
 *         the wrong type or length, or an unknown name is an error naming the attribute. */
template <typename A>
absl::StatusOr<A> ParseAttrs(const Attrs& attrs) {
  A a;
  if (absl::Status s = detail::ParseFields(attrs, detail::Fields(&a)); !s.ok()) return s;
  return a;
}

/*! \brief The dictionary of `a`, without the fields that hold their default value. */
template <typename A>
Attrs ToAttrs(A a) {
  return detail::WriteFields(detail::Fields(&a));
}

}  // namespace relax
}  // namespace mlc

#endif  // MLC_IR_GRAPH_ATTR_SCHEMA_H_
