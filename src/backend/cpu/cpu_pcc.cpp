// The CPU backend's PCC capability (backend/pcc_backend.hpp): the ordered triangle and cross
// blocks through the product grid of cpu_tiles.hpp, each tile's values going straight from the
// thread's cache-resident tile into the caller's output.
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define FASTCONN_STREAMING_STORES 1
#endif

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "backend/cpu/cpu_pcc.hpp"
#include "backend/cpu/cpu_tiles.hpp"
#include "base/error.hpp"
#include "base/tile_plan.hpp"
#include "base/triangle_index.hpp"

namespace fc {
namespace cpu {
namespace {

// Copies len products into out, clamped (and encoded, for the compact formats); pairs with a
// constant series get `fill`. row_constant:
// the row's own series is constant; col_constant: per-column flags starting at the first column.
template <class C, class O>
inline void finish_run(const C* src, O* dst, int64_t len, bool row_constant, const uint8_t* col_constant, bool any_constant,
                       O fill) {
  if (row_constant) {
    std::fill(dst, dst + len, fill);
  } else if (!any_constant) {
    for (int64_t x = 0; x < len; ++x) dst[x] = kernels::Encode<O>::of(clamp_unit(src[x]));
  } else {
    for (int64_t x = 0; x < len; ++x) dst[x] = col_constant[x] ? fill : kernels::Encode<O>::of(clamp_unit(src[x]));
  }
}

#ifdef FASTCONN_STREAMING_STORES
// The triangle is written once and never read back here: with non-temporal stores a line goes
// to memory without first being read for ownership, which halves the traffic of the largest
// cost after the products (measured: 64-byte stores save ~12 % of the CPU time of the 20,000 x 165
// triangle; 16- and 32-byte ones lose, so only AVX-512 streams). min(1, v) and max(-1, v) in
// this operand order return v for NaN, like clamp_unit, so the values are the same bits as
// finish_run's.
bool has_avx512() {
  static const bool yes = __builtin_cpu_supports("avx512f");
  return yes;
}
// GCC 12 warns inside its own _mm512_min/max headers (their "undefined" pass-through operand).
#pragma GCC diagnostic push
#ifndef __clang__
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
// finish_run for a row whose own series is not constant (col_constant may be null: none is), in
// parts: values [x, upto) of the run's len are due, and written up to the last 64-byte boundary of
// dst below upto (all of them once upto == len); returns where the next part starts. A whole run
// is stream_run(..., 0, len, len, ...).
__attribute__((target("avx512f"))) int64_t stream_run(const float* src, float* dst, int64_t x, int64_t upto, int64_t len,
                                                      const uint8_t* col_constant, float fill) {
  auto scalar = [&](int64_t x) { dst[x] = col_constant != nullptr && col_constant[x] ? fill : clamp_unit(src[x]); };
  for (; x < upto && (reinterpret_cast<uintptr_t>(dst + x) & 63) != 0; ++x) scalar(x);
  const __m512 one = _mm512_set1_ps(1.0f), minus_one = _mm512_set1_ps(-1.0f), fills = _mm512_set1_ps(fill);
  for (; x + 16 <= upto; x += 16) {
    __m512 v = _mm512_max_ps(minus_one, _mm512_min_ps(one, _mm512_loadu_ps(src + x)));
    if (col_constant != nullptr) {
      const __m512i flags = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(col_constant + x)));
      v = _mm512_mask_mov_ps(v, _mm512_test_epi32_mask(flags, flags), fills);
    }
    _mm512_stream_ps(dst + x, v);
  }
  if (upto == len)
    for (; x < len; ++x) scalar(x);
  return x;
}
__attribute__((target("avx512f"))) int64_t stream_run(const double* src, double* dst, int64_t x, int64_t upto, int64_t len,
                                                      const uint8_t* col_constant, double fill) {
  auto scalar = [&](int64_t x) { dst[x] = col_constant != nullptr && col_constant[x] ? fill : clamp_unit(src[x]); };
  for (; x < upto && (reinterpret_cast<uintptr_t>(dst + x) & 63) != 0; ++x) scalar(x);
  const __m512d one = _mm512_set1_pd(1.0), minus_one = _mm512_set1_pd(-1.0), fills = _mm512_set1_pd(fill);
  for (; x + 8 <= upto; x += 8) {
    __m512d v = _mm512_max_pd(minus_one, _mm512_min_pd(one, _mm512_loadu_pd(src + x)));
    if (col_constant != nullptr) {
      const __m512i flags = _mm512_cvtepu8_epi64(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(col_constant + x)));
      v = _mm512_mask_mov_pd(v, _mm512_test_epi64_mask(flags, flags), fills);
    }
    _mm512_stream_pd(dst + x, v);
  }
  if (upto == len)
    for (; x < len; ++x) scalar(x);
  return x;
}
#pragma GCC diagnostic pop
#endif

// finish_run into the output triangle: streamed when the storage and output types match.
template <class C, class O>
inline void write_triangle_run(const C* src, O* dst, int64_t len, bool row_constant, const uint8_t* col_constant,
                               bool any_constant, O fill) {
#ifdef FASTCONN_STREAMING_STORES
  if constexpr (std::is_same<C, O>::value) {
    if (!row_constant && has_avx512()) {
      stream_run(src, dst, 0, len, len, any_constant ? col_constant : nullptr, fill);
      return;
    }
  }
#endif
  finish_run(src, dst, len, row_constant, col_constant, any_constant, fill);
}

// How the triangle's values leave the products (FASTCONN_CPU_TRIU_WRITE, read at every call, so
// that bench_cpu_pcc measures the ways in the same rounds; all give the same bits):
// - tile (the default): each whole tile's products, then its rows' runs;
// - rows: the tile's rows a few at a time (kChunkRows) into the first rows of the thread's tile,
//   which stay in L1/L2 (a whole FP64 tile, 0.9 MB, does not beside the packed columns), each
//   run written after its chunk, and the products limited to the columns the chunk's runs need
//   (the diagonal tiles' lower half is skipped);
// - parts: rows, with the streamed runs going out as the products' register blocks finish
//   (pair_kernels.hpp's BlockDone), so that the stores drain behind the next blocks'
//   multiply-adds instead of stalling the core in one burst (where the runs stream: AVX-512 and
//   the storage type written; otherwise it is rows).
// 20,000 x 165 FP64 row order on 2 cores, the ways in the same rounds: on the AMD EPYC (CPU time,
// medians of 5) rows 1-2 % below tile, parts level with it; on the H200 host's Intel Xeon (medians
// of 5, load 2) tile 0.678 s, parts 0.681, rows 0.701: tile stays the default.
enum class TriuWrite { kTile, kRows, kParts };
template <class C, class O>
TriuWrite triu_write() {
  const char* env = std::getenv("FASTCONN_CPU_TRIU_WRITE");
  if (env == nullptr) return TriuWrite::kTile;
  bool streams = false;
#ifdef FASTCONN_STREAMING_STORES
  if constexpr (std::is_same<C, O>::value) streams = has_avx512();
#endif
  if (std::strcmp(env, "parts") == 0) return streams ? TriuWrite::kParts : TriuWrite::kRows;
  return std::strcmp(env, "rows") == 0 ? TriuWrite::kRows : TriuWrite::kTile;
}
constexpr int64_t kChunkRows = 8;  // the AVX-512 and AVX2 paths' register block rows (8, 4)
// parts: a chunk's rows are written every kPartColumns finished columns (8 rows x 6 lines in
// FP64, within a core's store buffer): at every register block (24 FP64 columns) the calls cost
// more than they hide (2 EPYC cores: parts 1.4 % above tile; with 48, level with it).
constexpr int64_t kPartColumns = 48;
// Trimmed products start at a multiple of every path's panel width (48, 24, 12, 4 columns), so
// that they still read the call's packed panels.
constexpr int64_t kColumnAlign = 48;
// stream_run where triu_write<C, O>() is kParts (for other types it is never called).
template <class C, class O>
int64_t stream_part(const C* src, O* dst, int64_t x, int64_t upto, int64_t len, const uint8_t* col_constant, O fill) {
#ifdef FASTCONN_STREAMING_STORES
  if constexpr (std::is_same<C, O>::value) return stream_run(src, dst, x, upto, len, col_constant, fill);
#endif
  (void)src, (void)dst, (void)upto, (void)len, (void)col_constant, (void)fill;
  return x;
}

// A callable as pair_products' BlockDone (which holds a plain function and its context).
template <class F>
BlockDone block_done(F& f) {
  return {[](void* context, int64_t i0, int rows, int64_t cols_done) { (*static_cast<F*>(context))(i0, rows, cols_done); }, &f};
}

// Makes streamed stores visible in order before a tile is counted as done.
inline void end_streaming() {
#ifdef FASTCONN_STREAMING_STORES
  _mm_sfence();
#endif
}

template <class C, class O>
void triu_typed(const SeriesView& s, fc_triu_order order, int64_t row_begin, int64_t row_end, O* out, const RunSettings& run) {
  const int64_t n = s.n, t = s.t;
  const C* z = rows_of<C>(s);
  const uint8_t* constant = s.constant->data();
  const bool any_constant = s.n_constant > 0;
  const O fill = policy_value<O>(run.constant_policy);
  const bool row_order = order == FC_TRIU_ROW;
  const int64_t band = band_rows(n, sizeof(C), run, n);
  // Work of the rows asked for: their pairs times t.
  const int64_t pairs = row_order ? row_start(n, row_end) - row_start(n, row_begin) : col_start(row_end) - col_start(row_begin);
  const int64_t work = pairs > std::numeric_limits<int64_t>::max() / std::max<int64_t>(1, t) ? std::numeric_limits<int64_t>::max()
                                                                        : pairs * t;
  const int threads = active_threads(kTileRows * kTileCols * int64_t(sizeof(C)), run, work);
  auto tiles = thread_tiles<C>(threads, n, n);
  const PackedRows<C> packed = packed_rows<C>(s, run);
  const int64_t base = row_order ? row_start(n, row_begin) : col_start(row_begin);
  const TriuGrid grid{n, order};

  const TriuWrite how = triu_write<C, O>();

  auto item = [&](int slot, int64_t g, int64_t k) {
    const int64_t g_row = g * kTileRows, g_end = grid.rows_end(g);
    const int64_t r_lo = std::max(g_row, row_begin), r_hi = std::min(g_end, row_end);
    C* tile = tiles[static_cast<size_t>(slot)].data();
    // Row order: rows i of this tile that were asked for keep their columns j > i of column tile
    // [lo, hi). Column order: series j of row tile g (the products' rows) against the series i of
    // row tile k <= g (their columns), lo = k * kTileRows: each j asked for keeps the i < j of the
    // tile. Either way a contiguous run of the tile's row r - g_row: columns [first, first + len),
    // whose series start at lo + first, going to dst.
    const int64_t lo = row_order ? grid.cols_begin(g) + k * kTileCols : k * kTileRows;
    const int64_t hi = row_order ? std::min(grid.cols_end(g), lo + kTileCols) : grid.rows_end(k), ld = hi - lo;
    struct Run {
      int64_t first, len;
      O* dst;
    };
    auto run_of = [&](int64_t r) -> Run {
      if (row_order) {
        const int64_t j0 = std::max(lo, r + 1);
        return j0 < hi ? Run{j0 - lo, hi - j0, out + (row_start(n, r) - base) + (j0 - r - 1)} : Run{0, 0, nullptr};
      }
      const int64_t len = std::min(hi, r) - lo;
      return len > 0 ? Run{0, len, out + (col_start(r) - base) + lo} : Run{0, 0, nullptr};
    };
    // The products of rows [c0, c1), columns [cs, ce) of the tile, land in `tile` from its row 0
    // (row r at tile + (r - c0) * ld, column x at + x).
    int64_t c0 = 0, cs = 0, ce = 0;
    int64_t written[kTileRows] = {};  // parts: of each tile row's run (index r - g_row)
    int64_t flush_i0 = -1, last_flush = 0;  // the register block on_block last wrote, and its cols_done
    auto on_block = [&](int64_t i0, int rows, int64_t cols_done) {
      if (i0 != flush_i0) flush_i0 = i0, last_flush = 0;  // (a chunk holds two AVX2 blocks)
      if (cs + cols_done < ce && cols_done - last_flush < kPartColumns) return;
      last_flush = cols_done;
      for (int64_t r = c0 + i0; r < c0 + i0 + rows; ++r) {
        if (r < r_lo || r >= r_hi || constant[r] != 0) continue;
        const Run run = run_of(r);
        const int64_t upto = std::clamp<int64_t>(cs + cols_done - run.first, 0, run.len);
        int64_t& done = written[r - g_row];
        if (upto > done)
          done = stream_part(tile + (r - c0) * ld + run.first, run.dst, done, upto, run.len,
                             any_constant ? constant + lo + run.first : nullptr, fill);
      }
    };
    // tile: all rows at once, every column; rows and parts: chunks of the rows asked for.
    const int64_t step = how == TriuWrite::kTile ? g_end - g_row : kChunkRows;
    for (int64_t p = how == TriuWrite::kTile ? g_row : r_lo; p < (how == TriuWrite::kTile ? g_end : r_hi); p += step) {
      c0 = p;
      flush_i0 = -1;
      const int64_t c1 = std::min(p + step, how == TriuWrite::kTile ? g_end : r_hi);
      ce = ld;
      cs = 0;
      if (how != TriuWrite::kTile) {  // only the columns of the chunk's runs
        if (row_order) cs = std::clamp<int64_t>(c0 + 1 - lo, 0, ld) / kColumnAlign * kColumnAlign;
        else ce = std::clamp<int64_t>(c1 - 1 - lo, 0, ld);
        if (ce <= cs) continue;
      }
      pair_products(c1 - c0, ce - cs, t, z + c0 * t, z + (lo + cs) * t, packed, lo + cs, tile + cs, ld,
                    how == TriuWrite::kParts ? block_done(on_block) : BlockDone{});
      for (int64_t r = std::max(c0, r_lo); r < std::min(c1, r_hi); ++r) {
        if (how == TriuWrite::kParts && constant[r] == 0) continue;  // written by on_block
        const Run run = run_of(r);
        if (run.len > 0)
          write_triangle_run(tile + (r - c0) * ld + run.first, run.dst, run.len, constant[r] != 0, constant + lo + run.first,
                             any_constant, fill);
      }
    }
    end_streaming();
  };
  auto units = [&](int64_t r0, int64_t r1) {
    return row_order ? row_start(n, r1) - row_start(n, r0) : col_start(r1) - col_start(r0);
  };
  BandReporter<decltype(units)> reporter(*run.progress, row_begin, row_end, band, units);
  run_tiles(row_begin, row_end, threads, [&](int64_t g) { return grid.column_tiles(g); }, item, reporter);
}

// Rows [a_begin, a_end) of a against every series of b, on the same fixed grid (row tiles of a,
// column tiles of b from 0). A float tile lying wholly inside the requested rows is written by
// the products straight into `out`; otherwise it goes through the thread's tile.
// C: the storage's type; O: the output's (float, or double for the _f64 calls).
template <class C, class O>
void cross_typed(const SeriesView& a, const SeriesView& b, int64_t a_begin, int64_t a_end, bool same_set, O* out,
                 int64_t ld, const RunSettings& run) {
  const int64_t t = a.t, nb = b.n;
  const C* za = rows_of<C>(a);
  const C* zb = rows_of<C>(b);
  const uint8_t* ca = a.constant->data();
  const uint8_t* cb = b.constant->data();
  const bool any_constant = a.n_constant > 0 || b.n_constant > 0;
  const O fill = policy_value<O>(run.constant_policy);
  const int64_t band = band_rows(nb, sizeof(C), run, nb);
  const int64_t rows = a_end - a_begin;
  const int64_t work = same_set ? triangle_work(a.n, t)
                                : (rows > std::numeric_limits<int64_t>::max() / std::max<int64_t>(1, nb * t)
                                       ? std::numeric_limits<int64_t>::max()
                                       : rows * nb * t);
  const int threads = active_threads(kTileRows * kTileCols * int64_t(sizeof(C)), run, work);
  auto tiles = thread_tiles<C>(threads, a.n, nb);
  const PackedRows<C> packed = packed_rows<C>(same_set ? a : b, run);

  auto units = [&](int64_t r0, int64_t r1) { return (r1 - r0) * nb; };
  BandReporter<decltype(units)> reporter(*run.progress, a_begin, a_end, band, units);
  if (same_set) {
    // r(s, s): the upper triangle from row order's calls (TriuGrid), so that it is the triangle's
    // bits, then mirrored: half the products of the full matrix, plus the mirroring copy (the
    // products are symmetric, pair_kernels.hpp, so computing the lower half would give the same).
    if (a_begin != 0 || a_end != a.n) fail(FC_ERR_INTERNAL, "a same-set product is computed whole");
    const TriuGrid grid{a.n, FC_TRIU_ROW};
    auto upper = [&](int slot, int64_t g, int64_t k) {
      const int64_t g_row = g * kTileRows, g_end = grid.rows_end(g);
      const int64_t c0 = grid.cols_begin(g) + k * kTileCols, c1 = std::min(grid.cols_end(g), c0 + kTileCols), w = c1 - c0;
      C* tile = tiles[static_cast<size_t>(slot)].data();
      pair_products(g_end - g_row, w, t, za + g_row * t, za + c0 * t, packed, c0, tile, w);
      for (int64_t i = g_row; i < g_end; ++i) {
        O* row = out + i * ld;
        const int64_t j0 = std::max(c0, i + 1);
        if (j0 < c1) finish_run(tile + (i - g_row) * w + (j0 - c0), row + j0, c1 - j0, ca[i] != 0, ca + j0, any_constant, fill);
        if (i >= c0 && i < c1) row[i] = ca[i] ? fill : kernels::Encode<O>::of(1.0);  // the diagonal is exactly 1
      }
    };
    run_tiles(a_begin, a_end, threads, [&](int64_t g) { return grid.column_tiles(g); }, upper, reporter);
    mirror_lower(out, a.n, ld, threads);
    return;
  }
  auto item = [&](int slot, int64_t g, int64_t k) {
    const int64_t g_row = g * kTileRows, g_end = std::min(a.n, g_row + kTileRows);
    const int64_t c0 = k * kTileCols, c1 = std::min(nb, c0 + kTileCols), width = c1 - c0;
    const int64_t r0 = std::max(g_row, a_begin), r1 = std::min(g_end, a_end);
    if constexpr (std::is_same<C, float>::value && std::is_same<O, float>::value) {
      // In place: the products write the output rows, then they are clamped.
      if (r0 == g_row && r1 == g_end) {
        float* dst = out + (g_row - a_begin) * ld + c0;
        pair_products(g_end - g_row, width, t, za + g_row * t, zb + c0 * t, packed, c0, dst, ld);
        for (int64_t i = r0; i < r1; ++i) {
          float* row = dst + (i - g_row) * ld;
          finish_run(row, row, width, ca[i] != 0, cb + c0, any_constant, fill);
          if (same_set && i >= c0 && i < c1) row[i - c0] = ca[i] ? fill : 1.0f;  // the diagonal is exactly 1
        }
        return;
      }
    }
    C* tile = tiles[static_cast<size_t>(slot)].data();
    pair_products(g_end - g_row, width, t, za + g_row * t, zb + c0 * t, packed, c0, tile, width);
    for (int64_t i = r0; i < r1; ++i) {
      O* row = out + (i - a_begin) * ld + c0;
      finish_run(tile + (i - g_row) * width, row, width, ca[i] != 0, cb + c0, any_constant, fill);
      if (same_set && i >= c0 && i < c1) row[i - c0] = ca[i] ? fill : kernels::Encode<O>::of(1.0);
    }
  };
  run_tiles(a_begin, a_end, threads, [&](int64_t) { return ceil_div(nb, kTileCols); }, item, reporter);
}

void require_host(const Output& out) {
  if (out.on_device) fail(FC_ERR_INVALID_ARG, "the CPU backend cannot write to device memory");
}

}  // namespace

void triu(const SeriesView& s, fc_triu_order order, int64_t row_begin, int64_t row_end, const Output& out,
          const RunSettings& run) {
  require_host(out);
  check_int_range(s);
  ThreadScope threads(run.threads);
  const bool f64 = s.precision == FC_PRECISION_FP64;
  with_value_type(out.type, [&](auto type) {
    using O = decltype(type);
    if (f64) triu_typed<double, O>(s, order, row_begin, row_end, static_cast<O*>(out.data), run);
    else triu_typed<float, O>(s, order, row_begin, row_end, static_cast<O*>(out.data), run);
  });
}

void cross(const SeriesView& a, const SeriesView& b, int64_t a_begin, int64_t a_end, bool same_set, const Output& out,
           int64_t ld, const RunSettings& run) {
  require_host(out);
  check_int_range(a);
  check_int_range(b);
  ThreadScope threads(run.threads);
  const bool f64 = a.precision == FC_PRECISION_FP64;
  with_value_type(out.type, [&](auto type) {
    using O = decltype(type);
    if (f64) cross_typed<double>(a, b, a_begin, a_end, same_set, static_cast<O*>(out.data), ld, run);
    else cross_typed<float>(a, b, a_begin, a_end, same_set, static_cast<O*>(out.data), ld, run);
  });
}

}  // namespace cpu
}  // namespace fc
