// The reduction class's staged-window sketches (search/class_sketches.cpp): every
// KernelBench pooling file whose windows overlap gets them (level 1 #45's 11 x 11 windows
// of stride 11 read each input once and have windows of more than 64), legal at its small
// and bench sizes, each block's shared copy its outputs' window (kilobytes, two blocks to a
// multiprocessor, not a row or the tensor), and each verifies in the interpreter at the
// small size. Long serial reductions also come unrolled.
#include <filesystem>
#include <regex>

#include <gtest/gtest.h>

#include "codegen/bundle.h"
#include "codegen/lower.h"
#include "dsl/schedule.h"
#include "problems/problem_file.h"
#include "runtime/interp_verification.h"
#include "search/class_sketches.h"

namespace cusched::search {
namespace {

namespace fs = std::filesystem;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(WindowSketches, EveryPoolingFileStagesEachBlocksWindowInSharedMemory) {
  for (const char* file : {"41_Max_Pooling_1D", "42_Max_Pooling_2D", "43_Max_Pooling_3D", "44_Average_Pooling_1D",
                           "46_Average_Pooling_3D"}) {
    SCOPED_TRACE(file);
    const Problem p = load_problem_file(
        (fs::path(CUSCHED_SOURCE_DIR) / "problems" / "kernelbench" / "level1" / (std::string(file) + ".json"))
            .string());
    int staged = 0;
    for (const auto& s : class_sketches(p, ProblemClass::reduction)) {
      if (!contains(s.idea, "window inputs staged in shared memory")) continue;
      ++staged;
      for (const char* size : {"small", "bench"}) {
        ValidationResult v = validate_schedule(p.context(size), s.schedule);
        ASSERT_TRUE(v.ok) << s.idea << " at " << size << ": " << v.error.message;
      }
      const KernelBundle b = make_bundle(lower(Schedule::from_json(p.context("bench"), s.schedule), p.name));
      ASSERT_GE(b.launches.size(), 1u) << s.idea;  // the pooling's kernel first, a division after it
      // The copies' bytes: static shared arrays of the source plus the launch's dynamic ones.
      int64_t bytes = b.launches[0].dynamic_smem_bytes, copies = 0;
      const std::string first = b.source.substr(0, b.source.find("__global__", b.source.find("__global__") + 1));
      static const std::regex array(R"(__shared__ __align__\(16\) float \w+_shared\[(\d+)\])");
      for (std::sregex_iterator m(first.begin(), first.end(), array), end; m != end; ++m, ++copies)
        bytes += 4 * std::stoll((*m)[1]);
      EXPECT_EQ(copies + (b.launches[0].dynamic_smem_bytes > 0), 1) << s.idea << "\n" << b.source;
      EXPECT_GT(bytes, 0) << s.idea;
      EXPECT_LE(bytes, 113 * 1024) << s.idea;
      auto r = runtime::verify_with_interpreter(p, Schedule::from_json(p.context("small"), s.schedule), "small", 2, 1);
      EXPECT_EQ(r.verdict, runtime::Verdict::ok) << s.idea << ": " << r.message << r.error.message;
    }
    EXPECT_GE(staged, 2) << "128 and 256 threads per block (and each folded with a division after it)";
  }
}

// The thread-per-output sketches with a serial reduction: a long reduction (level 1 #48's
// 4096 rows, #51's argmax over them) also comes unrolled by 8, its loop split in its own
// order, each such kernel verifying in the interpreter; a pooling window of 8 does not.
TEST(SerialReductionSketches, LongReductionsAlsoComeUnrolledByEight) {
  auto file = [](const std::string& name) {
    return load_problem_file(
        (fs::path(CUSCHED_SOURCE_DIR) / "problems" / "kernelbench" / "level1" / (name + ".json")).string());
  };
  for (const char* name : {"48_Mean_reduction_over_a_dimension", "51_Argmax_over_a_dimension"}) {
    SCOPED_TRACE(name);
    const Problem p = file(name);
    int unrolled = 0, plain = 0;
    for (const auto& s : class_sketches(p, ProblemClass::reduction)) {
      if (!contains(s.idea, "with a serial reduction")) continue;
      if (!contains(s.idea, "unrolled by 8")) {
        ++plain;
        continue;
      }
      ++unrolled;
      const KernelBundle b = make_bundle(lower(Schedule::from_json(p.context("bench"), s.schedule), p.name));
      EXPECT_TRUE(contains(b.source, "_unrolled < 8")) << s.idea << "\n" << b.source;
      auto r = runtime::verify_with_interpreter(p, Schedule::from_json(p.context("small"), s.schedule), "small", 2, 1);
      EXPECT_EQ(r.verdict, runtime::Verdict::ok) << s.idea << ": " << r.message << r.error.message;
    }
    EXPECT_GE(unrolled, 2) << "128 and 256 threads per block";
    EXPECT_GE(plain, 1);
  }
  for (const auto& s : class_sketches(file("44_Average_Pooling_1D"), ProblemClass::reduction))
    EXPECT_FALSE(contains(s.idea, "unrolled by 8")) << s.idea;
}

}  // namespace
}  // namespace cusched::search
