// Windows and low rank on the CPU. Everything is float64 arithmetic on fixed row blocks, each
// computed by one thread with single-threaded BLAS and combined in block order, so the bits
// never depend on the thread count.
#include "backend/cpu/cpu_window.hpp"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "backend/cpu/cpu_tiles.hpp"

namespace fc {
namespace cpu {
namespace {

// Rows per block of gram and project: fixed, so every BLAS call has a shape fixed by the input.
constexpr int64_t kBlockRows = 512;

// Threads for `work` operations in `parts` pieces that may each hold `bytes_per_thread` of scratch
// at once within the memory budget (>= 1; 1 below parallel_team's grain, waking no team).
int scratch_threads(int64_t bytes_per_thread, const RunSettings& run, int64_t work, int64_t parts) {
  const int64_t fit = std::max<int64_t>(1, budget_of(run) / std::max<int64_t>(1, bytes_per_thread));
  return static_cast<int>(std::min<int64_t>(fit, parallel_team(work, run.threads, parts)));
}

// a * b * c, saturated at the int64_t maximum (work estimates only).
int64_t work_of(int64_t a, int64_t b, int64_t c) {
  int64_t ab = 0, abc = 0;
  if (__builtin_mul_overflow(a, b, &ab) || __builtin_mul_overflow(ab, c, &abc)) return std::numeric_limits<int64_t>::max();
  return abc;
}

// The CUDA backend's order of a window's sums (kernels/window_normalize.cu: one warp a row): 32
// lanes, lane l adding samples l, l + 32, ... in order, then a xor butterfly over the lanes (mask
// 16, 8, 4, 2, 1: each lane adds its partner's sum). Computed here in the same order with the
// same roundings (fma where the kernel has __fma_rn), so a window's normalized rows, and with
// them every product, are the same bits on both backends.
constexpr int kLanes = 32;

double lanes_total(double (&lane)[kLanes]) {
  for (int mask = kLanes / 2; mask > 0; mask /= 2) {
    double next[kLanes];
    for (int l = 0; l < kLanes; ++l) next[l] = lane[l] + lane[l ^ mask];
    std::copy(next, next + kLanes, lane);
  }
  return lane[0];
}

template <class C>
void window_rows(const SeriesView& s, int64_t begin, int64_t length, const double* weights, uint8_t* constant, C* out,
                 const RunSettings& run) {
  const C* z = rows_of<C>(s);
  std::vector<double> root(static_cast<size_t>(length), 1.0);
  if (weights != nullptr)
    for (int64_t k = 0; k < length; ++k) root[static_cast<size_t>(k)] = std::sqrt(weights[k]);
  const double* sw = root.data();
  const int team = parallel_team(work_of(s.n, length, 3), run.threads, s.n);  // three passes over each row
#pragma omp parallel for schedule(static) num_threads(team) if (team > 1)
  for (int64_t r = 0; r < s.n; ++r) {
    const C* x = z + r * s.t + begin;
    C* y = out + r * length;
    bool all_equal = true;
    for (int64_t k = 1; k < length && all_equal; ++k) all_equal = x[k] == x[0];
    double ss = 0.0, mean = 0.0;
    if (!all_equal) {
      // Weighted mean: sum(w x) / sum(w), w = 1 without a taper.
      double lane_w[kLanes], lane_wx[kLanes];
      for (int l = 0; l < kLanes; ++l) {
        double sum_w = 0.0, sum_wx = 0.0;
        for (int64_t k = l; k < length; k += kLanes) {
          const double w = weights != nullptr ? weights[k] : 1.0;
          sum_w += w;
          sum_wx = std::fma(w, static_cast<double>(x[k]), sum_wx);
        }
        lane_w[l] = sum_w;
        lane_wx[l] = sum_wx;
      }
      const double total_w = lanes_total(lane_w);
      mean = lanes_total(lane_wx) / total_w;
      double lane_ss[kLanes];
      for (int l = 0; l < kLanes; ++l) {
        double sum = 0.0;
        for (int64_t k = l; k < length; k += kLanes) {
          const double d = sw[k] * (static_cast<double>(x[k]) - mean);
          sum = std::fma(d, d, sum);
        }
        lane_ss[l] = sum;
      }
      ss = lanes_total(lane_ss);
    }
    // Exact equality as stored, like the upload's test: a computed mean of equal values may
    // differ from them in the last bit and leave garbage deviations.
    if (all_equal || !(ss > 0.0)) {
      constant[r] = 1;
      std::fill(y, y + length, C(0));
      continue;
    }
    constant[r] = 0;
    const double norm = std::sqrt(ss);
    for (int64_t k = 0; k < length; ++k) y[k] = static_cast<C>(sw[k] * (static_cast<double>(x[k]) - mean) / norm);
  }
}

// Rows [r0, r1) of the storage as float64, row-major (r1 - r0) x t: in place for FP64 storage,
// converted into `scratch` otherwise.
const double* rows_as_double(const SeriesView& s, int64_t r0, int64_t r1, std::vector<double>& scratch) {
  if (s.precision == FC_PRECISION_FP64) return rows_of<double>(s) + r0 * s.t;
  const float* z = rows_of<float>(s) + r0 * s.t;
  const int64_t count = (r1 - r0) * s.t;
  for (int64_t x = 0; x < count; ++x) scratch[static_cast<size_t>(x)] = static_cast<double>(z[x]);
  return scratch.data();
}

}  // namespace

std::unique_ptr<SeriesStorage> create_window(const SeriesView& s, int64_t begin, int64_t length, const double* weights,
                                             uint8_t* constant, const RunSettings& run) {
  auto w = std::make_unique<CpuSeries>(s.n, length, s.precision);
  if (s.precision == FC_PRECISION_FP64)
    window_rows<double>(s, begin, length, weights, constant, w->f64.get(), run);
  else
    window_rows<float>(s, begin, length, weights, constant, w->f32.get(), run);
  return w;
}

void gram(const SeriesView& s, double* out, const RunSettings& run) {
  check_int_range(s);
  const int64_t t = s.t, blocks = ceil_div(s.n, kBlockRows);
  std::fill(out, out + t * t, 0.0);
  // Waves of `team` blocks: each block's partial Gram (upper triangle) by one thread, then the
  // partials added to the total in block order, whatever the team.
  const int team = scratch_threads((kBlockRows * t + t * t) * int64_t(sizeof(double)), run, work_of(s.n, t, t) / 2, blocks);
  std::vector<std::vector<double>> partial(static_cast<size_t>(team), std::vector<double>(static_cast<size_t>(t * t)));
  std::vector<std::vector<double>> scratch(
      static_cast<size_t>(team), std::vector<double>(s.precision == FC_PRECISION_FP64 ? 0 : static_cast<size_t>(kBlockRows * t)));
  for (int64_t wave = 0; wave < blocks; wave += team) {
    const int64_t in_wave = std::min<int64_t>(team, blocks - wave);
    const int wave_team = static_cast<int>(in_wave);  // <= team
#pragma omp parallel for schedule(static, 1) num_threads(wave_team) if (wave_team > 1)
    for (int64_t b = 0; b < in_wave; ++b) {
      omp_set_num_threads(1);  // single-threaded BLAS even in a team of one
      const int64_t r0 = (wave + b) * kBlockRows, r1 = std::min(s.n, r0 + kBlockRows);
      const double* z = rows_as_double(s, r0, r1, scratch[static_cast<size_t>(b)]);
      cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, (int)t, (int)(r1 - r0), 1.0, z, (int)t, 0.0,
                  partial[static_cast<size_t>(b)].data(), (int)t);
    }
    for (int64_t b = 0; b < in_wave; ++b) {
      const double* p = partial[static_cast<size_t>(b)].data();
      for (int64_t i = 0; i < t; ++i)
        for (int64_t j = i; j < t; ++j) out[i * t + j] += p[i * t + j];
    }
  }
  for (int64_t i = 0; i < t; ++i)
    for (int64_t j = 0; j < i; ++j) out[i * t + j] = out[j * t + i];
}

void project(const SeriesView& s, const double* basis, int64_t l, float* factor, const RunSettings& run) {
  check_int_range(s);
  const int64_t t = s.t, blocks = ceil_div(s.n, kBlockRows);
  const int team = scratch_threads((kBlockRows * (t + l)) * int64_t(sizeof(double)), run, work_of(s.n, t, l), blocks);
  std::vector<std::vector<double>> scratch(static_cast<size_t>(team));
  std::vector<std::vector<double>> product(static_cast<size_t>(team), std::vector<double>(static_cast<size_t>(kBlockRows * l)));
  for (auto& v : scratch) v.resize(s.precision == FC_PRECISION_FP64 ? 0 : static_cast<size_t>(kBlockRows * t));
  // Blocks are independent (each writes its own rows): any thread may take any block.
#pragma omp parallel for schedule(dynamic, 1) num_threads(team) if (team > 1)
  for (int64_t b = 0; b < blocks; ++b) {
    omp_set_num_threads(1);
    const int slot = omp_get_thread_num();
    const int64_t r0 = b * kBlockRows, r1 = std::min(s.n, r0 + kBlockRows), rows = r1 - r0;
    const double* z = rows_as_double(s, r0, r1, scratch[static_cast<size_t>(slot)]);
    double* p = product[static_cast<size_t>(slot)].data();
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)rows, (int)l, (int)t, 1.0, z, (int)t, basis, (int)l, 0.0, p,
                (int)l);
    for (int64_t x = 0; x < rows * l; ++x) factor[r0 * l + x] = static_cast<float>(p[x]);
  }
}

}  // namespace cpu
}  // namespace fc
