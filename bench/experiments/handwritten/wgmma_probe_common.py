"""What the hand-written wgmma matmul probes (gen_matmul_wgmma.py, gen_matmul_wgmma_ct.py)
share: reading an integer option, the 128 accumulator operands of an m64n256k8 instruction
(its operand list and constraint list), and the device helpers both kernels use (shared
address, the K-major 128-byte-swizzle descriptor, a 16-byte cp.async)."""
import sys


def arg(name, default):
    return int(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default


ACC = ", ".join(f"%{i}" for i in range(128))
OUTS = ", ".join(f'"+f"(d[{i}])' for i in range(128))

DEVICE_HELPERS = r'''__device__ __forceinline__ unsigned smem_u32(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

// wgmma shared-memory matrix descriptor: K-major, 128-byte swizzle, 8-row groups 1024 bytes apart.
__device__ __forceinline__ unsigned long long descriptor(unsigned addr) {
  unsigned long long d = static_cast<unsigned long long>((addr & 0x3FFFF) >> 4);
  d |= static_cast<unsigned long long>(1) << 16;
  d |= static_cast<unsigned long long>(1024 >> 4) << 32;
  d |= static_cast<unsigned long long>(1) << 62;
  return d;
}

__device__ __forceinline__ void cp_async16(unsigned dst, const void* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(__cvta_generic_to_global(src)) : "memory");
}'''


def fill(template, **values):
    """The template with @HELPERS@, {ACC}, OUTS and each @NAME@ (from values) filled in."""
    text = template.replace("@HELPERS@", DEVICE_HELPERS).replace("{ACC}", "{" + ACC + "}").replace("OUTS", OUTS)
    for name, value in values.items():
        text = text.replace("@" + name + "@", str(value))
    return text
