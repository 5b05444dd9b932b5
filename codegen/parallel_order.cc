/*! \file parallel_order.cc
 *  \brief Kernel calls that sweep a large constant again run their parallel loops the other way.
 */
#include "codegen/parallel_order.h"

#include <map>

namespace mlc {
namespace codegen {

void OrderParallelLoops(const proto::Executable& exe, int64_t cache_bytes, proto::VMFunction* fn) {
  for (const proto::Instruction& inst : fn->instructions()) {
    if (inst.opcode() == proto::Instruction::GOTO || inst.opcode() == proto::Instruction::IF) return;
  }
  auto bytes = [&](const proto::Arg& a) -> int64_t {
    if (a.kind_case() != proto::Arg::kConstant || a.constant() < 0 || a.constant() >= exe.constants_size()) return 0;
    return static_cast<int64_t>(exe.constants(a.constant()).data().size());
  };
  // The last sweep of each large constant: the constant bytes read before it ended, its order.
  struct Sweep {
    int64_t read_before_end;
    bool descending;
  };
  std::map<int32_t, Sweep> last;
  int64_t read = 0;  // constant bytes the function's kernel calls have read so far
  for (proto::Instruction& inst : *fn->mutable_instructions()) {
    if (inst.opcode() != proto::Instruction::CALL || inst.callee_kind() != proto::Instruction::KERNEL) continue;
    // The call's largest constant, when it is large enough to matter.
    int32_t swept = -1;
    int64_t swept_bytes = 0, call_bytes = 0;
    for (const proto::Arg& a : inst.args()) {
      const int64_t b = bytes(a);
      call_bytes += b;
      if (b >= cache_bytes / 2 && b > swept_bytes) swept = a.constant(), swept_bytes = b;
    }
    read += call_bytes;
    if (swept < 0) continue;
    auto it = last.find(swept);
    // Still in cache: other constants read since the last sweep ended fill less than half of it.
    const bool cached = it != last.end() && read - call_bytes - it->second.read_before_end < cache_bytes / 2;
    const bool descending = cached && !it->second.descending;
    inst.set_parallel_descending(descending);
    last[swept] = {read, descending};
  }
}

}  // namespace codegen
}  // namespace mlc
