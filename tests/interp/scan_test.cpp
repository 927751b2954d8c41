// Scans (cumsum, cumprod; reverse, exclusive, masked) lowered and run in the
// interpreter against plain double loops, at odd line lengths, with the automatic
// baseline (one block per line, a block scan), the reference schedule (one thread per
// line) and a warp-wide scan; and the float64 reference evaluator against the same loops.
#include <cmath>

#include <gtest/gtest.h>

#include "codegen/cuda_emitter.h"
#include "codegen/interpreter.h"
#include "codegen/lower.h"
#include "dsl/dsl.h"
#include "dsl/reference_eval.h"
#include "problems/automatic_baseline.h"
#include "tests/interp/ir_test_support.h"

namespace cusched {
namespace {

struct Variant {
  const char* name;
  bool product, reverse, exclusive, masked;
};

const Variant kVariants[] = {
    {"cumsum", false, false, false, false},          {"cumprod", true, false, false, false},
    {"cumsum_reverse", false, true, false, false},   {"cumsum_exclusive", false, false, true, false},
    {"reverse_exclusive", false, true, true, false}, {"cumprod_reverse_exclusive", true, true, true, false},
    {"masked_cumsum", false, false, false, true},
};

constexpr int64_t kRows = 2;

ScheduleContext scan_context(const Variant& v, int64_t n) {
  Size R("R"), N("N");
  Tensor X("X", DType::f32, {R, N}), M("M", DType::boolean, {R, N});
  Var i("i", R), j("j", N);
  Expr body = v.masked ? X(i, j) * cast(DType::f32, M(i, j)) : Expr(X(i, j));
  ScanOptions o{v.reverse, v.exclusive};
  Func Y = compute("Y", {i, j}, v.product ? cumprod(j, body, o) : cumsum(j, body, o));
  ScheduleContext c;
  c.pipeline = Pipeline({Y});
  c.sizes = {{"R", kRows}, {"N", n}};
  return c;
}

HostBuffers scan_inputs(const Variant& v, int64_t n) {
  std::vector<double> x(kRows * n), m(kRows * n);
  for (int64_t e = 0; e < kRows * n; ++e) {
    // Factors near 1 keep products away from underflow; sums see values in (0, 1).
    x[e] = v.product ? 1.0 + 0.05 * std::sin(0.37 * static_cast<double>(e)) : std::fmod(0.61 * e, 1.0);
    m[e] = (e * 7) % 3 == 0 ? 1 : 0;
  }
  HostBuffers in{{"X", x}};
  if (v.masked) in["M"] = m;
  return in;
}

// The scan of each row with plain loops in double.
std::vector<double> plain_scan(const Variant& v, int64_t n, const HostBuffers& in) {
  std::vector<double> y(kRows * n);
  for (int64_t r = 0; r < kRows; ++r) {
    double acc = v.product ? 1 : 0;
    for (int64_t k = 0; k < n; ++k) {
      const int64_t j = v.reverse ? n - 1 - k : k;
      double x = in.at("X")[r * n + j];
      if (v.masked) x *= in.at("M")[r * n + j];
      if (v.exclusive) y[r * n + j] = acc;
      acc = v.product ? acc * x : acc + x;
      if (!v.exclusive) y[r * n + j] = acc;
    }
  }
  return y;
}

void expect_close(const std::vector<double>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  int bad = 0;
  for (size_t e = 0; e < got.size() && bad < 5; ++e)
    if (!(std::fabs(got[e] - want[e]) <= 1e-3 + 1e-5 * std::fabs(want[e]))) {
      ADD_FAILURE() << "element " << e << ": " << got[e] << " vs " << want[e];
      ++bad;
    }
}

std::vector<double> run(const Schedule& s, const HostBuffers& in, int64_t n) {
  HostBuffers b = in;
  b["Y"] = std::vector<double>(kRows * n, -12345.0);
  interpret(lower(s, "scan"), b);
  return b["Y"];
}

// A scan across one warp: the line in tiles of 32 threads x 2 items.
nlohmann::json warp_scan_steps() {
  return nlohmann::json::parse(R"([
    {"op": "bind", "stage": "Y", "loop": "i", "axis": "blockIdx.x"},
    {"op": "split", "stage": "Y", "loop": "j", "factor": 2, "outer": "jr", "inner": "jv"},
    {"op": "split", "stage": "Y", "loop": "jr", "factor": 32, "outer": "jo", "inner": "jt"},
    {"op": "cross_thread_scan", "stage": "Y", "loop": "jt"},
    {"op": "unroll", "stage": "Y", "loop": "jv"}])");
}

class ScanLengths : public ::testing::TestWithParam<int64_t> {};

TEST_P(ScanLengths, ReferenceMatchesPlainLoops) {
  const int64_t n = GetParam();
  for (const Variant& v : kVariants) {
    SCOPED_TRACE(v.name);
    ScheduleContext c = scan_context(v, n);
    HostBuffers in = scan_inputs(v, n);
    HostBuffers out = evaluate_reference(c.pipeline, c.sizes, in);
    expect_close(out.at("Y"), plain_scan(v, n, in));
  }
}

TEST_P(ScanLengths, AutomaticBaselineMatchesPlainLoops) {
  const int64_t n = GetParam();
  for (const Variant& v : kVariants) {
    SCOPED_TRACE(v.name);
    ScheduleContext c = scan_context(v, n);
    Schedule s = Schedule::from_json(c, automatic_baseline(c.pipeline));
    ASSERT_FALSE(s.state().stage("Y").scan_thread_loop.empty());
    HostBuffers in = scan_inputs(v, n);
    expect_close(run(s, in, n), plain_scan(v, n, in));
  }
}

TEST_P(ScanLengths, OneThreadPerLineMatchesPlainLoops) {
  const int64_t n = GetParam();
  for (const Variant& v : kVariants) {
    SCOPED_TRACE(v.name);
    ScheduleContext c = scan_context(v, n);
    HostBuffers in = scan_inputs(v, n);
    expect_close(run(reference_schedule(c), in, n), plain_scan(v, n, in));
  }
}

TEST_P(ScanLengths, WarpScanMatchesPlainLoops) {
  const int64_t n = GetParam();
  for (const Variant& v : kVariants) {
    SCOPED_TRACE(v.name);
    ScheduleContext c = scan_context(v, n);
    HostBuffers in = scan_inputs(v, n);
    expect_close(run(Schedule::from_json(c, warp_scan_steps()), in, n), plain_scan(v, n, in));
  }
}

INSTANTIATE_TEST_SUITE_P(OddLengths, ScanLengths, ::testing::Values(1, 31, 33, 1000, 4097));

// A scan along the outer dimension of a (N, 5) tensor: the automatic baseline gives each
// thread one column.
TEST(Scan, AlongTheOuterDimensionOneThreadPerColumn) {
  Size N("N"), C("C");
  Tensor X("X", DType::f32, {N, C});
  Var i("i", N), j("j", C);
  Func Y = compute("Y", {i, j}, cumsum(i, X(i, j), {.reverse = true}));
  ScheduleContext c;
  c.pipeline = Pipeline({Y});
  c.sizes = {{"N", 37}, {"C", 5}};
  Schedule s = Schedule::from_json(c, automatic_baseline(c.pipeline));
  EXPECT_EQ(s.state().stage("Y").order.back(), "i");
  std::vector<double> x(37 * 5);
  for (size_t e = 0; e < x.size(); ++e) x[e] = std::fmod(0.37 * static_cast<double>(e), 1.0);
  HostBuffers b{{"X", x}, {"Y", std::vector<double>(37 * 5, -1.0)}};
  interpret(lower(s, "scan"), b);
  for (int64_t col = 0; col < 5; ++col) {
    double acc = 0;
    for (int64_t r = 36; r >= 0; --r) {
      acc += x[r * 5 + col];
      EXPECT_NEAR(b["Y"][r * 5 + col], acc, 1e-4) << r << "," << col;
    }
  }
}

// The block scan lowers to one pass: a Scan across the threads per tile, no AllReduce.
TEST(Scan, BlockScanLowersToOneScanPerTile) {
  ScheduleContext c = scan_context(kVariants[0], 8192);
  LoweredProgram p = lower(Schedule::from_json(c, automatic_baseline(c.pipeline)), "scan");
  ASSERT_EQ(p.kernels.size(), 1u);
  const std::string ir = print_ir(p);
  EXPECT_NE(ir.find("scan_exclusive_sum(Y_prefix[0]) over threadIdx.x width 256 total Y_total[0]"), std::string::npos)
      << ir;
  EXPECT_EQ(ir.find("allreduce"), std::string::npos) << ir;
  EXPECT_EQ(p.kernels[0].block[0], 256);
  EXPECT_EQ(p.kernels[0].grid[0], kRows);
}

// A reverse scan's automatic baseline reads and writes float4s like a forward one's: each
// vector starts at the last of its four positions, whose element is its x component, so
// lane 0 (the first position scanned) is w.
TEST(Scan, ReverseScanReadsEachFloat4FromItsLastLaneDown) {
  ScheduleContext c = scan_context(kVariants[2], 8192);
  const std::string src = emit_cuda(lower(Schedule::from_json(c, automatic_baseline(c.pipeline)), "scan"));
  EXPECT_NE(src.find("const float4 X_vec"), std::string::npos) << src;
  EXPECT_NE(src.find("Y_items[Y_scan_item * 4] = X_vec0.w;"), std::string::npos) << src;
  EXPECT_NE(src.find("Y_items[Y_scan_item * 4 + 3] = X_vec0.x;"), std::string::npos) << src;
  const size_t store = src.find("*reinterpret_cast<float4*>(&Y[");
  ASSERT_NE(store, std::string::npos) << src;
  // The stored vector's x is the last lane's value, its w the first's.
  const std::string stored = src.substr(store, src.find(';', store) - store);
  EXPECT_LT(stored.find("Y_items[Y_scan_item * 4 + 3]"), stored.find("Y_items[Y_scan_item * 4]")) << stored;
}

// A hand-built Scan of Y's 64 values by the 64 threads of one block, each thread's value
// at Y[tid] (`value_scope` holds the value, `width` threads per group).
LoweredProgram hand_built_scan(MemScope value_scope, int64_t width) {
  using namespace cusched::test;
  Stmt body = make_block({make_store("v", make_int(0), load("Y", var("t"))),
                          make_scan("v", make_int(0), "total", ReduceOp::Sum, width),
                          make_store("Y", var("t"), load("v", make_int(0)) + load("total", make_int(0)))});
  body = make_allocate("total", MemScope::Register, DType::f32, 1, body);
  body = make_allocate("v", value_scope, DType::f32, 1, body);
  Kernel k = kernel("k", {1, 1, 1}, {64, 1, 1}, {"Y"}, bound("t", 64, GpuAxis::ThreadX, body));
  return program({buffer("Y", DType::f32, 64, BufferRole::Output)}, {k});
}

TEST(ScanStatement, GivesEachThreadTheExclusivePrefixAndTheTotal) {
  for (int64_t width : {64, 32, 8}) {
    SCOPED_TRACE(width);
    HostBuffers b{{"Y", std::vector<double>(64)}};
    for (int t = 0; t < 64; ++t) b["Y"][t] = t + 1;
    interpret(hand_built_scan(MemScope::Register, width), b);
    for (int t = 0; t < 64; ++t) {
      const int first = t - t % static_cast<int>(width);
      double prefix = 0, total = 0;
      for (int u = first; u < first + width; ++u) {
        if (u < t) prefix += u + 1;
        total += u + 1;
      }
      EXPECT_EQ(b["Y"][t], prefix + total) << t;  // the exclusive prefix plus the group's total
    }
  }
}

TEST(ScanStatement, GroupsTheGpuCodeCannotScanAreRefused) {
  using cusched::test::error_code;
  HostBuffers b{{"Y", std::vector<double>(64, 1.0)}};
  EXPECT_EQ(error_code([&] { interpret(hand_built_scan(MemScope::Register, 48), b); }), "scan-width-mismatch");
  EXPECT_EQ(error_code([&] { interpret(hand_built_scan(MemScope::Shared, 64), b); }), "scan-needs-register");
  EXPECT_EQ(error_code([&] { emit_cuda(hand_built_scan(MemScope::Register, 48)); }), "scan-width-mismatch");
  EXPECT_EQ(error_code([&] { emit_cuda(hand_built_scan(MemScope::Shared, 64)); }), "scan-needs-register");
  const std::string cuda = emit_cuda(hand_built_scan(MemScope::Register, 64));
  EXPECT_NE(cuda.find("cusched::block_exclusive_scan<cusched::SumOp, float>"), std::string::npos) << cuda;
  EXPECT_NE(emit_cuda(hand_built_scan(MemScope::Register, 16)).find("cusched::warp_exclusive_scan"), std::string::npos);
}

}  // namespace
}  // namespace cusched
