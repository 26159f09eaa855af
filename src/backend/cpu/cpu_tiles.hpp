// What every CPU backend operation shares: the storage of normalized rows, the grid of product
// tiles with its per-thread tiles, and the loop that runs the grid's items on OpenMP threads while
// the calling thread reports progress. cpu_pcc.cpp (triangle, cross products) and cpu_graph.cpp
// (networks) compute every product through pair_kernels.hpp, one fma chain per pair, so a pair's
// r is the same bits in every operation, and the CUDA backend's.
#pragma once

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <limits>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "backend/output_values.hpp"
#include "backend/cpu/pair_kernels.hpp"
#include "base/error.hpp"
#include "base/huge_pages.hpp"
#include "base/parallel_errors.hpp"
#include "base/parallel_team.hpp"
#include "base/tile_plan.hpp"
#include "base/triangle_index.hpp"

namespace fc {
namespace cpu {

// Normalized rows in the storage precision: float for FP32/TF32, double for FP64 (the other is
// null). Not zeroed: their creator (create_series, a window) writes every value, and huge_buffer
// memory takes huge pages from that first touch (zeroing first was a second pass over fresh pages).
class CpuSeries : public SeriesStorage {
 public:
  CpuSeries(int64_t n, int64_t t_, fc_precision precision) : t(t_) {
    const size_t count = static_cast<size_t>(n * t);
    if (precision == FC_PRECISION_FP64) f64 = huge_buffer<double>(count);
    else f32 = huge_buffer<float>(count);
  }
  int64_t t = 0;
  HugeBuffer<float> f32;
  HugeBuffer<double> f64;
};

inline const CpuSeries& cpu_storage(const SeriesView& s) { return static_cast<const CpuSeries&>(*s.storage); }

template <class C>
const C* rows_of(const SeriesView& s);
template <>
inline const float* rows_of<float>(const SeriesView& s) { return cpu_storage(s).f32.get(); }
template <>
inline const double* rows_of<double>(const SeriesView& s) { return cpu_storage(s).f64.get(); }

// out[i][j] = out[j][i] for j < i < n, in 64 x 64 blocks (rows of a block row in parallel; a
// team only for copies worth one, parallel_team).
template <class O>
inline void mirror_lower(O* out, int64_t n, int64_t ld, int threads) {
  constexpr int64_t kBlock = 64;
  const int64_t blocks = ceil_div(n, kBlock);
  const int team = parallel_team(n / 2 * n, threads, blocks);
#pragma omp parallel for schedule(dynamic) num_threads(team) if (team > 1)
  for (int64_t bi = 0; bi < blocks; ++bi)
    for (int64_t bj = 0; bj <= bi; ++bj)
      for (int64_t i = bi * kBlock; i < std::min(n, (bi + 1) * kBlock); ++i)
        for (int64_t j = bj * kBlock; j < std::min(i, (bj + 1) * kBlock); ++j) out[i * ld + j] = out[j * ld + i];
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


inline int64_t budget_of(const RunSettings& run) { return run.memory_limit > 0 ? run.memory_limit : default_host_budget(); }

// Rows per progress step: within the memory budget and at most 256. This is also where a budget
// below one row of work (`columns` values) fails with FC_ERR_OUT_OF_MEMORY.
inline int64_t band_rows(int64_t columns, int64_t value_size, const RunSettings& run, int64_t n) {
  return plan_tile_rows(columns * value_size, budget_of(run), 256, "PCC of " + std::to_string(n) + " series");
}

// The product grid: row tiles of kTileRows series against column tiles of kTileCols, at
// positions fixed by N alone. Since every product is one fma chain (pair_kernels.hpp), a value no
// longer depends on the tile that computes it; the grid fixes the work items, the progress steps
// and the scratch per thread (a tile stays in the thread's L2 cache and is copied straight into
// the output). Both are multiples of the pair kernels' panel widths (48, 24, 12, 4 columns; 8 and
// 4 rows), so no panel is cut at a tile's edge.
constexpr int64_t kTileRows = 240;
constexpr int64_t kTileCols = 480;

// The columns' side of a call's products packed once (pair_kernels.hpp's PackedRows), unless the
// copy would take more than a quarter of the memory budget: then every product packs its own
// (slower, the same bits).
template <class C>
PackedRows<C> packed_rows(const SeriesView& s, const RunSettings& run) {
  const int64_t bytes = (s.n + 63) / 64 * 64 * s.t * int64_t(sizeof(C));
  if (bytes > budget_of(run) / 4) return {};
  return PackedRows<C>(cpu_isa(), rows_of<C>(s), s.n, s.t, run.threads);
}

// Threads for a grid of `work` multiply-adds: parallel_team's share of the work (so a small call
// runs on the calling thread alone and wakes no team), and no more than may hold a tile at once
// within the budget. One tile is always allowed: a budget of one row of work is accepted (the
// documented minimum), so below one tile (512 KiB FP32, 1 MiB FP64) the scratch exceeds the
// limit by at most that one tile.
inline int active_threads(int64_t tile_bytes, const RunSettings& run, int64_t work) {
  const int64_t fit = std::max<int64_t>(1, budget_of(run) / std::max<int64_t>(1, tile_bytes));
  return static_cast<int>(std::min<int64_t>(fit, parallel_team(work, omp_get_max_threads())));
}

// Multiply-adds of the row-order triangle of n series of t samples (the grid's work), or of its
// rows [begin, end) (a row band of a network call).
inline int64_t triangle_work(int64_t n, int64_t t, int64_t begin = 0, int64_t end = std::numeric_limits<int64_t>::max()) {
  if (n < 2) return 0;
  // n < 2^31 (check_int_range)
  const int64_t pairs = row_start(n, std::clamp<int64_t>(end, 0, n - 1)) - row_start(n, std::clamp<int64_t>(begin, 0, n - 1));
  return pairs > std::numeric_limits<int64_t>::max() / std::max<int64_t>(1, t) ? std::numeric_limits<int64_t>::max() : pairs * t;
}

// Progress in steps of `band` rows of [begin, end), reported in order once the rows are done;
// `units(r0, r1)` is the work of rows [r0, r1).
template <class Units>
class BandReporter {
 public:
  BandReporter(Progress& progress, int64_t begin, int64_t end, int64_t band, Units units)
      : progress_(progress), next_(begin), end_(end), band_(band), units_(units) {}
  // Reports every band that ends at or before `rows_done`; may throw FC_ERR_ABORTED.
  void report_upto(int64_t rows_done) {
    while (next_ < end_) {
      const int64_t e = std::min(end_, next_ + band_);
      if (e > rows_done) break;
      progress_.advance(units_(next_, e));
      next_ = e;
    }
  }

 private:
  Progress& progress_;
  int64_t next_, end_, band_;
  Units units_;
};

// Runs the items (row tile g, column tile k) of the row tiles covering [row_begin, row_end) on
// `threads` threads, items handed out in row-tile order. If item(slot, g, k) throws (an
// out-of-memory while it keeps edges), the threads stop after their current item and the first
// exception is rethrown here; slot is the thread's index (its scratch). The caller's thread (OpenMP's thread 0) reports progress
// as row tiles complete, so callbacks run on it, in order; a cancel stops the other threads
// after their current item and is rethrown here.
template <class ColumnTiles, class Item, class Reporter>
void run_tiles(int64_t row_begin, int64_t row_end, int threads, ColumnTiles column_tiles, Item item, Reporter& reporter) {
  const int64_t g0 = row_begin / kTileRows, g1 = ceil_div(row_end, kTileRows);
  std::vector<int64_t> first_item(static_cast<size_t>(g1 - g0 + 1), 0);
  for (int64_t g = g0; g < g1; ++g) first_item[g - g0 + 1] = first_item[g - g0] + column_tiles(g);
  const int64_t items = first_item.back();
  std::vector<std::atomic<int64_t>> left(static_cast<size_t>(g1 - g0));
  for (int64_t g = g0; g < g1; ++g) left[g - g0].store(first_item[g - g0 + 1] - first_item[g - g0]);
  std::atomic<int64_t> next_item{0};
  ParallelErrors errors;
  int64_t tiles_done = 0;  // complete prefix of row tiles; touched by thread 0 only
  auto rows_done = [&](int64_t tiles) { return tiles == 0 ? row_begin : std::min(row_end, (g0 + tiles) * kTileRows); };

  // No thread without an item: a team larger than the items only waits at the barrier.
  const int team = static_cast<int>(std::clamp<int64_t>(items, 1, std::max(1, threads)));
#pragma omp parallel num_threads(team) if (team > 1)
  {
    // Nothing an item calls starts threads of its own (an item is one thread's work).
    omp_set_num_threads(1);
    const int slot = omp_get_thread_num();
    int64_t g = g0;  // items rise in every thread, so its row tile only moves forward
    while (!errors.failed()) {
      const int64_t it = next_item.fetch_add(1, std::memory_order_relaxed);
      if (it >= items) break;
      while (first_item[g - g0 + 1] <= it) ++g;
      if (!errors.capture([&] { item(slot, g, it - first_item[g - g0]); })) break;
      left[g - g0].fetch_sub(1, std::memory_order_release);
      if (slot == 0) {
        errors.capture([&] {
          while (tiles_done < g1 - g0 && left[tiles_done].load(std::memory_order_acquire) == 0) ++tiles_done;
          reporter.report_upto(rows_done(tiles_done));
        });
      }
    }
  }
  errors.rethrow();
  reporter.report_upto(row_end);
}

// Per-thread product tiles, allocated before the parallel region (which must not throw): room for
// one call of at most min(rows, kTileRows) x min(cols, kTileCols) (rows, cols: the series of the
// products' two sides), so that a small call neither allocates nor zeroes a whole tile.
template <class C>
std::vector<std::vector<C>> thread_tiles(int threads, int64_t rows, int64_t cols) {
  const int64_t size = std::min(rows, kTileRows) * std::min(cols, kTileCols);
  return std::vector<std::vector<C>>(static_cast<size_t>(threads), std::vector<C>(static_cast<size_t>(std::max<int64_t>(1, size))));
}

// Row order: row tile g (series [g*R, g*R + R)) against columns from its diagonal g*R onwards,
// kTileCols at a time. Column order: series j of row tile g against the i of row tile k, k <= g
// (one item per k). A pair's value is the same bits in both (pair_kernels.hpp).
struct TriuGrid {
  int64_t n;
  fc_triu_order order;
  int64_t rows_end(int64_t g) const { return std::min(n, (g + 1) * kTileRows); }
  int64_t cols_begin(int64_t g) const { return order == FC_TRIU_ROW ? g * kTileRows : 0; }
  int64_t cols_end(int64_t g) const { return order == FC_TRIU_ROW ? n : rows_end(g); }
  int64_t column_tiles(int64_t g) const {
    return order == FC_TRIU_ROW ? ceil_div(cols_end(g) - cols_begin(g), kTileCols) : g + 1;
  }
};

// Dimensions past int: refused (the low-rank calls' CBLAS takes int dimensions; the pair
// kernels take any, but a series set that large cannot be stored anyway).
inline void check_int_range(const SeriesView& s) {
  if (s.n > std::numeric_limits<int>::max() || s.t > std::numeric_limits<int>::max())
    fail(FC_ERR_INVALID_ARG, "the CPU backend takes 32-bit dimensions; " + std::to_string(s.n) + " x " +
                                 std::to_string(s.t) + " series exceed them");
}

// The network primitives of the CPU backend (cpu_graph.cpp); CpuBackend's overrides call these.
// Each works on a row band (graph_backend.hpp): the rows q in [row_begin, row_end) of the pairs
// (q, p) (top_k: the rows), the band's ends at multiples of kTileRows or at n, so that a band's
// tiles are the whole call's and the joined bands give its bits; the whole call is the band
// [0, n). threshold_degree_rows and abs_histogram_rows ADD into their outputs; threshold_degree
// is the whole band plus the fixed point's conversion.
void threshold_edges(const SeriesView& s, const EdgeTest& test, int64_t row_begin, int64_t row_end, UpperEdges& out,
                     const RunSettings& run);
void threshold_degree_rows(const SeriesView& s, const EdgeTest& test, int64_t row_begin, int64_t row_end, int64_t* degree,
                           int64_t* strength_fixed, const RunSettings& run);
int strength_fraction_bits(int64_t n);
void threshold_degree(const SeriesView& s, const EdgeTest& test, int64_t* degree, double* strength, const RunSettings& run);
void abs_histogram_rows(const SeriesView& s, int64_t row_begin, int64_t row_end, std::vector<int64_t>& counts,
                        const RunSettings& run);
void top_k(const SeriesView& s, int64_t k, int64_t row_begin, int64_t row_end, int64_t* columns, float* values,
           const RunSettings& run);
// density_guess.hpp: the guess from a sample of pairs on this thread (false when none is taken).
bool density_guess(const SeriesView& s, int64_t target, int64_t eligible, float& guess);

}  // namespace cpu
}  // namespace fc
