// Buffers of the network primitives (cuda_graph.cpp, cuda_csr.cpp): device buffers sized in
// values, pageable host vectors grown for the staging ring's threads to first-touch, and plain
// D2H copies of counts.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "backend/cuda/cuda_check.hpp"
#include "backend/cuda/cuda_resources.hpp"
#include "backend/cuda/graph_ops.hpp"
#include "base/huge_pages.hpp"

namespace fc {
namespace cuda {

// A device buffer of `count` values of T for `what`; FC_ERR_OUT_OF_MEMORY names it on failure.
template <class T>
inline void allocate(const GraphJob& job, DeviceBuffer& buffer, int64_t count, const char* what) {
  buffer.allocate(job.res->device(), static_cast<size_t>(std::max<int64_t>(1, count)) * sizeof(T), what);
}

// The same, unless the buffer already holds `count` values (kept from an earlier call).
template <class T>
inline void reserve(const GraphJob& job, DeviceBuffer& buffer, int64_t count, const char* what) {
  if (buffer.bytes() >= static_cast<size_t>(std::max<int64_t>(1, count)) * sizeof(T)) return;
  allocate<T>(job, buffer, count, what);
}

inline void zero_async(DeviceBuffer& buffer, cudaStream_t stream) {
  FC_CUDA(cudaMemsetAsync(buffer.get(), 0, buffer.bytes(), stream));
}

// Grows v by `count` values, reserving at least `reserve_hint` when it must reallocate, with
// transparent huge pages asked for first: the first touch of a large fresh vector then faults
// 2 MiB at a time instead of 4 KiB. Edge arrays (EdgeArray) grow without a zero-fill, so that
// first touch happens in the host copy pool's threads as they write the edges.
template <class T, class Allocator>
inline T* grow(std::vector<T, Allocator>& v, int64_t count, int64_t reserve_hint) {
  const size_t old = v.size();
  const size_t want = old + static_cast<size_t>(count);
  if (want > v.capacity()) {
    const size_t hint = static_cast<size_t>(std::max<int64_t>(0, reserve_hint));
    v.reserve(std::max({want, hint, v.capacity() + v.capacity() / 2}));
    advise_huge_pages(v.data(), v.capacity() * sizeof(T));
  }
  v.resize(want);
  return v.data() + old;
}


template <class T>
inline void copy_to_host(T* dst, const void* src, int64_t count, cudaStream_t stream) {
  if (count <= 0) return;
  FC_CUDA(cudaMemcpyAsync(dst, src, static_cast<size_t>(count) * sizeof(T), cudaMemcpyDeviceToHost, stream));
}

}  // namespace cuda
}  // namespace fc
