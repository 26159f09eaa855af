// Per-row top-k by |r| (see graph_tiles.cuh). One block per row: a radix select over the key
// bits(|r|) + 1 (0 for a pair that may not be chosen) finds the k-th largest key K; the keys
// above K are taken, then those equal to K in ascending column order until k are held; the k
// are ranked by (|r| descending, column ascending). Every step is order-independent or ordered
// scans, so the result is deterministic. The row's entries come from a source (below): a full
// row of a tile, a CSR row of candidates, or a row of products with a sample of columns; each
// lists its entries in ascending column order, which the scan of the keys equal to K needs.
#include <algorithm>

#include "kernels/graph_pair.cuh"

namespace fc {
namespace kernels {
namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;

// Row i of a tile of products, tile[(i - a0) * width + s]: entry s is column s (a full row, width
// n, sample null) or column sample[s] (products with sample columns, ascending).
template <class In>
struct TileRow {
  const In* tile;
  int64_t width, a0;
  const int64_t* sample;
  const uint8_t* constant;
  const In* row;
  int64_t i;
  __device__ void at(int64_t ql) {
    i = a0 + ql;
    row = tile + ql * width;
  }
  __device__ int64_t row_index() const { return i; }
  __device__ int64_t count() const { return width; }
  __device__ int64_t column(int64_t s) const { return sample != nullptr ? sample[s] : s; }
  __device__ uint32_t key(int64_t s) const {
    const int64_t j = column(s);
    if (j == i || is_constant(constant, j)) return 0u;
    return __float_as_uint(fabsf(pair_r(row[s]))) + 1u;
  }
  __device__ float value(int64_t s) const { return pair_r(row[s]); }
};

// Row i's CSR entries (columns ascending, weights r), every one a candidate.
struct CsrRow {
  const int64_t* offsets;
  const int64_t* columns;
  const float* weights;
  int64_t a0;
  int64_t begin, end, i;
  __device__ void at(int64_t ql) {
    i = a0 + ql;
    begin = offsets[i];
    end = offsets[i + 1];
  }
  __device__ int64_t row_index() const { return i; }
  __device__ int64_t count() const { return end - begin; }
  __device__ uint32_t key(int64_t e) const { return __float_as_uint(fabsf(weights[begin + e])) + 1u; }
  __device__ int64_t column(int64_t e) const { return columns[begin + e]; }
  __device__ float value(int64_t e) const { return weights[begin + e]; }
};

template <class Source>
__global__ void __launch_bounds__(kThreads) topk_kernel(Source src, const uint8_t* __restrict__ constant, int k,
                                                        int64_t out_row0, int64_t* __restrict__ columns,
                                                        float* __restrict__ values) {
  __shared__ unsigned hist[256];
  __shared__ uint32_t sel_key[kTopKMax];
  __shared__ int64_t sel_col[kTopKMax];
  __shared__ float sel_val[kTopKMax];
  __shared__ int taken, need, warp_count[kWarps];
  __shared__ uint32_t prefix;
  src.at(blockIdx.x);
  const int64_t i = src.row_index();
  const int64_t n = src.count();
  int64_t* out_cols = columns + (i - out_row0) * k;
  float* out_vals = values + (i - out_row0) * k;
  const bool row_ok = !is_constant(constant, i);

  // Radix select, 8 bits per pass from the top: after the passes, prefix = K and need = how many
  // keys equal to K complete the k (keys above K number k - need).
  if (threadIdx.x == 0) {
    prefix = 0;
    need = k;
    taken = 0;
  }
  uint32_t mask = 0;
  for (int shift = 24; shift >= 0; shift -= 8) {
    hist[threadIdx.x] = 0;
    __syncthreads();
    if (row_ok) {
      const uint32_t pre = prefix;
      for (int64_t j = threadIdx.x; j < n; j += kThreads) {
        const uint32_t key = src.key(j);
        if ((key & mask) == pre) atomicAdd(&hist[(key >> shift) & 0xFFu], 1u);
      }
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      int left = need;
      int digit = 0;
      for (int d = 255; d >= 0; --d) {
        if (static_cast<int>(hist[d]) >= left) {
          digit = d;
          break;
        }
        left -= static_cast<int>(hist[d]);
      }
      // Fewer than `need` keys match at all: digit 0 takes whatever is left (padding below).
      need = left;
      prefix |= uint32_t(digit) << shift;
    }
    mask |= 0xFFu << shift;
    __syncthreads();
  }
  const uint32_t K = prefix;
  // Keys above K (fewer than k): order of arrival does not matter, they are ranked below.
  if (row_ok) {
    for (int64_t j = threadIdx.x; j < n; j += kThreads) {
      const uint32_t key = src.key(j);
      if (key > K) {
        const int s = atomicAdd(&taken, 1);
        sel_key[s] = key;
        sel_col[s] = src.column(j);
        sel_val[s] = src.value(j);
      }
    }
  }
  __syncthreads();
  // Keys equal to K (K > 0: zero keys are never chosen), smallest columns first: an ordered scan
  // of the row, 256 entries at a time, until `need` are held.
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (row_ok && K > 0) {
    int still = need;
    for (int64_t base = 0; base < n && still > 0; base += kThreads) {
      const int64_t j = base + threadIdx.x;
      const bool eq = j < n && src.key(j) == K;
      const unsigned ballot = __ballot_sync(0xffffffffu, eq);
      if (lane == 0) warp_count[warp] = __popc(ballot);
      __syncthreads();
      int before = 0, all = 0;
      for (int w = 0; w < kWarps; ++w) {
        if (w < warp) before += warp_count[w];
        all += warp_count[w];
      }
      const int rank = before + __popc(ballot & ((1u << lane) - 1u));
      if (eq && rank < still) {
        const int s = taken + rank;  // `taken` is read by all before thread 0 updates it below
        sel_key[s] = K;
        sel_col[s] = src.column(j);
        sel_val[s] = src.value(j);
      }
      __syncthreads();
      const int got = all < still ? all : still;
      if (threadIdx.x == 0) taken += got;
      still -= got;
      __syncthreads();
    }
  }
  __syncthreads();
  const int m = taken;
  for (int s = threadIdx.x; s < m; s += kThreads) {
    int rank = 0;
    for (int t = 0; t < m; ++t)
      rank += (sel_key[t] > sel_key[s] || (sel_key[t] == sel_key[s] && sel_col[t] < sel_col[s])) ? 1 : 0;
    out_cols[rank] = sel_col[s];
    out_vals[rank] = sel_val[s];
  }
  for (int s = m + threadIdx.x; s < k; s += kThreads) {
    out_cols[s] = -1;
    out_vals[s] = 0.0f;
  }
}

template <class Source>
cudaError_t launch_rows(const Source& src, int64_t rows, const uint8_t* constant, int64_t k, int64_t out_row0,
                        int64_t* columns, float* values, cudaStream_t stream) {
  if (rows <= 0 || k <= 0) return cudaSuccess;
  if (k > kTopKMax) return cudaErrorInvalidValue;
  topk_kernel<Source><<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(src, constant, static_cast<int>(k), out_row0,
                                                                            columns, values);
  return cudaGetLastError();
}

template <class In>
cudaError_t launch(const In* tile, int64_t n, int64_t a0, int64_t rows, const uint8_t* constant, int64_t k,
                   int64_t out_row0, int64_t* columns, float* values, cudaStream_t stream) {
  TileRow<In> src{};
  src.tile = tile;
  src.width = n;
  src.a0 = a0;
  src.constant = constant;
  return launch_rows(src, rows, constant, k, out_row0, columns, values, stream);
}

}  // namespace

cudaError_t row_topk(const float* tile, int64_t n, int64_t a0, int64_t rows, const uint8_t* constant, int64_t k,
                     int64_t out_row0, int64_t* columns, float* values, cudaStream_t stream) {
  return launch(tile, n, a0, rows, constant, k, out_row0, columns, values, stream);
}
cudaError_t row_topk(const double* tile, int64_t n, int64_t a0, int64_t rows, const uint8_t* constant, int64_t k,
                     int64_t out_row0, int64_t* columns, float* values, cudaStream_t stream) {
  return launch(tile, n, a0, rows, constant, k, out_row0, columns, values, stream);
}

cudaError_t csr_topk(const int64_t* offsets, const int64_t* csr_columns, const float* weights, int64_t a0, int64_t rows,
                     const uint8_t* constant, int64_t k, int64_t out_row0, int64_t* columns, float* values,
                     cudaStream_t stream) {
  CsrRow src{};
  src.offsets = offsets;
  src.columns = csr_columns;
  src.weights = weights;
  src.a0 = a0;
  return launch_rows(src, rows, constant, k, out_row0, columns, values, stream);
}

cudaError_t sample_topk(const float* tile, int64_t m, const int64_t* sample, int64_t a0, int64_t rows,
                        const uint8_t* constant, int64_t k, int64_t out_row0, int64_t* columns, float* values,
                        cudaStream_t stream) {
  TileRow<float> src{};
  src.tile = tile;
  src.width = m;
  src.a0 = a0;
  src.sample = sample;
  src.constant = constant;
  return launch_rows(src, rows, constant, k, out_row0, columns, values, stream);
}

namespace {
__global__ void row_bounds_kernel(const float* __restrict__ values, int64_t k, int64_t a0, int64_t rows,
                                  const uint8_t* __restrict__ constant, float* __restrict__ bound) {
  const int64_t ql = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (ql >= rows) return;
  bound[a0 + ql] = is_constant(constant, a0 + ql) ? 2.0f : fabsf(values[ql * k + k - 1]);
}
}  // namespace

cudaError_t topk_row_bounds(const float* values, int64_t k, int64_t a0, int64_t rows, const uint8_t* constant,
                            float* bound, cudaStream_t stream) {
  if (rows <= 0 || k <= 0) return cudaSuccess;
  row_bounds_kernel<<<static_cast<unsigned>((rows + 255) / 256), 256, 0, stream>>>(values, k, a0, rows, constant, bound);
  return cudaGetLastError();
}

}  // namespace kernels
}  // namespace fc
