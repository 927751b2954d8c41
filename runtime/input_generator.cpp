#include "runtime/input_generator.h"

#include <algorithm>
#include <cmath>

#include "dsl/error.h"
#include "runtime/element_codec.h"
#include "runtime/host_parallel.h"

namespace cusched::runtime {

namespace {

uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// The counter-th number of the SplitMix64 stream that starts at `seed`.
uint64_t stream(uint64_t seed, uint64_t counter) { return splitmix64(seed + counter * 0x9e3779b97f4a7c15ULL); }

// Uniform in (0, 1): never 0, so log() below is finite.
double unit(uint64_t seed, uint64_t counter) {
  return (static_cast<double>(stream(seed, counter) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

enum class Kind { Normal, Uniform, Randint };

// Elements i and i + 1 (i even) of the distribution; `kind` is decoded once per buffer.
// Normal values come in pairs from one Box-Muller transform (cosine and sine), in
// single precision: the inputs are f32 data, and this is the generator's hot loop.
void draw_pair(Kind kind, const Distribution& d, uint64_t seed, uint64_t i, double out[2]) {
  if (kind == Kind::Normal) {
    const float u1 = static_cast<float>((static_cast<double>(stream(seed, i) >> 40) + 0.5) * (1.0 / 16777216.0));
    const float u2 = static_cast<float>(stream(seed, i + 1) >> 40) * (1.0f / 16777216.0f);
    const float r = std::sqrt(-2.0f * std::log(u1)), a = 6.2831853f * u2;
    out[0] = d.a + d.b * static_cast<double>(r * std::cos(a));
    out[1] = d.a + d.b * static_cast<double>(r * std::sin(a));
    return;
  }
  for (int k = 0; k < 2; ++k) {
    const double u = unit(seed, i + k);
    if (kind == Kind::Uniform) {
      out[k] = d.a + (d.b - d.a) * u;
    } else {
      const double lo = std::ceil(d.a), hi = std::floor(d.b);
      out[k] = std::min(hi, lo + std::floor(u * (hi - lo + 1)));
    }
  }
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

void check_distribution(const BufferSpec& buffer, const Distribution& d) {
  if (d.kind != "normal" && d.kind != "uniform" && d.kind != "randint")
    fail("bad-distribution", "The distribution '" + d.kind + "' for input '" + buffer.name + "' is not known.",
         "Use normal, uniform or randint.");
  if (d.kind == "randint" && std::floor(d.b) < std::ceil(d.a))
    fail("bad-distribution", "The randint range for input '" + buffer.name + "' holds no integer.",
         "Give randint a low bound a and a high bound b with a <= b.");
  if (d.kind == "normal" && !(d.b >= 0))
    fail("bad-distribution",
         "The normal distribution for input '" + buffer.name + "' has a negative standard deviation.",
         "Give normal a standard deviation b >= 0.");
}

std::vector<uint8_t> generate_input(const BufferSpec& buffer, const Distribution& d, uint64_t seed) {
  check_distribution(buffer, d);
  const int64_t n = buffer.elements();
  const int width = dtype_bytes(buffer.dtype);
  std::vector<uint8_t> out(static_cast<size_t>(n * width));
  const Kind kind = d.kind == "uniform" ? Kind::Uniform : d.kind == "randint" ? Kind::Randint : Kind::Normal;
  // Chunks start at even elements (the chunk size is even), so no pair is split.
  static_assert(kHostChunkElements % 2 == 0);
  for_each_host_chunk(n, [&](int64_t, int64_t begin, int64_t end) {
    double pair[2];
    for (int64_t i = begin; i < end; i += 2) {
      draw_pair(kind, d, seed, static_cast<uint64_t>(i), pair);
      store_element(buffer.dtype, pair[0], out.data() + i * width);
      if (i + 1 < end) store_element(buffer.dtype, pair[1], out.data() + (i + 1) * width);
    }
  });
  return out;
}

}  // namespace cusched::runtime
