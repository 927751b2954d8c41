#include "dsl/reference_reduction.h"

#include <cmath>
#include <limits>

namespace cusched {

ReferenceReduction::ReferenceReduction(ReduceOp op) : op_(op) {
  const double inf = std::numeric_limits<double>::infinity();
  switch (op) {
    case ReduceOp::Product:
      acc_ = 1;
      break;
    case ReduceOp::Min:
      acc_ = inf;
      break;
    case ReduceOp::Max:
    case ReduceOp::LogSumExp:
      acc_ = -inf;
      break;
    default:
      break;
  }
}

void ReferenceReduction::add(double v, int64_t flat) {
  switch (op_) {
    case ReduceOp::Sum:
      acc_ += v;
      break;
    case ReduceOp::Product:
      acc_ *= v;
      break;
    case ReduceOp::Min:
      if (std::isnan(v) || v < acc_) acc_ = std::isnan(acc_) ? acc_ : v;
      break;
    case ReduceOp::Max:
      if (std::isnan(v) || v > acc_) acc_ = std::isnan(acc_) ? acc_ : v;
      break;
    case ReduceOp::ArgMax:
      if (flat == 0 || (!std::isnan(best_) && (std::isnan(v) || v > best_)))
        best_ = v, best_index_ = static_cast<double>(flat);
      break;
    case ReduceOp::ArgMin:
      if (flat == 0 || (!std::isnan(best_) && (std::isnan(v) || v < best_)))
        best_ = v, best_index_ = static_cast<double>(flat);
      break;
    case ReduceOp::Variance: {
      // Welford: acc_ the mean, sum_ the sum of squared deviations from it.
      count_ += 1;
      const double d = v - acc_;
      acc_ += d / count_;
      sum_ += d * (v - acc_);
      break;
    }
    case ReduceOp::LogSumExp:
      if (std::isnan(v) || std::isnan(acc_)) {
        acc_ = std::numeric_limits<double>::quiet_NaN();
      } else if (v > acc_) {
        sum_ = sum_ * std::exp(acc_ - v) + 1;
        acc_ = v;
      } else {
        sum_ += v == acc_ ? 1 : std::exp(v - acc_);
      }
      break;
  }
}

double ReferenceReduction::result() const {
  if (op_ == ReduceOp::LogSumExp) return std::isinf(acc_) ? acc_ : acc_ + std::log(sum_);
  if (op_ == ReduceOp::Variance) return sum_ / count_;
  return is_arg_reduce(op_) ? best_index_ : acc_;
}

}  // namespace cusched
