// Kernel contracts: inputs (const) in pipeline order, then outputs, typed by dtype.
#include "problems/contract.h"

#include <set>

#include <gtest/gtest.h>

namespace cusched {
namespace {

TEST(KernelContract, EveryProblemHasAWellFormedContract) {
  for (const auto& p : all_problems()) {
    SCOPED_TRACE(p.name);
    nlohmann::json c = kernel_contract(p);
    EXPECT_EQ(c["kernel_name"], p.name + "_kernel");
    const auto& params = c["params"];
    ASSERT_EQ(params.size(), p.pipeline.inputs().size() + p.pipeline.outputs().size());
    std::set<std::string> names;
    for (size_t i = 0; i < params.size(); ++i) {
      const auto& q = params[i];
      bool out = i >= p.pipeline.inputs().size();
      std::string name = q["name"];
      EXPECT_TRUE(names.insert(name).second) << "duplicate parameter " << name;
      EXPECT_EQ(q["is_output"], out);
      std::string type = q["type"];
      EXPECT_EQ(type.rfind("const ", 0) == 0, !out) << type;
      EXPECT_EQ(type.back(), '*');
      if (out)
        EXPECT_EQ(name, p.pipeline.outputs()[i - p.pipeline.inputs().size()]);
      else
        EXPECT_EQ(name, p.pipeline.inputs()[i]->name);
    }
  }
}

TEST(KernelContract, TypesFollowTheBuffersDtypes) {
  nlohmann::json ce = kernel_contract(find_problem("cross_entropy"));
  EXPECT_EQ(ce["params"][0],
            nlohmann::json({{"name", "logits"}, {"type", "const float*"}, {"dtype", "f32"}, {"is_output", false}}));
  EXPECT_EQ(ce["params"][1]["type"], "const long long*");
  EXPECT_EQ(ce["params"][2]["type"], "float*");
  nlohmann::json am = kernel_contract(find_problem("argmax_dim1"));
  EXPECT_EQ(am["params"][1],
            nlohmann::json({{"name", "I"}, {"type", "long long*"}, {"dtype", "i64"}, {"is_output", true}}));
  nlohmann::json cb = kernel_contract(find_problem("conv2d_relu_bias"));
  std::vector<std::string> names;
  for (const auto& q : cb["params"]) names.push_back(q["name"]);
  EXPECT_EQ(names, (std::vector<std::string>{"X", "weight", "conv_bias", "bias", "Y"}));
}

}  // namespace
}  // namespace cusched
