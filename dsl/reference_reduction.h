#pragma once
// The float64 reference's reduction of one output point: its identity, the body's
// values taken in visiting order, its result, with the semantics dsl/reference_eval.h
// gives for each reduction.
#include <cstdint>

#include "dsl/expr.h"

namespace cusched {

class ReferenceReduction {
 public:
  explicit ReferenceReduction(ReduceOp op);
  // The body's value at the `flat`-th point of the reduction domain.
  void add(double v, int64_t flat);
  double result() const;

 private:
  ReduceOp op_;
  double acc_ = 0;                    // the value; logsumexp: the running maximum; variance: the mean
  double best_ = 0, best_index_ = 0;  // argmin/argmax
  double sum_ = 0;                    // logsumexp: the sum of exp(v - acc_); variance: the sum of squared deviations
  double count_ = 0;                  // variance: the values taken
};

}  // namespace cusched
