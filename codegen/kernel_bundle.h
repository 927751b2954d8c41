#pragma once
// The plain value that code generation hands to the runtime: CUDA source, the
// embedded device headers it includes, its buffers and its launch plan.
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dsl/dtype.h"
#include "dsl/precision.h"

namespace cusched {

enum class BufferRole { Input, Output, Scratch };

struct BufferSpec {
  std::string name;
  DType dtype = DType::f32;
  std::vector<int64_t> shape;  // row-major, innermost last
  BufferRole role = BufferRole::Input;
  bool zero_before_launch = false;  // scratch (or output) that the kernels accumulate into atomically
  int64_t elements() const;
  int64_t bytes() const;
};

// A tensor map (CUtensorMap) that the runtime encodes for a launch and passes by value
// after the buffer pointers: the global buffer `buffer` (its shape and element type) seen
// as boxes of `box` elements (outermost first), optionally with the 128-byte swizzle;
// elements outside the buffer read as zero.
struct TensorMapSpec {
  std::string name;  // the kernel parameter
  std::string buffer;
  std::vector<int64_t> box;
  int64_t swizzle_bytes = 0;  // 0 or 128
  bool operator==(const TensorMapSpec&) const = default;
};

// What a tensor map and a tensor copy can describe: at most 5 dimensions, at most 256
// elements of a box along each, box rows of whole 16-byte chunks (exactly 128 bytes with
// the 128-byte swizzle), the shared destination 128-byte aligned (1024 swizzled).
constexpr int64_t kTensorMapMaxRank = 5;
constexpr int64_t kTensorMapMaxBoxExtent = 256;
constexpr int64_t kTensorCopyAlignment = 128;
constexpr int64_t kTensorCopySwizzledAlignment = 1024;

// Why a box of `box` elements (outermost first) of `element_bytes` bytes with
// `swizzle_bytes` (0 or 128) is not one a tensor map describes; "" when it is.
std::string tensor_box_problem(const std::vector<int64_t>& box, int64_t element_bytes, int64_t swizzle_bytes);

struct LaunchSpec {
  std::string kernel;  // extern "C" __global__ name in the source
  std::array<int64_t, 3> grid{1, 1, 1};
  std::array<int64_t, 3> block{1, 1, 1};
  int64_t dynamic_smem_bytes = 0;
  std::vector<std::string> args;  // buffer names, in parameter order (each a device pointer)
  int64_t cluster = 1;            // blocks per thread-block cluster along x (compiled in with __cluster_dims__)
  std::vector<TensorMapSpec> tensor_maps;  // parameters after `args`, in order
};

struct KernelBundle {
  std::string problem;
  std::string schedule_hash;
  Precision precision = Precision::f32;  // f32, tf32, 3xtf32, bf16, f16; f64 for the reference
  std::string math = "exact";            // "fast": some stage uses fast-math intrinsics (codegen/fast_math.h)
  // Of the problem's reduction work, the share its schedule's algorithm does (below 1 where
  // presum rewrote the arithmetic; codegen/arithmetic_share.h): the floor's FLOPs scale by it.
  double arithmetic_share = 1.0;
  std::string source;                          // CUDA C++
  std::map<std::string, std::string> headers;  // include name -> contents, given to NVRTC
  std::vector<BufferSpec> buffers;
  std::vector<LaunchSpec> launches;  // run in order on one stream

  const BufferSpec* find_buffer(const std::string& name) const;
  nlohmann::json to_json() const;
  static KernelBundle from_json(const nlohmann::json& j);
};

}  // namespace cusched
