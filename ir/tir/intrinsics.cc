/*! \file intrinsics.cc
 *  \brief The intrinsic table.
 */
#include "ir/tir/intrinsics.h"

#include <cmath>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "ir/tir/prim_expr_ops.h"

namespace mlc {
namespace tir {

const std::vector<IntrinsicInfo>& AllIntrinsics() {
  // name, args, description, eval, LLVM intrinsic, libm, expansion, result type, strict fp
  static const std::vector<IntrinsicInfo> kIntrinsics = {
      {"exp", 1, "e ** x", [](const double* a) { return std::exp(a[0]); }, "llvm.exp", nullptr, nullptr,
       IntrinsicInfo::Result::kArgType, false},
      {"exp2", 1, "2 ** x", [](const double* a) { return std::exp2(a[0]); }, "llvm.exp2", nullptr, nullptr,
       IntrinsicInfo::Result::kArgType, false},
      {"log", 1, "natural logarithm", [](const double* a) { return std::log(a[0]); }, "llvm.log", nullptr, nullptr,
       IntrinsicInfo::Result::kArgType, false},
      {"log2", 1, "base-2 logarithm", [](const double* a) { return std::log2(a[0]); }, "llvm.log2", nullptr, nullptr,
       IntrinsicInfo::Result::kArgType, false},
      {"sqrt", 1, "square root", [](const double* a) { return std::sqrt(a[0]); }, "llvm.sqrt", nullptr, nullptr,
       IntrinsicInfo::Result::kArgType, false},
      {"rsqrt", 1, "1 / sqrt(x)", [](const double* a) { return 1 / std::sqrt(a[0]); }, nullptr, nullptr,
       [](const std::vector<PrimExpr>& a) { return Const(a[0]->dtype, 1.0) / Intrinsic("sqrt", {a[0]}); },
       IntrinsicInfo::Result::kArgType, false},
      {"tan", 1, "tangent", [](const double* a) { return std::tan(a[0]); }, nullptr, "tan", nullptr,
       IntrinsicInfo::Result::kArgType, false},
      {"asin", 1, "arcsine", [](const double* a) { return std::asin(a[0]); }, nullptr, "asin", nullptr,
       IntrinsicInfo::Result::kArgType, false},
      {"acos", 1, "arccosine", [](const double* a) { return std::acos(a[0]); }, nullptr, "acos", nullptr,
       IntrinsicInfo::Result::kArgType, false},
      {"atan", 1, "arctangent", [](const double* a) { return std::atan(a[0]); }, nullptr, "atan", nullptr,
       IntrinsicInfo::Result::kArgType, false},
      {"sinh", 1, "hyperbolic sine", [](const double* a) { return std::sinh(a[0]); }, nullptr, "sinh", nullptr,
       IntrinsicInfo::Result::kArgType, false},
      {"cosh", 1, "hyperbolic cosine", [](const double* a) { return std::cosh(a[0]); }, nullptr, "cosh", nullptr,
       IntrinsicInfo::Result::kArgType, false},
      {"asinh", 1, "inverse hyperbolic sine", [](const double* a) { return std::asinh(a[0]); }, nullptr, "asinh",
       nullptr, IntrinsicInfo::Result::kArgType, false},
      {"acosh", 1, "inverse hyperbolic cosine", [](const double* a) { return std::acosh(a[0]); }, nullptr, "acosh",
       nullptr, IntrinsicInfo::Result::kArgType, false},
      {"atanh", 1, "inverse hyperbolic tangent", [](const double* a) { return std::atanh(a[0]); }, nullptr, "atanh",
       nullptr, IntrinsicInfo::Result::kArgType, false},
      {"fmod", 2, "C's fmod: x - trunc(x / y) * y, the sign of x",
       [](const double* a) { return std::fmod(a[0], a[1]); }, nullptr, "fmod", nullptr, IntrinsicInfo::Result::kArgType,
       false},
      {"tanh", 1, "hyperbolic tangent", [](const double* a) { return std::tanh(a[0]); }, nullptr, "tanh", nullptr,
       IntrinsicInfo::Result::kArgType, false},
      {"sigmoid", 1, "1 / (1 + exp(-x))", [](const double* a) { return 1 / (1 + std::exp(-a[0])); }, nullptr, nullptr,
       [](const std::vector<PrimExpr>& a) {
         PrimExpr one = Const(a[0]->dtype, 1.0);
         return one / (one + Intrinsic("exp", {-a[0]}));
       },
       IntrinsicInfo::Result::kArgType, false},
      {"erf", 1, "Gauss error function", [](const double* a) { return std::erf(a[0]); }, nullptr, "erf", nullptr,
       IntrinsicInfo::Result::kArgType, false},
      {"fabs", 1, "|x| (T.abs)", [](const double* a) { return std::fabs(a[0]); }, "llvm.fabs", nullptr, nullptr,
       IntrinsicInfo::Result::kArgType, false},
      {"floor", 1, "round down", [](const double* a) { return std::floor(a[0]); }, "llvm.floor", nullptr, nullptr,
       IntrinsicInfo::Result::kArgType, false},
      {"ceil", 1, "round up", [](const double* a) { return std::ceil(a[0]); }, "llvm.ceil", nullptr, nullptr,
       IntrinsicInfo::Result::kArgType, false},
      // Strict: rounding turns a one-ulp error of its argument (x / s computed as x * (1 / s))
      // into a whole unit (quantize).
      {"round", 1, "round half to even", [](const double* a) { return std::nearbyint(a[0]); }, "llvm.roundeven",
       nullptr, nullptr, IntrinsicInfo::Result::kArgType, true},
      {"trunc", 1, "round toward zero", [](const double* a) { return std::trunc(a[0]); }, "llvm.trunc", nullptr,
       nullptr, IntrinsicInfo::Result::kArgType, false},
      {"sin", 1, "sine", [](const double* a) { return std::sin(a[0]); }, "llvm.sin", nullptr, nullptr,
       IntrinsicInfo::Result::kArgType, false},
      {"cos", 1, "cosine", [](const double* a) { return std::cos(a[0]); }, "llvm.cos", nullptr, nullptr,
       IntrinsicInfo::Result::kArgType, false},
      {"pow", 2, "x ** y", [](const double* a) { return std::pow(a[0], a[1]); }, "llvm.pow", nullptr, nullptr,
       IntrinsicInfo::Result::kArgType, false},
      {"isnan", 1, "x is NaN", [](const double* a) { return std::isnan(a[0]) ? 1.0 : 0.0; }, nullptr, nullptr,
       [](const std::vector<PrimExpr>& a) { return MakeBinary(NodeKind::kNE, a[0], a[0]); },
       IntrinsicInfo::Result::kBool, true},
      // Built into code generation (no value of their own): what tensorize produces.
      {"address_of", 1, "the address of a buffer element", nullptr, nullptr, nullptr, nullptr,
       IntrinsicInfo::Result::kHandle, false},
      {"gemm_tile", 12,
       "C[m, n] += A[m, k] * B[k, n] over an MR x NR register tile (C, A, B, K, MR, NR, then the m/k strides of A, k/n "
       "of B, "
       "m/n of C)",
       nullptr, nullptr, nullptr, nullptr, IntrinsicInfo::Result::kInt32, false,
       [](const std::vector<PrimExpr>& a) -> int64_t {  // a multiply-add per (k, m, n)
         int64_t n = 2;
         for (int i : {3, 4, 5}) n *= AsConstInt(a[i]) != nullptr ? *AsConstInt(a[i]) : 1;
         return n;
       }},
      {"if_then_else", 3,
       "cond ? a : b evaluating only the side chosen, unlike Select: a load that the condition guards (an input of a "
       "concatenation that may be empty) is never made",
       nullptr, nullptr, nullptr, nullptr, IntrinsicInfo::Result::kSecondArgType, false,
       [](const std::vector<PrimExpr>&) -> int64_t { return 0; }},
      {"gemm_tile_partial", 13,
       "T.gemm_tile on the first `rows` (the 13th argument, at most MR) rows of the tile only: the last tile of rows "
       "whose "
       "count is known when the kernel runs",
       nullptr, nullptr, nullptr, nullptr, IntrinsicInfo::Result::kInt32, false,
       [](const std::vector<PrimExpr>& a) -> int64_t {  // counted as a full tile (an upper bound)
         int64_t n = 2;
         for (int i : {3, 4, 5}) n *= AsConstInt(a[i]) != nullptr ? *AsConstInt(a[i]) : 1;
         return n;
       }},
      {"gemm_tile_nd", -1,
       "C += A * B over an MR x (NB x NR) register tile with several reduction loops (a direct convolution's channels "
       "and "
       "window): C, A, B, MR, NB, NR, then A's and C's row strides, B's and C's column-block strides, flags (1: A is a "
       "vector along the lanes, as in a depthwise convolution; 2: C = the sums, not read; 4: one more argument, last, "
       "the rows (at most MR) the tile computes; 8: B streams from beyond L2, prefetch it; 16: prefetch the next "
       "tile's A, MR rows further, a line per row at each step of the outer reduction loops), the number of reduction "
       "loops and, for each (outermost first), its "
       "extent and its A and B strides; the NR lanes are contiguous in B and C",
       nullptr, nullptr, nullptr, nullptr, IntrinsicInfo::Result::kInt32, false,
       [](const std::vector<PrimExpr>& a) -> int64_t {  // a multiply-add per (row, column, reduction step)
         auto at = [&](size_t i) -> int64_t {
           return i < a.size() && AsConstInt(a[i]) != nullptr ? *AsConstInt(a[i]) : 1;
         };
         int64_t n = 2 * at(3) * at(4) * at(5);
         for (int64_t k = 0; k < at(11); ++k) n *= at(12 + 3 * k);
         return n;
       }},
  };
  return kIntrinsics;
}

const IntrinsicInfo* LookupIntrinsic(const std::string& name) {
  // Hashed: constant folding asks once per element of a weight (an int8 ResNet-18's import spent
  // a third of its time comparing names along the table).
  static const auto* const kByName = [] {
    auto* by_name = new absl::flat_hash_map<std::string_view, const IntrinsicInfo*>();
    for (const IntrinsicInfo& info : AllIntrinsics()) by_name->emplace(info.name, &info);
    return by_name;
  }();
  auto it = kByName->find(name);
  return it == kByName->end() ? nullptr : it->second;
}

}  // namespace tir
}  // namespace mlc
