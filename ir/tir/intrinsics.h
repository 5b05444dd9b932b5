/*! \file intrinsics.h
 *  \brief The math intrinsics a TirCall may name, in one table that the parser, the verifier,
 *         the interpreter and code generation all read.
 *
 *  Each intrinsic says how it is computed: in double precision for the interpreter and
 *  constant folding (`eval`), and for native code either as an LLVM intrinsic (by its LLVM
 *  name), as a libm function (the float32 variant takes an "f" suffix), or as an expansion
 *  into other expressions. Adding an intrinsic is adding one row to kIntrinsics.
 */
#ifndef MLC_IR_TIR_INTRINSICS_H_
#define MLC_IR_TIR_INTRINSICS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "ir/tir/prim_expr.h"

namespace mlc {
namespace tir {

struct IntrinsicInfo {
  const char* name;
  int num_args;  // -1: any number (a tensor intrinsic whose code generation checks them)
  const char* description;
  /*! \brief Value in double precision (null for the built-in calls code generation emits). */
  double (*eval)(const double* args);
  /*! \brief LLVM intrinsic name ("llvm.exp"), or nullptr. */
  const char* llvm_intrinsic;
  /*! \brief libm function name ("tanh"), or nullptr. */
  const char* libm;
  /*! \brief The intrinsic written with other expressions, or nullptr. */
  PrimExpr (*expand)(const std::vector<PrimExpr>& args);
  /*! \brief The result's type: the first argument's, the second's (T.if_then_else, whose first
   *         is the condition), bool (a predicate), a pointer, or int32 (a call made for its
   *         effect). */
  enum class Result { kArgType, kSecondArgType, kBool, kHandle, kInt32 } result;
  /*! \brief Must be computed, with its arguments, without fast-math assumptions (it inspects
   *         NaNs, or its result jumps where an argument is one ulp off). */
  bool strict_fp;
  /*! \brief Float operations of one call, for intrinsics that do more than one (a tensor
   *         intrinsic's tile); nullptr: one for a float result, none otherwise. */
  int64_t (*flops)(const std::vector<PrimExpr>& args) = nullptr;
};

/*! \brief T.gemm_tile_nd's flags (its 11th argument). */
inline constexpr int64_t kGemmTileVectorA = 1;      // A varies along the lanes: loaded as vectors, not broadcast
inline constexpr int64_t kGemmTileOverwrite = 2;    // the tile holds the whole reduction: C = sums, C not read
inline constexpr int64_t kGemmTilePartialRows = 4;  // one more argument, last: the rows (<= MR) the tile computes
inline constexpr int64_t kGemmTilePrefetchB = 8;    // B streams from beyond L2: prefetched a memory latency ahead
/*! \brief The block annotation by which a schedule rule asks tensorize for kGemmTilePrefetchB:
 *  B (the weights) is read from beyond L2 by a large share of the tiles that read it. */
inline constexpr char kPrefetchWeightsAnnotation[] = "prefetch_weights";
// The next tile's A (its rows MR further along A) prefetched, a line per row at each step of the
// reduction loops outside the innermost, while this tile runs.
inline constexpr int64_t kGemmTilePrefetchNextA = 16;
/*! \brief The block annotation by which a schedule rule asks tensorize for
 *  kGemmTilePrefetchNextA: the tiles run along A's rows, each reading its data where it lies. */
inline constexpr char kPrefetchNextDataAnnotation[] = "prefetch_next_data";
// B's next chunk (B where the loops around the call that move B take it next) prefetched into L2,
// each of the calls that share this chunk (the loops inside the innermost one moving B) taking
// its slice of the lines, spread over the steps of the outermost reduction loop.
inline constexpr int64_t kGemmTilePrefetchNextB = 32;
/*! \brief The block annotation by which a schedule rule asks tensorize for
 *  kGemmTilePrefetchNextB: the reduction runs in chunks outside the pixel tiles, and few tiles
 *  share each chunk, so the first tile of a chunk would wait on its weights from beyond L2. */
inline constexpr char kPrefetchNextWeightsAnnotation[] = "prefetch_next_weights";

const std::vector<IntrinsicInfo>& AllIntrinsics();
/*! \brief The intrinsic, or nullptr. */
const IntrinsicInfo* LookupIntrinsic(const std::string& name);

}  // namespace tir
}  // namespace mlc

#endif  // MLC_IR_TIR_INTRINSICS_H_
