// store_to_host (host_store.cuh): one grid-stride byte loop; 8-byte words when both ends and
// the length allow (the callers' edge counts and arena state are int64 words).
#include <cstdint>

#include "kernels/grid_size.cuh"
#include "kernels/host_store.cuh"

namespace fc {
namespace kernels {
namespace {

constexpr int kThreads = 256;

template <class Word>
__global__ void __launch_bounds__(kThreads) store_kernel(const Word* __restrict__ src, volatile Word* mapped, int64_t words) {
  for (int64_t i = int64_t(blockIdx.x) * kThreads + threadIdx.x; i < words; i += int64_t(gridDim.x) * kThreads)
    mapped[i] = src[i];
}

}  // namespace

cudaError_t store_to_host(const void* src, void* mapped, size_t bytes, cudaStream_t stream) {
  if (bytes == 0) return cudaSuccess;
  const bool words = bytes % 8 == 0 && reinterpret_cast<uintptr_t>(src) % 8 == 0 && reinterpret_cast<uintptr_t>(mapped) % 8 == 0;
  if (words) {
    const int64_t count = static_cast<int64_t>(bytes / 8);
    store_kernel<<<grid_size(count, kThreads), kThreads, 0, stream>>>(static_cast<const uint64_t*>(src),
                                                                      static_cast<uint64_t*>(mapped), count);
  } else {
    const int64_t count = static_cast<int64_t>(bytes);
    store_kernel<<<grid_size(count, kThreads), kThreads, 0, stream>>>(static_cast<const uint8_t*>(src),
                                                                      static_cast<uint8_t*>(mapped), count);
  }
  return cudaGetLastError();
}

}  // namespace kernels
}  // namespace fc
