#include "dsl/inlined_stages.h"

#include "dsl/expr_substitute.h"
#include "dsl/padded_load.h"

namespace cusched {

Expr expand_inlined_stages(const ScheduleState& st, const Expr& e, const PaddedInlineLoad& padded) {
  return rewrite(e, [&](const Expr& x) -> Expr {
    if (x->op != ExprOp::Load || x->tensor) return x;
    auto it = st.schedules.find(x->name);
    if (it == st.schedules.end() || it->second.location != ComputeLocation::Inline) return x;
    const FuncDef* p = st.stage_def(x->name);
    if (!p || (is_padded_load(x) && !padded)) return x;
    std::map<std::string, Expr> m;
    for (size_t d = 0; d < p->vars.size() && d < x->args.size(); ++d) m[p->vars[d]] = x->args[d];
    Expr body = expand_inlined_stages(st, substitute(p->body, m), padded);
    return is_padded_load(x) ? padded(x, body) : body;
  });
}

}  // namespace cusched
