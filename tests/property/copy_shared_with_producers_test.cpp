// Copies shared with the producers computed at their loop (cache_read share), lowered
// from the DSL and run in the interpreter at the small sizes: softmax rows split into
// one contiguous slice per block of a cluster with the slice in shared memory, RMSNorm's
// 64 channels in a register array read by the sum of squares and the output, and the
// lowering's errors.
#include <regex>

#include <gtest/gtest.h>

#include "problems/baseline_steps.h"
#include "tests/property/schedule_checks.h"

namespace cusched {
namespace {

using testing::ir_of;
using testing::lowering_error;
using testing::verify_small;

// Loads of the global tensor X in the printed IR (X_shared and X_register do not count).
size_t global_reads_of_x(const std::string& ir) {
  static const std::regex load(R"((^|[^A-Za-z0-9_])X\[)");
  return std::distance(std::sregex_iterator(ir.begin(), ir.end(), load), std::sregex_iterator());
}

TEST(CopySharedWithProducers, SoftmaxSlicesOverAClusterVerifyAndReadTheRowOnce) {
  // D = 300 at the small size: parts of 150, 75, 38 and 19 columns (the last shorter);
  // 16 blocks is a non-portable cluster size.
  for (int64_t cluster : {2, 4, 8, 16}) {
    const nlohmann::json steps = cluster_slice_normalizer_steps("Y", "i", "j", {"M", "S"}, "k", "X", cluster, 64);
    const auto v = verify_small("softmax", steps, 11);
    EXPECT_EQ(v.verdict, cusched::runtime::Verdict::ok) << "cluster " << cluster << ": " << v.message;
    const std::string ir = ir_of("softmax", steps);
    EXPECT_EQ(global_reads_of_x(ir), 1u) << ir;
  }
  // Without share, the max, the sum and the output each read X.
  const std::string strided =
      ir_of("softmax", cluster_row_normalizer_steps("Y", "i", "j", {"M", "S"}, "k", 2, 64, true));
  EXPECT_EQ(global_reads_of_x(strided), 3u) << strided;
}

nlohmann::json rmsnorm_register_share() {
  return nlohmann::json::parse(R"([
    {"op": "split", "stage": "Y", "loop": "w", "factor": 16, "outer": "wo", "inner": "wi"},
    {"op": "reorder", "stage": "Y", "loops": ["h", "wo", "wi", "c"]},
    {"op": "bind", "stage": "Y", "loop": "b", "axis": "blockIdx.z"},
    {"op": "bind", "stage": "Y", "loop": "h", "axis": "blockIdx.y"},
    {"op": "bind", "stage": "Y", "loop": "wo", "axis": "blockIdx.x"},
    {"op": "bind", "stage": "Y", "loop": "wi", "axis": "threadIdx.x"},
    {"op": "compute_at", "stage": "SumSq", "consumer": "Y", "loop": "wi"},
    {"op": "cache_read", "stage": "Y", "source": "X", "scope": "register", "at": "wi", "share": true}])");
}

TEST(CopySharedWithProducers, RmsNormChannelsInRegistersVerifyAndAreReadOnce) {
  const auto v = verify_small("rmsnorm", rmsnorm_register_share(), 4);
  EXPECT_EQ(v.verdict, cusched::runtime::Verdict::ok) << v.message;
  const std::string ir = ir_of("rmsnorm", rmsnorm_register_share());
  EXPECT_EQ(global_reads_of_x(ir), 1u) << ir;
  EXPECT_NE(ir.find("X_register"), std::string::npos) << ir;
}

TEST(CopySharedWithProducers, AProducerThatReadsTheWholeRowReadsOutsideTheCopy) {
  // The max's cluster loop stays serial (no cluster combine), so each block's max walks
  // both halves of the row while the copy holds the block's half.
  const nlohmann::json steps = cluster_slice_normalizer_steps("Y", "i", "j", {"M", "S"}, "k", "X", 2, 64);
  nlohmann::json serial = nlohmann::json::array();
  for (const auto& step : steps)
    if (!(step["op"] == "cross_thread_reduce" && step["stage"] == "M" && step["kind"] == "cluster"))
      serial.push_back(step);
  ASSERT_EQ(serial.size() + 1, steps.size());
  EXPECT_EQ(lowering_error("softmax", serial), "cache-read-share-region");
}

TEST(CopySharedWithProducers, ACopyNoProducerReadsIsRefused) {
  // The producers are computed at the row loop, outside the copy's loop.
  nlohmann::json steps = cluster_slice_normalizer_steps("Y", "i", "j", {"M", "S"}, "k", "X", 2, 64);
  nlohmann::json moved = nlohmann::json::array();
  for (auto step : steps) {
    if (step["op"] == "compute_at") step["loop"] = "i";
    moved.push_back(step);
  }
  EXPECT_EQ(lowering_error("softmax", moved), "cache-read-share-unused");
}

TEST(CopySharedWithProducers, APipelinedLoopCannotShareItsCopy) {
  nlohmann::json steps = rmsnorm_register_share();
  steps.erase(steps.size() - 1);
  steps.erase(steps.size() - 1);
  for (const auto& extra : nlohmann::json::parse(R"([
    {"op": "split", "stage": "Y", "loop": "c", "factor": 8, "outer": "co", "inner": "ci"},
    {"op": "compute_at", "stage": "SumSq", "consumer": "Y", "loop": "co"},
    {"op": "cache_read", "stage": "Y", "source": "X", "scope": "shared", "at": "co", "share": true},
    {"op": "pipeline", "stage": "Y", "loop": "co", "depth": 2}])"))
    steps.push_back(extra);
  EXPECT_EQ(lowering_error("rmsnorm", steps), "cache-read-share-pipelined");
}

}  // namespace
}  // namespace cusched
