/*! \file cost_model.h
 *  \brief The tuner's cost model: ridge regression of log(time) on the features of a
 *         candidate's choices (each rule gives its knob's choices features: knob.h), trained
 *         on the candidates measured so far for a task and used to pick which to measure next.
 */
#ifndef MLC_TOOLS_TUNE_COST_MODEL_H_
#define MLC_TOOLS_TUNE_COST_MODEL_H_

#include <vector>

namespace mlc {
namespace tune {

class CostModel {
 public:
  /*! \brief Fits log(seconds) ~ features (needs at least 3 samples; before that, Predict is 0). */
  void Fit(const std::vector<std::vector<double>>& features, const std::vector<double>& seconds);
  /*! \brief Predicted log(seconds): lower is better. */
  double Predict(const std::vector<double>& features) const;
  bool trained() const { return !weights_.empty(); }

 private:
  std::vector<double> weights_;
};

}  // namespace tune
}  // namespace mlc

#endif  // MLC_TOOLS_TUNE_COST_MODEL_H_
