// Launchers of the kernel that finishes a band of a cross (or dense) product: clamped to
// [-1, 1], pairs with a constant series replaced by the constant policy's value, the diagonal of
// a set with itself set to exactly 1. Plain declarations over raw device pointers and a stream;
// each returns the launch status (cudaGetLastError) for the caller to check.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace fc {
namespace kernels {

// A band of a cross product: rows i in [a0, a0 + rows) of set a against every column j in
// [0, cols) of set b; products at tile[(i - a0) * ld_tile + j], results written to
// out[(i - a0) * ld_out + j] (out may equal tile with ld_out == ld_tile: finished in place).
// same_set: a and b are one set, so the diagonal i == j is exactly 1 (fill for a constant series).
struct CrossBand {
  int64_t a0;
  int64_t rows;
  int64_t cols;
  int64_t ld_tile;
  int64_t ld_out;
  int same_set;
};

// In: the tile's type (float, double); Out: the output's (float, double: a float product is
// widened exactly; or the compact formats' int16_t / uint16_t codes, kernels/compact_values.cuh,
// which cannot run in place); fill is the constant policy's value in Out. Instantiated in
// cross_finish.cu for every pair of them.
template <class In, class Out>
cudaError_t cross_finish(const In* tile, const CrossBand& band, const uint8_t* constant_a, const uint8_t* constant_b,
                         Out fill, Out* out, cudaStream_t stream);

}  // namespace kernels
}  // namespace fc
