/*! \file onnx_einsum_converter.cc
 *  \brief ONNX Einsum as the operator library's sums, transposes and batched matmuls.
 *
 *  Each operand's subscripts (with "..." expanded to fresh letters) name its axes. A letter that
 *  no other operand and not the output uses is summed out first; two operands then contract as
 *  one batched matmul: (batch, left-only, contracted) @ (batch, contracted, right-only), reshaped
 *  to the letters kept (with one letter in each of the three groups, the operands keep their
 *  batch axes and no reshape is needed). Operands fold left to right, each intermediate keeping the letters that
 *  the output or a later operand needs; the last step transposes to the output's order.
 *  A letter repeated within one operand (a diagonal, as in "ii->i") is taken first: one `take`
 *  of the pair's merged axis.
 */
#include <algorithm>
#include <map>
#include <set>

#include "absl/strings/str_split.h"
#include "frontend/onnx/converter_util.h"

namespace mlc {
namespace onnx_import {
namespace {

/*! \brief A value with one letter per axis and the axes' static sizes. */
struct Labeled {
  relax::Expr value;
  std::string letters;
  std::vector<int64_t> sizes;
};

/*! \brief The equation's operand and output subscripts, "..." replaced by letters no subscript
 *  uses (the output's default is NumPy's: the ellipsis, then the letters used once, sorted). */
absl::StatusOr<std::pair<std::vector<std::string>, std::string>> ParseEquation(std::string eq,
                                                                               const std::vector<size_t>& ranks) {
  eq.erase(std::remove(eq.begin(), eq.end(), ' '), eq.end());
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> inputs = absl::StrSplit(lhs, ',');
  if (inputs.size() != ranks.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the equation names ", inputs.size(), " operands, the node has ", ranks.size()));
  }
  std::string fresh;  // letters for the ellipsis's axes, the widest operand's count
  for (char ch = 'A'; ch <= 'Z' && fresh.size() < 26; ++ch) {
    if (eq.find(ch) == std::string::npos) fresh += ch;
  }
  size_t ellipsis_rank = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    size_t at = inputs[i].find("...");
    if (at == std::string::npos) continue;
    size_t named = inputs[i].size() - 3;
    if (ranks[i] < named)
      return absl::InvalidArgumentError(
          absl::StrCat("operand ", i, " has rank ", ranks[i], ", fewer than its subscripts"));
    ellipsis_rank = std::max(ellipsis_rank, ranks[i] - named);
  }
  if (ellipsis_rank > fresh.size()) return absl::UnimplementedError("too many axes under the ellipsis");
  for (size_t i = 0; i < inputs.size(); ++i) {
    size_t at = inputs[i].find("...");
    if (at == std::string::npos) continue;
    size_t here = ranks[i] - (inputs[i].size() - 3);
    // Ellipsis axes align from the right (broadcasting).
    inputs[i].replace(at, 3, fresh.substr(ellipsis_rank - here, here));
  }
  std::string output;
  if (arrow != std::string::npos) {
    output = eq.substr(arrow + 2);
    size_t at = output.find("...");
    if (at != std::string::npos) output.replace(at, 3, fresh.substr(0, ellipsis_rank));
  } else {
    std::map<char, int> uses;
    for (const std::string& s : inputs) {
      for (char ch : s) ++uses[ch];
    }
    output = fresh.substr(0, ellipsis_rank);
    for (const auto& [ch, n] : uses) {
      if (n == 1 && output.find(ch) == std::string::npos) output += ch;
    }
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].size() != ranks[i]) {
      return absl::InvalidArgumentError(
          absl::StrCat("operand ", i, " has rank ", ranks[i], " but subscripts '", inputs[i], "'"));
    }
  }
  return std::make_pair(inputs, output);
}

class EinsumBuilder {
 public:
  explicit EinsumBuilder(Composer& c) : c_(c) {}

  /*! \brief x with the axes whose letters are not in `keep` summed out. */
  Labeled SumOut(Labeled x, const std::string& keep) {
    std::vector<int64_t> axes;
    Labeled out{x.value, "", {}};
    for (size_t d = 0; d < x.letters.size(); ++d) {
      if (keep.find(x.letters[d]) == std::string::npos) {
        axes.push_back(static_cast<int64_t>(d));
      } else {
        out.letters += x.letters[d];
        out.sizes.push_back(x.sizes[d]);
      }
    }
    if (!axes.empty()) out.value = c_.Op("sum", {x.value}, {{"axis", axes}, {"keepdims", false}});
    return out;
  }

  /*! \brief x with the two axes of the letter it repeats (`ii`) replaced by their diagonal, the
   *  letter last: the pair moved last, merged, and every (n + 1)-th element taken. */
  absl::StatusOr<Labeled> Diagonal(Labeled x, char ch) {
    const size_t p = x.letters.find(ch), q = x.letters.find(ch, p + 1);
    if (x.sizes[p] != x.sizes[q]) {
      return absl::InvalidArgumentError(
          absl::StrCat("subscript '", std::string(1, ch), "' repeats over sizes ", x.sizes[p], " and ", x.sizes[q]));
    }
    Labeled out;
    std::vector<int64_t> order, merged;
    for (size_t d = 0; d < x.letters.size(); ++d) {
      if (d == p || d == q) continue;
      order.push_back(static_cast<int64_t>(d));
      out.letters += x.letters[d];
      out.sizes.push_back(x.sizes[d]);
    }
    const int64_t n = x.sizes[p];
    order.push_back(static_cast<int64_t>(p));
    order.push_back(static_cast<int64_t>(q));
    merged = out.sizes;
    merged.push_back(n * n);
    std::vector<int64_t> diagonal;
    for (int64_t k = 0; k < n; ++k) diagonal.push_back(k * (n + 1));
    relax::Expr v = c_.Op("reshape", {c_.Op("permute_dims", {x.value}, {{"axes", order}})}, {{"shape", merged}});
    out.value = c_.Op("take", {v, relax::MakeConstant(Int64Tensor(diagonal))},
                      {{"axis", static_cast<int64_t>(out.sizes.size())}});
    out.letters += ch;
    out.sizes.push_back(n);
    return out;
  }

  /*! \brief x's axes in the order of `letters` (a permutation of x's). */
  Labeled Transpose(Labeled x, const std::string& letters) {
    if (x.letters == letters) return x;
    std::vector<int64_t> order;
    std::vector<int64_t> sizes;
    for (char ch : letters) {
      size_t d = x.letters.find(ch);
      order.push_back(static_cast<int64_t>(d));
      sizes.push_back(x.sizes[d]);
    }
    return {c_.Op("permute_dims", {x.value}, {{"axes", order}}), letters, sizes};
  }

  /*! \brief a and b contracted over their shared letters not in `keep`; the result's letters are
   *  the batch (shared and kept), a's own, then b's own. */
  absl::StatusOr<Labeled> Contract(Labeled a, Labeled b, const std::string& keep) {
    std::string batch, contracted, a_own, b_own;
    for (char ch : a.letters) {
      bool shared = b.letters.find(ch) != std::string::npos, kept = keep.find(ch) != std::string::npos;
      (shared ? (kept ? batch : contracted) : a_own) += ch;
    }
    for (char ch : b.letters) {
      if (a.letters.find(ch) == std::string::npos) b_own += ch;
    }
    for (char ch : batch + contracted) {
      if (a.sizes[a.letters.find(ch)] != b.sizes[b.letters.find(ch)]) {
        return absl::UnimplementedError(absl::StrCat("subscript '", std::string(1, ch), "' has sizes ",
                                                     a.sizes[a.letters.find(ch)], " and ", b.sizes[b.letters.find(ch)],
                                                     " (broadcasting is not supported)"));
      }
    }
    auto product = [](const Labeled& x, const std::string& letters) {
      int64_t p = 1;
      for (char ch : letters) p *= x.sizes[x.letters.find(ch)];
      return p;
    };
    const int64_t nb = product(a, batch), m = product(a, a_own), k = product(a, contracted), n = product(b, b_own);
    Labeled at = Transpose(a, batch + a_own + contracted), bt = Transpose(b, batch + contracted + b_own);
    Labeled out;
    out.letters = batch + a_own + b_own;
    for (char ch : batch + a_own) out.sizes.push_back(a.sizes[a.letters.find(ch)]);
    for (char ch : b_own) out.sizes.push_back(b.sizes[b.letters.find(ch)]);
    if (a_own.size() == 1 && contracted.size() == 1 && b_own.size() == 1) {
      // Already a batched matrix product, [batch..., m, k] @ [batch..., k, n]: one matmul of the
      // operands as they are (attention's "bhid,bhjd->bhij" is then the matmul of q by k's last
      // two axes swapped that fuse-attention knows, with no reshape in between).
      out.value = c_.Op("matmul", {at.value, bt.value});
      return out;
    }
    relax::Expr lhs = c_.Op("reshape", {at.value}, {{"shape", std::vector<int64_t>{nb, m, k}}});
    relax::Expr rhs = c_.Op("reshape", {bt.value}, {{"shape", std::vector<int64_t>{nb, k, n}}});
    out.value = c_.Op("reshape", {c_.Op("matmul", {lhs, rhs})}, {{"shape", out.sizes}});
    return out;
  }

 private:
  Composer& c_;
};

Outputs Einsum(OnnxContext& ctx, const onnx::NodeProto& node) {
  std::vector<Labeled> operands;
  std::vector<size_t> ranks;
  for (int i = 0; i < node.input_size(); ++i) {
    absl::StatusOr<relax::Expr> x = ctx.Input(node, i);
    if (!x.ok()) return x.status();
    absl::StatusOr<std::vector<int64_t>> xs = StaticShape(*x, "an Einsum operand");
    if (!xs.ok()) return xs.status();
    operands.push_back({*x, "", *xs});
    ranks.push_back(xs->size());
  }
  if (operands.empty()) return absl::InvalidArgumentError("Einsum needs an operand");
  auto parsed = ParseEquation(ctx.StringAttr(node, "equation", ""), ranks);
  if (!parsed.ok()) return parsed.status();
  const std::string& output = parsed->second;
  for (size_t i = 0; i < operands.size(); ++i) operands[i].letters = parsed->first[i];
  Composer c(ctx, operands[0].value);
  EinsumBuilder builder(c);
  // A letter repeated within an operand (a diagonal: "ii->i", "...ii->...i") first.
  for (Labeled& x : operands) {
    for (size_t d = 0; d < x.letters.size(); ++d) {
      if (x.letters.find(x.letters[d], d + 1) == std::string::npos) continue;
      absl::StatusOr<Labeled> diagonal = builder.Diagonal(x, x.letters[d]);
      if (!diagonal.ok()) return diagonal.status();
      x = *diagonal;
      d = static_cast<size_t>(-1);  // look again from the start
    }
  }
  // The letters needed after operand i: the output's and those of operands i+1 ...
  auto needed_after = [&](size_t i) {
    std::string need = output;
    for (size_t j = i + 1; j < operands.size(); ++j) need += operands[j].letters;
    return need;
  };
  auto needed_besides = [&](size_t i) {
    std::string need = needed_after(i);
    for (size_t j = 0; j < i; ++j) need += operands[j].letters;
    return need;
  };
  Labeled acc = builder.SumOut(operands[0], needed_besides(0));
  for (size_t i = 1; i < operands.size() && c.status().ok(); ++i) {
    Labeled next = builder.SumOut(operands[i], needed_besides(i) + acc.letters);
    absl::StatusOr<Labeled> joined = builder.Contract(acc, next, needed_after(i));
    if (!joined.ok()) return joined.status();
    acc = *joined;
  }
  for (char ch : output) {
    if (acc.letters.find(ch) == std::string::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("output subscript '", std::string(1, ch), "' names no operand's axis"));
    }
  }
  acc = builder.SumOut(acc, output);
  return c.Result(builder.Transpose(acc, output).value);
}

}  // namespace

void RegisterEinsumOnnxConverter(OnnxConverterRegistry& r) { r.Register("Einsum", Einsum); }

}  // namespace onnx_import
}  // namespace mlc
