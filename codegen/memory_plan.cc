/*! \file memory_plan.cc */
#include "codegen/memory_plan.h"

#include <algorithm>
#include <map>
#include <optional>
#include <utility>

namespace mlc {
namespace codegen {
namespace {

using proto::Arg;
using proto::DimBinary;
using proto::DimExpr;
using proto::Instruction;

/*! \brief Bounds of a dimension expression over variables in [0, bound]. */
struct Range {
  int64_t lo, hi;
};

std::optional<Range> Bound(const DimExpr& e, const std::vector<int64_t>& upper) {
  switch (e.kind_case()) {
    case DimExpr::kValue: return Range{e.value(), e.value()};
    case DimExpr::kVar:
      if (e.var() < 0 || e.var() >= static_cast<int>(upper.size()) || upper[e.var()] < 0) return std::nullopt;
      return Range{0, upper[e.var()]};
    case DimExpr::kBinary: {
      std::optional<Range> a = Bound(e.binary().a(), upper), b = Bound(e.binary().b(), upper);
      if (!a || !b) return std::nullopt;
      Range r;
      bool overflow = false;
      switch (e.binary().op()) {
        case DimBinary::ADD:
          overflow = __builtin_add_overflow(a->lo, b->lo, &r.lo) || __builtin_add_overflow(a->hi, b->hi, &r.hi);
          break;
        case DimBinary::SUB:
          overflow = __builtin_sub_overflow(a->lo, b->hi, &r.lo) || __builtin_sub_overflow(a->hi, b->lo, &r.hi);
          break;
        case DimBinary::MUL:
          if (a->lo < 0 || b->lo < 0) return std::nullopt;
          overflow = __builtin_mul_overflow(a->lo, b->lo, &r.lo) || __builtin_mul_overflow(a->hi, b->hi, &r.hi);
          break;
        case DimBinary::FLOOR_DIV:
          if (b->lo != b->hi || b->lo <= 0 || a->lo < 0) return std::nullopt;
          r = {a->lo / b->lo, a->hi / b->lo};
          break;
        case DimBinary::FLOOR_MOD:
          if (b->lo != b->hi || b->lo <= 0) return std::nullopt;
          r = {0, b->lo - 1};
          break;
        case DimBinary::MIN: r = {std::min(a->lo, b->lo), std::min(a->hi, b->hi)}; break;
        case DimBinary::MAX: r = {std::max(a->lo, b->lo), std::max(a->hi, b->hi)}; break;
        default: return std::nullopt;
      }
      if (overflow) return std::nullopt;
      return r;
    }
    default: return std::nullopt;
  }
}

/*! \brief The most a dimension can be when each shape variable v lies in [0, upper[v]] (-1:
 *  unbounded); nullopt when no bound follows (an unbounded variable, a product of possibly
 *  negative terms, division by a variable). */
std::optional<int64_t> DimUpperBound(const DimExpr& dim, const std::vector<int64_t>& upper) {
  std::optional<Range> r = Bound(dim, upper);
  if (!r) return std::nullopt;
  return std::max<int64_t>(0, r->hi);
}

/*! \brief Bytes of an ALLOC_TENSOR at most, or nullopt. */
std::optional<int64_t> AllocationBound(const Instruction& alloc, const std::vector<int64_t>& upper) {
  const proto::ShapeArg& shape = alloc.args(0).shape();
  const proto::DataTypeProto& dtype = alloc.args(1).dtype();
  int64_t bytes = (static_cast<int64_t>(dtype.bits()) + 7) / 8;
  auto times = [&bytes](int64_t d) { return d >= 0 && !__builtin_mul_overflow(bytes, d, &bytes); };
  if (shape.symbolic_dims_size() > 0) {
    for (const DimExpr& d : shape.symbolic_dims()) {
      std::optional<int64_t> hi = DimUpperBound(d, upper);
      if (!hi || !times(*hi)) return std::nullopt;
    }
  } else {
    for (int64_t d : shape.values()) {
      if (!times(d)) return std::nullopt;
    }
  }
  return bytes;
}

bool IsBuiltin(const Instruction& inst, Instruction::Builtin b) {
  return inst.opcode() == Instruction::CALL && inst.callee_kind() == Instruction::BUILTIN && inst.builtin() == b;
}

int64_t RoundUp64(int64_t bytes) { return (bytes + 63) / 64 * 64; }

}  // namespace

void PlanMemory(const std::vector<int64_t>& upper_bounds, proto::VMFunction* fn) {
  const int n = fn->instructions_size();
  // Branches would need liveness over the control flow; straight-line code is what the
  // compiler emits for dataflow programs.
  for (const Instruction& inst : fn->instructions()) {
    if (inst.opcode() == Instruction::IF || inst.opcode() == Instruction::GOTO) return;
  }
  int returned = -1;
  if (n > 0 && fn->instructions(n - 1).args_size() == 1 && fn->instructions(n - 1).args(0).kind_case() == Arg::kReg) {
    returned = fn->instructions(n - 1).args(0).reg();
  }
  struct Buffer {
    int alloc = -1;           // its ALLOC_TENSOR
    int def = -1, last = -1;  // its lifetime (a CONCAT result's covers its inputs')
    int64_t bytes = 0;
    bool plannable = true;
    int64_t offset = -1;
    int parent = -1;               // the CONCAT result this buffer is an input of, placed inside it
    int64_t offset_in_parent = 0;  // ... at this byte
  };
  std::map<int, Buffer> buffers;  // by register
  for (int i = 0; i < n; ++i) {
    const Instruction& inst = fn->instructions(i);
    if (!IsBuiltin(inst, Instruction::ALLOC_TENSOR) || inst.dst() < 0 || inst.dst() == returned) continue;
    std::optional<int64_t> bytes = AllocationBound(inst, upper_bounds);
    if (!bytes) continue;
    buffers[inst.dst()] = Buffer{i, i, i, *bytes, true, -1, -1, 0};
  }
  for (int i = 0; i < n; ++i) {
    const Instruction& inst = fn->instructions(i);
    const bool passes_by_destination =
        (inst.opcode() == Instruction::CALL &&
         (inst.callee_kind() == Instruction::KERNEL || inst.callee_kind() == Instruction::EXTERN)) ||
        IsBuiltin(inst, Instruction::CONCAT);
    for (int k = 0; k < inst.args_size(); ++k) {
      if (inst.args(k).kind_case() != Arg::kReg) continue;
      auto it = buffers.find(inst.args(k).reg());
      if (it == buffers.end()) continue;
      it->second.last = std::max(it->second.last, i);
      if (!passes_by_destination && !(IsBuiltin(inst, Instruction::MATCH_CAST) && k == 0)) it->second.plannable = false;
    }
  }
  // The inputs of a CONCAT go where their bytes lie in its result: members of the result's
  // buffer, which is placed for all their lifetimes together.
  for (int i = 0; i < n; ++i) {
    const Instruction& inst = fn->instructions(i);
    if (!IsBuiltin(inst, Instruction::CONCAT) || inst.args_size() < 2) continue;
    auto plannable = [&](const Arg& a) -> Buffer* {
      if (a.kind_case() != Arg::kReg) return nullptr;
      auto it = buffers.find(a.reg());
      return it != buffers.end() && it->second.plannable && it->second.parent < 0 ? &it->second : nullptr;
    };
    Buffer* out = plannable(inst.args(0));
    if (out == nullptr) continue;
    std::vector<Buffer*> inputs;
    int64_t bytes = 0;
    bool aligned = true;
    for (int k = 1; k < inst.args_size(); ++k) {
      Buffer* in = plannable(inst.args(k));
      if (in == nullptr || in == out || std::count(inputs.begin(), inputs.end(), in)) break;
      inputs.push_back(in);
      aligned &= bytes % 64 == 0;
      bytes += in->bytes;
    }
    if (static_cast<int>(inputs.size()) != inst.args_size() - 1 || bytes != out->bytes || !aligned) continue;
    bytes = 0;
    for (int k = 1; k < inst.args_size(); ++k) {
      Buffer* in = inputs[k - 1];
      in->parent = inst.args(0).reg();
      in->offset_in_parent = bytes;
      bytes += in->bytes;
    }
  }
  // A member's group root (the outermost buffer), and its byte offset inside that root.
  auto place_in_root = [&](int reg) {
    int64_t offset = 0;
    for (; buffers.at(reg).parent >= 0; reg = buffers.at(reg).parent) offset += buffers.at(reg).offset_in_parent;
    return std::make_pair(reg, offset);
  };
  // A group's outermost buffer lives as long as any of its members.
  for (auto& [reg, b] : buffers) {
    if (b.parent < 0) continue;
    Buffer& root = buffers.at(place_in_root(reg).first);
    root.def = std::min(root.def, b.def);
    root.last = std::max(root.last, b.last);
  }
  // Greedy by size (as TFLite's arena planner): the largest buffers first, each at the lowest
  // offset where it overlaps, in address, no placed buffer whose lifetime overlaps its own.
  std::vector<Buffer*> order;
  for (auto& [reg, b] : buffers) {
    if (b.plannable && b.parent < 0) order.push_back(&b);
  }
  std::stable_sort(order.begin(), order.end(), [](const Buffer* a, const Buffer* b) { return a->bytes > b->bytes; });
  std::vector<const Buffer*> placed;
  int64_t arena = 0;
  for (Buffer* b : order) {
    const int64_t size = RoundUp64(b->bytes);
    std::vector<const Buffer*> live;
    for (const Buffer* p : placed) {
      if (p->def <= b->last && b->def <= p->last) live.push_back(p);
    }
    std::sort(live.begin(), live.end(), [](const Buffer* x, const Buffer* y) { return x->offset < y->offset; });
    // The smallest gap that holds it, else after the last live buffer.
    int64_t best = -1, best_gap = 0, cursor = 0;
    for (const Buffer* p : live) {
      const int64_t gap = p->offset - cursor;
      if (gap >= size && (best < 0 || gap < best_gap)) {
        best = cursor;
        best_gap = gap;
      }
      cursor = std::max(cursor, p->offset + RoundUp64(p->bytes));
    }
    b->offset = best >= 0 ? best : cursor;
    arena = std::max(arena, b->offset + size);
    placed.push_back(b);
  }
  fn->set_arena_bytes(arena);
  for (auto& [reg, b] : buffers) {
    if (b.parent < 0) continue;
    const auto [root, offset] = place_in_root(reg);
    b.offset = buffers.at(root).offset + offset;
  }
  for (const auto& [reg, b] : buffers) {
    if (b.offset < 0) continue;
    Instruction* alloc = fn->mutable_instructions(b.alloc);
    alloc->add_args()->set_imm(b.offset);
    alloc->add_args()->set_imm(b.bytes);
  }
}

}  // namespace codegen
}  // namespace mlc
