// The PCC capability of a backend: series storage and the products of the triangle and cross
// blocks (cpu/cpu_pcc.cpp, cuda/cuda_pcc.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "backend/series_storage.hpp"
#include "base/run_settings.hpp"
#include "fastconn/fastconn.h"

namespace fc {

class PccBackend {
 public:
  virtual ~PccBackend() = default;

  // Row blocks that are multiples of this many rows compute no row twice (a backend that works
  // on a fixed grid recomputes a partly requested grid tile); automatic block sizes use it.
  virtual int64_t block_row_granularity() const { return 1; }

  // Storage for n series of t samples in `precision`; rows are filled by upload_rows.
  virtual std::unique_ptr<SeriesStorage> create_series(int64_t n, int64_t t, fc_precision precision) = 0;
  // Copy `rows` normalized rows (row-major, contiguous, rows x t) into rows
  // [row_begin, row_begin + rows) of the storage.
  virtual void upload_rows(SeriesStorage& storage, int64_t row_begin, int64_t rows, const double* z) = 0;
  // Where a backend keeps the rows in host memory (row-major, n x t, one of the two set), so that
  // creating series normalizes straight into them instead of into a staging buffer copied by
  // upload_rows: for the CPU backend that buffer and its copy were most of a 1,000 x 1,200 series'
  // creation (page faults of two fresh 9.6 MB buffers). Both null (the default): upload_rows.
  struct HostRows {
    double* f64 = nullptr;
    float* f32 = nullptr;
  };
  virtual HostRows host_rows(SeriesStorage& storage) {
    (void)storage;
    return {};
  }
  // The stored normalized rows widened to float64, row-major n x t, into z (host memory), for the
  // capabilities computed on the host (partial correlation). false: this backend has no such path
  // yet (nothing written; the caller fails with a message naming the backend).
  virtual bool rows_to_host(const SeriesView& s, double* z) const {
    (void)s, (void)z;
    return false;
  }

  // The triangle's slice for "rows" [row_begin, row_end):
  //   FC_TRIU_ROW: every pair (i, j), j > i, for i in the range, ordered by i then j;
  //   FC_TRIU_COL: every pair (i, j), i < j, for j in the range, ordered by j then i.
  // Both are contiguous slices of the ordered triangle; `out` points at the slice's first value.
  // Values clamped to [-1, 1]; pairs with a constant series follow run.constant_policy.
  virtual void triu(const SeriesView& s, fc_triu_order order, int64_t row_begin, int64_t row_end,
                    const Output& out, const RunSettings& run) = 0;

  // The triangles of windows of the stored series s, as triu gives them for the windows that
  // create_window makes ([begins[k], begins[k] + length) of s's rows, weights as there): window
  // k's rows [row_begin, row_end) into out + k * per_window values, progress counting every
  // window's values. For fc_dfc_triu: a backend that can overlaps one window's output with the
  // next window's work (one triu call a window drains its pipeline in between). false: no such
  // path here, nothing done (the caller makes each window and calls triu).
  virtual bool triu_windows(const SeriesView& s, const std::vector<int64_t>& begins, int64_t length, const double* weights,
                            fc_triu_order order, int64_t row_begin, int64_t row_end, const Output& out,
                            int64_t per_window, const RunSettings& run) {
    (void)s, (void)begins, (void)length, (void)weights, (void)order, (void)row_begin, (void)row_end, (void)out,
        (void)per_window, (void)run;
    return false;
  }

  // out[(i - a_begin) * ld + j] = r(a_i, b_j) for i in [a_begin, a_end), j in [0, b.n).
  // same_set: a and b are the same series set, so the diagonal (i == j) is set to exactly 1
  // (or the constant policy's value for constant series).
  virtual void cross(const SeriesView& a, const SeriesView& b, int64_t a_begin, int64_t a_end,
                     bool same_set, const Output& out, int64_t ld, const RunSettings& run) = 0;
};

}  // namespace fc
