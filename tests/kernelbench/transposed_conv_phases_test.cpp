// The strided transposed convolutions of the KernelBench files, written as their
// stride-phase sub-convolutions (scripts/transposed_conv_stages.py), against the gather
// they replaced: tests/kernelbench/gather_forms/level*/<file>.json holds each file with
// its transposed convolution as a gather that masks the taps of the other phases, and
// gather_forms/layers.json the layer's parameters (the generator's arguments). The float64
// reference of both forms agrees on the same inputs at the small size and at a second
// shape; no reduction of the phase form has a select; its multiplies are the live taps.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "dsl/expr_text.h"
#include "dsl/reference_eval.h"
#include "problems/problem_file.h"
#include "tests/kernelbench/file_test_name.h"
#include "tests/source_tree.h"

namespace cusched {
namespace {

namespace fs = std::filesystem;

const fs::path kProblems = fs::path(source_tree()) / "problems" / "kernelbench";
const fs::path kGatherForms = fs::path(source_tree()) / "tests" / "kernelbench" / "gather_forms";

nlohmann::json layers() {
  std::ifstream in(kGatherForms / "layers.json");
  return nlohmann::json::parse(in);
}

std::vector<std::string> layer_files() {
  const nlohmann::json all = layers();
  std::vector<std::string> out;
  for (const auto& [file, layer] : all.items()) out.push_back(file);
  return out;
}

std::vector<int64_t> per_dim(const nlohmann::json& layer, const std::string& key, size_t dims) {
  std::vector<int64_t> out;
  std::stringstream ss(layer.at(key).get<std::string>());
  for (std::string part; std::getline(ss, part, ',');) out.push_back(std::stoll(part));
  if (out.size() == 1) out.assign(dims, out[0]);
  EXPECT_EQ(out.size(), dims) << key;
  return out;
}

// A transposed convolution's parameters along its spatial dimensions, at one shape.
struct Layer {
  std::string name;
  int64_t groups = 1;
  std::vector<int64_t> in, kernel, stride, padding, output_padding, dilation;
  int64_t out(size_t d) const {
    return (in[d] - 1) * stride[d] - 2 * padding[d] + dilation[d] * (kernel[d] - 1) + output_padding[d] + 1;
  }
};

Layer layer_at(const nlohmann::json& j, const SizeBindings& sizes) {
  Layer l;
  l.name = j.at("name");
  l.groups = j.at("groups");
  ExprScope scope;
  for (const auto& [n, v] : sizes) scope.sizes.push_back(n);
  // the input's sides, comma-separated outside parentheses ("D,H,W", "(D / 2),(H / 2),(W / 2)")
  int depth = 0;
  std::string cur;
  std::vector<std::string> in_sizes;
  for (char c : j.at("in_sizes").get<std::string>()) {
    depth += c == '(';
    depth -= c == ')';
    if (c == ',' && depth == 0) {
      in_sizes.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  in_sizes.push_back(cur);
  for (const auto& s : in_sizes) l.in.push_back(eval_int(expr_from_text(s, scope), sizes));
  const size_t n = l.in.size();
  l.kernel = per_dim(j, "kernel", n);
  l.stride = per_dim(j, "stride", n);
  l.padding = per_dim(j, "padding", n);
  l.output_padding = per_dim(j, "output_padding", n);
  l.dilation = per_dim(j, "dilation", n);
  return l;
}

// Every (output, tap) pair whose index parity lets the tap reach an input element (by
// brute force over all of them, all dimensions at once), and all the gather's pairs.
std::pair<int64_t, int64_t> live_and_all_taps(const Layer& l) {
  const size_t n = l.in.size();
  std::vector<int64_t> extent;
  for (size_t d = 0; d < n; ++d) {
    extent.push_back(l.out(d));
    extent.push_back(l.kernel[d]);
  }
  int64_t total = 1;
  for (int64_t e : extent) total *= e;
  int64_t live = 0;
  std::vector<int64_t> idx(extent.size(), 0);
  for (int64_t flat = 0; flat < total; ++flat) {
    int64_t rest = flat;
    for (size_t i = extent.size(); i-- > 0;) {
      idx[i] = rest % extent[i];
      rest /= extent[i];
    }
    bool ok = true;
    for (size_t d = 0; d < n && ok; ++d) {
      const int64_t t = idx[2 * d] + l.padding[d] - idx[2 * d + 1] * l.dilation[d];
      ok = t % l.stride[d] == 0;
    }
    live += ok;
  }
  return {live, total};
}

int64_t extent_of(const ReductionVar& v, const SizeBindings& sizes) {
  return v.extent_expr.defined() ? eval_int(v.extent_expr, sizes) : v.extent;
}

bool contains(const Expr& e, ExprOp op) {
  if (!e.defined()) return false;
  if (e->op == op) return true;
  for (const auto& a : e->args)
    if (contains(a, op)) return true;
  return false;
}

// A select inside `e` whose condition tests a remainder (an index's parity).
bool parity_select(const Expr& e) {
  if (!e.defined()) return false;
  if (e->op == ExprOp::Select && contains(e->args[0], ExprOp::Mod)) return true;
  for (const auto& a : e->args)
    if (parity_select(a)) return true;
  return false;
}

// The reductions inside `e` that mask terms with a parity select.
int masked_reductions(const Expr& e) {
  if (!e.defined()) return 0;
  if (e->op == ExprOp::Reduce && parity_select(e->args[0])) return 1;
  int n = 0;
  for (const auto& a : e->args) n += masked_reductions(a);
  return n;
}

HostBuffers random_inputs(const Pipeline& p, const SizeBindings& sizes, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  HostBuffers out;
  for (const auto& t : p.inputs()) {
    int64_t count = 1;
    for (int64_t e : eval_shape(t->shape, sizes)) count *= e;
    std::vector<double>& v = out[t->name];
    v.resize(count);
    for (double& x : v) x = u(rng);
  }
  return out;
}

class TransposedConvPhases : public ::testing::TestWithParam<std::string> {
 protected:
  Problem phases() const { return load_problem_file((kProblems / GetParam()).string()); }
  Problem gather() const { return load_problem_file((kGatherForms / GetParam()).string()); }
  nlohmann::json layer() const { return layers().at(GetParam()); }

  // Both forms' float64 reference on the same inputs at `sizes`: every stage they share
  // (the transposed convolution and everything after it) agrees.
  void expect_same_values(const SizeBindings& sizes) {
    const Problem a = gather(), b = phases();
    const HostBuffers in = random_inputs(a.pipeline, sizes, std::hash<std::string>{}(GetParam()));
    const HostBuffers va = evaluate_reference(a.pipeline, sizes, in);
    const HostBuffers vb = evaluate_reference(b.pipeline, sizes, in);
    const std::string conv = layer().at("name");
    ASSERT_TRUE(va.count(conv) && vb.count(conv)) << conv;
    std::set<std::string> compared;
    double largest = 0;
    for (const auto& [name, want] : va) {
      auto it = vb.find(name);
      if (it == vb.end()) continue;
      ASSERT_EQ(it->second.size(), want.size()) << name;
      for (size_t i = 0; i < want.size(); ++i) {
        ASSERT_NEAR(it->second[i], want[i], 1e-12 * (1 + std::abs(want[i]))) << name << " element " << i;
        if (name == conv) largest = std::max(largest, std::abs(want[i]));
      }
      compared.insert(name);
    }
    EXPECT_TRUE(compared.count(conv));
    for (const auto& name : a.pipeline.outputs()) EXPECT_TRUE(compared.count(name)) << name;
    EXPECT_GT(largest, 0) << "the transposed convolution is 0 everywhere: the comparison says nothing";
  }
};

TEST_P(TransposedConvPhases, SameValuesAsTheGatherAtTheSmallSize) {
  const Problem p = phases();
  expect_same_values(p.size("small"));
}

// The small size with every input side one larger: the other parity of each input side
// and the phase stages' extents at another shape. (An output side's remainder modulo the
// stride is the layer's, at every shape: the files whose output sides are 2L - 1, 2L + 1,
// 3W - 2 or 5S - 2 have phases with one output fewer than others.)
TEST_P(TransposedConvPhases, SameValuesAsTheGatherAtASecondShape) {
  const Problem p = phases();
  SizeBindings sizes = p.size("small");
  for (const std::string side : {"D", "H", "W", "L"})
    if (sizes.count(side) && layer().at("in_sizes").get<std::string>().find(side) != std::string::npos) ++sizes[side];
  ASSERT_NE(sizes, p.size("small"));
  expect_same_values(sizes);
}

TEST_P(TransposedConvPhases, NoTapIsMasked) {
  const Problem g = gather(), p = phases();
  int gather_masked = 0;
  for (const auto& s : g.pipeline.stages()) gather_masked += masked_reductions(s->body);
  EXPECT_GE(gather_masked, 1) << "the gather form masks its taps with a select";
  const std::string conv = layer().at("name");
  int phase_stages = 0;
  for (const auto& s : p.pipeline.stages()) {
    EXPECT_EQ(masked_reductions(s->body), 0) << stage_to_text(*s);
    if (s->name.rfind(conv + "_p", 0) == 0) {
      ++phase_stages;
      EXPECT_TRUE(s->is_sum_of_load_products()) << stage_to_text(*s);
      EXPECT_FALSE(contains(s->body, ExprOp::Select)) << stage_to_text(*s);
    }
  }
  EXPECT_GE(phase_stages, 1);
  const FuncDef* interleave = p.pipeline.find_stage(conv);
  ASSERT_NE(interleave, nullptr);
  EXPECT_FALSE(interleave->is_reduction()) << "the transposed convolution interleaves its phase stages";
}

// The phase stages' multiplies (outputs times reduction extents, channels included) are
// exactly the (output, tap) pairs whose parity lets the tap reach the input, counted by
// brute force from the layer's parameters, at the small and the bench size.
TEST_P(TransposedConvPhases, MultipliesAreTheLiveTaps) {
  const Problem p = phases();
  const std::string conv = layer().at("name");
  for (const std::string size : {"small", "bench"}) {
    const SizeBindings& sizes = p.size(size);
    int64_t multiplies = 0;
    for (const auto& s : p.pipeline.stages()) {
      if (s->name.rfind(conv + "_p", 0) != 0) continue;
      int64_t points = 1;
      for (const auto& e : s->extents) points *= eval_int(e, sizes);
      ASSERT_EQ(s->body->op, ExprOp::Reduce);
      for (const auto& v : s->body->rvars) points *= extent_of(v, sizes);
      multiplies += points;
    }
    const Layer l = layer_at(layer(), sizes);
    // the interleave's output extents are the layer's
    const FuncDef* interleave = p.pipeline.find_stage(conv);
    ASSERT_EQ(interleave->extents.size(), l.in.size() + 2);
    for (size_t d = 0; d < l.in.size(); ++d) EXPECT_EQ(eval_int(interleave->extents[d + 2], sizes), l.out(d)) << d;
    const int64_t channels = sizes.at("N") * sizes.at("CO") * (sizes.at("CI") / l.groups);
    const auto [live, all] = live_and_all_taps(l);
    EXPECT_EQ(multiplies, channels * live) << size;
    EXPECT_LT(multiplies, channels * all) << size;
    RecordProperty(size + "_phase_multiplies", std::to_string(multiplies));
    RecordProperty(size + "_gather_multiplies", std::to_string(channels * all));
  }
}

INSTANTIATE_TEST_SUITE_P(Files, TransposedConvPhases, ::testing::ValuesIn(layer_files()),
                         kernelbench_tests::file_test_name);

// Every gather form has its layer, and every problem file whose transposed convolution
// was a gather is among them; the gather forms are the files but for that stage.
TEST(TransposedConvPhaseFiles, EveryStridedTransposedConvolutionIsThere) {
  const nlohmann::json all = layers();
  std::set<std::string> fixtures;
  for (const auto& e : fs::recursive_directory_iterator(kGatherForms))
    if (e.path().extension() == ".json" && e.path().filename() != "layers.json")
      fixtures.insert(fs::relative(e.path(), kGatherForms).string());
  std::set<std::string> listed;
  for (const auto& [file, layer] : all.items()) listed.insert(file);
  EXPECT_EQ(fixtures, listed);
  EXPECT_EQ(listed.size(), 29u);
  for (const auto& file : listed) {
    const Problem g = load_problem_file((kGatherForms / file).string());
    const Problem p = load_problem_file((kProblems / file).string());
    EXPECT_EQ(g.name, p.name);
    EXPECT_EQ(g.sizes, p.sizes) << file;
    EXPECT_EQ(g.pipeline.outputs(), p.pipeline.outputs()) << file;
  }
  // No problem file masks the terms of a reduction with a parity select.
  for (const auto& e : fs::recursive_directory_iterator(kProblems)) {
    if (e.path().extension() != ".json") continue;
    const Problem p = load_problem_file(e.path().string());
    for (const auto& s : p.pipeline.stages())
      EXPECT_EQ(masked_reductions(s->body), 0) << e.path() << ": " << stage_to_text(*s);
  }
}

}  // namespace
}  // namespace cusched
