#include "codegen/passes/ldmatrix_plan.h"

#include "codegen/linear_form.h"
#include "dsl/expr_substitute.h"

namespace cusched {

namespace {

// The shared-buffer loads inside `e`.
void shared_loads(const Expr& e, const std::function<bool(const std::string&)>& is_shared, std::vector<Expr>& out) {
  if (!e.defined()) return;
  if (e->op == ExprOp::Load && e->args.size() == 1 && is_shared(e->name)) out.push_back(e);
  for (const auto& a : e->args) shared_loads(a, is_shared, out);
}

bool is_lane_term(const Expr& e, const std::string& lane, ExprOp op) {
  int64_t four = 0;
  return e->op == op && e->args[0]->op == ExprOp::Var && e->args[0]->name == lane && is_const_int(e->args[1], &four) &&
         four == 4;
}

// An element index split into its group and quad coefficients, the terms that do not
// depend on the lane, and its constant.
struct LaneIndex {
  int64_t group = 0, quad = 0, constant = 0;
  LinearForm rest;
};

std::optional<LaneIndex> split_lane_index(const Expr& index, const std::string& lane) {
  auto form = linear_form(index, true);
  if (!form) return std::nullopt;
  LaneIndex out;
  out.constant = form->constant;
  for (const auto& [key, c] : form->coeff) {
    if (c == 0) continue;
    auto atom = form->atoms.find(key);
    if (atom == form->atoms.end()) {
      if (key == lane) return std::nullopt;
      out.rest.coeff[key] = c;
      continue;
    }
    const Expr& term = atom->second;
    if (is_lane_term(term, lane, ExprOp::Div))
      out.group += c;
    else if (is_lane_term(term, lane, ExprOp::Mod))
      out.quad += c;
    else if (mentions_var(term, lane))
      return std::nullopt;
    else {
      out.rest.coeff[key] = c;
      out.rest.atoms[key] = term;
    }
  }
  return out;
}

}  // namespace

std::optional<LdMatrixPlan> plan_ldmatrix(const std::vector<Expr>& elements, const std::string& lane,
                                          const std::function<bool(const std::string&)>& is_shared) {
  if (elements.empty()) return std::nullopt;
  LdMatrixPlan plan;
  std::vector<LaneIndex> idx;
  for (const auto& e : elements) {
    std::vector<Expr> loads;
    shared_loads(e, is_shared, loads);
    if (loads.size() != 1) return std::nullopt;
    if (plan.source.empty()) {
      plan.source = loads[0]->name;
      plan.dtype = loads[0].type();
    }
    if (loads[0]->name != plan.source || loads[0].type() != plan.dtype) return std::nullopt;
    auto li = split_lane_index(loads[0]->args[0], lane);
    if (!li) return std::nullopt;
    idx.push_back(*li);
  }
  const int64_t bytes = dtype_bytes(plan.dtype);
  if (bytes != 2 && bytes != 4) return std::nullopt;
  const int per_word = static_cast<int>(4 / bytes);
  const int n = static_cast<int>(elements.size());
  if (n % per_word != 0) return std::nullopt;
  const int matrices = n / per_word;
  if (matrices != 1 && matrices != 2 && matrices != 4) return std::nullopt;
  for (const auto& li : idx)
    if (li.group != idx[0].group || li.quad != idx[0].quad || li.rest.coeff != idx[0].rest.coeff) return std::nullopt;
  const int64_t cg = idx[0].group, cq = idx[0].quad;
  int64_t stride = 0;  // elements between consecutive rows of a matrix
  if (cq == per_word) {
    for (int r = 0; r < matrices; ++r)
      for (int e = 1; e < per_word; ++e)
        if (idx[r * per_word + e].constant != idx[r * per_word].constant + e) return std::nullopt;
    stride = cg;
  } else if (per_word == 2 && cg == 1 && cq % 2 == 0) {
    plan.transpose = true;
    stride = cq / 2;
    for (int r = 0; r < matrices; ++r)
      if (idx[2 * r + 1].constant != idx[2 * r].constant + stride) return std::nullopt;
  } else {
    return std::nullopt;
  }
  // 16-byte alignment of every row address, whatever the other terms' values.
  auto aligned = [&](int64_t elems) { return (elems * bytes) % 16 == 0; };
  if (stride == 0 || !aligned(stride)) return std::nullopt;
  for (const auto& [key, c] : idx[0].rest.coeff)
    if (!aligned(c)) return std::nullopt;
  std::vector<int64_t> base;
  for (int r = 0; r < matrices; ++r) {
    base.push_back(idx[r * per_word].constant);
    if (!aligned(base.back())) return std::nullopt;
  }
  // Lane l gives row l % 8 of matrix (l / 8) % matrices.
  const Expr l = make_var(lane);
  const Expr j = matrices == 4 ? l / make_int(8) : (l / make_int(8)) % make_int(matrices);
  Expr first;  // the first row of matrix j
  if (matrices == 1) {
    first = make_int(base[0]);
  } else if (matrices == 2) {
    first = make_int(base[0]) + j * make_int(base[1] - base[0]);
  } else if (base[3] - base[2] == base[1] - base[0]) {
    first = make_int(base[0]) + (j % make_int(2)) * make_int(base[1] - base[0]) +
            (j / make_int(2)) * make_int(base[2] - base[0]);
  } else {
    first = select(j == make_int(2), make_int(base[2]), make_int(base[3]));
    first = select(j == make_int(1), make_int(base[1]), first);
    first = select(j == make_int(0), make_int(base[0]), first);
  }
  Expr address = first + (l % make_int(8)) * make_int(stride);
  if (!idx[0].rest.coeff.empty()) address = idx[0].rest.to_expr() + address;
  plan.row_address = address;
  plan.matrices = matrices;
  return plan;
}

Expr read_from_fragment(const Expr& element, const LdMatrixPlan& plan, const std::string& fragment, const Expr& index) {
  return rewrite(element, [&](const Expr& x) -> Expr {
    if (x->op == ExprOp::Load && x->name == plan.source) return make_load(fragment, x.type(), {index});
    return x;
  });
}

}  // namespace cusched
