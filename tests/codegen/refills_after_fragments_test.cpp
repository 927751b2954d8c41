// The issue_refills_after_fragments pass on hand-built k-steps: the refill copies and
// their commit move between the A fragment loads and the wgmma fence when the tile's
// thread loops run every thread of the block once, and stay where they are when some
// threads of the block would then skip them.
#include <gtest/gtest.h>

#include "codegen/passes/passes.h"
#include "tests/codegen/hand_built_ir.h"

namespace cusched {
namespace {

using test::ld;
using test::v;

// [if (k < 8) copy; commit; for y in [0, 2) threadIdx.y: for x in [0, 128) threadIdx.x:
//   { frag[0] = S[x]; wgmma_fence; wgmma_commit }] in a block of `threads` threads.
Kernel k_step(int64_t threads) {
  Stmt refill = make_if(v("k") < make_int(8), make_async_copy("S", v("tid"), ld("G", DType::f32, v("tid")), 4));
  Stmt tile = make_block(
      {make_store("frag", make_int(0), ld("S", DType::f32, v("x"))), make_wgmma_fence(), make_wgmma_commit()});
  Stmt nest = make_for("y", make_int(0), make_int(2), LoopKind::Serial, GpuAxis::ThreadY,
                       make_for("x", make_int(0), make_int(128), LoopKind::Serial, GpuAxis::ThreadX, tile));
  Kernel k;
  k.name = "k0";
  k.block = {128, threads / 128, 1};
  k.body = make_block({make_barrier(), refill, make_async_commit(), nest});
  return k;
}

std::vector<StmtKind> kinds(const Stmt& block) {
  std::vector<StmtKind> r;
  for (const auto& s : block->body) r.push_back(s->kind);
  return r;
}

const Stmt& innermost(const Stmt& nest) { return nest->body[0]->body[0]; }

TEST(RefillsAfterFragments, CopiesMoveBetweenTheFragmentLoadsAndTheFence) {
  Kernel k = k_step(256);
  issue_refills_after_fragments(k);
  EXPECT_EQ(kinds(k.body), (std::vector<StmtKind>{StmtKind::Barrier, StmtKind::For}));
  EXPECT_EQ(kinds(innermost(k.body->body[1])),
            (std::vector<StmtKind>{StmtKind::Store, StmtKind::If, StmtKind::AsyncCommit, StmtKind::WgmmaFence,
                                   StmtKind::WgmmaCommit}));
}

TEST(RefillsAfterFragments, CopiesStayWhenTheTileRunsOnPartOfTheBlock) {
  Kernel k = k_step(512);  // the tile's loops cover 256 of the 512 threads
  const std::vector<StmtKind> before = kinds(k.body);
  issue_refills_after_fragments(k);
  EXPECT_EQ(kinds(k.body), before);
  EXPECT_EQ(kinds(innermost(k.body->body[3])),
            (std::vector<StmtKind>{StmtKind::Store, StmtKind::WgmmaFence, StmtKind::WgmmaCommit}));
}

}  // namespace
}  // namespace cusched
