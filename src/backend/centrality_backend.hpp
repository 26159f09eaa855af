// The centrality capability of a backend: products of the stored normalized rows with vectors,
// which the eigensolves of src/centrality/ are built on (cpu/cpu_centrality.cpp,
// cuda/cuda_centrality.cpp). Later: the thresholded product of the fused pair kernels.
#pragma once

#include <cstdint>

#include "backend/series_storage.hpp"
#include "base/run_settings.hpp"

namespace fc {

// Rows per partial sum of Z^T x: a fixed grid, so the order of the sums never depends on threads.
constexpr int64_t kCentralityChunkRows = 1024;
// Interleaved sums of the row dot products (element k to lane k % kCentralityLanes).
constexpr int kCentralityLanes = 8;

class CentralityBackend {
 public:
  virtual ~CentralityBackend() = default;

  // y = Z (Z^T x) for x and y of s.n float64 values, Z the s.n x s.t stored rows (zero rows for
  // constant series); no rounding but float64's, to the bit on every backend and thread count:
  //   u = Z^T x: chunk c of kCentralityChunkRows rows gives p_c[k] = sum over its rows i, ascending,
  //     of z_ik * x_i (from 0; each product and sum rounded once, no fused multiply-add); then
  //     u[k] = sum over chunks c, ascending, of p_c[k] (from 0).
  //   y_i = sum_k z_ik u[k]: lane l = k % kCentralityLanes sums z_ik * u[k] for its k ascending
  //     (from 0), and y_i = ((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7)).
  // z_ik is the stored value widened to double.
  virtual void gram_product(const SeriesView& s, const double* x, double* y, const RunSettings& run) = 0;
};

}  // namespace fc
