// The loop nest that a stage's schedule derives.
#include "codegen/lowering/loop_nest.h"

namespace cusched::lowering {

DerivedNest derive_nest(const StageSchedule& s, std::map<std::string, int64_t> extent) {
  for (const auto& rel : s.relations) {
    if (rel.kind == LoopRelation::Split) {
      extent[rel.b] = (extent[rel.a] + rel.factor - 1) / rel.factor;
      extent[rel.c] = rel.factor;
    } else if (rel.kind == LoopRelation::Reverse) {
      extent[rel.b] = extent[rel.a];
    } else {
      extent[rel.c] = extent[rel.a] * extent[rel.b];
    }
  }
  DerivedNest n;
  std::map<std::string, Expr> val;
  for (const auto& name : s.order) {
    DerivedLoop l;
    l.info = s.loops.at(name);
    l.info.extent = extent[name];
    l.var = s.stage + "_" + name;
    val[name] = make_var(l.var);
    n.loops.push_back(l);
  }
  for (auto it = s.relations.rbegin(); it != s.relations.rend(); ++it) {
    if (it->kind == LoopRelation::Split) {
      val[it->a] = val[it->b] * make_int(it->factor) + val[it->c];
      if (extent[it->b] * it->factor != extent[it->a]) n.guards.push_back(val[it->a] < make_int(extent[it->a]));
    } else if (it->kind == LoopRelation::Reverse) {
      val[it->a] = make_int(extent[it->a] - 1) - val[it->b];
    } else {
      val[it->a] = val[it->c] / make_int(extent[it->b]);
      val[it->b] = val[it->c] % make_int(extent[it->b]);
    }
  }
  n.value = val;
  return n;
}

Expr conjunction(const std::vector<Expr>& conds) {
  Expr c;
  for (const auto& x : conds) c = c.defined() ? (c && x) : x;
  return c;
}

Stmt guarded(const std::vector<Expr>& conds, Stmt s) {
  Expr c = conjunction(conds);
  return c.defined() ? make_if(c, s) : s;
}

}  // namespace cusched::lowering
