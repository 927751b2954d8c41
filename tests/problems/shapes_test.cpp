// The problem set's shapes, inputs, distributions and FLOPs, against the shapes
// KernelBench gives (and the smaller 4-D shapes of relu, gelu and sum_dim1_small).
#include <cmath>
#include <set>

#include <gtest/gtest.h>

#include "dsl/error.h"
#include "problems/problem.h"
#include "problems/problem_json.h"

namespace cusched {
namespace {

using Shape = std::vector<int64_t>;

Shape input_shape(const std::string& problem, const std::string& input, const std::string& size = "bench") {
  const Problem& p = find_problem(problem);
  const TensorDef* t = p.pipeline.find_input(input);
  if (!t) ADD_FAILURE() << problem << " has no input " << input;
  return t ? eval_shape(t->shape, p.size(size)) : Shape{};
}

Shape output_shape(const std::string& problem, const std::string& size = "bench") {
  const Problem& p = find_problem(problem);
  EXPECT_EQ(p.pipeline.outputs().size(), 1u) << problem;
  return eval_shape(p.pipeline.find_stage(p.pipeline.outputs()[0])->extents, p.size(size));
}

int64_t elements(const Shape& s) {
  int64_t n = 1;
  for (auto d : s) n *= d;
  return n;
}

TEST(ProblemSet, NamesAreUniqueAndTheRequiredOnesExist) {
  std::set<std::string> names;
  for (const auto& p : all_problems()) EXPECT_TRUE(names.insert(p.name).second) << "duplicate " << p.name;
  for (const char* n : {"matmul",
                        "matmul_rect",
                        "bmm",
                        "matvec",
                        "relu",
                        "gelu",
                        "softmax",
                        "softmax_large",
                        "layernorm",
                        "rmsnorm",
                        "sum_dim1",
                        "sum_dim1_small",
                        "max_dim1",
                        "argmax_dim1",
                        "maxpool2d",
                        "conv2d",
                        "mse_loss",
                        "cross_entropy",
                        "gemm_add_relu",
                        "gemm_scale_leakyrelu",
                        "gemm_gelu_softmax",
                        "conv2d_relu_bias"})
    EXPECT_TRUE(names.count(n)) << "missing " << n;
}

TEST(ProblemSet, EveryProblemIsComplete) {
  for (const auto& p : all_problems()) {
    SCOPED_TRACE(p.name);
    EXPECT_TRUE(p.level == "1" || p.level == "2");
    EXPECT_FALSE(p.title.empty());
    EXPECT_FALSE(p.torch_semantics.empty());
    EXPECT_EQ(p.sizes.size(), 2u);
    EXPECT_EQ(p.atol, 1e-2);
    EXPECT_EQ(p.rtol, 1e-2);
    ASSERT_TRUE(static_cast<bool>(p.flops));
    EXPECT_EQ(p.pipeline.outputs().size(), 1u);
    // Every listed input is read by the pipeline and every input read is listed.
    EXPECT_EQ(p.inputs.size(), p.pipeline.inputs().size());
    for (const auto& in : p.inputs) EXPECT_NE(p.pipeline.find_input(in.name), nullptr) << in.name;
    for (const auto& t : p.pipeline.inputs()) EXPECT_NO_THROW(problem_input(p, t->name)) << t->name;
  }
}

TEST(ProblemSet, DistributionsAreWellFormed) {
  for (const auto& p : all_problems()) {
    for (const auto& in : p.inputs) {
      SCOPED_TRACE(p.name + "." + in.name);
      std::vector<InputDistribution> ds = {in.standard};
      if (in.adversarial) ds.push_back(*in.adversarial);
      for (const auto& d : ds) {
        EXPECT_TRUE(d.kind == "normal" || d.kind == "uniform" || d.kind == "randint") << d.kind;
        if (d.kind == "normal") {
          EXPECT_GT(d.b, 0);
        } else {
          EXPECT_LE(d.a, d.b);
        }
        if (d.kind == "randint") {
          EXPECT_EQ(d.a, std::floor(d.a));
        }
      }
      // Integer inputs take integer values.
      if (!dtype_is_float(p.pipeline.find_input(in.name)->dtype)) {
        EXPECT_EQ(in.standard.kind, "randint");
      }
    }
  }
}

TEST(ProblemSet, SmallSizesAreSmallAndBenchSizesAreLarger) {
  for (const auto& p : all_problems()) {
    SCOPED_TRACE(p.name);
    int64_t small_total = 0, bench_total = 0;
    for (const auto& t : p.pipeline.inputs()) {
      int64_t n = elements(eval_shape(t->shape, p.size("small")));
      EXPECT_LE(n, 16384) << t->name;
      EXPECT_GT(n, 0) << t->name;
      small_total += n;
      bench_total += elements(eval_shape(t->shape, p.size("bench")));
    }
    Shape out_small = output_shape(p.name, "small");
    EXPECT_LE(elements(out_small), 16384);
    for (auto d : out_small) EXPECT_GT(d, 0);
    EXPECT_GT(bench_total, 100 * small_total);
  }
}

TEST(ProblemSet, FlopsAndBytesArePositiveAndGrowWithSize) {
  for (const auto& p : all_problems()) {
    SCOPED_TRACE(p.name);
    double fs = p.flops(p.size("small")), fb = p.flops(p.size("bench"));
    EXPECT_GT(fs, 0);
    EXPECT_TRUE(std::isfinite(fb));
    EXPECT_GT(fb, fs);
    // Every output element costs at least one operation.
    EXPECT_GE(fb, static_cast<double>(elements(output_shape(p.name))));
    EXPECT_GT(p.min_bytes(p.size("bench")), p.min_bytes(p.size("small")));
  }
}

TEST(ProblemSet, Level1BenchShapesAreKernelBenchs) {
  EXPECT_EQ(input_shape("matmul_rect", "A"), (Shape{2048, 8192}));
  EXPECT_EQ(input_shape("matmul_rect", "B"), (Shape{8192, 4096}));
  EXPECT_EQ(input_shape("bmm", "A"), (Shape{128, 512, 1024}));
  EXPECT_EQ(input_shape("bmm", "B"), (Shape{128, 1024, 2048}));
  EXPECT_EQ(output_shape("bmm"), (Shape{128, 512, 2048}));
  EXPECT_EQ(input_shape("matvec", "A"), (Shape{2048, 1048576}));
  EXPECT_EQ(input_shape("matvec", "B"), (Shape{1048576, 1}));
  EXPECT_EQ(output_shape("matvec"), (Shape{2048, 1}));
  EXPECT_EQ(input_shape("relu", "X"), (Shape{16, 64, 256, 256}));
  EXPECT_EQ(input_shape("gelu", "X"), (Shape{16, 64, 256, 256}));
  EXPECT_EQ(input_shape("softmax_large", "X"), (Shape{4096, 393216}));
  EXPECT_EQ(input_shape("rmsnorm", "X"), (Shape{112, 64, 512, 512}));
  EXPECT_EQ(output_shape("rmsnorm"), (Shape{112, 64, 512, 512}));
  for (const char* n : {"sum_dim1", "max_dim1", "argmax_dim1"}) {
    EXPECT_EQ(input_shape(n, "X"), (Shape{128, 4096, 4095})) << n;
    EXPECT_EQ(output_shape(n), (Shape{128, 4095})) << n;
  }
  EXPECT_EQ(output_shape("sum_dim1_small"), (Shape{16, 256, 256}));
  EXPECT_EQ(output_shape("maxpool2d"), (Shape{32, 64, 511, 511}));
  EXPECT_EQ(input_shape("conv2d", "weight"), (Shape{128, 16, 3, 3}));
  EXPECT_EQ(output_shape("conv2d"), (Shape{16, 128, 1022, 1022}));
  EXPECT_EQ(input_shape("mse_loss", "predictions"), (Shape{32768, 32768}));
  EXPECT_EQ(output_shape("mse_loss"), (Shape{1}));
  EXPECT_EQ(input_shape("cross_entropy", "logits"), (Shape{32768, 4096}));
  EXPECT_EQ(input_shape("cross_entropy", "targets"), (Shape{32768}));
  EXPECT_EQ(output_shape("cross_entropy"), (Shape{1}));
}

TEST(ProblemSet, Level2BenchShapesAreKernelBenchs) {
  for (const char* n : {"gemm_add_relu", "gemm_scale_leakyrelu", "gemm_gelu_softmax"}) {
    EXPECT_EQ(input_shape(n, "X"), (Shape{1024, 8192})) << n;
    EXPECT_EQ(input_shape(n, "weight"), (Shape{8192, 8192})) << n;
    EXPECT_EQ(input_shape(n, "bias"), (Shape{8192})) << n;
    EXPECT_EQ(output_shape(n), (Shape{1024, 8192})) << n;
  }
  EXPECT_EQ(input_shape("conv2d_relu_bias", "X"), (Shape{128, 64, 128, 128}));
  EXPECT_EQ(input_shape("conv2d_relu_bias", "weight"), (Shape{128, 64, 3, 3}));
  EXPECT_EQ(input_shape("conv2d_relu_bias", "conv_bias"), (Shape{128}));
  EXPECT_EQ(input_shape("conv2d_relu_bias", "bias"), (Shape{128, 1, 1}));
  EXPECT_EQ(output_shape("conv2d_relu_bias"), (Shape{128, 128, 126, 126}));
}

TEST(ProblemSet, FlopCountsOfTheProducts) {
  EXPECT_DOUBLE_EQ(find_problem("matmul_rect").flops(find_problem("matmul_rect").size("bench")),
                   2.0 * 2048 * 4096 * 8192);
  EXPECT_DOUBLE_EQ(find_problem("bmm").flops(find_problem("bmm").size("bench")), 2.0 * 128 * 512 * 2048 * 1024);
  EXPECT_DOUBLE_EQ(find_problem("conv2d").flops(find_problem("conv2d").size("bench")),
                   2.0 * 16 * 128 * 1022 * 1022 * 16 * 9);
  EXPECT_DOUBLE_EQ(find_problem("bmm").min_bytes(find_problem("bmm").size("bench")),
                   4.0 * (128.0 * 512 * 1024 + 128.0 * 1024 * 2048 + 128.0 * 512 * 2048));
}

TEST(ProblemSet, ArgmaxIsInt64AndCrossEntropyTargetsIndexTheClasses) {
  const Problem& a = find_problem("argmax_dim1");
  EXPECT_EQ(a.pipeline.find_stage(a.pipeline.outputs()[0])->dtype, DType::i64);
  const Problem& ce = find_problem("cross_entropy");
  EXPECT_EQ(ce.pipeline.find_input("targets")->dtype, DType::i64);
  const ProblemInput& t = problem_input(ce, "targets");
  EXPECT_EQ(t.standard.kind, "randint");
  // Every drawn target must be a valid class index at both sizes.
  for (const char* size : {"small", "bench"}) {
    EXPECT_EQ(t.standard.a, 0) << size;
    EXPECT_EQ(t.standard.b, ce.size(size).at("C") - 1) << size;
  }
}

TEST(ProblemSet, InputsJsonGivesBenchShapesAndDistributions) {
  nlohmann::json j = inputs_json(find_problem("cross_entropy"), "bench");
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[0]["name"], "logits");
  EXPECT_EQ(j[0]["dtype"], "f32");
  EXPECT_EQ(j[0]["shape"], nlohmann::json({32768, 4096}));
  EXPECT_EQ(j[0]["distribution"]["kind"], "normal");
  EXPECT_TRUE(j[0]["adversarial"].is_object());
  EXPECT_EQ(j[1]["name"], "targets");
  EXPECT_EQ(j[1]["dtype"], "i64");
  EXPECT_EQ(j[1]["distribution"], nlohmann::json({{"kind", "randint"}, {"a", 0.0}, {"b", 4095.0}}));
  EXPECT_TRUE(j[1]["adversarial"].is_null());
  nlohmann::json o = outputs_json(find_problem("argmax_dim1"), "small");
  ASSERT_EQ(o.size(), 1u);
  EXPECT_EQ(o[0]["dtype"], "i64");
  EXPECT_EQ(o[0]["shape"], nlohmann::json({3, 29}));
}

TEST(ProblemSet, UnknownInputIsAStructuredError) {
  try {
    problem_input(find_problem("relu"), "Z");
    FAIL() << "expected unknown-input";
  } catch (const UserError& e) {
    EXPECT_EQ(e.error().code, "unknown-input");
    EXPECT_FALSE(e.error().hint.empty());
  }
}

}  // namespace
}  // namespace cusched
