// The centrality capability of a backend: products of the stored normalized rows with vectors,
// which the eigensolves of src/centrality/ are built on (cpu/cpu_centrality.cpp,
// cuda/cuda_centrality.cpp), and the device-resident eigensolve of fast ECM (gram_space). Later:
// the thresholded product of the fused pair kernels.
#pragma once

#include <cstdint>
#include <memory>

#include "backend/eigen_space.hpp"
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

  // Fast ECM's eigensolve on the backend's device: a space of `slots` vectors of s.n values,
  // reserved (reserve(s.n, slots) is then free), whose apply is
  //   y = (Z (Z^T x) + m (m^T x)) / 2,  m = member (s.n values, each 0 or 1, read before it returns):
  // g = Z (Z^T x) with gram_product's bits, m^T x summed in EigenSpace's reduction order (that of
  // deterministic_dot, modules/leading_eigen.hpp), y_i = (g_i + m_i * (m^T x)) * 0.5, each
  // operation rounded once: the host's bits. Each apply reports one unit to run.progress (which
  // must outlive the space). Null where the vectors should stay on the host (the default: the
  // CPU backend; a device whose space would pass run.memory_limit); a device that lacks the memory
  // fails with FC_ERR_OUT_OF_MEMORY.
  virtual std::unique_ptr<EigenSpace> gram_space(const SeriesView& s, const double* member, int64_t slots,
                                                 const RunSettings& run) {
    (void)s, (void)member, (void)slots, (void)run;
    return nullptr;
  }
};

}  // namespace fc
