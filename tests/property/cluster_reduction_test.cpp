// Reductions combined across the blocks of a thread-block cluster (cross_thread_reduce
// kind "cluster"), lowered from the DSL and run in the interpreter at the small sizes:
// softmax rows spread over clusters of 2 to 8 blocks (max and sum), an argmax whose
// ties must resolve to the smallest index across blocks, and the lowering's errors.
#include <gtest/gtest.h>

#include "problems/baseline_steps.h"
#include "tests/property/cluster_test_schedules.h"
#include "tests/property/schedule_checks.h"

namespace cusched {
namespace {

using testing::ir_of;
using testing::lowering_error;
using testing::verify_small;

TEST(ClusterReduction, SoftmaxRowsOverAClusterVerify) {
  // D = 300 at the small size: 64 threads make chunks of 256 columns, so a cluster of 2
  // covers the row in one step with a tail, clusters of 4 and 8 leave blocks idle.
  for (int64_t cluster : {2, 4, 8}) {
    const nlohmann::json steps = cluster_row_normalizer_steps("Y", "i", "j", {"M", "S"}, "k", cluster, 64);
    const auto v = verify_small("softmax", steps, 5);
    EXPECT_EQ(v.verdict, cusched::runtime::Verdict::ok) << "cluster " << cluster << ": " << v.message;
    const std::string ir = ir_of("softmax", steps);
    EXPECT_NE(ir.find("cluster(" + std::to_string(cluster) + ")"), std::string::npos) << ir;
    EXPECT_NE(ir.find("width " + std::to_string(cluster) + " (cluster)"), std::string::npos) << ir;
  }
}

TEST(ClusterReduction, SmallBlocksAndShortRowsVerify) {
  // 32 threads per block: each block's slice of a row is a few 128-column chunks.
  const auto v = verify_small("softmax", cluster_row_normalizer_steps("Y", "i", "j", {"M", "S"}, "k", 2, 32), 9);
  EXPECT_EQ(v.verdict, cusched::runtime::Verdict::ok) << v.message;
}

TEST(ClusterReduction, ArgmaxTiesResolveToTheSmallestIndexAcrossBlocks) {
  // D1 = 17 split by 4: 5 blocks each reduce 4 rows of r with a warp, then the cluster
  // combines them; the adversarial input (randint 0..7) makes ties in most columns.
  const nlohmann::json steps = testing::argmax_over_a_cluster_steps();
  const auto v = verify_small("argmax_dim1", steps, 3);
  EXPECT_EQ(v.verdict, cusched::runtime::Verdict::ok) << v.message;
  EXPECT_NE(ir_of("argmax_dim1", steps).find("cluster(5)"), std::string::npos);
}

TEST(ClusterReduction, TheClusterTakesTheGridsXAxis) {
  nlohmann::json steps = cluster_row_normalizer_steps("Y", "i", "j", {"M", "S"}, "k", 2, 64);
  for (auto& step : steps)
    if (step["op"] == "bind" && step["axis"] == "blockIdx.y") step["axis"] = "blockIdx.x";
  EXPECT_EQ(lowering_error("softmax", steps), "cluster-with-block-x");
}

TEST(ClusterReduction, AProducerInsideAnotherStageCannotSpreadItsPureLoopOverTheCluster) {
  const nlohmann::json steps = nlohmann::json::parse(R"([
    {"op": "bind", "stage": "Y", "loop": "i", "axis": "blockIdx.y"},
    {"op": "split", "stage": "Y", "loop": "j", "factor": 64, "outer": "jo", "inner": "jt"},
    {"op": "bind", "stage": "Y", "loop": "jt", "axis": "threadIdx.x"},
    {"op": "split", "stage": "S", "loop": "i", "factor": 4, "outer": "io", "inner": "ic"},
    {"op": "bind", "stage": "S", "loop": "ic", "axis": "cluster.x"},
    {"op": "compute_at", "stage": "S", "consumer": "Y", "loop": "i"}])");
  EXPECT_EQ(lowering_error("softmax", steps), "producer-binds-cluster");
}

}  // namespace
}  // namespace cusched
