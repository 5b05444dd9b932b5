/*! \file non_max_suppression.cc
 *  \brief Greedy non-maximum suppression per batch and class (ONNX NonMaxSuppression, what
 *         object detectors end in): a result whose size the scores decide, so the function
 *         allocates it.
 *
 *    mlc.non_max_suppression(boxes[B, N, 4] f32, scores[B, C, N] f32, max_per_class int64 (one
 *        value), iou_threshold f32 (one value), score_threshold f32 (one value),
 *        params int64[2] = (center_point_box, has_score_threshold)) -> int64[count, 3]
 *
 *  Each row is (batch, class, box). Per batch and class, boxes are taken by descending score
 *  (the lower index first among equal scores), those with a score not above score_threshold
 *  left out, and a box is dropped when its intersection over union with one taken before
 *  exceeds iou_threshold; at most max_per_class are taken. Boxes are corners (y1, x1, y2, x2)
 *  in either order, or (x_center, y_center, width, height) with center_point_box = 1; a box of
 *  no area suppresses nothing. These are ONNX Runtime's choices where the standard is silent.
 *
 *  Only a box that intersects a candidate can suppress it, so the boxes taken are kept in the
 *  cells of a grid they cover and a candidate is checked against those sharing a cell with it,
 *  not against every box taken (the same decisions: any order of the checks keeps a box exactly
 *  when none suppresses it). torchvision's batched NMS shifts each class's boxes apart and
 *  runs one NMS over all of them: SSDLite320's 27,000 candidates of 90 classes were checked
 *  against every box taken before, 0.55 s a call, twice ONNX Runtime's time for the model.
 */
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "vm/library/dltensor_view.h"
#include "vm/runtime_registry.h"

namespace mlc {
namespace vm {
namespace {

struct Box {
  float y1, x1, y2, x2;
  float area() const { return (y2 - y1) * (x2 - x1); }
};

Box ReadBox(const float* b, bool center) {
  if (center) {
    const float half_w = b[2] / 2, half_h = b[3] / 2;
    return {b[1] - half_h, b[0] - half_w, b[1] + half_h, b[0] + half_w};
  }
  return {std::min(b[0], b[2]), std::min(b[1], b[3]), std::max(b[0], b[2]), std::max(b[1], b[3])};
}

bool Suppresses(const Box& a, const Box& b, float iou_threshold) {
  const float area_a = a.area(), area_b = b.area();
  if (area_a <= 0 || area_b <= 0) return false;
  const float h = std::min(a.y2, b.y2) - std::max(a.y1, b.y1), w = std::min(a.x2, b.x2) - std::max(a.x1, b.x1);
  if (h <= 0 || w <= 0) return false;
  const float intersection = h * w;
  return intersection / (area_a + area_b - intersection) > iou_threshold;
}

/*! \brief The boxes taken so far, by the cells of a square grid they cover: a box shares a
 *  cell with every box it intersects. The cell's side is the candidates' mean longer side, so a
 *  box covers a few cells; a box that would cover very many (or has coordinates that are not
 *  finite) is checked against every candidate instead. */
class TakenBoxes {
 public:
  explicit TakenBoxes(const std::vector<Box>& candidates) {
    double sides = 0;
    int64_t counted = 0;
    for (const Box& b : candidates) {
      const double side = std::max(b.y2 - b.y1, b.x2 - b.x1);
      if (b.y2 > b.y1 && b.x2 > b.x1 && std::isfinite(side)) sides += side, ++counted;
    }
    cell_ = counted > 0 && sides > 0 ? sides / static_cast<double>(counted) : 1.0;
  }

  void Add(const Box& b) {
    Cells c;
    if (!CellsOf(b, &c)) {
      everywhere_.push_back(b);
      return;
    }
    boxes_.push_back(b);
    const int32_t index = static_cast<int32_t>(boxes_.size() - 1);
    for (int64_t y = c.y0; y <= c.y1; ++y) {
      for (int64_t x = c.x0; x <= c.x1; ++x) grid_[Key(y, x)].push_back(index);
    }
  }

  bool AnySuppresses(const Box& candidate, float iou_threshold) const {
    for (const Box& t : everywhere_) {
      if (Suppresses(t, candidate, iou_threshold)) return true;
    }
    Cells c;
    if (!CellsOf(candidate, &c)) {
      for (const Box& t : boxes_) {
        if (Suppresses(t, candidate, iou_threshold)) return true;
      }
      return false;
    }
    for (int64_t y = c.y0; y <= c.y1; ++y) {
      for (int64_t x = c.x0; x <= c.x1; ++x) {
        auto it = grid_.find(Key(y, x));
        if (it == grid_.end()) continue;
        for (int32_t i : it->second) {
          if (Suppresses(boxes_[i], candidate, iou_threshold)) return true;
        }
      }
    }
    return false;
  }

 private:
  // Beyond this many cells a box is checked everywhere rather than filed in each.
  static constexpr int64_t kMaxCellsPerBox = 256;
  struct Cells {
    int64_t y0, x0, y1, x1;
  };
  // The cells [y0, y1] x [x0, x1] the box covers (edges included), or false when its
  // coordinates are not finite, beyond the grid's index range, or cover too many cells.
  bool CellsOf(const Box& b, Cells* c) const {
    const double y0 = std::floor(b.y1 / cell_), x0 = std::floor(b.x1 / cell_), y1 = std::floor(b.y2 / cell_),
                 x1 = std::floor(b.x2 / cell_);
    constexpr double kLimit = 1 << 30;
    for (double v : {y0, x0, y1, x1}) {
      if (!(std::abs(v) < kLimit)) return false;  // NaN included
    }
    if ((y1 - y0 + 1) * (x1 - x0 + 1) > kMaxCellsPerBox) return false;
    *c = {static_cast<int64_t>(y0), static_cast<int64_t>(x0), static_cast<int64_t>(y1), static_cast<int64_t>(x1)};
    return true;
  }
  static int64_t Key(int64_t y, int64_t x) {
    return static_cast<int64_t>(static_cast<uint64_t>(y) << 32) ^ (x & 0xffffffff);
  }

  double cell_ = 1;
  std::vector<Box> boxes_;       // filed in grid_
  std::vector<Box> everywhere_;  // checked against every candidate
  absl::flat_hash_map<int64_t, std::vector<int32_t>> grid_;
};

// The one value of a scalar or one-element tensor of type T.
template <typename T>
absl::StatusOr<T> OneValue(const NDArray& t, uint8_t code, const char* what) {
  const DLTensor* d = t.dl();
  if (d->dtype.code != code || d->dtype.bits != sizeof(T) * 8 || CountOf(DimsOf(d)) != 1) {
    return absl::InvalidArgumentError(absl::StrCat("mlc.non_max_suppression: ", what, " must hold one value"));
  }
  return *reinterpret_cast<const T*>(DataOf(d));
}

absl::StatusOr<std::vector<NDArray>> NonMaxSuppression(absl::Span<const NDArray> inputs) {
  constexpr const char* kName = "mlc.non_max_suppression";
  if (inputs.size() != 6 || !IsInt64Vector(inputs[5].dl(), 2)) {
    return absl::InvalidArgumentError(
        absl::StrCat(kName, " takes boxes, scores, max_per_class, iou_threshold, score_threshold and params int64[2]"));
  }
  const DLTensor *boxes = inputs[0].dl(), *scores = inputs[1].dl();
  const std::vector<int64_t> bd = DimsOf(boxes), sd = DimsOf(scores);
  if (!HasDtype(boxes, kDLFloat, 32) || !HasDtype(scores, kDLFloat, 32) || bd.size() != 3 || bd[2] != 4 ||
      sd.size() != 3 || sd[0] != bd[0] || sd[2] != bd[1]) {
    return absl::InvalidArgumentError(
        absl::StrCat(kName, ": boxes must be float32 [B, N, 4] and scores float32 [B, C, N]"));
  }
  absl::StatusOr<int64_t> max_per_class = OneValue<int64_t>(inputs[2], kDLInt, "max_output_boxes_per_class");
  absl::StatusOr<float> iou_threshold = OneValue<float>(inputs[3], kDLFloat, "iou_threshold");
  absl::StatusOr<float> score_threshold = OneValue<float>(inputs[4], kDLFloat, "score_threshold");
  for (const absl::Status& st : {max_per_class.status(), iou_threshold.status(), score_threshold.status()}) {
    if (!st.ok()) return st;
  }
  const int64_t* params = reinterpret_cast<const int64_t*>(DataOf(inputs[5].dl()));
  const bool center = params[0] != 0, filter_scores = params[1] != 0;
  const int64_t batches = bd[0], n = bd[1], classes = sd[1];
  const float* box_data = reinterpret_cast<const float*>(DataOf(boxes));
  const float* score_data = reinterpret_cast<const float*>(DataOf(scores));
  std::vector<int64_t> selected;  // (batch, class, box) triples
  std::vector<int64_t> order;
  std::vector<Box> candidates;
  for (int64_t b = 0; b < batches; ++b) {
    for (int64_t c = 0; c < classes; ++c) {
      const float* s = score_data + (b * classes + c) * n;
      order.clear();
      for (int64_t i = 0; i < n; ++i) {
        if (!filter_scores || s[i] > *score_threshold) order.push_back(i);
      }
      std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return s[x] > s[y]; });
      candidates.clear();
      for (int64_t i : order) candidates.push_back(ReadBox(box_data + (b * n + i) * 4, center));
      TakenBoxes taken(candidates);
      int64_t kept = 0;
      for (size_t k = 0; k < order.size() && kept < *max_per_class; ++k) {
        if (taken.AnySuppresses(candidates[k], *iou_threshold)) continue;
        taken.Add(candidates[k]);
        ++kept;
        selected.insert(selected.end(), {b, c, order[k]});
      }
    }
  }
  const int64_t count = static_cast<int64_t>(selected.size()) / 3;
  absl::StatusOr<NDArray> out = NDArray::Allocate({count, 3}, DLDataType{kDLInt, 64, 1});
  if (!out.ok()) return out.status();
  std::copy(selected.begin(), selected.end(), static_cast<int64_t*>(out->data()));
  return std::vector<NDArray>{*std::move(out)};
}

MLC_REGISTER_ALLOCATING_RUNTIME_FUNC("mlc.non_max_suppression", NonMaxSuppression);

}  // namespace
}  // namespace vm
}  // namespace mlc
