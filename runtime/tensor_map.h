#pragma once
// The tensor maps (CUtensorMap) that a launch's tensor copies read: a bundle's
// TensorMapSpec encoded with the driver for the device address its buffer is bound to.
#include "codegen/kernel_bundle.h"
#include "runtime/cuda_driver.h"

namespace cusched::runtime {

// The spec's checks that need no GPU: a buffer of 1 to 5 dimensions whose rows (and so
// every stride) are multiples of 16 bytes, a box of the same rank with extents 1 to 256
// whose rows are a multiple of 16 bytes, exactly 128 with the 128-byte swizzle. Throws
// UserError ("bad-tensor-map").
void check_tensor_map(const TensorMapSpec& spec, const BufferSpec& buffer);

// A checked spec laid out as the driver takes it: dimensions innermost first, the byte
// strides of all but the innermost, the element type as the enumerator and its name (for
// generated source: `cusched export` writes the same call). Throws as check_tensor_map.
struct TensorMapGeometry {
  cuuint32_t rank = 0;
  CUtensorMapDataType type{};
  const char* type_name = "";
  cuuint64_t dims[5] = {}, strides[4] = {};
  cuuint32_t box[5] = {};
};
TensorMapGeometry tensor_map_geometry(const TensorMapSpec& spec, const BufferSpec& buffer);

// The encoded map for `address` (16-byte aligned): tiled, no interleave, elements
// outside the buffer zero. Throws UserError for a spec check_tensor_map refuses and
// CudaFailure when the driver refuses it.
CUtensorMap encode_tensor_map(const TensorMapSpec& spec, const BufferSpec& buffer, CUdeviceptr address);

}  // namespace cusched::runtime
