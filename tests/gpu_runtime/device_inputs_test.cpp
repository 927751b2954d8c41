// Inputs drawn on the GPU against the host's generator (input_generator.h) for every dtype
// and distribution: uniform and randint values equal bit for bit, normal values agree
// within 4e-6 (1 + |x|) (their f32 math), the draw repeats for a seed and changes with it,
// and an input read from a .npy file comes through unchanged. Every test skips without a driver.
#include "runtime/device_inputs.h"

#include <cmath>
#include <cstring>
#include <filesystem>

#include <gtest/gtest.h>
#include <unistd.h>

#include "runtime/cuda_driver.h"
#include "runtime/element_codec.h"
#include "runtime/npy.h"
#include "tests/user_error_code.h"

namespace cusched::runtime {
namespace {

class DeviceInputsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto e = driver_available()) GTEST_SKIP() << e->message;
    ctx_ = std::make_unique<GpuContext>(0);
  }
  void TearDown() override { ctx_.reset(); }

  // A request with one input `X` of `t` and `elements` elements (odd, so the last pair is
  // half used), drawn from `d`.
  static EvalRequest request(DType t, int64_t elements, const Distribution& d) {
    EvalRequest req;
    BufferSpec x;
    x.name = "X";
    x.dtype = t;
    x.shape = {elements};
    x.role = BufferRole::Input;
    req.candidate.buffers.push_back(x);
    req.inputs.push_back({"X", d, std::nullopt});
    req.base_seed = 7;
    return req;
  }

  std::vector<uint8_t> on_device(const EvalRequest& req, const TrialPlan& plan) const {
    return downloaded(device_trial_inputs(req, plan, *ctx_)).at("X");
  }

  std::unique_ptr<GpuContext> ctx_;
};

TEST_F(DeviceInputsTest, UniformAndRandintValuesEqualTheHostsInEveryDtype) {
  const TrialPlan plan{"seed 1", 1, false, false};
  for (DType t : {DType::f32, DType::f64, DType::f16, DType::bf16, DType::i32, DType::i64, DType::boolean})
    for (const Distribution& d : {Distribution{"uniform", -3, 5}, Distribution{"randint", -2, 9}}) {
      const EvalRequest req = request(t, 100001, d);
      const auto host = generate_input(req.candidate.buffers[0], d, trial_seed(7, 1, "X"));
      EXPECT_EQ(on_device(req, plan), host) << dtype_name(t) << " " << d.kind;
    }
}

TEST_F(DeviceInputsTest, NormalValuesAgreeWithTheHostsWithinFourMillionths) {
  const TrialPlan plan{"seed 0", 0, false, false};
  const Distribution d{"normal", 1, 2};
  const EvalRequest req = request(DType::f32, 200001, d);
  const auto host = generate_input(req.candidate.buffers[0], d, trial_seed(7, 0, "X"));
  const auto dev = on_device(req, plan);
  ASSERT_EQ(dev.size(), host.size());
  double sum = 0, sq = 0;
  for (size_t i = 0; i < host.size(); i += 4) {
    float a, b;
    std::memcpy(&a, &dev[i], 4);
    std::memcpy(&b, &host[i], 4);
    EXPECT_LE(std::fabs(a - b), 4e-6f * (1 + std::fabs(b))) << "element " << i / 4;
    sum += a;
    sq += (a - 1.0) * (a - 1.0);
  }
  EXPECT_NEAR(sum / 200001, 1.0, 0.02);
  EXPECT_NEAR(std::sqrt(sq / 200001), 2.0, 0.02);
}

TEST_F(DeviceInputsTest, TheDrawRepeatsForASeedAndChangesWithIt) {
  const Distribution d{"normal", 0, 1};
  const EvalRequest req = request(DType::bf16, 4097, d);
  const auto a = on_device(req, {"seed 0", 0, false, false});
  EXPECT_EQ(a, on_device(req, {"seed 0", 0, false, false}));
  EXPECT_NE(a, on_device(req, {"seed 1", 1, false, false}));
}

TEST_F(DeviceInputsTest, AnInputFromAFileComesThroughUnchanged) {
  const auto dir = std::filesystem::temp_directory_path() / ("cusched_device_inputs_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::vector<uint8_t> bytes(12 * 4);
  for (size_t i = 0; i < 12; ++i) store_element(DType::f32, 0.5 * static_cast<double>(i) - 2, &bytes[i * 4]);
  write_npy((dir / "X.npy").string(), NpyArray{DType::f32, {12}, bytes});
  EvalRequest req = request(DType::f32, 12, {"normal", 0, 1});
  req.inputs_dir = dir.string();
  EXPECT_EQ(on_device(req, {"inputs from DIR", -2, false, true}), bytes);
  std::filesystem::remove_all(dir);
}

TEST_F(DeviceInputsTest, AnEmptyRandintRangeIsABadDistribution) {
  const EvalRequest req = request(DType::i32, 10, {"randint", 3.5, 3.6});
  EXPECT_EQ(test::error_code([&] { on_device(req, {"seed 0", 0, false, false}); }), "bad-distribution");
}

}  // namespace
}  // namespace cusched::runtime
