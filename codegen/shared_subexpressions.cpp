#include "codegen/shared_subexpressions.h"

#include <bit>
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>

namespace cusched {

namespace {

constexpr int kWorthNodes = 6;

struct NodeFacts {
  int id = 0;            // equal ids: structurally equal subexpressions
  int nodes = 0;         // nodes in the subtree
  bool calls = false;    // a math call or a float division in the subtree
  bool unsafe = false;   // a load or an integer division in the subtree
  bool trivial = false;  // a literal, variable or load (or a cast of one)
};

struct Occurrences {
  Expr first;
  std::vector<const ExprNode*> nodes;
  bool unconditional = false;
};

class Analysis {
 public:
  explicit Analysis(const Expr& value) { walk(value, true); }

  std::vector<SharedSubexpression> result() const {
    std::vector<SharedSubexpression> out;
    for (int id : post_order_) {
      const Occurrences& o = by_id_.at(id);
      const NodeFacts& f = facts_.at(o.nodes.front());
      if (o.nodes.size() < 2 || f.trivial || !dtype_is_float(o.nodes.front()->type)) continue;
      if (!f.calls && f.nodes < kWorthNodes) continue;
      if (!o.unconditional && f.unsafe) continue;
      out.push_back({o.first, o.nodes});
    }
    return out;
  }

 private:
  // Visits `e` (evaluated whatever the conditions when `unconditional`), children first.
  const NodeFacts& walk(const Expr& e, bool unconditional) {
    const ExprNode* n = e.get();
    const bool seen = facts_.count(n) > 0;
    std::vector<const NodeFacts*> kids;
    for (size_t i = 0; i < n->args.size(); ++i) {
      const bool branch =
          (n->op == ExprOp::Select && i > 0) || ((n->op == ExprOp::And || n->op == ExprOp::Or) && i > 0);
      kids.push_back(&walk(n->args[i], unconditional && !branch));
    }
    if (!seen) facts_[n] = facts_of(*n, kids);
    const NodeFacts& f = facts_.at(n);
    Occurrences& o = by_id_[f.id];
    if (o.nodes.empty()) {
      post_order_.push_back(f.id);
      o.first = e;
    }
    o.nodes.push_back(n);
    o.unconditional |= unconditional;
    return f;
  }

  NodeFacts facts_of(const ExprNode& n, const std::vector<const NodeFacts*>& kids) {
    NodeFacts f;
    std::string key = std::to_string(static_cast<int>(n.op)) + "|" + std::to_string(static_cast<int>(n.type)) + "|" +
                      std::to_string(n.ival) + "|" + std::to_string(std::bit_cast<uint64_t>(n.fval)) + "|" + n.name +
                      "|" + std::to_string(static_cast<int>(n.reduce_op)) + "|" + (n.is_reduction_var ? "r" : "") + "(";
    f.nodes = 1;
    for (const NodeFacts* k : kids) {
      key += std::to_string(k->id) + ",";
      f.nodes += k->nodes;
      f.calls |= k->calls;
      f.unsafe |= k->unsafe;
    }
    for (const auto& rv : n.rvars) key += rv.name + ":" + std::to_string(rv.extent) + ",";
    key += ")";
    const bool float_division = n.op == ExprOp::Div && dtype_is_float(n.type);
    f.calls |= n.op == ExprOp::Call || float_division;
    f.unsafe |= n.op == ExprOp::Load || ((n.op == ExprOp::Div || n.op == ExprOp::Mod) && !float_division) ||
                n.op == ExprOp::Reduce || n.op == ExprOp::Scan;
    f.trivial = n.op == ExprOp::IntImm || n.op == ExprOp::FloatImm || n.op == ExprOp::BoolImm || n.op == ExprOp::Var ||
                n.op == ExprOp::SizeParam || n.op == ExprOp::Load || (n.op == ExprOp::Cast && kids.front()->trivial);
    auto [it, added] = ids_.emplace(key, static_cast<int>(ids_.size()));
    f.id = it->second;
    return f;
  }

  std::unordered_map<const ExprNode*, NodeFacts> facts_;
  std::unordered_map<std::string, int> ids_;
  std::map<int, Occurrences> by_id_;
  std::vector<int> post_order_;
};

}  // namespace

std::vector<SharedSubexpression> shared_subexpressions(const Expr& value) {
  if (!value.defined()) return {};
  return Analysis(value).result();
}

}  // namespace cusched
