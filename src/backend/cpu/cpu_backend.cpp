// The CPU backend: the numerical reference. Products through CBLAS (OpenBLAS on Debian), tile
// extraction and constant handling with OpenMP. Each tile is one GEMM of a band of rows against
// every column it needs, written straight into the caller's slice of the ordered triangle.
#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "backend/backend.hpp"
#include "core/error.hpp"
#include "core/tile_plan.hpp"
#include "core/triangle_index.hpp"

namespace fc {
namespace {

// Normalized rows in the storage precision: float for FP32/TF32, double for FP64.
class CpuSeries : public SeriesStorage {
 public:
  int64_t t = 0;
  std::vector<float> f32;
  std::vector<double> f64;
};

const CpuSeries& cpu_storage(const SeriesView& s) { return static_cast<const CpuSeries&>(*s.storage); }

template <class C>
const C* rows_of(const SeriesView& s);
template <>
const float* rows_of<float>(const SeriesView& s) { return cpu_storage(s).f32.data(); }
template <>
const double* rows_of<double>(const SeriesView& s) { return cpu_storage(s).f64.data(); }

// out (m x n, row-major, ldc) = A (m x k) * B (n x k)^T
void gemm_nt(int64_t m, int64_t n, int64_t k, const float* a, const float* b, float* c, int64_t ldc) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)m, (int)n, (int)k, 1.0f, a, (int)k, b, (int)k, 0.0f, c, (int)ldc);
}
void gemm_nt(int64_t m, int64_t n, int64_t k, const double* a, const double* b, double* c, int64_t ldc) {
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)m, (int)n, (int)k, 1.0, a, (int)k, b, (int)k, 0.0, c, (int)ldc);
}

// Sets the OpenMP thread count (which OpenBLAS's OpenMP build also follows) for one call.
class ThreadScope {
 public:
  explicit ThreadScope(int threads) : saved_(omp_get_max_threads()) {
    if (threads > 0) omp_set_num_threads(threads);
  }
  ~ThreadScope() { omp_set_num_threads(saved_); }
  ThreadScope(const ThreadScope&) = delete;
  ThreadScope& operator=(const ThreadScope&) = delete;

 private:
  int saved_;
};

template <class C>
inline C clamp_unit(C v) {
  return v > C(1) ? C(1) : (v < C(-1) ? C(-1) : v);
}

// Copies len products into out, clamped; pairs with a constant series get `fill`. row_constant:
// the row's own series is constant; col_constant: per-column flags starting at the first column.
template <class C, class O>
inline void finish_run(const C* src, O* dst, int64_t len, bool row_constant, const uint8_t* col_constant, bool any_constant,
                       O fill) {
  if (row_constant) {
    std::fill(dst, dst + len, fill);
  } else if (!any_constant) {
    for (int64_t x = 0; x < len; ++x) dst[x] = static_cast<O>(clamp_unit(src[x]));
  } else {
    for (int64_t x = 0; x < len; ++x) dst[x] = col_constant[x] ? fill : static_cast<O>(clamp_unit(src[x]));
  }
}

template <class O>
O policy_value(fc_constant_policy policy) {
  return policy == FC_CONSTANT_ZERO ? O(0) : std::numeric_limits<O>::quiet_NaN();
}

int64_t budget_of(const RunSettings& run) { return run.memory_limit > 0 ? run.memory_limit : default_host_budget(); }

// Rows per tile: within the memory budget and at most 256 (past that a GEMM gains nothing and
// the wasted square at the diagonal grows).
int64_t tile_rows(int64_t columns, int64_t value_size, const RunSettings& run, int64_t n) {
  return plan_tile_rows(columns * value_size, budget_of(run), 256, "PCC of " + std::to_string(n) + " series");
}

template <class C, class O>
void triu_typed(const SeriesView& s, fc_triu_order order, int64_t row_begin, int64_t row_end, O* out, const RunSettings& run) {
  const int64_t n = s.n, t = s.t;
  const C* z = rows_of<C>(s);
  const uint8_t* constant = s.constant->data();
  const bool any_constant = s.n_constant > 0;
  const O fill = policy_value<O>(run.constant_policy);
  const int64_t rows = tile_rows(n, sizeof(C), run, n);
  std::vector<C> scratch(static_cast<size_t>(rows * n));
  const int64_t base = order == FC_TRIU_ROW ? row_start(n, row_begin) : col_start(row_begin);

  for (int64_t r0 = row_begin; r0 < row_end; r0 += rows) {
    const int64_t r1 = std::min(row_end, r0 + rows);
    int64_t pairs = 0;
    if (order == FC_TRIU_ROW) {
      // rows i in [r0, r1) against columns [r0, n): the pairs j > i lie right of the diagonal
      const int64_t ld = n - r0;
      gemm_nt(r1 - r0, ld, t, z + r0 * t, z + r0 * t, scratch.data(), ld);
#pragma omp parallel for schedule(dynamic, 4)
      for (int64_t i = r0; i < r1; ++i)
        finish_run(scratch.data() + (i - r0) * ld + (i + 1 - r0), out + (row_start(n, i) - base), n - 1 - i,
                   constant[i] != 0, constant + i + 1, any_constant, fill);
      pairs = row_start(n, r1) - row_start(n, r0);
    } else {
      // columns j in [r0, r1) against rows [0, r1): the pairs i < j lie left of the diagonal
      const int64_t ld = r1;
      gemm_nt(r1 - r0, ld, t, z + r0 * t, z, scratch.data(), ld);
#pragma omp parallel for schedule(dynamic, 4)
      for (int64_t j = r0; j < r1; ++j)
        finish_run(scratch.data() + (j - r0) * ld, out + (col_start(j) - base), j, constant[j] != 0, constant,
                   any_constant, fill);
      pairs = col_start(r1) - col_start(r0);
    }
    run.progress->advance(pairs);
  }
}

template <class C>
void cross_typed(const SeriesView& a, const SeriesView& b, int64_t a_begin, int64_t a_end, bool same_set, float* out,
                 int64_t ld, const RunSettings& run) {
  const int64_t t = a.t;
  const C* za = rows_of<C>(a);
  const C* zb = rows_of<C>(b);
  const uint8_t* ca = a.constant->data();
  const uint8_t* cb = b.constant->data();
  const bool any_constant = a.n_constant > 0 || b.n_constant > 0;
  const float fill = policy_value<float>(run.constant_policy);
  const int64_t rows = tile_rows(b.n, sizeof(C), run, b.n);
  std::vector<C> scratch(static_cast<size_t>(rows * b.n));

  for (int64_t r0 = a_begin; r0 < a_end; r0 += rows) {
    const int64_t r1 = std::min(a_end, r0 + rows);
    gemm_nt(r1 - r0, b.n, t, za + r0 * t, zb, scratch.data(), b.n);
#pragma omp parallel for schedule(static)
    for (int64_t i = r0; i < r1; ++i) {
      float* dst = out + (i - a_begin) * ld;
      finish_run(scratch.data() + (i - r0) * b.n, dst, b.n, ca[i] != 0, cb, any_constant, fill);
      if (same_set) dst[i] = ca[i] ? fill : 1.0f;  // the diagonal is exactly 1
    }
    run.progress->advance((r1 - r0) * b.n);
  }
}

class CpuBackend : public Backend {
 public:
  fc_backend kind() const override { return FC_BACKEND_CPU; }
  std::string describe() const override { return "CPU (CBLAS, " + std::to_string(omp_get_max_threads()) + " threads)"; }

  std::unique_ptr<SeriesStorage> create_series(int64_t n, int64_t t, fc_precision precision) override {
    auto s = std::make_unique<CpuSeries>();
    s->t = t;
    if (precision == FC_PRECISION_FP64)
      s->f64.resize(static_cast<size_t>(n * t));
    else
      s->f32.resize(static_cast<size_t>(n * t));
    return s;
  }

  void upload_rows(SeriesStorage& storage, int64_t row_begin, int64_t rows, const double* z) override {
    auto& s = static_cast<CpuSeries&>(storage);
    const int64_t begin = row_begin * s.t, count = rows * s.t;
    if (!s.f64.empty())
      std::copy(z, z + count, s.f64.begin() + begin);
    else
      std::transform(z, z + count, s.f32.begin() + begin, [](double v) { return static_cast<float>(v); });
  }

  void triu(const SeriesView& s, fc_triu_order order, int64_t row_begin, int64_t row_end, const Output& out,
            const RunSettings& run) override {
    require_host(out);
    check_int_range(s);
    ThreadScope threads(run.threads);
    const bool f64 = s.precision == FC_PRECISION_FP64;
    if (out.type == ScalarType::F32) {
      if (f64) triu_typed<double, float>(s, order, row_begin, row_end, static_cast<float*>(out.data), run);
      else triu_typed<float, float>(s, order, row_begin, row_end, static_cast<float*>(out.data), run);
    } else {
      if (f64) triu_typed<double, double>(s, order, row_begin, row_end, static_cast<double*>(out.data), run);
      else triu_typed<float, double>(s, order, row_begin, row_end, static_cast<double*>(out.data), run);
    }
  }

  void cross(const SeriesView& a, const SeriesView& b, int64_t a_begin, int64_t a_end, bool same_set, const Output& out,
             int64_t ld, const RunSettings& run) override {
    require_host(out);
    if (out.type != ScalarType::F32) fail(FC_ERR_INTERNAL, "CPU cross product supports float output only");
    check_int_range(a);
    check_int_range(b);
    ThreadScope threads(run.threads);
    if (a.precision == FC_PRECISION_FP64)
      cross_typed<double>(a, b, a_begin, a_end, same_set, static_cast<float*>(out.data), ld, run);
    else
      cross_typed<float>(a, b, a_begin, a_end, same_set, static_cast<float*>(out.data), ld, run);
  }

 private:
  static void require_host(const Output& out) {
    if (out.on_device) fail(FC_ERR_INVALID_ARG, "the CPU backend cannot write to device memory");
  }
  // CBLAS takes int dimensions; tiles never pass N columns or T, but N itself must fit.
  static void check_int_range(const SeriesView& s) {
    if (s.n > std::numeric_limits<int>::max() || s.t > std::numeric_limits<int>::max())
      fail(FC_ERR_INVALID_ARG, "the CPU backend's BLAS takes 32-bit dimensions; " + std::to_string(s.n) + " x " +
                                   std::to_string(s.t) + " series exceed them");
  }
};

}  // namespace

std::shared_ptr<Backend> make_cpu_backend() { return std::make_shared<CpuBackend>(); }

}  // namespace fc
