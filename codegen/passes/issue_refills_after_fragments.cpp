// In a pipelined wgmma k-step, the refill copies of a later k-step (their group commit
// included) move from before the warpgroup's tile to between its A fragment loads and
// its wgmma fence: the fence waits for the fragment loads to land, and the copies'
// address arithmetic and issue now fill that wait instead of delaying the loads. The copies refill the
// buffer of an earlier k-step whose instructions were retired before the k-step's
// barrier, so where in the k-step they are issued does not matter for correctness. The
// move happens only where the tile's thread loops run every thread of the block exactly
// once, so that every thread still issues its copies once.
#include <set>

#include "codegen/passes/passes.h"
#include "codegen/passes/simplify.h"

namespace cusched {

namespace {

void copy_destinations(const Stmt& s, std::set<std::string>& into) {
  if (s->kind == StmtKind::AsyncCopy) into.insert(s->buffer);
  for (const auto& c : s->body) copy_destinations(c, into);
}

// Whether `s` only issues asynchronous copies and writes (zeros for the tails) into the
// buffers those copies fill, inside loops, conditions and blocks.
bool only_copies(const Stmt& s, const std::set<std::string>& destinations) {
  switch (s->kind) {
    case StmtKind::AsyncCopy:
      return true;
    case StmtKind::Store:
      return destinations.count(s->buffer) > 0;
    case StmtKind::Block:
    case StmtKind::For:
    case StmtKind::If:
      if (s->body.empty()) return false;
      for (const auto& c : s->body)
        if (!only_copies(c, destinations)) return false;
      return true;
    default:
      return false;
  }
}

bool only_copies(const Stmt& s) {
  std::set<std::string> destinations;
  copy_destinations(s, destinations);
  return !destinations.empty() && only_copies(s, destinations);
}

// The innermost block under a nest of thread loops (and single-statement blocks), with
// the product of the loops' extents, or null when `s` is not such a nest.
const StmtNode* innermost_block(const Stmt& s, int64_t& threads) {
  if (s->kind == StmtKind::Block) {
    if (s->body.size() == 1 && s->body[0]->kind == StmtKind::For) return innermost_block(s->body[0], threads);
    return s.get();
  }
  int64_t min = -1, extent = 0;
  if (s->kind != StmtKind::For || !is_thread_axis(s->axis) || !is_const_int(simplify(s->min), &min) || min != 0 ||
      !is_const_int(simplify(s->extent), &extent))
    return nullptr;
  threads *= extent;
  return innermost_block(s->body[0], threads);
}

// Position of the wgmma fence in `b` when everything before it loads fragments, else 0.
size_t fence_after_fragment_loads(const StmtNode& b) {
  for (size_t i = 0; i < b.body.size(); ++i) {
    if (b.body[i]->kind == StmtKind::WgmmaFence) return i;
    if (b.body[i]->kind != StmtKind::Store && b.body[i]->kind != StmtKind::LdMatrix) return 0;
  }
  return 0;
}

// `nest` with `refill` inserted just before the wgmma fence of its innermost block.
Stmt with_refill(const Stmt& nest, const std::vector<Stmt>& refill) {
  auto n = std::make_shared<StmtNode>(*nest);
  if (n->kind == StmtKind::Block && !(n->body.size() == 1 && n->body[0]->kind == StmtKind::For)) {
    const size_t at = fence_after_fragment_loads(*n);
    n->body.insert(n->body.begin() + static_cast<std::ptrdiff_t>(at), refill.begin(), refill.end());
    return n;
  }
  n->body[0] = with_refill(n->body[0], refill);
  return n;
}

Stmt move_refills(const Stmt& s, int64_t block_threads) {
  auto n = std::make_shared<StmtNode>(*s);
  for (auto& c : n->body) c = move_refills(c, block_threads);
  if (n->kind != StmtKind::Block) return n;
  std::vector<Stmt> out;
  for (size_t i = 0; i < n->body.size(); ++i) {
    if (i + 2 < n->body.size() && only_copies(n->body[i]) && n->body[i + 1]->kind == StmtKind::AsyncCommit) {
      int64_t threads = 1;
      const StmtNode* inner = innermost_block(n->body[i + 2], threads);
      if (inner && threads == block_threads && n->body[i + 2]->kind == StmtKind::For &&
          fence_after_fragment_loads(*inner) > 0) {
        out.push_back(with_refill(n->body[i + 2], {n->body[i], n->body[i + 1]}));
        i += 2;
        continue;
      }
    }
    out.push_back(n->body[i]);
  }
  n->body = std::move(out);
  return n;
}

}  // namespace

void issue_refills_after_fragments(Kernel& k) { k.body = move_refills(k.body, k.block[0] * k.block[1] * k.block[2]); }

}  // namespace cusched
