// The interpreter's ldmatrix emulation on one warp: fragments loaded from shared memory
// with LdMatrix feed an Mma exactly as the same fragments loaded element by element do.
// The lane -> row-address mappings and the fragment coordinates are written out here
// from the PTX ISA (lane 8 j + r gives row r of matrix j; lane 4 r + w receives word w
// of row r), independently of codegen/ldmatrix and codegen/mma_layout.
#include <cmath>

#include <gtest/gtest.h>

#include "tests/interp/ir_test_support.h"

namespace cusched {
namespace {

using namespace cusched::test;

struct Coord {
  Expr row, col;
};

// mma.m16n8k8 .tf32 A: a0 (g, q), a1 (g+8, q), a2 (g, q+4), a3 (g+8, q+4); B: b0 (q, g), b1 (q+4, g).
Coord tf32_a(const Expr& g, const Expr& q, int i) {
  return {g + make_int(i % 2 ? 8 : 0), q + make_int(i >= 2 ? 4 : 0)};
}
Coord tf32_b(const Expr& g, const Expr& q, int i) { return {q + make_int(i ? 4 : 0), g}; }
// mma.m16n8k16 .f16 A: a0,a1 (g, 2q+{0,1}), a2,a3 (g+8, ..), a4,a5 (g, 2q+8+{0,1}), a6,a7 (g+8, ..);
// B: b0,b1 (2q+{0,1}, g), b2,b3 (2q+8+{0,1}, g).
Coord half_a(const Expr& g, const Expr& q, int i) {
  return {g + make_int((i / 2) % 2 ? 8 : 0), q * make_int(2) + make_int(i % 2 + (i >= 4 ? 8 : 0))};
}
Coord half_b(const Expr& g, const Expr& q, int i) { return {q * make_int(2) + make_int(i % 2 + (i >= 2 ? 8 : 0)), g}; }

struct Case {
  std::string shape, precision;
  DType dtype;  // of the shared tiles and fragments
  int k, a_count, b_count;
  int64_t sa, sb;  // row strides (elements) of A [16][k] and of B: [8][k] (tf32) or [k][8] (f16)
  bool b_k_major;  // B stored [k][n]: loaded with .trans
  Coord (*a_at)(const Expr&, const Expr&, int);
  Coord (*b_at)(const Expr&, const Expr&, int);
};

Case tf32_case() { return {"m16n8k8", "tf32", DType::f32, 8, 4, 2, 12, 12, false, tf32_a, tf32_b}; }
Case f16_case() { return {"m16n8k16", "f16", DType::f16, 16, 8, 4, 24, 16, true, half_a, half_b}; }

// The shared-memory element of A(row, col) and B(kk, n).
Expr a_elem(const Case& c, const Expr& row, const Expr& col) { return row * make_int(c.sa) + col; }
Expr b_elem(const Case& c, const Expr& kk, const Expr& n) {
  return c.b_k_major ? kk * make_int(c.sb) + n : n * make_int(c.sb) + kk;
}

// The row address lane l gives for A's four matrices, in the fragment's register order:
// [rows 0-7, k half 0], [rows 8-15, k half 0], [rows 0-7, k half 1], [rows 8-15, k half 1];
// a k half is 4 tf32 or 8 f16 columns. `swap` exchanges matrices 1 and 2 (a wrong mapping).
Expr a_row_address(const Case& c, const Expr& l, bool swap) {
  Expr j = l / make_int(8), r = l % make_int(8);
  Expr upper = swap ? j / make_int(2) : j % make_int(2), khalf = swap ? j % make_int(2) : j / make_int(2);
  return a_elem(c, r + upper * make_int(8), khalf * make_int(c.k / 2));
}
// B's two matrices: tf32 [n][k]: rows n 0-7 at k 0 and at k 4; f16 [k][n] (transposed):
// rows k 0-7 and k 8-15. Lanes 16-31 repeat lanes 0-15.
Expr b_row_address(const Case& c, const Expr& l) {
  Expr j = (l / make_int(8)) % make_int(2), r = l % make_int(8);
  if (c.b_k_major) return b_elem(c, j * make_int(8) + r, make_int(0));
  return b_elem(c, j * make_int(4), r);
}

enum class Loads { Scalar, LdMatrix, WrongMapping };

// One warp: A and B copied into padded shared tiles, then C = A x B with one Mma.
LoweredProgram one_tile(const Case& c, Loads how) {
  const Expr lane = var("lane"), g = lane / make_int(4), q = lane % make_int(4);
  const int64_t a_size = 16 * c.sa, b_size = c.b_k_major ? c.k * c.sb : 8 * c.sb;
  // The copies: element e of A (row-major 16 x k) and of B (row-major k x 8).
  auto copy = [&](const std::string& dst, const std::string& src, int64_t elements,
                  const std::function<Expr(const Expr&)>& at) {
    Expr e = var("ci") * make_int(32) + lane;
    return serial("ci", 0, (elements + 31) / 32, make_if(e < make_int(elements), make_store(dst, at(e), load(src, e))));
  };
  Stmt fill = make_block(
      {copy("As", "A", 16 * c.k, [&](const Expr& e) { return a_elem(c, e / make_int(c.k), e % make_int(c.k)); }),
       copy("Bs", "B", c.k * 8, [&](const Expr& e) { return b_elem(c, e / make_int(8), e % make_int(8)); })});
  std::vector<Expr> ops;
  std::vector<Stmt> steps = {bound("lane", 32, GpuAxis::ThreadX, fill), make_barrier()};
  if (how == Loads::Scalar) {
    for (int i = 0; i < c.a_count; ++i) {
      Coord x = c.a_at(g, q, i);
      ops.push_back(load("As", a_elem(c, x.row, x.col), c.dtype));
    }
    for (int i = 0; i < c.b_count; ++i) {
      Coord x = c.b_at(g, q, i);
      ops.push_back(load("Bs", b_elem(c, x.row, x.col), c.dtype));
    }
  } else {
    for (int i = 0; i < c.a_count; ++i) ops.push_back(load("fa", make_int(i), c.dtype));
    for (int i = 0; i < c.b_count; ++i) ops.push_back(load("fb", make_int(i), c.dtype));
    steps.push_back(
        bound("lane", 32, GpuAxis::ThreadX,
              make_ldmatrix("fa", make_int(0), "As", a_row_address(c, lane, how == Loads::WrongMapping), 4, false)));
    steps.push_back(bound("lane", 32, GpuAxis::ThreadX,
                          make_ldmatrix("fb", make_int(0), "Bs", b_row_address(c, lane), 2, c.b_k_major)));
  }
  std::vector<Stmt> init, out;
  for (int j = 0; j < 4; ++j) {
    Expr row = g + make_int(j >= 2 ? 8 : 0), col = q * make_int(2) + make_int(j % 2);
    init.push_back(make_store("acc", make_int(j), f32(0)));
    out.push_back(make_store("C", row * make_int(8) + col, load("acc", make_int(j))));
  }
  steps.push_back(bound("lane", 32, GpuAxis::ThreadX, make_block(init)));
  steps.push_back(
      bound("lane", 32, GpuAxis::ThreadX, make_mma(c.shape, parse_precision(c.precision), "acc", make_int(0), ops)));
  steps.push_back(bound("lane", 32, GpuAxis::ThreadX, make_block(out)));
  Stmt body = make_block(steps);
  body = make_allocate("fb", MemScope::Register, c.dtype, c.b_count, body);
  body = make_allocate("fa", MemScope::Register, c.dtype, c.a_count, body);
  body = make_allocate("acc", MemScope::Register, DType::f32, 4, body);
  body = make_allocate("Bs", MemScope::Shared, c.dtype, b_size, body);
  body = make_allocate("As", MemScope::Shared, c.dtype, a_size, body);
  return program(
      {buffer("A", DType::f32, 16 * c.k, BufferRole::Input), buffer("B", DType::f32, c.k * 8, BufferRole::Input),
       buffer("C", DType::f32, 16 * 8, BufferRole::Output)},
      {kernel("ldm", {1, 1, 1}, {32, 1, 1}, {"A", "B", "C"}, body)});
}

// Inputs exactly representable in f16 and tf32, so that both paths see the same values.
HostBuffers inputs(const Case& c) {
  HostBuffers b;
  for (int i = 0; i < 16 * c.k; ++i) b["A"].push_back(((i * 7) % 17 - 8) / 8.0);
  for (int i = 0; i < c.k * 8; ++i) b["B"].push_back(((i * 5) % 13 - 6) / 4.0);
  return b;
}

std::vector<double> run(const Case& c, Loads how) {
  HostBuffers b = inputs(c);
  interpret(one_tile(c, how), b);
  return b.at("C");
}

void expect_product(const Case& c, const std::vector<double>& got) {
  HostBuffers in = inputs(c);
  for (int r = 0; r < 16; ++r)
    for (int n = 0; n < 8; ++n) {
      double want = 0;
      for (int kk = 0; kk < c.k; ++kk) want += in.at("A")[r * c.k + kk] * in.at("B")[kk * 8 + n];
      EXPECT_NEAR(got[r * 8 + n], want, 1e-6) << "row " << r << " col " << n;
    }
}

TEST(LdMatrix, Tf32TileEqualsTheScalarLoadedTile) {
  const Case c = tf32_case();
  std::vector<double> scalar = run(c, Loads::Scalar), ldm = run(c, Loads::LdMatrix);
  EXPECT_EQ(ldm, scalar);
  expect_product(c, ldm);
}

TEST(LdMatrix, F16TileWithTransposedBEqualsTheScalarLoadedTile) {
  const Case c = f16_case();
  std::vector<double> scalar = run(c, Loads::Scalar), ldm = run(c, Loads::LdMatrix);
  EXPECT_EQ(ldm, scalar);
  expect_product(c, ldm);
}

TEST(LdMatrix, AWrongLaneMappingGivesAWrongTile) {
  for (const Case& c : {tf32_case(), f16_case()}) {
    SCOPED_TRACE(c.precision);
    EXPECT_NE(run(c, Loads::WrongMapping), run(c, Loads::Scalar));
  }
}

TEST(LdMatrix, MisalignedRowsAreRejected) {
  Case c = tf32_case();
  c.sa = 10;  // A's rows 40 bytes apart: row 1 is not 16-byte aligned
  HostBuffers b = inputs(c);
  EXPECT_EQ(error_code([&] { interpret(one_tile(c, Loads::LdMatrix), b); }), "ldmatrix-misaligned");
}

TEST(LdMatrix, FragmentOfAnotherElementTypeIsMalformedIr) {
  Case c = tf32_case();
  LoweredProgram p = one_tile(c, Loads::LdMatrix);
  c.dtype = DType::f16;  // fragments f16, shared tiles f32
  LoweredProgram bad = one_tile(c, Loads::LdMatrix);
  // Rebuild with f32 shared tiles but f16 fragments by renaming the allocation types.
  std::function<Stmt(const Stmt&)> retype = [&](const Stmt& s) -> Stmt {
    auto n = std::make_shared<StmtNode>(*s);
    if (n->kind == StmtKind::Allocate && (n->buffer == "As" || n->buffer == "Bs")) n->dtype = DType::f32;
    for (auto& child : n->body) child = retype(child);
    return n;
  };
  bad.kernels[0].body = retype(bad.kernels[0].body);
  HostBuffers b = inputs(c);
  EXPECT_EQ(error_code([&] { interpret(bad, b); }), "malformed-ir");
  HostBuffers ok = inputs(tf32_case());
  EXPECT_EQ(error_code([&] { interpret(p, ok); }), "");
}

}  // namespace
}  // namespace cusched
