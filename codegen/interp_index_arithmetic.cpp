#include "codegen/interp_index_arithmetic.h"

#include <map>

namespace cusched {
namespace {

bool is_integer(DType t) { return t == DType::i32 || t == DType::i64; }

// Adds scale * e to `out` (an Affine node under construction).
void add_linear(const CExpr& e, double scale, CExpr& out) {
  switch (e.op) {
    case IOp::Const:
      out.imm += scale * e.imm;
      return;
    case IOp::Var:
      out.slot_terms.emplace_back(e.slot, scale);
      return;
    case IOp::Affine:
      out.imm += scale * e.imm;
      for (const auto& [slot, coef] : e.slot_terms) out.slot_terms.emplace_back(slot, scale * coef);
      for (size_t i = 0; i < e.args.size(); ++i) {
        out.args.push_back(e.args[i]);
        out.arg_coefs.push_back(scale * e.arg_coefs[i]);
      }
      return;
    case IOp::Add:
      if (is_integer(e.type)) {
        add_linear(e.args[0], scale, out);
        add_linear(e.args[1], scale, out);
        return;
      }
      break;
    case IOp::Sub:
      if (is_integer(e.type)) {
        add_linear(e.args[0], scale, out);
        add_linear(e.args[1], -scale, out);
        return;
      }
      break;
    case IOp::Neg:
      if (is_integer(e.type)) {
        add_linear(e.args[0], -scale, out);
        return;
      }
      break;
    case IOp::Mul:
      if (is_integer(e.type) && e.args[0].op == IOp::Const) {
        add_linear(e.args[1], scale * e.args[0].imm, out);
        return;
      }
      if (is_integer(e.type) && e.args[1].op == IOp::Const) {
        add_linear(e.args[0], scale * e.args[1].imm, out);
        return;
      }
      break;
    default:
      break;
  }
  out.args.push_back(e);
  out.arg_coefs.push_back(scale);
}

}  // namespace

CExpr flatten_index_arithmetic(CExpr c) {
  bool linear_op = c.op == IOp::Add || c.op == IOp::Sub || c.op == IOp::Neg ||
                   (c.op == IOp::Mul && (c.args[0].op == IOp::Const || c.args[1].op == IOp::Const));
  if (!is_integer(c.type) || !linear_op) return c;
  CExpr a;
  a.op = IOp::Affine;
  a.type = c.type;
  a.rounding = Rounding::None;
  a.source = c.source;
  add_linear(c, 1.0, a);
  std::map<int, double> merged;
  for (const auto& [slot, coef] : a.slot_terms) merged[slot] += coef;
  a.slot_terms.clear();
  for (const auto& [slot, coef] : merged)
    if (coef != 0) a.slot_terms.emplace_back(slot, coef);
  if (a.slot_terms.empty() && a.args.empty()) {
    CExpr k;
    k.op = IOp::Const;
    k.type = c.type;
    k.imm = a.imm;
    k.source = c.source;
    return k;
  }
  return a;
}

}  // namespace cusched
