// Launchers of the kernel that turns a GEMM tile of products into a slice of the ordered
// triangle: clamped to [-1, 1], pairs with a constant series replaced by the constant policy's
// value, packed in row or column order (and encoded, for the compact formats). Plain declarations over raw device pointers
// and a stream; each returns the launch status (cudaGetLastError) for the caller to check.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace fc {
namespace kernels {

// A band of the triangle: "rows" q in [q0, q0 + rows) of the tile, whose row ql holds the
// products <z_p, z_q> for p in [p0, p0 + ld) at tile[ql * ld + (p - p0)].
//   order 0 (row order): row q's pairs are p in (q, n), at slice offset row_start(q) - row_start(q0);
//   order 1 (column order): row q's pairs are p in [0, q), at col_start(q) - col_start(q0).
// dst points at the slice's first value (the band's first pair). constant (n flags) may be null
// when no series is constant; fill is the value of a pair with a constant series.
struct TriuBand {
  int64_t n;
  int64_t q0;
  int64_t rows;
  int64_t p0;
  int64_t ld;
  int order;
};

// Several bands of one shape in one launch (the dfc windows of triu_windows): band i reads
// tile + i * tile_stride and constant + i * flags_stride, and writes dst + i * dst_stride; at
// most 65535. Each band's values are exactly those of a launch of its own.
struct TriuBatch {
  int64_t count = 1;
  int64_t tile_stride = 0, flags_stride = 0, dst_stride = 0;
};

// In: the tile's type (float, double); Out: the slice's (float, double, or the compact formats'
// int16_t FC_VALUES_INT16 codes and uint16_t FC_VALUES_HALF bits, kernels/compact_values.cuh,
// encoded here so that 2 bytes a value leave the GPU); fill is the constant policy's value in Out.
// Instantiated in triu_extract.cu for every pair of them.
template <class In, class Out>
cudaError_t triu_extract(const In* tile, const TriuBand& band, const uint8_t* constant, Out fill, Out* dst,
                         cudaStream_t stream, const TriuBatch& batch = TriuBatch());

}  // namespace kernels
}  // namespace fc
