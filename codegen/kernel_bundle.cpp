#include "codegen/kernel_bundle.h"

#include <algorithm>

#include "dsl/error.h"

namespace cusched {

int64_t BufferSpec::elements() const {
  int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

int64_t BufferSpec::bytes() const { return elements() * dtype_bytes(dtype); }

std::string tensor_box_problem(const std::vector<int64_t>& box, int64_t element_bytes, int64_t swizzle_bytes) {
  if (box.empty() || static_cast<int64_t>(box.size()) > kTensorMapMaxRank)
    return "has " + std::to_string(box.size()) + " dimensions, not 1 to " + std::to_string(kTensorMapMaxRank);
  for (auto e : box)
    if (e < 1 || e > kTensorMapMaxBoxExtent)
      return "has an extent of " + std::to_string(e) + ", not 1 to " + std::to_string(kTensorMapMaxBoxExtent);
  const int64_t row = box.back() * element_bytes;
  if (row % 16 != 0 || (swizzle_bytes != 0 && (swizzle_bytes != 128 || row != 128)))
    return "has rows of " + std::to_string(row) + " bytes with a swizzle of " + std::to_string(swizzle_bytes) +
           " bytes (rows must be multiples of 16 bytes, exactly 128 with the 128-byte swizzle)";
  return "";
}

const BufferSpec* KernelBundle::find_buffer(const std::string& name) const {
  for (const auto& b : buffers)
    if (b.name == name) return &b;
  return nullptr;
}

static const char* role_name(BufferRole r) {
  switch (r) {
    case BufferRole::Input:
      return "input";
    case BufferRole::Output:
      return "output";
    case BufferRole::Scratch:
      return "scratch";
  }
  return "?";
}

nlohmann::json KernelBundle::to_json() const {
  nlohmann::json j;
  j["problem"] = problem;
  j["schedule_hash"] = schedule_hash;
  j["precision"] = precision_name(precision);
  j["math"] = math;
  j["arithmetic_share"] = arithmetic_share;
  j["source"] = source;
  j["headers"] = headers;
  for (const auto& b : buffers)
    j["buffers"].push_back({{"name", b.name},
                            {"dtype", dtype_name(b.dtype)},
                            {"shape", b.shape},
                            {"role", role_name(b.role)},
                            {"zero_before_launch", b.zero_before_launch}});
  for (const auto& l : launches) {
    nlohmann::json launch = {{"kernel", l.kernel},   {"grid", l.grid},
                             {"block", l.block},     {"dynamic_smem_bytes", l.dynamic_smem_bytes},
                             {"cluster", l.cluster}, {"args", l.args}};
    for (const auto& m : l.tensor_maps)
      launch["tensor_maps"].push_back(
          {{"name", m.name}, {"buffer", m.buffer}, {"box", m.box}, {"swizzle_bytes", m.swizzle_bytes}});
    j["launches"].push_back(launch);
  }
  return j;
}

KernelBundle KernelBundle::from_json(const nlohmann::json& j) {
  try {
    KernelBundle k;
    k.problem = j.value("problem", "");
    k.schedule_hash = j.value("schedule_hash", "");
    k.precision = parse_precision(j.value("precision", "f32"));
    k.math = j.value("math", "exact");
    k.arithmetic_share = std::clamp(j.value("arithmetic_share", 1.0), 0.0, 1.0);
    k.source = j.at("source").get<std::string>();
    if (j.contains("headers")) k.headers = j.at("headers").get<std::map<std::string, std::string>>();
    for (const auto& b : j.at("buffers")) {
      BufferSpec s;
      s.name = b.at("name");
      auto t = dtype_from_name(b.at("dtype"));
      if (!t)
        fail("bad-bundle", "Buffer '" + s.name + "' has an unknown dtype.",
             "Use one of f32, f16, bf16, i32, i64, bool, f64.");
      s.dtype = *t;
      s.shape = b.at("shape").get<std::vector<int64_t>>();
      std::string role = b.at("role");
      s.role = role == "input" ? BufferRole::Input : role == "output" ? BufferRole::Output : BufferRole::Scratch;
      s.zero_before_launch = b.value("zero_before_launch", false);
      k.buffers.push_back(s);
    }
    for (const auto& l : j.at("launches")) {
      LaunchSpec s;
      s.kernel = l.at("kernel");
      s.grid = l.at("grid").get<std::array<int64_t, 3>>();
      s.block = l.at("block").get<std::array<int64_t, 3>>();
      s.dynamic_smem_bytes = l.value("dynamic_smem_bytes", 0);
      s.cluster = l.value("cluster", 1);
      s.args = l.at("args").get<std::vector<std::string>>();
      for (const auto& m : l.value("tensor_maps", nlohmann::json::array())) {
        TensorMapSpec t;
        t.name = m.at("name");
        t.buffer = m.at("buffer");
        t.box = m.at("box").get<std::vector<int64_t>>();
        t.swizzle_bytes = m.value("swizzle_bytes", 0);
        if (!k.find_buffer(t.buffer) || t.box.size() != k.find_buffer(t.buffer)->shape.size())
          fail("bad-bundle",
               "Tensor map '" + t.name + "' of launch '" + s.kernel + "' names buffer '" + t.buffer +
                   "', which the bundle does not have or whose rank differs from its box's.",
               "Give each tensor map a buffer of the bundle and a box of that buffer's rank.");
        s.tensor_maps.push_back(t);
      }
      k.launches.push_back(s);
    }
    return k;
  } catch (const nlohmann::json::exception& e) {
    fail("bad-bundle", std::string("The kernel bundle JSON is malformed: ") + e.what() + ".",
         "Produce bundles with KernelBundle::to_json.");
  }
}

}  // namespace cusched
