// 16-byte global -> shared copies for multi-stage GEMM main loops: cp.async on sm_80+ (copies in
// flight while the block computes on earlier stages), through registers on older GPUs (the PTX
// fallback). Device code only; shared by fused_degree.cu and pair_products.cu.
#pragma once

#include <cuda_runtime.h>

namespace fc {
namespace kernels {

// One 16-byte piece of a stage (both addresses 16-byte aligned).
__device__ __forceinline__ void load16(void* smem, const void* gmem) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem));
#else
  *reinterpret_cast<float4*>(smem) = __ldg(reinterpret_cast<const float4*>(gmem));
#endif
}

// Closes the group of copies issued since the last call (one stage).
__device__ __forceinline__ void commit_stage() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::);
#endif
}

// Waits until at most `pending` committed stages are still in flight.
template <int pending>
__device__ __forceinline__ void wait_stages() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(pending));
#endif
}

}  // namespace kernels
}  // namespace fc
