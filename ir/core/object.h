/*! \file object.h
 *  \brief Immutable, shared IR nodes with an intrusive reference count.
 *
 *  Every IR node derives from Object and carries its NodeKind, so dispatch is a switch on
 *  the kind (see node_kinds.h) and a downcast is a tag check, with no RTTI. Nodes are
 *  never mutated after construction: rewriting builds new nodes, and a rewrite that changes
 *  nothing returns the very same pointer, which makes "did it change" a pointer compare.
 */
#ifndef MLC_IR_CORE_OBJECT_H_
#define MLC_IR_CORE_OBJECT_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>

#include "ir/core/node_kinds.h"

namespace mlc {

enum class NodeKind : uint8_t {
#define MLC_ENUM_KIND(Name) k##Name,
  MLC_PRIM_EXPR_KINDS(MLC_ENUM_KIND) MLC_STMT_KINDS(MLC_ENUM_KIND) MLC_TIR_OTHER_KINDS(MLC_ENUM_KIND)
      MLC_EXPR_KINDS(MLC_ENUM_KIND) MLC_STRUCT_INFO_KINDS(MLC_ENUM_KIND) MLC_GRAPH_OTHER_KINDS(MLC_ENUM_KIND)
          MLC_FUNCTION_KINDS(MLC_ENUM_KIND)
#undef MLC_ENUM_KIND
};

/*! \brief The category a kind belongs to (tir expression, tir statement, graph expression...). */
enum class NodeCategory : uint8_t {
  kPrimExpr,
  kStmt,
  kTirOther,
  kExpr,
  kStructInfo,
  kGraphOther,
  kFunction,
};

NodeCategory CategoryOf(NodeKind kind);
const char* NodeKindName(NodeKind kind);

class Object {
 public:
  explicit Object(NodeKind kind) : kind_(kind) {}
  Object(const Object&) = delete;
  Object& operator=(const Object&) = delete;
  virtual ~Object() = default;

  NodeKind kind() const { return kind_; }

 private:
  template <typename>
  friend class Ref;
  mutable std::atomic<int32_t> ref_count_{0};
  const NodeKind kind_;
};

/*! \brief A counted reference to an immutable node of type T (or a subclass). */
template <typename T>
class Ref {
 public:
  using ContainerType = T;

  Ref() = default;
  Ref(std::nullptr_t) {}  // NOLINT: implicit, as for pointers.
  explicit Ref(const T* ptr) : ptr_(ptr) { IncRef(); }
  template <typename U, typename = std::enable_if_t<std::is_base_of_v<T, U>>>
  Ref(const Ref<U>& other) : ptr_(other.get()) {  // NOLINT: upcast is implicit.
    IncRef();
  }
  Ref(const Ref& other) : ptr_(other.ptr_) { IncRef(); }
  Ref(Ref&& other) noexcept : ptr_(other.ptr_) { other.ptr_ = nullptr; }
  Ref& operator=(const Ref& other) {
    Ref(other).swap(*this);
    return *this;
  }
  Ref& operator=(Ref&& other) noexcept {
    Ref(std::move(other)).swap(*this);
    return *this;
  }
  ~Ref() { DecRef(); }

  void swap(Ref& other) noexcept { std::swap(ptr_, other.ptr_); }

  const T* get() const { return ptr_; }
  const T* operator->() const { return ptr_; }
  const T& operator*() const { return *ptr_; }
  bool defined() const { return ptr_ != nullptr; }
  explicit operator bool() const { return ptr_ != nullptr; }
  bool same_as(const Ref& other) const { return ptr_ == other.ptr_; }
  NodeKind kind() const { return ptr_->kind(); }

  /*! \brief Downcast: the node as U if it is one, else nullptr. */
  template <typename U>
  const U* as() const {
    if (ptr_ != nullptr && U::IsInstance(ptr_)) return static_cast<const U*>(ptr_);
    return nullptr;
  }
  /*! \brief Downcast to a reference; empty if the node is not a U. */
  template <typename R>
  R as_ref() const {
    using U = typename R::ContainerType;
    return R(as<U>());
  }

  bool operator==(const Ref& other) const { return ptr_ == other.ptr_; }
  bool operator!=(const Ref& other) const { return ptr_ != other.ptr_; }

 private:
  void IncRef() {
    if (ptr_) ptr_->ref_count_.fetch_add(1, std::memory_order_relaxed);
  }
  void DecRef() {
    if (ptr_ && ptr_->ref_count_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete ptr_;
    ptr_ = nullptr;
  }
  const T* ptr_ = nullptr;
};

/*! \brief Makes a node and returns the owning reference. */
template <typename T, typename... Args>
Ref<T> MakeNode(Args&&... args) {
  return Ref<T>(new T(std::forward<Args>(args)...));
}

/*! \brief Pointer-identity hashing, for maps keyed by node (vars, buffers). */
struct RefHash {
  template <typename T>
  size_t operator()(const Ref<T>& ref) const {
    return std::hash<const void*>()(ref.get());
  }
};

/*! \brief Declares the kind tag and instance check of a concrete node class. */
#define MLC_DECLARE_NODE(Name)                         \
  static constexpr NodeKind kKind = NodeKind::k##Name; \
  static bool IsInstance(const Object* obj) { return obj->kind() == kKind; }

}  // namespace mlc

#endif  // MLC_IR_CORE_OBJECT_H_
