// block_raster: the blocks of a kernel take its tiles in groups of `raster_group`
// consecutive blockIdx.x values. With nx x ny blocks, block b = by * nx + bx (the order
// in which the hardware launches them) takes, in group g = b / (G * ny) of
// size = min(G, nx - g * G) tiles along x, the tile x = g * G + r % size,
// y = r / size (r = b % (G * ny)): a bijection of the grid onto itself, so every tile is
// computed once, and the blocks launched together share the rows of x and columns of y.
#include "codegen/passes/passes.h"
#include "dsl/error.h"
#include "dsl/expr_substitute.h"

namespace cusched {
namespace {

// The For loop bound to `axis` among the kernel body's outer block loops (they come
// first, nested), or null.
const StmtNode* block_loop(const Stmt& s, GpuAxis axis) {
  for (const StmtNode* n = s.get(); n;) {
    if (n->kind == StmtKind::For && n->axis == axis) return n;
    if (n->kind == StmtKind::For && is_block_axis(n->axis))
      n = n->body[0].get();
    else if (n->kind == StmtKind::Block && n->body.size() == 1)
      n = n->body[0].get();
    else
      return nullptr;
  }
  return nullptr;
}

// `s` with the body of the innermost block loop (`inner`) rewritten by `f`.
Stmt rewrite_inner(const Stmt& s, const StmtNode* inner, const std::function<Stmt(const Stmt&)>& f) {
  auto n = std::make_shared<StmtNode>(*s);
  if (s.get() == inner) {
    n->body[0] = f(s->body[0]);
    return n;
  }
  for (auto& c : n->body) c = rewrite_inner(c, inner, f);
  return n;
}

}  // namespace

void raster_blocks(Kernel& k) {
  if (k.raster_group <= 0) return;
  const StmtNode* x = block_loop(k.body, GpuAxis::BlockX);
  const StmtNode* y = block_loop(k.body, GpuAxis::BlockY);
  int64_t nx = 0, ny = 0;
  if (!x || !y || !is_const_int(x->extent, &nx) || !is_const_int(y->extent, &ny))
    fail("raster-needs-two-block-axes",
         "Kernel '" + k.name + "' has a block_raster but not one outer loop on blockIdx.x and one on blockIdx.y.",
         "Bind one loop of the stage to blockIdx.x and one to blockIdx.y, or remove the block_raster.");
  const int64_t g = k.raster_group, per_group = g * ny;
  const Expr b = make_var(y->var) * make_int(nx) + make_var(x->var);
  const Expr first = (b / make_int(per_group)) * make_int(g);
  const Expr size = min(make_int(g), make_int(nx) - first);
  const Expr r = b % make_int(per_group);
  const std::map<std::string, Expr> tile = {{x->var, first + r % size}, {y->var, r / size}};
  // The loop nested inside the other holds the stage's whole body.
  const StmtNode* inner = x->body[0].get() == y || block_loop(x->body[0], GpuAxis::BlockY) ? y : x;
  k.body = rewrite_inner(k.body, inner, [&](const Stmt& body) {
    return map_stmt_exprs(body, [&](const Expr& e) { return substitute(e, tile); });
  });
}

}  // namespace cusched
