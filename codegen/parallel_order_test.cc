/*! \file parallel_order_test.cc
 *  \brief Which kernel calls run their parallel loops last to first: the ones that sweep a
 *         large constant again while the last sweep is still in cache, alternating.
 */
#include "codegen/parallel_order.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace mlc {
namespace codegen {
namespace {

constexpr int64_t kCache = 1 << 20;

/*! \brief An executable whose constants have these sizes in bytes. */
proto::Executable WithConstants(const std::vector<int64_t>& sizes) {
  proto::Executable exe;
  for (int64_t b : sizes) exe.add_constants()->set_data(std::string(b, '\0'));
  return exe;
}

/*! \brief A kernel call reading these constants and register 0. */
void AddKernelCall(proto::VMFunction* fn, const std::vector<int>& constants) {
  proto::Instruction* inst = fn->add_instructions();
  inst->set_opcode(proto::Instruction::CALL);
  inst->set_callee_kind(proto::Instruction::KERNEL);
  inst->add_args()->set_reg(0);
  for (int c : constants) inst->add_args()->set_constant(c);
}

std::vector<bool> Descending(const proto::VMFunction& fn) {
  std::vector<bool> out;
  for (const proto::Instruction& inst : fn.instructions()) out.push_back(inst.parallel_descending());
  return out;
}

// A recurrent layer: each step's product sweeps the same 1 MB weight, with a small constant
// (the bias) in between: the sweeps alternate. A weight below half the cache stays ascending.
TEST(ParallelOrder, SweepsOfTheSameLargeConstantAlternate) {
  proto::Executable exe = WithConstants({kCache, 4096, kCache / 4});
  proto::VMFunction fn;
  for (int step = 0; step < 3; ++step) {
    AddKernelCall(&fn, {0});
    AddKernelCall(&fn, {1, 2});
  }
  OrderParallelLoops(exe, kCache, &fn);
  EXPECT_EQ(Descending(fn), (std::vector<bool>{false, false, true, false, false, false}));
}

// Another large constant read in between evicts the first one's sweep: the next starts over.
TEST(ParallelOrder, ASweepEvictedByOtherConstantsStartsOver) {
  proto::Executable exe = WithConstants({kCache, kCache / 2, kCache / 8});
  proto::VMFunction fn;
  AddKernelCall(&fn, {0});
  AddKernelCall(&fn, {1});  // half the cache of another constant
  AddKernelCall(&fn, {0});
  AddKernelCall(&fn, {2});  // an eighth: the sweep of constant 0 is still cached
  AddKernelCall(&fn, {0});
  OrderParallelLoops(exe, kCache, &fn);
  EXPECT_EQ(Descending(fn), (std::vector<bool>{false, false, false, false, true}));
}

// With branches the instructions' order is not the order they run in: all stay ascending.
TEST(ParallelOrder, FunctionsWithBranchesStayAscending) {
  proto::Executable exe = WithConstants({kCache});
  proto::VMFunction fn;
  AddKernelCall(&fn, {0});
  fn.add_instructions()->set_opcode(proto::Instruction::GOTO);
  AddKernelCall(&fn, {0});
  OrderParallelLoops(exe, kCache, &fn);
  EXPECT_EQ(Descending(fn), (std::vector<bool>{false, false, false}));
}

}  // namespace
}  // namespace codegen
}  // namespace mlc
