// The symmetric CSR of a graph, assembled on the device (csr_build.cuh says how).
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include "kernels/csr_build.cuh"
#include "kernels/grid_size.cuh"

namespace fc {
namespace kernels {
namespace {

constexpr int kThreads = 256;

unsigned grid_for(int64_t items) { return grid_size(items, kThreads); }

__global__ void count_lower_kernel(const int64_t* __restrict__ cols, int64_t edges, unsigned long long* lower) {
  for (int64_t x = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; x < edges; x += int64_t(gridDim.x) * blockDim.x)
    atomicAdd(lower + cols[x], 1ull);
}

// out[u] = in[u] for u < n, 0 for u == n: the n + 1 items whose exclusive scan ends in the total.
template <class In>
__global__ void padded_copy_kernel(const In* __restrict__ in, int64_t n, int64_t* __restrict__ out) {
  for (int64_t u = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; u <= n; u += int64_t(gridDim.x) * blockDim.x)
    out[u] = u < n ? static_cast<int64_t>(in[u]) : 0;
}

__global__ void add_kernel(const int64_t* __restrict__ a, const int64_t* __restrict__ b, int64_t count,
                           int64_t* __restrict__ out) {
  for (int64_t u = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; u < count; u += int64_t(gridDim.x) * blockDim.x)
    out[u] = a[u] + b[u];
}

__device__ float weight_of(float r, CsrWeight weight) {
  return weight == kCsrBinary ? 1.0f : weight == kCsrSigned ? r : fabsf(r);
}

// One warp per row: the row's upper edges are contiguous both in the arena and in the CSR.
__global__ void place_upper_kernel(const int64_t* __restrict__ arena_cols, const float* __restrict__ arena_vals,
                                   const int64_t* __restrict__ row_count, const int64_t* __restrict__ first_edge,
                                   const unsigned long long* __restrict__ lower, const int64_t* __restrict__ offsets,
                                   int64_t n, CsrWeight weight, int64_t* __restrict__ columns,
                                   float* __restrict__ weights, uint32_t* __restrict__ key,
                                   uint64_t* __restrict__ record) {
  const int lane = threadIdx.x & 31;
  const int64_t warps = int64_t(gridDim.x) * (blockDim.x / 32);
  for (int64_t u = (blockIdx.x * int64_t(blockDim.x) + threadIdx.x) / 32; u < n; u += warps) {
    const int64_t count = row_count[u], src = first_edge[u];
    const int64_t dst = offsets[u] + static_cast<int64_t>(lower[u]);
    for (int64_t m = lane; m < count; m += 32) {
      const int64_t c = arena_cols[src + m];
      const float w = weight_of(arena_vals[src + m], weight);
      columns[dst + m] = c;
      weights[dst + m] = w;
      key[src + m] = static_cast<uint32_t>(c);
      record[src + m] = (static_cast<uint64_t>(u) << 32) | __float_as_uint(w);
    }
  }
}

__global__ void place_lower_kernel(const uint32_t* __restrict__ key, const uint64_t* __restrict__ record, int64_t edges,
                                   const int64_t* __restrict__ offsets, const int64_t* __restrict__ lower_start,
                                   int64_t* __restrict__ columns, float* __restrict__ weights) {
  for (int64_t y = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; y < edges; y += int64_t(gridDim.x) * blockDim.x) {
    const uint32_t v = key[y];
    const uint64_t rec = record[y];
    const int64_t dst = offsets[v] + (y - lower_start[v]);
    columns[dst] = static_cast<int64_t>(rec >> 32);
    weights[dst] = __uint_as_float(static_cast<uint32_t>(rec));
  }
}

}  // namespace

cudaError_t csr_count_lower(const int64_t* arena_cols, int64_t edges, unsigned long long* lower, cudaStream_t stream) {
  if (edges > 0) count_lower_kernel<<<grid_for(edges), kThreads, 0, stream>>>(arena_cols, edges, lower);
  return cudaGetLastError();
}

size_t csr_scan_bytes(int64_t n) {
  size_t bytes = 0;
  cub::DeviceScan::ExclusiveSum(nullptr, bytes, static_cast<const int64_t*>(nullptr), static_cast<int64_t*>(nullptr),
                                static_cast<int>(n + 1));
  return bytes;
}

cudaError_t csr_scan(const int64_t* row_count, const unsigned long long* lower, int64_t n, int64_t* first_edge,
                     int64_t* lower_start, int64_t* offsets, void* scratch, cudaStream_t stream) {
  size_t bytes = csr_scan_bytes(n);
  const int items = static_cast<int>(n + 1);
  // offsets is the scans' input before it is their sum.
  padded_copy_kernel<<<grid_for(n + 1), kThreads, 0, stream>>>(row_count, n, offsets);
  cudaError_t status = cub::DeviceScan::ExclusiveSum(scratch, bytes, offsets, first_edge, items, stream);
  if (status != cudaSuccess) return status;
  padded_copy_kernel<<<grid_for(n + 1), kThreads, 0, stream>>>(lower, n, offsets);
  status = cub::DeviceScan::ExclusiveSum(scratch, bytes, offsets, lower_start, items, stream);
  if (status != cudaSuccess) return status;
  add_kernel<<<grid_for(n + 1), kThreads, 0, stream>>>(first_edge, lower_start, n + 1, offsets);
  return cudaGetLastError();
}

cudaError_t csr_place_upper(const int64_t* arena_cols, const float* arena_vals, const int64_t* row_count,
                            const int64_t* first_edge, const unsigned long long* lower, const int64_t* offsets, int64_t n,
                            CsrWeight weight, int64_t* columns, float* weights, uint32_t* key, uint64_t* record,
                            cudaStream_t stream) {
  place_upper_kernel<<<grid_for(n * 32), kThreads, 0, stream>>>(arena_cols, arena_vals, row_count, first_edge, lower,
                                                                 offsets, n, weight, columns, weights, key, record);
  return cudaGetLastError();
}

size_t csr_sort_bytes(int64_t edges, int key_bits) {
  cub::DoubleBuffer<uint32_t> keys(nullptr, nullptr);
  cub::DoubleBuffer<uint64_t> records(nullptr, nullptr);
  size_t bytes = 0;
  cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys, records, static_cast<int>(edges), 0, key_bits);
  return bytes;
}

cudaError_t csr_sort(uint32_t* key[2], uint64_t* record[2], int64_t edges, int key_bits, int* which, void* scratch,
                     size_t scratch_bytes, cudaStream_t stream) {
  cub::DoubleBuffer<uint32_t> keys(key[0], key[1]);
  cub::DoubleBuffer<uint64_t> records(record[0], record[1]);
  const cudaError_t status =
      cub::DeviceRadixSort::SortPairs(scratch, scratch_bytes, keys, records, static_cast<int>(edges), 0, key_bits, stream);
  *which = keys.selector;
  return status;
}

cudaError_t csr_place_lower(const uint32_t* key, const uint64_t* record, int64_t edges, const int64_t* offsets,
                            const int64_t* lower_start, int64_t* columns, float* weights, cudaStream_t stream) {
  if (edges > 0)
    place_lower_kernel<<<grid_for(edges), kThreads, 0, stream>>>(key, record, edges, offsets, lower_start, columns,
                                                                 weights);
  return cudaGetLastError();
}

}  // namespace kernels
}  // namespace fc
