// The CPU backend's network primitives: thresholded edges, degree and strength, the |r|
// histogram of the density rule and the k strongest partners per series. Each computes the very
// products of fc_pcc_triu's row-order grid (cpu_tiles.hpp), so every decision is made on the
// r that fc_pcc_triu writes, bit for bit, and reduces each tile while it sits in the thread's
// cache: nothing of N x N size is ever held.
#include <cmath>
#include <cstring>
#include <new>
#include <type_traits>

#include "backend/cpu/cpu_tiles.hpp"
#include "backend/density_guess.hpp"
#include "backend/row_band.hpp"
#include "base/parallel_errors.hpp"
#include "base/triangle_index.hpp"
#include "kernels/pair_sample.hpp"

namespace fc {
namespace cpu {
namespace {

// The r of a product as fc_pcc_triu's float output holds it: clamped, then rounded to float.
template <class C>
inline float r_of(C product) {
  return static_cast<float>(clamp_unit(product));
}

template <bool Absolute>
inline bool passes(float r, float threshold) {
  return Absolute ? std::fabs(r) >= threshold : r >= threshold;
}

// The rows of `rows` that have pairs (those below n - 1).
inline int64_t pair_rows_end(const SeriesView& s, RowBand rows) { return std::min(rows.end, s.n - 1); }

// Runs visit(slot, g, k, rows_end, c0, c1, tile) for every tile of the row-order triangle grid
// whose rows lie in `rows` (begin a multiple of kTileRows: a band's tiles are the whole call's):
// the tile holds the products of rows [g * kTileRows, ...) and columns [c0, c1) (row-major,
// leading dimension c1 - c0); rows below rows_end (<= min(rows.end, n - 1)) have pairs in it.
// Progress in the band's pairs. visit must not throw.
template <class C, class Visit>
void for_each_triangle_tile(const SeriesView& s, RowBand rows, int threads, const RunSettings& run, Visit visit) {
  const int64_t n = s.n, t = s.t;
  if (n < 2) return;
  const int64_t band = band_rows(n, sizeof(C), run, n);
  const int64_t q0 = rows.begin, q1 = pair_rows_end(s, rows);
  if (q0 >= q1) return;
  const C* z = rows_of<C>(s);
  auto tiles = thread_tiles<C>(threads, n, n);
  const PackedRows<C> packed = packed_rows<C>(s, run);
  const TriuGrid grid{n, FC_TRIU_ROW};
  auto item = [&](int slot, int64_t g, int64_t k) {
    const int64_t g_row = g * kTileRows, g_end = grid.rows_end(g);
    const int64_t c0 = grid.cols_begin(g) + k * kTileCols, c1 = std::min(grid.cols_end(g), c0 + kTileCols);
    C* tile = tiles[static_cast<size_t>(slot)].data();
    pair_products(g_end - g_row, c1 - c0, t, z + g_row * t, z + c0 * t, packed, c0, tile, c1 - c0);
    visit(slot, g, k, std::min(g_end, q1), c0, c1, static_cast<const C*>(tile));
  };
  auto units = [&](int64_t r0, int64_t r1) { return row_start(n, r1) - row_start(n, r0); };
  BandReporter<decltype(units)> reporter(*run.progress, q0, q1, band, units);
  run_tiles(q0, q1, threads, [&](int64_t g) { return grid.column_tiles(g); }, item, reporter);
}

// Threads for the triangle grid of s over `rows` (its work: triangle_work), each holding a tile
// and `scratch_bytes_per_thread` more.
template <class C>
int grid_threads(const SeriesView& s, RowBand rows, int64_t scratch_bytes_per_thread, const RunSettings& run) {
  return active_threads(kTileRows * kTileCols * int64_t(sizeof(C)) + scratch_bytes_per_thread, run,
                        triangle_work(s.n, s.t, rows.begin, rows.end));
}

// A necessary condition for passes<Absolute>(r_of(v), threshold), cheap enough to run on every
// product: |v| >= min(t, 1) (resp. v >= min(t, 1)) when r_of only clamps, as for float products;
// a clamped value passes only if the unclamped one clears min(t, 1), and t <= -1 (signed) lets
// everything through. Double products round to float after the clamp, which may lift a value
// over t, so they take the exact test.
template <bool Absolute, class C>
struct Prefilter {
  C bound;
  explicit Prefilter(float threshold)
      : bound(!Absolute && threshold <= -1.0f ? -std::numeric_limits<C>::infinity() : static_cast<C>(std::min(threshold, 1.0f))),
        threshold_(threshold) {}
  bool maybe(C v) const {
    if constexpr (std::is_same<C, float>::value) return Absolute ? std::fabs(v) >= bound : v >= bound;
    return passes<Absolute>(r_of(v), threshold_);
  }

 private:
  float threshold_;
};

// Calls emit(x, r) for every x in [0, len) whose r passes and whose column is not constant
// (col_constant may be null: none is). Most blocks of 16 hold no edge at realistic densities;
// the first loop, free of stores and branches, vectorizes and skips them.
template <bool Absolute, class C, class Emit>
inline void scan_run(const C* src, int64_t len, float threshold, const uint8_t* col_constant, Emit emit) {
  const Prefilter<Absolute, C> pre(threshold);
  auto one = [&](int64_t x) {
    const float r = r_of(src[x]);
    if (passes<Absolute>(r, threshold) && (col_constant == nullptr || col_constant[x] == 0)) emit(x, r);
  };
  int64_t x = 0;
  for (; x + 16 <= len; x += 16) {
    int any = 0;
    for (int u = 0; u < 16; ++u) any |= static_cast<int>(pre.maybe(src[x + u]));
    if (any == 0) continue;
    for (int u = 0; u < 16; ++u) one(x + u);
  }
  for (; x < len; ++x) one(x);
}

// --- threshold_edges -----------------------------------------------------------------------------

// The edges one grid tile contributes: per tile row the count, then (column - c0, r) in order.
struct TileEdges {
  std::vector<uint16_t> row_count;
  std::vector<uint16_t> column;
  std::vector<float> value;
};

template <bool Absolute, class C>
void threshold_edges_typed(const SeriesView& s, RowBand rows, float threshold, UpperEdges& out, const RunSettings& run) {
  const int64_t n = s.n;
  const uint8_t* constant = s.constant->data();
  const bool any_constant = s.n_constant > 0;
  const TriuGrid grid{n, FC_TRIU_ROW};
  // The band's row tiles [g0, g1) and their rows [q0, q1) with pairs.
  const int64_t q0 = rows.begin, q1 = std::max(q0, pair_rows_end(s, rows));
  const int64_t g0 = q0 / kTileRows, g1 = ceil_div(q1, kTileRows), row_tiles = g1 - g0;
  std::vector<int64_t> first_item(static_cast<size_t>(row_tiles + 1), 0);
  for (int64_t g = g0; g < g1; ++g) first_item[g - g0 + 1] = first_item[g - g0] + grid.column_tiles(g);
  std::vector<TileEdges> found(static_cast<size_t>(first_item.back()));

  // An out-of-memory while keeping edges stops the tiles and is rethrown (run_tiles).
  auto visit = [&](int, int64_t g, int64_t k, int64_t rows_end, int64_t c0, int64_t c1, const C* tile) {
    TileEdges& e = found[static_cast<size_t>(first_item[g - g0] + k)];
    const int64_t g_row = g * kTileRows, ld = c1 - c0;
    e.row_count.assign(static_cast<size_t>(rows_end - g_row), 0);
    for (int64_t r = g_row; r < rows_end; ++r) {
      const int64_t j0 = std::max(c0, r + 1);
      if (j0 >= c1 || constant[r] != 0) continue;
      const size_t before = e.column.size();
      scan_run<Absolute>(tile + (r - g_row) * ld + (j0 - c0), c1 - j0, threshold, any_constant ? constant + j0 : nullptr,
                         [&](int64_t x, float v) {
                           e.column.push_back(static_cast<uint16_t>(j0 - c0 + x));
                           e.value.push_back(v);
                         });
      e.row_count[static_cast<size_t>(r - g_row)] = static_cast<uint16_t>(e.column.size() - before);
    }
  };
  for_each_triangle_tile<C>(s, rows, grid_threads<C>(s, rows, 0, run), run, visit);

  // Row i's edges are the runs of its row tile's items in column order: count, then copy. Rows
  // are counted from the band's first (row_count has one entry per row of the band).
  const int64_t band_n = rows.end - rows.begin;
  out.row_count.assign(static_cast<size_t>(band_n), 0);
  std::vector<int64_t> row_first(static_cast<size_t>(band_n) + 1, 0);
  for (int64_t g = g0; g < g1; ++g)
    for (int64_t it = first_item[g - g0]; it < first_item[g - g0 + 1]; ++it) {
      const TileEdges& e = found[static_cast<size_t>(it)];
      for (size_t a = 0; a < e.row_count.size(); ++a) out.row_count[g * kTileRows - q0 + a] += e.row_count[a];
    }
  for (int64_t i = 0; i < band_n; ++i) row_first[i + 1] = row_first[i] + out.row_count[i];
  out.columns.resize(static_cast<size_t>(row_first[band_n]));
  out.values.resize(static_cast<size_t>(row_first[band_n]));
  ParallelErrors errors;
  const int team = parallel_team(row_first[band_n] + band_n, 0, row_tiles);  // copies: a team only for many edges
#pragma omp parallel for schedule(dynamic) num_threads(team) if (team > 1)
  for (int64_t g = g0; g < g1; ++g) {
    errors.capture([&] {
      const int64_t a0 = g * kTileRows - q0;  // the tile's first row in the band
      std::vector<int64_t> next(row_first.begin() + a0,
                                row_first.begin() + std::min(band_n, a0 + kTileRows));  // write position per row
      for (int64_t it = first_item[g - g0]; it < first_item[g - g0 + 1]; ++it) {
        TileEdges& e = found[static_cast<size_t>(it)];
        const int64_t c0 = grid.cols_begin(g) + (it - first_item[g - g0]) * kTileCols;
        size_t at = 0;
        for (size_t a = 0; a < e.row_count.size(); ++a)
          for (int64_t m = 0; m < e.row_count[a]; ++m, ++at) {
            out.columns[static_cast<size_t>(next[a])] = c0 + e.column[at];
            out.values[static_cast<size_t>(next[a]++)] = e.value[at];
          }
        e = TileEdges();  // release as we go
      }
    });
  }
  errors.rethrow();
}

// --- threshold_degree ----------------------------------------------------------------------------

// Strength is summed exactly, so that it is the same bits whatever order the tiles finish in:
// each tile's partial sums (at most 512 values, added in a fixed order in double) are rounded
// once to fixed point with `fraction_bits` bits after the point and added as 64-bit integers.
// With N < 2^b, every sum is below 2^b in magnitude, so 62 - b fraction bits never overflow;
// the rounding costs at most 2^-(63 - b) per tile (about 1e-14 at N = 20,000).
int fraction_bits(int64_t n) {
  int b = 0;
  while (b < 62 && (int64_t(1) << b) <= n) ++b;
  return 62 - b;
}

// The band's degrees and fixed-point strengths ADDED into degree and strength_fixed (either may
// be null).
template <bool Absolute, class C>
void threshold_degree_typed(const SeriesView& s, RowBand rows, float threshold, int64_t* degree, int64_t* strength_fixed,
                            const RunSettings& run) {
  const int64_t n = s.n;
  const uint8_t* constant = s.constant->data();
  const bool any_constant = s.n_constant > 0;
  const int frac = fraction_bits(n);
  std::vector<std::atomic<int64_t>> deg(static_cast<size_t>(n)), sum(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) deg[i].store(0), sum[i].store(0);
  // Per thread: counts and double sums of the tile's rows and columns.
  struct Partial {
    std::vector<int64_t> row_count, col_count;
    std::vector<double> row_sum, col_sum;
  };
  const int threads = grid_threads<C>(s, rows, (kTileRows + kTileCols) * 16, run);
  std::vector<Partial> partial(static_cast<size_t>(threads));
  for (Partial& p : partial) {
    p.row_count.resize(kTileRows);
    p.row_sum.resize(kTileRows);
    p.col_count.resize(kTileCols);
    p.col_sum.resize(kTileCols);
  }
  auto fixed = [frac](double v) { return static_cast<int64_t>(std::llrint(std::ldexp(v, frac))); };

  auto visit = [&](int slot, int64_t g, int64_t, int64_t rows_end, int64_t c0, int64_t c1, const C* tile) {
    Partial& p = partial[static_cast<size_t>(slot)];
    const int64_t g_row = g * kTileRows, ld = c1 - c0;
    std::fill(p.col_count.begin(), p.col_count.end(), 0);
    std::fill(p.col_sum.begin(), p.col_sum.end(), 0.0);
    int64_t* col_count = p.col_count.data();
    double* col_sum = p.col_sum.data();
    for (int64_t r = g_row; r < rows_end; ++r) {
      const int64_t j0 = std::max(c0, r + 1);
      int64_t count = 0;
      double total = 0.0;
      if (j0 < c1 && constant[r] == 0) {
        const int64_t x0 = j0 - c0;
        scan_run<Absolute>(tile + (r - g_row) * ld + x0, ld - x0, threshold, any_constant ? constant + j0 : nullptr,
                           [&](int64_t x, float v) {
                             const double w = static_cast<double>(Absolute ? std::fabs(v) : v);
                             ++count;
                             total += w;
                             ++col_count[x0 + x];
                             col_sum[x0 + x] += w;
                           });
      }
      p.row_count[static_cast<size_t>(r - g_row)] = count;
      p.row_sum[static_cast<size_t>(r - g_row)] = total;
    }
    for (int64_t r = g_row; r < rows_end; ++r) {
      if (p.row_count[static_cast<size_t>(r - g_row)] == 0) continue;
      deg[static_cast<size_t>(r)].fetch_add(p.row_count[static_cast<size_t>(r - g_row)], std::memory_order_relaxed);
      sum[static_cast<size_t>(r)].fetch_add(fixed(p.row_sum[static_cast<size_t>(r - g_row)]), std::memory_order_relaxed);
    }
    for (int64_t x = 0; x < ld; ++x) {
      if (col_count[x] == 0) continue;
      deg[static_cast<size_t>(c0 + x)].fetch_add(col_count[x], std::memory_order_relaxed);
      sum[static_cast<size_t>(c0 + x)].fetch_add(fixed(col_sum[x]), std::memory_order_relaxed);
    }
  };
  for_each_triangle_tile<C>(s, rows, threads, run, visit);
  for (int64_t i = 0; i < n; ++i) {
    if (degree != nullptr) degree[i] += deg[static_cast<size_t>(i)].load();
    if (strength_fixed != nullptr) strength_fixed[i] += sum[static_cast<size_t>(i)].load();
  }
}

// --- abs_histogram -------------------------------------------------------------------------------

// The band's counts ADDED into counts (kAbsHistogramBins entries).
template <class C>
void abs_histogram_typed(const SeriesView& s, RowBand rows, std::vector<int64_t>& counts, const RunSettings& run) {
  const uint8_t* constant = s.constant->data();
  const bool any_constant = s.n_constant > 0;
  const int64_t bins_bytes = kAbsHistogramBins * int64_t(sizeof(int64_t));
  const int threads = grid_threads<C>(s, rows, bins_bytes, run);
  // One histogram per thread, summed at the end: integer sums do not depend on the order.
  std::vector<std::vector<int64_t>> per_thread(static_cast<size_t>(threads), std::vector<int64_t>(kAbsHistogramBins, 0));
  auto visit = [&](int slot, int64_t g, int64_t, int64_t rows_end, int64_t c0, int64_t c1, const C* tile) {
    int64_t* hist = per_thread[static_cast<size_t>(slot)].data();
    const int64_t g_row = g * kTileRows, ld = c1 - c0;
    for (int64_t r = g_row; r < rows_end; ++r) {
      const int64_t j0 = std::max(c0, r + 1);
      if (j0 >= c1 || constant[r] != 0) continue;
      const C* src = tile + (r - g_row) * ld;
      for (int64_t x = j0 - c0; x < ld; ++x) {
        if (any_constant && constant[c0 + x] != 0) continue;
        const float a = std::fabs(r_of(src[x]));
        uint32_t bits;
        std::memcpy(&bits, &a, sizeof bits);
        ++hist[bits >> kAbsHistogramShift];
      }
    }
  };
  for_each_triangle_tile<C>(s, rows, threads, run, visit);
  for (const auto& h : per_thread)
    for (int64_t b = 0; b < kAbsHistogramBins; ++b) counts[static_cast<size_t>(b)] += h[static_cast<size_t>(b)];
}

// --- density_guess (density_guess.hpp) ----------------------------------------------------------

// The sample's |r| from one product in C over the stored rows, summed k ascending: an estimate,
// so it need not be the tiles' bits.
template <class C>
bool density_guess_typed(const SeriesView& s, int64_t target, int64_t eligible, float& guess) {
  constexpr int64_t kSampleBytes = int64_t(1) << 27;  // about 30 ms of one core's reads
  const int64_t samples = density_sample_pairs(s.t, eligible, kSampleBytes);
  if (samples == 0) return false;
  const C* rows = rows_of<C>(s);
  const uint8_t* constant = s.constant->data();
  std::vector<int64_t> counts(static_cast<size_t>(kAbsHistogramBins), 0);
  int64_t valid = 0;
  for (int64_t i = 0; i < samples; ++i) {
    const kernels::SampledPair d = kernels::sampled_pair(kernels::kDensitySampleSeed, i, s.n);
    if (d.q == d.p || constant[d.q] != 0 || constant[d.p] != 0) continue;
    const C* a = rows + d.q * s.t;
    const C* b = rows + d.p * s.t;
    C acc = 0;
    for (int64_t k = 0; k < s.t; ++k) acc += a[k] * b[k];
    const float m = std::fabs(r_of(acc));
    uint32_t bits;
    std::memcpy(&bits, &m, sizeof bits);
    if ((bits >> kAbsHistogramShift) >= static_cast<uint32_t>(kAbsHistogramBins)) continue;  // not a number: no estimate
    ++counts[bits >> kAbsHistogramShift];
    ++valid;
  }
  return density_guess_from_sample(counts, valid, target, eligible, guess);
}

// --- top_k ---------------------------------------------------------------------------------------

// The k best candidates of one row so far, as a heap whose root is the worst of them, stored in
// the row's own slots of the output. Rank: larger |r| first, then the smaller column.
class RowHeap {
 public:
  void reset(int64_t* columns, float* values, int64_t k) {
    col_ = columns;
    val_ = values;
    k_ = k;
    size_ = 0;
  }

  void offer(int64_t j, float r) {
    if (size_ < k_) {
      int64_t at = size_++;
      col_[at] = j;
      val_[at] = r;
      while (at > 0) {  // sift up
        const int64_t up = (at - 1) / 2;
        if (!worse(at, up)) break;
        swap(at, up);
        at = up;
      }
    } else if (ranks_below(val_[0], col_[0], r, j)) {
      col_[0] = j;
      val_[0] = r;
      sift_down(0, size_);
    }
  }
  // Sorts the kept candidates best first and pads the row to k with column -1, value 0.
  void finish() {
    for (int64_t end = size_ - 1; end > 0; --end) {  // heap sort: the worst goes to the back
      swap(0, end);
      sift_down(0, end);
    }
    for (int64_t a = size_; a < k_; ++a) {
      col_[a] = -1;
      val_[a] = 0.0f;
    }
  }

 private:
  // (ra, ja) ranks below (rb, jb).
  static bool ranks_below(float ra, int64_t ja, float rb, int64_t jb) {
    const float a = std::fabs(ra), b = std::fabs(rb);
    return a < b || (a == b && ja > jb);
  }
  bool worse(int64_t a, int64_t b) const { return ranks_below(val_[a], col_[a], val_[b], col_[b]); }
  void swap(int64_t a, int64_t b) {
    std::swap(col_[a], col_[b]);
    std::swap(val_[a], val_[b]);
  }
  void sift_down(int64_t at, int64_t size) {
    for (;;) {
      const int64_t l = 2 * at + 1, r = l + 1;
      int64_t low = at;
      if (l < size && worse(l, low)) low = l;
      if (r < size && worse(r, low)) low = r;
      if (low == at) return;
      swap(at, low);
      at = low;
    }
  }
  int64_t* col_ = nullptr;
  float* val_ = nullptr;
  int64_t k_ = 0;
  int64_t size_ = 0;
};

// Row tile g of the full matrix: columns >= g*R from the triangle grid's tiles (g, k), columns of
// an earlier row tile g' from the products of row tile g with the series of tile g' (the same
// bits as the triangle's pair (min, max): pair_kernels.hpp).
// Rows [rows.begin, rows.end) (begin a multiple of kTileRows), row i's k at (i - rows.begin) * k.
template <class C>
void top_k_typed(const SeriesView& s, RowBand out_rows, int64_t k, int64_t* columns, float* values, const RunSettings& run) {
  const int64_t n = s.n, t = s.t;
  const C* z = rows_of<C>(s);
  const uint8_t* constant = s.constant->data();
  const int threads = grid_threads<C>(s, RowBand{0, n}, 0, run);
  auto tiles = thread_tiles<C>(threads, n, n);
  std::vector<std::vector<RowHeap>> heaps(static_cast<size_t>(threads), std::vector<RowHeap>(kTileRows));
  const PackedRows<C> packed = packed_rows<C>(s, run);
  const TriuGrid grid{n, FC_TRIU_ROW};
  const int64_t band = band_rows(n, sizeof(C), run, n);

  auto item = [&](int slot, int64_t g, int64_t) {
    const int64_t g_row = g * kTileRows, g_end = grid.rows_end(g);
    C* tile = tiles[static_cast<size_t>(slot)].data();
    RowHeap* rows = heaps[static_cast<size_t>(slot)].data();
    const int64_t out0 = out_rows.begin;
    for (int64_t i = g_row; i < g_end; ++i) rows[i - g_row].reset(columns + (i - out0) * k, values + (i - out0) * k, k);
    auto offer = [&](int64_t i, int64_t j, float r) {
      if (constant[i] == 0 && constant[j] == 0) rows[i - g_row].offer(j, r);
    };
    auto product = [&](int64_t tile_row, int64_t c0, int64_t c1) {
      const int64_t r0 = tile_row * kTileRows, r1 = grid.rows_end(tile_row);
      pair_products(r1 - r0, c1 - c0, t, z + r0 * t, z + c0 * t, packed, c0, tile, c1 - c0);
    };
    for (int64_t gp = 0; gp < g; ++gp) {  // earlier row tiles
      const int64_t c0 = gp * kTileRows, c1 = grid.rows_end(gp), ld = c1 - c0;
      product(g, c0, c1);
      for (int64_t i = g_row; i < g_end; ++i) {
        const C* src = tile + (i - g_row) * ld;
        for (int64_t j = c0; j < c1; ++j) offer(i, j, r_of(src[j - c0]));
      }
    }
    for (int64_t kk = 0; kk < grid.column_tiles(g); ++kk) {  // this row tile's triangle tiles
      const int64_t c0 = g_row + kk * kTileCols, c1 = std::min(n, c0 + kTileCols), ld = c1 - c0;
      product(g, c0, c1);
      for (int64_t i = g_row; i < g_end; ++i) {
        const C* src = tile + (i - g_row) * ld;
        for (int64_t j = std::max(c0, i + 1); j < c1; ++j) {
          const float r = r_of(src[j - c0]);
          offer(i, j, r);
          if (j < g_end) offer(j, i, r);  // the pair (i, j) is also row j's candidate i
        }
      }
    }
    for (int64_t i = g_row; i < g_end; ++i) rows[i - g_row].finish();
  };
  auto units = [](int64_t r0, int64_t r1) { return r1 - r0; };
  BandReporter<decltype(units)> reporter(*run.progress, out_rows.begin, out_rows.end, band, units);
  run_tiles(out_rows.begin, out_rows.end, threads, [](int64_t) { return int64_t(1); }, item, reporter);
}

template <class C>
void threshold_edges_of(const SeriesView& s, RowBand rows, const EdgeTest& test, UpperEdges& out, const RunSettings& run) {
  if (test.absolute) threshold_edges_typed<true, C>(s, rows, test.threshold, out, run);
  else threshold_edges_typed<false, C>(s, rows, test.threshold, out, run);
}

template <class C>
void threshold_degree_of(const SeriesView& s, RowBand rows, const EdgeTest& test, int64_t* degree, int64_t* strength_fixed,
                         const RunSettings& run) {
  if (test.absolute) threshold_degree_typed<true, C>(s, rows, test.threshold, degree, strength_fixed, run);
  else threshold_degree_typed<false, C>(s, rows, test.threshold, degree, strength_fixed, run);
}

RowBand checked_rows(const SeriesView& s, int64_t row_begin, int64_t row_end) {
  check_int_range(s);
  return checked_row_band(s.n, row_begin, row_end, kTileRows);
}

}  // namespace

void threshold_edges(const SeriesView& s, const EdgeTest& test, int64_t row_begin, int64_t row_end, UpperEdges& out,
                     const RunSettings& run) {
  const RowBand rows = checked_rows(s, row_begin, row_end);
  ThreadScope threads(run.threads);
  if (s.precision == FC_PRECISION_FP64) threshold_edges_of<double>(s, rows, test, out, run);
  else threshold_edges_of<float>(s, rows, test, out, run);
}

int strength_fraction_bits(int64_t n) { return fraction_bits(n); }

void threshold_degree_rows(const SeriesView& s, const EdgeTest& test, int64_t row_begin, int64_t row_end, int64_t* degree,
                           int64_t* strength_fixed, const RunSettings& run) {
  const RowBand rows = checked_rows(s, row_begin, row_end);
  ThreadScope threads(run.threads);
  if (s.precision == FC_PRECISION_FP64) threshold_degree_of<double>(s, rows, test, degree, strength_fixed, run);
  else threshold_degree_of<float>(s, rows, test, degree, strength_fixed, run);
}

// The whole call: the band [0, n), then the fixed point to double.
void threshold_degree(const SeriesView& s, const EdgeTest& test, int64_t* degree, double* strength, const RunSettings& run) {
  const size_t n = static_cast<size_t>(s.n);
  if (degree != nullptr) std::fill(degree, degree + n, 0);
  std::vector<int64_t> fixed(strength != nullptr ? n : 0, 0);
  threshold_degree_rows(s, test, 0, s.n, degree, strength != nullptr ? fixed.data() : nullptr, run);
  const int frac = fraction_bits(s.n);
  for (size_t i = 0; i < fixed.size(); ++i) strength[i] = std::ldexp(static_cast<double>(fixed[i]), -frac);
}

void abs_histogram_rows(const SeriesView& s, int64_t row_begin, int64_t row_end, std::vector<int64_t>& counts,
                        const RunSettings& run) {
  const RowBand rows = checked_rows(s, row_begin, row_end);
  check_histogram_bins(counts);
  ThreadScope threads(run.threads);
  if (s.precision == FC_PRECISION_FP64) abs_histogram_typed<double>(s, rows, counts, run);
  else abs_histogram_typed<float>(s, rows, counts, run);
}

bool density_guess(const SeriesView& s, int64_t target, int64_t eligible, float& guess) {
  return s.precision == FC_PRECISION_FP64 ? density_guess_typed<double>(s, target, eligible, guess)
                                          : density_guess_typed<float>(s, target, eligible, guess);
}

void top_k(const SeriesView& s, int64_t k, int64_t row_begin, int64_t row_end, int64_t* columns, float* values,
           const RunSettings& run) {
  const RowBand rows = checked_rows(s, row_begin, row_end);
  if (k < 1 || rows.begin >= rows.end) return;
  ThreadScope threads(run.threads);
  if (s.precision == FC_PRECISION_FP64) top_k_typed<double>(s, rows, k, columns, values, run);
  else top_k_typed<float>(s, rows, k, columns, values, run);
}

}  // namespace cpu
}  // namespace fc
