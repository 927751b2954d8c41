#include "runtime/tensor_map.h"

#include <string>
#include <tuple>
#include <utility>

#include "dsl/error.h"

namespace cusched::runtime {
namespace {

[[noreturn]] void refuse(const TensorMapSpec& spec, const std::string& why, const std::string& fix) {
  fail("bad-tensor-map", "Tensor map '" + spec.name + "' of buffer '" + spec.buffer + "' " + why + ".", fix);
}

// The element type's enumerator and its name.
std::pair<CUtensorMapDataType, const char*> data_type(const TensorMapSpec& spec, DType t) {
  switch (t) {
    case DType::f32:
      return {CU_TENSOR_MAP_DATA_TYPE_FLOAT32, "CU_TENSOR_MAP_DATA_TYPE_FLOAT32"};
    case DType::f16:
      return {CU_TENSOR_MAP_DATA_TYPE_FLOAT16, "CU_TENSOR_MAP_DATA_TYPE_FLOAT16"};
    case DType::bf16:
      return {CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, "CU_TENSOR_MAP_DATA_TYPE_BFLOAT16"};
    case DType::i32:
      return {CU_TENSOR_MAP_DATA_TYPE_INT32, "CU_TENSOR_MAP_DATA_TYPE_INT32"};
    case DType::i64:
      return {CU_TENSOR_MAP_DATA_TYPE_INT64, "CU_TENSOR_MAP_DATA_TYPE_INT64"};
    case DType::f64:
      return {CU_TENSOR_MAP_DATA_TYPE_FLOAT64, "CU_TENSOR_MAP_DATA_TYPE_FLOAT64"};
    default:
      refuse(spec, "has elements of type " + dtype_name(t) + ", which a tensor map does not describe",
             "Copy f32, f16, bf16, i32, i64 or f64 buffers with tensor copies.");
  }
}

}  // namespace

void check_tensor_map(const TensorMapSpec& spec, const BufferSpec& buffer) {
  const size_t rank = buffer.shape.size();
  const int64_t esize = dtype_bytes(buffer.dtype);
  if (rank < 1 || static_cast<int64_t>(rank) > kTensorMapMaxRank)
    refuse(spec, "has " + std::to_string(rank) + " dimensions", "Describe buffers of 1 to 5 dimensions.");
  if (spec.box.size() != rank)
    refuse(spec,
           "has a box of " + std::to_string(spec.box.size()) + " dimensions for a buffer of " + std::to_string(rank),
           "Give the box one extent per dimension of the buffer.");
  if ((buffer.shape.back() * esize) % 16 != 0)
    refuse(spec, "describes rows of " + std::to_string(buffer.shape.back() * esize) + " bytes",
           "Tensor-copy only buffers whose rows are multiples of 16 bytes.");
  if (const std::string why = tensor_box_problem(spec.box, esize, spec.swizzle_bytes); !why.empty())
    refuse(spec, "has a box that " + why,
           "Use box extents of 1 to 256 elements and rows of a multiple of 16 bytes, exactly 128 with the 128-byte "
           "swizzle.");
}

TensorMapGeometry tensor_map_geometry(const TensorMapSpec& spec, const BufferSpec& buffer) {
  check_tensor_map(spec, buffer);
  TensorMapGeometry g;
  g.rank = static_cast<cuuint32_t>(buffer.shape.size());
  std::tie(g.type, g.type_name) = data_type(spec, buffer.dtype);
  cuuint64_t stride = static_cast<cuuint64_t>(dtype_bytes(buffer.dtype));
  for (size_t i = 0; i < g.rank; ++i) {
    const size_t d = g.rank - 1 - i;
    g.dims[i] = static_cast<cuuint64_t>(buffer.shape[d]);
    g.box[i] = static_cast<cuuint32_t>(spec.box[d]);
    if (i > 0) g.strides[i - 1] = stride;
    stride *= g.dims[i];
  }
  return g;
}

CUtensorMap encode_tensor_map(const TensorMapSpec& spec, const BufferSpec& buffer, CUdeviceptr address) {
  const TensorMapGeometry g = tensor_map_geometry(spec, buffer);
  const cuuint32_t element_strides[5] = {1, 1, 1, 1, 1};
  CUtensorMap map{};
  check_cuda(
      driver().TensorMapEncodeTiled(&map, g.type, g.rank, reinterpret_cast<void*>(address), g.dims, g.strides, g.box,
                                    element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                    spec.swizzle_bytes == 128 ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_NONE,
                                    CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
      "Encoding tensor map '" + spec.name + "' of buffer '" + spec.buffer + "'");
  return map;
}

}  // namespace cusched::runtime
