// On the GPU: fuse_epilogue (a pointwise output folded into the final store of the GEMM
// it reads) verifies through the wgmma tile of gemm_add_relu's best schedule and the
// mma.sync tile with a shared output tile, at the small size and at a shape whose rows
// and columns are not multiples of the tiles.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "problems/baseline_steps.h"
#include "problems/problem.h"
#include "runtime/cuda_driver.h"
#include "search/candidate_evaluation.h"
#include "tests/gpu_property/gpu_eval_config.h"

namespace cusched {
namespace {

using nlohmann::json;

TEST(GpuEpilogue, FoldedGemmEpiloguesVerify) {
  if (auto err = runtime::driver_available()) GTEST_SKIP() << err->message;
  runtime::Worker worker(0);
  Problem p = find_problem("gemm_add_relu");
  p.sizes["ragged"] = {{"BATCH", 200}, {"IN", 264}, {"OUT", 328}};
  json mma = tensor_core_tile_steps("G", "i", "j", "k", "X", 4, "weight", 4, "",
                                    TensorCoreTile{128, 128, 64, 32, 32, "tf32", 3});
  json shared_tile = mma;
  shared_tile.push_back({{"op", "cache_write"}, {"stage", "G"}, {"scope", "shared"}});
  for (const json& g : {p.best_schedule, mma, shared_tile})
    for (const char* size : {"small", "ragged"}) {
      const auto r = search::evaluate_candidate(p, with_folded_epilogue(g, "Y"), gpu_eval_config(size, 13), &worker);
      EXPECT_EQ(r.verdict_text(), "ok") << size << ": " << r.reason << "\n" << with_folded_epilogue(g, "Y").dump();
    }
}

}  // namespace
}  // namespace cusched
