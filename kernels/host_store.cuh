// Small device-to-host reads without a copy engine: a kernel stores the bytes into mapped
// page-locked host memory. Why: device-to-host copies of every stream queue on one copy engine,
// so a 16-byte cudaMemcpyAsync issued while a graph's 100-200 MB CSR is copied out waits for the
// whole copy (bench/gpu/probe_d2h_queue.cu measures it). The dfc graphs' look-ahead builds the
// next window's graph during that copy, and its few small reads (each band's edge count, the
// arena's state, the window's constant flags) must not wait for it.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace fc {
namespace kernels {

// Copies `bytes` from device memory `src` to `mapped`, the device address of mapped page-locked
// host memory (cudaHostGetDevicePointer). The host may read it once the stream's work so far is
// complete. Returns the launch status.
cudaError_t store_to_host(const void* src, void* mapped, size_t bytes, cudaStream_t stream);

}  // namespace kernels
}  // namespace fc
