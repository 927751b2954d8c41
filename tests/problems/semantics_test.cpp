// Each problem's algorithm, evaluated by the float64 reference at its small size,
// equals an independent float64 implementation of its PyTorch expression, on the
// standard inputs and (where the problem has them) the adversarial ones.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <random>

#include <gtest/gtest.h>

#include "dsl/reference_eval.h"
#include "problems/problem.h"
#include "problems/problem_json.h"

namespace cusched {
namespace {

using Vec = std::vector<double>;
using Sizes = SizeBindings;

// Draws every input of `p` at its small size from its standard or adversarial distribution.
HostBuffers draw_inputs(const Problem& p, bool adversarial, unsigned seed) {
  std::mt19937_64 rng(seed);
  HostBuffers out;
  for (const auto& t : p.pipeline.inputs()) {
    const ProblemInput& in = problem_input(p, t->name);
    InputDistribution d = adversarial && in.adversarial ? *in.adversarial : in.standard;
    int64_t n = 1;
    for (auto e : eval_shape(t->shape, p.size("small"))) n *= e;
    Vec v(static_cast<size_t>(n));
    for (auto& x : v) {
      if (d.kind == "normal")
        x = static_cast<float>(std::normal_distribution<double>(d.a, d.b)(rng));
      else if (d.kind == "uniform")
        x = static_cast<float>(std::uniform_real_distribution<double>(d.a, d.b)(rng));
      else
        x = static_cast<double>(std::uniform_int_distribution<int64_t>(int64_t(d.a), int64_t(d.b))(rng));
    }
    out[t->name] = std::move(v);
  }
  return out;
}

using Expected = std::function<Vec(const HostBuffers&, const Sizes&)>;

// Compares the problem's output with `expected` on three standard draws and one adversarial draw.
void check_problem(const std::string& name, const Expected& expected, double tol = 1e-6) {
  const Problem& p = find_problem(name);
  const Sizes& s = p.size("small");
  for (int trial = 0; trial < 4; ++trial) {
    bool adversarial = trial == 3;
    SCOPED_TRACE(name + (adversarial ? " (adversarial)" : " (standard, seed " + std::to_string(trial) + ")"));
    HostBuffers in = draw_inputs(p, adversarial, 1234 + trial);
    HostBuffers ref = evaluate_reference(p.pipeline, s, in);
    const Vec& got = ref.at(p.pipeline.outputs()[0]);
    Vec want = expected(in, s);
    ASSERT_EQ(got.size(), want.size());
    int bad = 0;
    for (size_t i = 0; i < got.size() && bad < 5; ++i)
      if (!(std::abs(got[i] - want[i]) <= tol * (1 + std::abs(want[i])))) {
        ++bad;
        ADD_FAILURE() << "element " << i << ": algorithm " << got[i] << ", expected " << want[i];
      }
  }
}

// Row-major index helpers.
size_t at2(int64_t a, int64_t b, int64_t B) { return size_t(a * B + b); }
size_t at3(int64_t a, int64_t b, int64_t c, int64_t B, int64_t C) { return size_t((a * B + b) * C + c); }
size_t at4(int64_t a, int64_t b, int64_t c, int64_t d, int64_t B, int64_t C, int64_t D) {
  return size_t(((a * B + b) * C + c) * D + d);
}

double gelu(double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }

// x @ w.T + bias (bias may be null), nn.Linear.
Vec linear(const Vec& x, const Vec& w, const Vec* bias, int64_t batch, int64_t in, int64_t out) {
  Vec y(size_t(batch * out));
  for (int64_t i = 0; i < batch; ++i)
    for (int64_t j = 0; j < out; ++j) {
      double acc = bias ? (*bias)[size_t(j)] : 0.0;
      for (int64_t k = 0; k < in; ++k) acc += x[at2(i, k, in)] * w[at2(j, k, in)];
      y[at2(i, j, out)] = acc;
    }
  return y;
}

// F.conv2d(x, w, bias), stride 1, no padding, 3x3.
Vec conv3x3(const Vec& x, const Vec& w, const Vec* bias, const Sizes& s) {
  int64_t N = s.at("N"), CI = s.at("CI"), CO = s.at("CO"), H = s.at("H"), W = s.at("W"), OH = H - 2, OW = W - 2;
  Vec y(size_t(N * CO * OH * OW));
  for (int64_t n = 0; n < N; ++n)
    for (int64_t o = 0; o < CO; ++o)
      for (int64_t h = 0; h < OH; ++h)
        for (int64_t q = 0; q < OW; ++q) {
          double acc = bias ? (*bias)[size_t(o)] : 0.0;
          for (int64_t c = 0; c < CI; ++c)
            for (int64_t a = 0; a < 3; ++a)
              for (int64_t b = 0; b < 3; ++b)
                acc += x[at4(n, c, h + a, q + b, CI, H, W)] * w[at4(o, c, a, b, CI, 3, 3)];
          y[at4(n, o, h, q, CO, OH, OW)] = acc;
        }
  return y;
}

Vec softmax_rows(Vec x, int64_t R, int64_t D) {
  for (int64_t i = 0; i < R; ++i) {
    double m = -INFINITY, z = 0;
    for (int64_t j = 0; j < D; ++j) m = std::max(m, x[at2(i, j, D)]);
    for (int64_t j = 0; j < D; ++j) z += std::exp(x[at2(i, j, D)] - m);
    for (int64_t j = 0; j < D; ++j) x[at2(i, j, D)] = std::exp(x[at2(i, j, D)] - m) / z;
  }
  return x;
}

Vec matmul(const Vec& a, const Vec& b, int64_t batch, int64_t M, int64_t N, int64_t K) {
  Vec c(size_t(batch * M * N));
  for (int64_t z = 0; z < batch; ++z)
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        double acc = 0;
        for (int64_t k = 0; k < K; ++k) acc += a[at3(z, i, k, M, K)] * b[at3(z, k, j, K, N)];
        c[at3(z, i, j, M, N)] = acc;
      }
  return c;
}

TEST(ProblemSemantics, MatrixProducts) {
  check_problem("matmul", [](const HostBuffers& in, const Sizes& s) {
    return matmul(in.at("A"), in.at("B"), 1, s.at("M"), s.at("N"), s.at("K"));
  });
  check_problem("matmul_rect", [](const HostBuffers& in, const Sizes& s) {
    return matmul(in.at("A"), in.at("B"), 1, s.at("M"), s.at("N"), s.at("K"));
  });
  check_problem("bmm", [](const HostBuffers& in, const Sizes& s) {
    return matmul(in.at("A"), in.at("B"), s.at("BATCH"), s.at("M"), s.at("N"), s.at("K"));
  });
  check_problem("matvec", [](const HostBuffers& in, const Sizes& s) {
    return matmul(in.at("A"), in.at("B"), 1, s.at("M"), 1, s.at("K"));
  });
}

TEST(ProblemSemantics, Elementwise) {
  auto map = [](double (*f)(double)) {
    return [f](const HostBuffers& in, const Sizes&) {
      Vec y = in.at("X");
      for (auto& v : y) v = f(v);
      return y;
    };
  };
  double (*relu)(double) = [](double x) { return x > 0 ? x : 0.0; };
  check_problem("relu", map(relu));
  check_problem("relu_large", map(relu));
  check_problem("gelu", map(gelu));
  check_problem("gelu_large", map(gelu));
}

TEST(ProblemSemantics, Softmax) {
  for (const char* name : {"softmax", "softmax_large"})
    check_problem(name,
                  [](const HostBuffers& in, const Sizes& s) { return softmax_rows(in.at("X"), s.at("R"), s.at("D")); });
}

TEST(ProblemSemantics, Normalisations) {
  check_problem(
      "layernorm",
      [](const HostBuffers& in, const Sizes& s) {
        int64_t B = s.at("B"), n = s.at("C") * s.at("H") * s.at("W");
        const Vec &x = in.at("X"), &g = in.at("weight"), &b = in.at("bias");
        Vec y(x.size());
        for (int64_t i = 0; i < B; ++i) {
          double mean = 0, var = 0;
          for (int64_t e = 0; e < n; ++e) mean += x[at2(i, e, n)] / n;
          for (int64_t e = 0; e < n; ++e) var += (x[at2(i, e, n)] - mean) * (x[at2(i, e, n)] - mean) / n;
          for (int64_t e = 0; e < n; ++e)
            y[at2(i, e, n)] = (x[at2(i, e, n)] - mean) / std::sqrt(var + 1e-5) * g[e] + b[e];
        }
        return y;
      },
      1e-5);
  check_problem(
      "rmsnorm",
      [](const HostBuffers& in, const Sizes& s) {
        int64_t B = s.at("B"), C = s.at("C"), HW = s.at("H") * s.at("W");
        const Vec& x = in.at("X");
        Vec y(x.size());
        for (int64_t b = 0; b < B; ++b)
          for (int64_t p = 0; p < HW; ++p) {
            double ms = 0;
            for (int64_t c = 0; c < C; ++c) ms += x[at3(b, c, p, C, HW)] * x[at3(b, c, p, C, HW)] / C;
            for (int64_t c = 0; c < C; ++c) y[at3(b, c, p, C, HW)] = x[at3(b, c, p, C, HW)] / std::sqrt(ms + 1e-5);
          }
        return y;
      },
      1e-5);
}

// Reduces dim 1 of a (B, D1, D2) tensor with `f` (value, index of the best so far).
Vec reduce_dim1(const Vec& x, int64_t B, int64_t D1, int64_t D2, const std::string& how) {
  Vec y(size_t(B * D2));
  for (int64_t b = 0; b < B; ++b)
    for (int64_t j = 0; j < D2; ++j) {
      double acc = how == "sum" ? 0.0 : -INFINITY;
      int64_t best = 0;
      for (int64_t r = 0; r < D1; ++r) {
        double v = x[at3(b, r, j, D1, D2)];
        if (how == "sum")
          acc += v;
        else if (v > acc)
          acc = v, best = r;  // strict: ties keep the first index
      }
      y[at2(b, j, D2)] = how == "argmax" ? static_cast<double>(best) : acc;
    }
  return y;
}

TEST(ProblemSemantics, ReductionsOverDim1) {
  for (const char* how : {"sum", "max", "argmax"}) {
    std::string name = std::string(how) + "_dim1";
    check_problem(name, [how](const HostBuffers& in, const Sizes& s) {
      return reduce_dim1(in.at("X"), s.at("B"), s.at("D1"), s.at("D2"), how);
    });
  }
  check_problem("sum_dim1_small", [](const HostBuffers& in, const Sizes& s) {
    return reduce_dim1(in.at("X"), s.at("B"), s.at("C"), s.at("H") * s.at("W"), "sum");
  });
}

TEST(ProblemSemantics, ArgmaxAdversarialInputsHaveTies) {
  const Problem& p = find_problem("argmax_dim1");
  HostBuffers in = draw_inputs(p, true, 7);
  const Sizes& s = p.size("small");
  Vec mx = reduce_dim1(in.at("X"), s.at("B"), s.at("D1"), s.at("D2"), "max");
  int columns_with_ties = 0;
  for (int64_t b = 0; b < s.at("B"); ++b)
    for (int64_t j = 0; j < s.at("D2"); ++j) {
      int hits = 0;
      for (int64_t r = 0; r < s.at("D1"); ++r)
        hits += in.at("X")[at3(b, r, j, s.at("D1"), s.at("D2"))] == mx[at2(b, j, s.at("D2"))];
      columns_with_ties += hits > 1;
    }
  EXPECT_GT(columns_with_ties, s.at("B") * s.at("D2") / 2);
}

TEST(ProblemSemantics, MaxPoolWithMinusInfinityPadding) {
  check_problem("maxpool2d", [](const HostBuffers& in, const Sizes& s) {
    int64_t N = s.at("N"), C = s.at("C"), H = s.at("H"), W = s.at("W"), OH = H - 1, OW = W - 1;
    const Vec& x = in.at("X");
    Vec y(size_t(N * C * OH * OW));
    for (int64_t nc = 0; nc < N * C; ++nc)
      for (int64_t h = 0; h < OH; ++h)
        for (int64_t w = 0; w < OW; ++w) {
          double m = -INFINITY;
          for (int64_t ih = h - 1; ih < h + 3; ++ih)
            for (int64_t iw = w - 1; iw < w + 3; ++iw)
              if (ih >= 0 && ih < H && iw >= 0 && iw < W) m = std::max(m, x[at3(nc, ih, iw, H, W)]);
          y[at3(nc, h, w, OH, OW)] = m;
        }
    return y;
  });
}

TEST(ProblemSemantics, Convolutions) {
  check_problem("conv2d",
                [](const HostBuffers& in, const Sizes& s) { return conv3x3(in.at("X"), in.at("weight"), nullptr, s); });
  check_problem("conv2d_relu_bias", [](const HostBuffers& in, const Sizes& s) {
    Vec y = conv3x3(in.at("X"), in.at("weight"), &in.at("conv_bias"), s);
    int64_t plane = (s.at("H") - 2) * (s.at("W") - 2), CO = s.at("CO");
    for (size_t e = 0; e < y.size(); ++e) y[e] = std::max(y[e], 0.0) + in.at("bias")[size_t(int64_t(e) / plane % CO)];
    return y;
  });
}

TEST(ProblemSemantics, Losses) {
  check_problem("mse_loss", [](const HostBuffers& in, const Sizes&) {
    const Vec &p = in.at("predictions"), &t = in.at("targets");
    double acc = 0;
    for (size_t e = 0; e < p.size(); ++e) acc += (p[e] - t[e]) * (p[e] - t[e]);
    return Vec{acc / static_cast<double>(p.size())};
  });
  check_problem("cross_entropy", [](const HostBuffers& in, const Sizes& s) {
    int64_t N = s.at("N"), C = s.at("C");
    const Vec &x = in.at("logits"), &t = in.at("targets");
    double acc = 0;
    for (int64_t i = 0; i < N; ++i) {
      double m = -INFINITY, z = 0;
      for (int64_t k = 0; k < C; ++k) m = std::max(m, x[at2(i, k, C)]);
      for (int64_t k = 0; k < C; ++k) z += std::exp(x[at2(i, k, C)] - m);
      acc += std::log(z) + m - x[at2(i, static_cast<int64_t>(t[size_t(i)]), C)];
    }
    return Vec{acc / static_cast<double>(N)};
  });
}

TEST(ProblemSemantics, GemmEpilogues) {
  auto lin = [](const HostBuffers& in, const Sizes& s, bool with_bias) {
    return linear(in.at("X"), in.at("weight"), with_bias ? &in.at("bias") : nullptr, s.at("BATCH"), s.at("IN"),
                  s.at("OUT"));
  };
  check_problem("gemm_add_relu", [&](const HostBuffers& in, const Sizes& s) {
    Vec y = lin(in, s, false);
    for (size_t e = 0; e < y.size(); ++e) y[e] = std::max(y[e] + in.at("bias")[e % size_t(s.at("OUT"))], 0.0);
    return y;
  });
  check_problem("gemm_scale_leakyrelu", [&](const HostBuffers& in, const Sizes& s) {
    Vec y = lin(in, s, true);
    for (auto& v : y) v = v * 2.0 >= 0 ? v * 2.0 : 0.1 * v * 2.0;
    return y;
  });
  check_problem("gemm_gelu_softmax", [&](const HostBuffers& in, const Sizes& s) {
    Vec y = lin(in, s, true);
    for (auto& v : y) v = gelu(v);
    return softmax_rows(y, s.at("BATCH"), s.at("OUT"));
  });
}

}  // namespace
}  // namespace cusched
