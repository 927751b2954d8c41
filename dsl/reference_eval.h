#pragma once
// The float64 reference: the algorithm evaluated directly, with no schedule. Every
// stage is defined at every point of its domain; a reduction visits its variables in
// order (the first outermost, as the loops of the definition read), starting from
// the identity (sum 0, product 1, minimum +inf, maximum -inf); argmax/argmin return
// the flat index over the reduction variables and resolve ties to the smallest index.
// logsumexp carries the running maximum m and the sum of exp(v - m) and returns
// m + log(sum) (m itself when m is infinite).
// Floating-point values are never rounded to their declared type; integer division
// and remainder truncate toward zero (as C); a cast to an integer type truncates
// toward zero and a cast to bool is != 0; NaN propagates through min/max and the
// minimum/maximum reductions, and counts as the largest (and smallest) value for
// argmax (argmin), as in PyTorch.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "dsl/pipeline.h"

namespace cusched {

// Buffers by name, row-major (last dimension innermost), one double per element.
using HostBuffers = std::map<std::string, std::vector<double>>;

// Evaluates stages on demand, each point once (memoized), so that single output
// points can be checked without computing whole stages.
class ReferenceEvaluator {
 public:
  // `inputs` must hold every input tensor of the pipeline with its full element
  // count; it is copied.
  ReferenceEvaluator(const Pipeline& pipeline, const SizeBindings& sizes, const HostBuffers& inputs);
  ~ReferenceEvaluator();
  ReferenceEvaluator(const ReferenceEvaluator&) = delete;
  ReferenceEvaluator& operator=(const ReferenceEvaluator&) = delete;

  // The value of `stage` at `coords` (one per pure variable, outermost first).
  double at(const std::string& stage, const std::vector<int64_t>& coords);
  // Every value of `stage`, row-major.
  const std::vector<double>& values(const std::string& stage);
  // The domain of `stage`: one extent per pure variable.
  std::vector<int64_t> shape(const std::string& stage) const;
  // Any expression of the algorithm language (reductions included) with its free
  // variables bound by name; loads read inputs and stages of the pipeline.
  double eval(const Expr& e, const std::map<std::string, int64_t>& vars);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Every stage of the pipeline (outputs and intermediate stages) by name.
HostBuffers evaluate_reference(const Pipeline& pipeline, const SizeBindings& sizes, const HostBuffers& inputs);

// A single expression in float64 with its variables bound by name. Loads with one
// index per dimension read `buffers` through the tensor's or stage's shape; a Load
// with a single index reads the named buffer flat. Reductions are evaluated in place.
double eval_expr_f64(const Expr& e, const std::map<std::string, double>& vars, const SizeBindings& sizes,
                     const HostBuffers& buffers);

}  // namespace cusched
