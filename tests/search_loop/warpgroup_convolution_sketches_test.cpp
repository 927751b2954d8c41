// The convolutions' implicit GEMM on warpgroup tensor cores (wgmma): each step's tap
// slice of the weights staged as the K-major operand the tensor cores read through a
// descriptor (from a copy of the weights relaid out by a kernel of its own), the data's
// fragments unguarded, one group in flight, over one output row or two; each variant
// verifying in the interpreter.
#include <map>
#include <regex>

#include <gtest/gtest.h>

#include "codegen/cuda_emitter.h"
#include "codegen/lower.h"
#include "tests/search_loop/convolution_sketch_support.h"

namespace cusched::search {
namespace {

// The warpgroup implicit GEMM (level 2 #1: 64 to 128 channels, 3x3), over one output row
// or two: each step's tap slice of the weights is the swizzled K-major operand the tensor
// cores read through a descriptor, the data's A fragments are read unguarded from its whole-tile copy, one
// group of wgmma stays in flight over the 18 steps (2 chunks x 9 taps walked as one
// loop); TF32 and 3xTF32 verify in the interpreter where the last tile reaches past the
// data's end.
TEST(ConvolutionSketches, WarpgroupImplicitGemmReadsEachTapsWeightsThroughADescriptor) {
  Problem p = kernelbench("level2/1_Conv2D_ReLU_BiasAdd.json");
  for (auto& [k, v] : std::map<std::string, int64_t>{{"N", 1}, {"CI", 64}, {"CO", 128}, {"H", 3}, {"W", 128}})
    p.sizes["small"][k] = v;
  int checked = 0;
  for (const auto& s : legal_sketches(p)) {
    if (!contains(s.idea, "wgmma") || contains(s.idea, "fuse_epilogue") || contains(s.idea, "channels last")) continue;
    const std::string cuda = emit_cuda(lower(Schedule::from_json(p.context("bench"), s.schedule), p.name));
    // 3xTF32: the tensor cores read the high and low parts split from that slice.
    const bool split = contains(s.idea, "3xtf32");
    EXPECT_TRUE(contains(
        cuda, split ? "wgmma_descriptor_sw128(&Conv_bhi[" : "wgmma_descriptor_sw128(&conv_weight_Conv_shared["))
        << s.idea;
    // The weights relaid out as (kh, kw, o, rc) by a kernel of their own: each tap's slice is
    // contiguous rows of 32 channels, copied 16 bytes at a time.
    EXPECT_TRUE(contains(cuda, "__global__ void k0_conv_weight_Conv(")) << s.idea;
    EXPECT_TRUE(contains(cuda, "cp_async_16(&conv_weight_Conv_shared[")) << s.idea;
    EXPECT_FALSE(contains(cuda, "cp_async_4(&conv_weight_Conv_shared[")) << s.idea;
    EXPECT_TRUE(contains(cuda, "for (int Conv_kstep_pair = 0; Conv_kstep_pair < 9;")) << s.idea;
    EXPECT_TRUE(split || contains(cuda, "wgmma_wait<1>()")) << s.idea;
    const std::regex fragment(R"(Conv_fa\[\d+\] = ([^;]*);)");
    int fragments = 0;
    for (std::sregex_iterator m(cuda.begin(), cuda.end(), fragment), end; m != end; ++m, ++fragments)
      EXPECT_FALSE(contains((*m)[1].str(), "?")) << "guarded: " << (*m)[0].str();
    EXPECT_GE(fragments, 16) << s.idea;
    // Two rows per block: the data's rows of 128 columns padded to 132, so that a channel
    // (two rows) is 264 elements, 8 banks, from the next.
    if (contains(s.idea, "2 rows")) {
      for (const auto& step : s.schedule)
        if (step["op"] == "cache_read" && step["source"] == "x") {
          EXPECT_EQ(step["pad"], 4) << s.idea;
        }
    }
    expect_verifies_at_small_size(p, s);
    ++checked;
  }
  EXPECT_EQ(checked, 4) << "TF32 4 and 3 deep, 3xTF32, TF32 over two rows";
}

// A transposed convolution's weights, weight(rc, o, taps...), run along the output
// channels: each phase's warpgroup tile reads a copy relaid out as (taps, o, rc) (relayout
// order 2, 3, 1, 0; one per phase), so that a tap's slice is again contiguous rows of 32
// channels per output channel, copied 16 bytes at a time; TF32 and 3xTF32 verify in the
// interpreter (level 2 #5: four phases of 2 x 2 taps over zero-padded data, 32 channels in,
// 16 out).
TEST(ConvolutionSketches, WarpgroupImplicitGemmOfATransposedConvolutionReadsItsWeightsRelaidOut) {
  Problem p = kernelbench("level2/5_ConvTranspose2d_Subtract_Tanh.json");
  for (auto& [k, v] : std::map<std::string, int64_t>{{"N", 1}, {"CI", 32}, {"CO", 16}, {"H", 3}, {"W", 70}})
    p.sizes["small"][k] = v;
  int checked = 0;
  for (const auto& s : legal_sketches(p)) {
    if (!contains(s.idea, "wgmma") || contains(s.idea, "fuse_epilogue")) continue;
    int transposed = 0;
    for (const auto& step : s.schedule)
      if (step["op"] == "relayout" && step["source"] == "conv_transpose_weight") {
        EXPECT_EQ(step["order"], nlohmann::json::array({2, 3, 1, 0})) << s.idea;
        ++transposed;
      }
    // Rows fused into the columns only where a phase's rows leave blocks idle: 257 columns
    // at the bench size, not 256.
    EXPECT_EQ(transposed, contains(s.idea, " fused") ? 2 : 4) << s.idea << ": one per phase";
    const std::string cuda = emit_cuda(lower(Schedule::from_json(p.context("bench"), s.schedule), p.name));
    EXPECT_TRUE(contains(cuda, "cp_async_16(&conv_transpose_weight_ConvT_p0_p0_shared[")) << s.idea;
    expect_verifies_at_small_size(p, s);
    ++checked;
  }
  EXPECT_EQ(checked, 7) << "TF32 4 and 3 deep, 3xTF32, each also over rows and columns fused; TF32 over two rows";
}

// The data copied channels last (level 2 #1, x(n, rc, h, w) read by its only convolution):
// relayout order (0, 2, 3, 1), made by a kernel that transposes 32 x 32 tiles through
// shared memory (its reads run along the input's rows, its writes along the copy's),
// so that each step's copy of the data is 16-byte copies of whole rows of 32 channels,
// padded to 36 (the A fragments' 8 columns x 4 channels on 32 banks), and TF32 loads each
// A fragment with one ldmatrix; TF32 over two rows,
// TF32 3 deep and 3xTF32 verify in the interpreter where the last tile reaches past the
// data's end.
TEST(ConvolutionSketches, WarpgroupImplicitGemmCopiesTheDataChannelsLast) {
  Problem p = kernelbench("level2/1_Conv2D_ReLU_BiasAdd.json");
  for (auto& [k, v] : std::map<std::string, int64_t>{{"N", 1}, {"CI", 64}, {"CO", 128}, {"H", 3}, {"W", 128}})
    p.sizes["small"][k] = v;
  int checked = 0, shared_taps = 0;
  for (const auto& s : legal_sketches(p)) {
    if (!contains(s.idea, "channels last") || contains(s.idea, "fuse_epilogue")) continue;
    int data_relayouts = 0;
    for (const auto& step : s.schedule) {
      if (step["op"] == "relayout" && step["source"] == "x") {
        EXPECT_EQ(step["order"], nlohmann::json::array({0, 2, 3, 1})) << s.idea;
        ++data_relayouts;
      }
      if (step["op"] == "cache_read" && step["stage"] == "Conv") {
        EXPECT_NE(step["source"], "x") << s.idea;
      }
      if (step["op"] == "cache_read" && step["source"] == "x_Conv") {
        EXPECT_EQ(step["pad"], 4) << s.idea;
      }
    }
    EXPECT_EQ(data_relayouts, 1) << s.idea;
    const std::string cuda = emit_cuda(lower(Schedule::from_json(p.context("bench"), s.schedule), p.name));
    const auto copy_kernel = cuda.find("__global__ void k0_x_Conv(");
    ASSERT_NE(copy_kernel, std::string::npos) << s.idea;
    const std::string copy = cuda.substr(copy_kernel, cuda.find("\n}", copy_kernel) - copy_kernel);
    EXPECT_TRUE(contains(copy, "__shared__")) << copy;
    EXPECT_TRUE(contains(copy, "__syncthreads()")) << copy;
    EXPECT_TRUE(contains(cuda, "cp_async_16(&x_Conv_shared[")) << s.idea;
    EXPECT_FALSE(contains(cuda, "cp_async_4(&x_Conv_shared[")) << s.idea;
    // TF32's A fragments (8 columns x 4 channels, four times) come with one ldmatrix each.
    if (!contains(s.idea, "3xtf32")) {
      EXPECT_TRUE(contains(cuda, "ldmatrix_x4(ldm, &x_Conv_shared[")) << s.idea;
      EXPECT_FALSE(std::regex_search(cuda, std::regex(R"(Conv_fa\[\d+\] = [^;]*x_Conv_shared)"))) << s.idea;
    }
    // A row's taps sharing each step's data: kw stays a loop inside the step (not fused
    // into it), each shift reading the data's copy one row (36 elements) further on.
    if (contains(s.idea, "once for every kw")) {
      for (const auto& step : s.schedule)
        if (step["op"] == "fuse" && step["stage"] == "Conv") {
          EXPECT_NE(step["inner"], "kw") << s.idea;
        }
      EXPECT_TRUE(std::regex_search(cuda, std::regex(R"(ldmatrix_x4\(ldm, &x_Conv_shared\[[^\]]*Conv_kw \* 36)")))
          << s.idea;
      ++shared_taps;
    }
    expect_verifies_at_small_size(p, s);
    ++checked;
  }
  EXPECT_EQ(checked, 5) << "TF32 over two rows, TF32 3 deep, 3xTF32, and TF32 over one row and two with a row's taps "
                           "sharing each step's data";
  EXPECT_EQ(shared_taps, 2);
  // A transposed convolution's phases each read the input: none copies it channels last.
  for (const auto& s : legal_sketches(kernelbench("level2/5_ConvTranspose2d_Subtract_Tanh.json")))
    EXPECT_FALSE(contains(s.idea, "channels last")) << s.idea;
}

}  // namespace
}  // namespace cusched::search
