// The runtime on a machine without a CUDA driver (like CI): clear errors, no crash.
#include <gtest/gtest.h>

#include "runtime/cuda_driver.h"
#include "runtime/evaluation.h"

namespace cusched::runtime {
namespace {

TEST(NoDriver, MissingLibraryGivesTheNoGpuError) {
  auto e = probe_driver_library("/nonexistent/libcuda.so.1");
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->code, "no-gpu");
  EXPECT_NE(e->message.find("/nonexistent/libcuda.so.1 could not be loaded"), std::string::npos);
}

TEST(NoDriver, DefaultDriverMessageIsTheOneLine) {
  if (!driver_available()) GTEST_SKIP() << "A CUDA driver is present on this machine.";
  auto e = driver_available();
  EXPECT_EQ(e->code, "no-gpu");
  EXPECT_EQ(e->message,
            "No CUDA driver was found (libcuda.so.1 could not be loaded); this command needs a machine with an "
            "NVIDIA GPU and its driver.");
  try {
    driver();
    FAIL() << "driver() returned without a driver";
  } catch (const UserError& err) {
    EXPECT_EQ(err.error().code, "no-gpu");
  }
}

TEST(NoDriver, EvaluateGivesNoGpuVerdict) {
  if (!driver_available()) GTEST_SKIP() << "A CUDA driver is present on this machine.";
  EvalRequest req;
  req.candidate.precision = Precision::tf32;
  EvalResult r = evaluate(req);
  EXPECT_EQ(r.verdict, Verdict::no_gpu);
  EXPECT_EQ(r.message, kNoDriverMessage);
  EXPECT_EQ(r.precision, Precision::tf32);
}

}  // namespace
}  // namespace cusched::runtime
