#pragma once
// A pipeline: the stages reachable from its outputs, in producer-before-consumer order.
#include <map>
#include <string>
#include <vector>

#include "dsl/func.h"

namespace cusched {

using SizeBindings = std::map<std::string, int64_t>;

class Pipeline {
 public:
  Pipeline() = default;
  explicit Pipeline(std::vector<Func> outputs);

  const std::vector<std::shared_ptr<const FuncDef>>& stages() const { return stages_; }
  const std::vector<std::shared_ptr<const TensorDef>>& inputs() const { return inputs_; }
  const std::vector<std::string>& outputs() const { return outputs_; }
  const FuncDef* find_stage(const std::string& name) const;
  const TensorDef* find_input(const std::string& name) const;
  bool is_output(const std::string& name) const;
  // Stages that load `name`.
  std::vector<const FuncDef*> consumers(const std::string& name) const;

 private:
  std::vector<std::shared_ptr<const FuncDef>> stages_;
  std::vector<std::shared_ptr<const TensorDef>> inputs_;
  std::vector<std::string> outputs_;
};

// Evaluates an integer expression made of literals, sizes and (optionally) variables.
int64_t eval_int(const Expr& e, const SizeBindings& sizes);
std::vector<int64_t> eval_shape(const std::vector<Expr>& shape, const SizeBindings& sizes);
// A reduction variable's extent at `sizes`.
int64_t rvar_extent(const ReductionVar& r, const SizeBindings& sizes);
// The number of elements one output point of `f` reduces over at `sizes` (1: no reduction).
int64_t reduction_extent(const FuncDef& f, const SizeBindings& sizes);
// The number of points of `f` (the product of its extents) at `sizes`.
int64_t stage_points(const FuncDef& f, const SizeBindings& sizes);

}  // namespace cusched
