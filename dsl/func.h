#pragma once
// Tensors (inputs) and Funcs (stages) of an algorithm.
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "dsl/expr.h"
#include "dsl/var.h"

namespace cusched {

struct TensorDef {
  std::string name;
  DType dtype = DType::f32;
  std::vector<Expr> shape;
};

// An input tensor, row-major with the last dimension innermost.
class Tensor {
 public:
  Tensor(std::string name, DType dtype, std::vector<Expr> shape);
  const TensorDef& def() const { return *def_; }
  std::shared_ptr<const TensorDef> ptr() const { return def_; }
  const std::string& name() const { return def_->name; }
  template <typename... Args>
  Expr operator()(Args... args) const {
    return at({Expr(args)...});
  }
  Expr at(std::vector<Expr> indices) const;

 private:
  std::shared_ptr<TensorDef> def_;
};

struct FuncDef {
  std::string name;
  std::vector<std::string> vars;  // pure variables, outermost first
  std::vector<Expr> extents;      // one per pure variable
  Expr body;                      // may be a Reduce or a Scan at the top level only
  DType dtype = DType::f32;
  bool is_reduction() const;
  // A scan at the top level (cumsum / cumprod along one of the stage's pure variables).
  bool is_scan() const;
  // The position of the scanned variable in `vars` (-1 unless is_scan).
  int scan_dim() const;
  // A sum over its reduction variables of a product whose two factors each read a
  // tensor or stage somewhere inside them (casts around the product allowed), e.g.
  // sum(k, A(i, k) * B(k, j)) or sum(k, A(i, k) * (B(k, j) + 1)); not sum(k, A(i, k) * 2).
  bool is_sum_of_products() const;
  // A sum of products whose two factors are each a single load (casts allowed):
  // sum(k, A(i, k) * B(k, j)), the shape tensor_core lowers.
  bool is_sum_of_load_products() const;
  // The product's two loads, casts looked through (nullopt unless is_sum_of_load_products).
  std::optional<std::pair<Expr, Expr>> product_loads() const;
};

// A stage: a value defined at every point of a rectangular domain.
class Func {
 public:
  Func() = default;
  explicit Func(std::shared_ptr<FuncDef> d) : def_(std::move(d)) {}
  const FuncDef& def() const { return *def_; }
  std::shared_ptr<const FuncDef> ptr() const { return def_; }
  const std::string& name() const { return def_->name; }
  template <typename... Args>
  Expr operator()(Args... args) const {
    return at({Expr(args)...});
  }
  Expr at(std::vector<Expr> indices) const;

 private:
  std::shared_ptr<FuncDef> def_;
};

// Defines a stage named `name` over the domain of `vars`.
Func compute(const std::string& name, const std::vector<Var>& vars, Expr body);

}  // namespace cusched
