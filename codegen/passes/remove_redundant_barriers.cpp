#include "codegen/passes/passes.h"

namespace cusched {

// Drops a barrier that directly follows another barrier in the same block.
static Stmt dedup(const Stmt& s) {
  auto n = std::make_shared<StmtNode>(*s);
  std::vector<Stmt> body;
  for (const auto& c : n->body) {
    Stmt d = dedup(c);
    if (n->kind == StmtKind::Block && d->kind == StmtKind::Barrier && !body.empty() &&
        body.back()->kind == StmtKind::Barrier)
      continue;
    body.push_back(d);
  }
  n->body = std::move(body);
  return n;
}

void remove_redundant_barriers(Kernel& k) { k.body = dedup(k.body); }

}  // namespace cusched
