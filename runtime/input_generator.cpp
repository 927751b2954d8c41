#include "runtime/input_generator.h"

#include <algorithm>
#include <cmath>
#include <thread>

#include "dsl/error.h"
#include "runtime/element_codec.h"

namespace cusched::runtime {

namespace {

uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Uniform in (0, 1): never 0, so log() below is finite.
double unit(uint64_t seed, uint64_t counter) {
  uint64_t bits = splitmix64(seed ^ splitmix64(counter));
  return (static_cast<double>(bits >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

enum class Kind { Normal, Uniform, Randint };

// One element of the distribution; `kind` is decoded once per buffer, not per element.
double draw(Kind kind, const Distribution& d, uint64_t seed, uint64_t i) {
  if (kind == Kind::Uniform) return d.a + (d.b - d.a) * unit(seed, 2 * i);
  if (kind == Kind::Randint) {
    double lo = std::ceil(d.a), hi = std::floor(d.b);
    return std::min(hi, lo + std::floor(unit(seed, 2 * i) * (hi - lo + 1)));
  }
  // normal, by Box-Muller from two uniforms
  double u1 = unit(seed, 2 * i), u2 = unit(seed, 2 * i + 1);
  return d.a + d.b * std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

}  // namespace

Distribution default_distribution(DType t) {
  if (dtype_is_float(t)) return {"normal", 0, 1};
  if (t == DType::boolean) return {"randint", 0, 1};
  return {"randint", 0, 9};
}

uint64_t trial_seed(uint64_t base_seed, int trial, const std::string& buffer) {
  uint64_t h = splitmix64(base_seed) ^ splitmix64(0x1000 + static_cast<uint64_t>(trial));
  for (unsigned char ch : buffer) h = splitmix64(h ^ ch);
  return h;
}

std::vector<uint8_t> generate_input(const BufferSpec& buffer, const Distribution& d, uint64_t seed) {
  if (d.kind != "normal" && d.kind != "uniform" && d.kind != "randint")
    fail("bad-distribution", "The distribution '" + d.kind + "' for input '" + buffer.name + "' is not known.",
         "Use normal, uniform or randint.");
  if (d.kind == "randint" && std::floor(d.b) < std::ceil(d.a))
    fail("bad-distribution", "The randint range for input '" + buffer.name + "' holds no integer.",
         "Give randint a low bound a and a high bound b with a <= b.");
  if (d.kind == "normal" && !(d.b >= 0))
    fail("bad-distribution", "The normal distribution for input '" + buffer.name + "' has a negative standard deviation.",
         "Give normal a standard deviation b >= 0.");
  const int64_t n = buffer.elements();
  const int width = dtype_bytes(buffer.dtype);
  std::vector<uint8_t> out(static_cast<size_t>(n * width));
  const Kind kind = d.kind == "uniform" ? Kind::Uniform : d.kind == "randint" ? Kind::Randint : Kind::Normal;
  auto fill = [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i)
      store_element(buffer.dtype, draw(kind, d, seed, static_cast<uint64_t>(i)), out.data() + i * width);
  };
  const int64_t per_thread = 1 << 20;
  unsigned threads = std::clamp<unsigned>(std::thread::hardware_concurrency(), 1, 32);
  if (n <= per_thread || threads == 1) {
    fill(0, n);
    return out;
  }
  std::vector<std::thread> pool;
  const int64_t chunk = (n + threads - 1) / threads;
  for (unsigned t = 0; t < threads; ++t) {
    int64_t b = std::min<int64_t>(n, t * chunk), e = std::min<int64_t>(n, b + chunk);
    if (b < e) pool.emplace_back(fill, b, e);
  }
  for (auto& th : pool) th.join();
  return out;
}

}  // namespace cusched::runtime
