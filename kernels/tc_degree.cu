// The degree decided on tensor cores, exactly (issue 32): every pair's product r~ from FP16
// tensor cores (mma.sync m16n8k16, FP32 accumulation, 2x the TF32 rate and half its bytes); a pair
// is decided from r~ when the test gives the same answer anywhere within d_qp of it
// (tc_bound.hpp: d_qp = a_q + a_p + c bounds |r~ - r| for the FP32 r of pair_tile.cuh, a_q from
// row q's own rounding error). A pair inside its band has its FP32 r recomputed by the very fmaf
// chain of pair_tile.cuh (k = 0 .. t - 1 from 0.0f on the same stored floats) and is decided by
// it. So every degree is the one fused_degree.cu gives, bit for bit, and most pairs never pay for
// FP32.
//
// Degrees only: the strength needs every kept pair's r in FP32 (fused_degree.cu keeps that).
//
// Operands (tc_degree_prepare): row q's floats scaled by 2^8 and rounded to half, zero padded to
// k_pad = a multiple of 16 and to whole 128-row tiles, row-major (an m16n8k16 A row and B column
// are both 16 consecutive k of one series), with a_q beside them.
// Tiles: 128 x 128 pairs a block, 8 warps of 64 rows x 32 columns; k in stages of 32 through
// shared memory (cp.async, pair_tile.cuh's staged_k_loop; the last stage may hold 16), rows padded
// to 80 bytes so that each ldmatrix phase (8 rows of 16 bytes) hits 8 distinct 16-byte bank
// groups. Blocks walk the
// triangle's tiles in groups of 8 tile rows (every tile column for 8 row tiles before the next 8),
// so that the columns' operands are read from device memory once per 8 row tiles, not per row
// tile; only tiles with a pair p > q are launched.
// Decisions in registers: x = r~ (|r~|) below cut.fail_below fails and at or above cut.pass_from
// passes for any pair (the largest d_qp there can be); only the pairs between look at their own
// d_qp. A band pair goes on the tile's list in shared memory, then on the band's list in device
// memory (tc_degree_recompute decides it after the band, with every thread of the device on such
// chains); where a list is full it is recomputed in the tile. Counts: per thread, then lanes,
// then shared per-tile rows and columns, then one integer atomic per series and tile (exact in
// any order).
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>

#include "kernels/async_copy.cuh"
#include "kernels/graph_pair.cuh"
#include "kernels/pair_tile.cuh"

namespace fc {
namespace kernels {
namespace {

constexpr int kTile = kFusedTile;  // 128
constexpr int kThreads = kTileThreads;  // 256: 8 warps
constexpr int kStageK = 2 * kTcK;       // k of a stage: two m16n8k16 steps between barriers
constexpr int kLdsH = kStageK + 8;      // halves a row of a stage: 80 bytes
constexpr int kStageHalves = 2 * kTile * kLdsH;  // A (rows q) then B (columns p)
constexpr int kGroupRows = 8;           // tile rows a group of blocks walks together
constexpr int kBandList = 1024;         // band pairs a tile lists; more are recomputed where found
static_assert(kTile == 128 && kThreads == 256 && kTcK == 16, "the warp layout below");

// Edge mode: pair (q, p) passes with FP32 r (graph_tiles.cuh, TcEdgeOut).
__device__ __forceinline__ void record_edge(const TcEdgeOut& e, int64_t q, int64_t p, float r) {
  const int64_t ql = q - e.q0, x = p - e.p0;
  e.values[ql * e.ld + x] = r;
  atomicOr(e.bits + ql * e.words + (x >> 5), 1u << (x & 31));
}

// Per-row thresholds (TcDegreeArgs::row_threshold, edge mode): pair (q, p) passes at
// |r| >= min(L_q, L_p); else the rule's test.
__device__ __forceinline__ bool pair_passes(const float* row_threshold, EdgeRule rule, int64_t q, int64_t p, float r) {
  if (row_threshold == nullptr) return passes(r, rule);
  return fabsf(r) >= fminf(__ldg(row_threshold + q), __ldg(row_threshold + p));
}

// The pair's threshold t' scaled by 2^16, as TcDegreeArgs::threshold_scaled.
__device__ __forceinline__ float pair_threshold_scaled(const TcDegreeArgs& a, int64_t q, int64_t p) {
  if (a.row_threshold == nullptr) return a.threshold_scaled;
  return fminf(__ldg(a.row_threshold + q), __ldg(a.row_threshold + p)) * 65536.0f;  // exact: a power of 2
}

// --- operands ----------------------------------------------------------------------------------

// One warp a row q of [0, n_pad): its halves (zero for q >= n, a constant series, k >= t) and
// row_delta[q] = a_q x 2^16, a_q = E_q x row_factor rounded up.
__global__ void tc_prepare_kernel(const float* __restrict__ rows, int t, int64_t n, int64_t n_pad,
                                  const uint8_t* __restrict__ constant, double row_factor, int k_pad,
                                  __half* __restrict__ halves, float* __restrict__ row_delta) {
  const int lane = threadIdx.x & 31;
  const int64_t q = (int64_t(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  if (q >= n_pad) return;
  const bool live = q < n && !is_constant(constant, q);
  const float scale = 256.0f;  // 2^kTcScaleBits
  static_assert(kTcScaleBits == 8, "scale");
  double err2 = 0.0;
  for (int k = lane; k < k_pad; k += 32) {
    const float z = live && k < t ? rows[q * t + k] : 0.0f;
    const float s = z * scale;  // exact
    __half h = __float2half_rn(s);
    if (fabsf(s) < 6.103515625e-05f) h = __float2half_rn(0.0f);  // below 2^-14: no subnormals
    const double e = double(__half2float(h)) / 256.0 - double(z);
    err2 += e * e;
    halves[q * k_pad + k] = h;
  }
#pragma unroll
  for (int d = 16; d > 0; d >>= 1) err2 += __shfl_xor_sync(0xffffffffu, err2, d);
  if (lane == 0) {
    const double a = sqrt(err2) * row_factor * (1.0 + 1e-12);  // sqrt's and product's rounding
    float f = static_cast<float>(a);
    if (double(f) < a) f = nextafterf(f, INFINITY);
    row_delta[q] = f * 65536.0f;  // 2^(2 kTcScaleBits), exact
  }
}

// --- the tile kernel ---------------------------------------------------------------------------

// The operand stages, or (after the main loop) the tile's products for the general path.
union TcTileMemory {
  __half stage[kTileStages * kStageHalves];
  float products[kTile * kTile];
};

struct TcShared {
  TcTileMemory tile;
  int row_count[kTile], col_count[kTile];
  int listed;  // pairs appended to band_list (past kBandList: the list overflowed)
  int chains;  // pairs the general path recomputed here
  int min_threshold;  // per-row thresholds: the bits of the tile's smallest
  unsigned long long list_at;
  unsigned short band_list[kBandList];  // tile row * 128 + tile column
};

__device__ __forceinline__ unsigned smem_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_address(p)));
}

__device__ __forceinline__ void mma16816(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// The triangle tile of block `block` in the band's grouped order: (y, x) = (row tile, column
// tile) relative to q0; false for a tile wholly below the diagonal (x < y). Group g holds row
// tiles [8 g, 8 g + rows_g) and column tiles [8 g, nx): rows_g (nx - 8 g) blocks, y fastest, so
// that the 8 row tiles of a column tile run side by side and share its operand through L2.
__device__ __forceinline__ bool tile_of(int64_t block, int64_t ny, int64_t nx, int64_t& y, int64_t& x) {
  // Blocks before group g (all full): sum over g' < g of 8 (nx - 8 g') = 8 g nx - 32 g (g - 1).
  auto before = [&](int64_t g) { return kGroupRows * g * nx - (kGroupRows * kGroupRows / 2) * g * (g - 1); };
  int64_t lo = 0, hi = (ny + kGroupRows - 1) / kGroupRows;  // group: last g with before(g) <= block
  while (hi - lo > 1) {
    const int64_t mid = (lo + hi) / 2;
    if (before(mid) <= block) lo = mid;
    else hi = mid;
  }
  const int64_t g = lo, y0 = kGroupRows * g;
  const int rows = static_cast<int>(min(int64_t(kGroupRows), ny - y0));
  const int i = static_cast<int>(block - before(g));  // < 8 nx: 32 bits (a 64-bit division is a call)
  y = y0 + i % rows;
  x = y0 + i / rows;
  return x < nx && x >= y;
}

// x of a product: |v| under |r| >= t, else v.
template <bool kAbs>
__device__ __forceinline__ float decision_value(float v) {
  return kAbs ? fabsf(v) : v;
}

// A pair between the cutoffs: decided by its own d_qp, or (inside its band) listed, or, where
// `list` is false, recomputed here. Returns whether it passes (a listed pair: false for now). In
// edge mode a pair above its band needs its r too: it is listed (or recomputed and recorded) like
// a band pair, and the answer is always false (nothing is counted).
template <bool kEdges>
__device__ __forceinline__ bool decide_between(const TcDegreeArgs& a, TcShared& sh, float x, float d_q, float d_p,
                                               int tr, int tc, int64_t rs, int64_t cs, bool list) {
  const float d = __fadd_ru(__fadd_ru(d_q, d_p), a.pair_constant);
  const float threshold = pair_threshold_scaled(a, rs + tr, cs + tc);
  if (x < __fsub_rd(threshold, d)) return false;
  if (!kEdges && x >= __fadd_ru(threshold, d)) return true;
  if (list) {
    const int at = atomicAdd(&sh.listed, 1);
    if (at < kBandList) sh.band_list[at] = static_cast<unsigned short>(tr * kTile + tc);
    return false;
  }
  atomicAdd(&sh.chains, 1);
  const float r = pair_r(chain_product(a.rows, a.t, rs + tr, cs + tc));
  if (!pair_passes(a.row_threshold, a.rule, rs + tr, cs + tc, r)) return false;
  if (kEdges) record_edge(a.edges, rs + tr, cs + tc, r);
  return !kEdges;
}

// The fast path, for a tile whose every pair counts (off the diagonal, and either no padding or
// constant series in it or zero products failing at once): the decisions in registers. Counts
// per thread packed 4 bits a row (column) of its 8, then lanes, then shared per-tile counts.
template <bool kAbs, bool kEdges>
__device__ __forceinline__ void decide_registers(const TcDegreeArgs& a, TcShared& sh, const float (&acc)[4][4][4],
                                                 const TcCutoffs& cut, int64_t rs, int64_t cs, int wr, int wc, int g,
                                                 int c) {
  const float x_fail = cut.fail_below, x_pass = cut.pass_from;
  unsigned rows = 0, cols = 0;  // this thread's passes: row i at bits 4 i, column j at 4 j (at most 8 each)
#pragma unroll
  for (int mi = 0; mi < 4; ++mi)
#pragma unroll
    for (int nj = 0; nj < 4; ++nj)
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        const int i = 2 * mi + (r >> 1), j = 2 * nj + (r & 1);
        const float x = decision_value<kAbs>(acc[mi][nj][r]);
        bool pass = !kEdges && x >= x_pass;
        if (x >= x_fail && !pass) {  // rare: a pair near t (edge mode: or above it)
          const int tr = wr + 16 * mi + g + 8 * (r >> 1), tc = wc + 8 * nj + 2 * c + (r & 1);
          pass = decide_between<kEdges>(a, sh, x, __ldg(a.row_delta + rs + tr), __ldg(a.row_delta + cs + tc), tr, tc, rs, cs,
                                true);
        }
        if (pass) rows += 1u << (4 * i), cols += 1u << (4 * j);
      }
  if (kEdges) return;  // nothing counted
  // Rows: the 4 lanes of a g hold a row's 32 columns of the warp; columns: the 8 g's of a c.
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    int v = (rows >> (4 * i)) & 15u;
    v += __shfl_xor_sync(0xffffffffu, v, 1);
    v += __shfl_xor_sync(0xffffffffu, v, 2);
    if (c == 0 && v > 0) atomicAdd(&sh.row_count[wr + 16 * (i >> 1) + g + 8 * (i & 1)], v);
    int w = (cols >> (4 * i)) & 15u;
    w += __shfl_xor_sync(0xffffffffu, w, 4);
    w += __shfl_xor_sync(0xffffffffu, w, 8);
    w += __shfl_xor_sync(0xffffffffu, w, 16);
    if (g == 0 && w > 0) atomicAdd(&sh.col_count[wc + 8 * (i >> 1) + 2 * c + (i & 1)], w);
  }
}

// The general path, for the diagonal tile, a tile with padding or constant series where a zero
// product may pass, and a tile whose band list overflowed: the products through shared memory,
// one pair a thread at a time, every test spelled out, band pairs recomputed here.
template <bool kAbs, bool kEdges>
__device__ void decide_shared(const TcDegreeArgs& a, TcShared& sh, const float (&acc)[4][4][4], const TcCutoffs& cut,
                              int64_t rs, int64_t cs, int wr, int wc, int g, int c) {
  const int tid = threadIdx.x;
  __syncthreads();  // the stages (and any fast-path counts) are done with
  if (tid < kTile) sh.row_count[tid] = 0, sh.col_count[tid] = 0;
  if (tid == 0) sh.listed = 0;
#pragma unroll
  for (int mi = 0; mi < 4; ++mi)
#pragma unroll
    for (int nj = 0; nj < 4; ++nj)
#pragma unroll
      for (int r = 0; r < 4; ++r)
        sh.tile.products[(wr + 16 * mi + g + 8 * (r >> 1)) * kTile + wc + 8 * nj + 2 * c + (r & 1)] = acc[mi][nj][r];
  __syncthreads();
  for (int at = tid; at < kTile * kTile; at += kThreads) {
    const int tr = at / kTile, tc = at % kTile;
    const int64_t q = rs + tr, p = cs + tc;
    if (p <= q || q >= a.q1 || p >= a.n || is_constant(a.constant, q) || is_constant(a.constant, p)) continue;
    const float x = decision_value<kAbs>(sh.tile.products[at]);
    if (x < cut.fail_below) continue;
    if ((!kEdges && x >= cut.pass_from) ||
        decide_between<kEdges>(a, sh, x, __ldg(a.row_delta + q), __ldg(a.row_delta + p), tr, tc, rs, cs, false)) {
      atomicAdd(&sh.row_count[tr], 1);
      atomicAdd(&sh.col_count[tc], 1);
    }
  }
}

// The tile's listed band pairs: onto the band's list when it has room, else decided here (one
// pair a thread at a time); then the tile's counts into the degrees.
template <bool kEdges>
__device__ __forceinline__ void flush_tile(const TcDegreeArgs& a, TcShared& sh, int64_t rs, int64_t cs) {
  const int tid = threadIdx.x;
  __syncthreads();  // the tile's list and counts are complete
  const int listed = sh.listed;
  if (tid == 0) {
    sh.list_at = ~0ull;
    if (a.list.pairs != nullptr && listed > 0) {
      const unsigned long long at = atomicAdd(a.list.count, static_cast<unsigned long long>(listed));
      if (at + listed <= static_cast<unsigned long long>(a.list.capacity)) sh.list_at = at;
    }
    if (a.recomputed != nullptr && listed + sh.chains > 0)
      atomicAdd(a.recomputed, static_cast<unsigned long long>(listed + sh.chains));
  }
  __syncthreads();
  const unsigned long long at = sh.list_at;
  for (int k = tid; k < listed; k += kThreads) {
    const int tr = sh.band_list[k] / kTile, tc = sh.band_list[k] % kTile;
    if (at != ~0ull) {
      a.list.pairs[at + k] = make_uint2(static_cast<unsigned>(rs + tr), static_cast<unsigned>(cs + tc));
    } else {
      const float r = pair_r(chain_product(a.rows, a.t, rs + tr, cs + tc));
      if (!pair_passes(a.row_threshold, a.rule, rs + tr, cs + tc, r)) continue;
      if (kEdges) {
        record_edge(a.edges, rs + tr, cs + tc, r);
      } else {
        atomicAdd(&sh.row_count[tr], 1);
        atomicAdd(&sh.col_count[tc], 1);
      }
    }
  }
  if (kEdges) return;
  __syncthreads();
  if (tid < kTile) {
    if (sh.row_count[tid] > 0) atomicAdd(a.degree + rs + tid, static_cast<unsigned long long>(sh.row_count[tid]));
    if (sh.col_count[tid] > 0) atomicAdd(a.degree + cs + tid, static_cast<unsigned long long>(sh.col_count[tid]));
  }
}

template <bool kAbs, bool kEdges>
__global__ void __launch_bounds__(kThreads, 2) tc_degree_kernel(TcDegreeArgs a) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  extern __shared__ __align__(128) unsigned char dynamic_shared[];
  TcShared& sh = *reinterpret_cast<TcShared*>(dynamic_shared);
  int64_t y, x;
  if (!tile_of(blockIdx.x, a.row_tiles, a.col_tiles, y, x)) return;
  const int64_t rs = a.q0 + y * kTile, cs = a.q0 + x * kTile;
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31, g = lane >> 2, c = lane & 3;
  const int wr = (warp >> 2) * 64, wc = (warp & 3) * 32;  // the warp's corner in the tile
  if (tid < kTile) sh.row_count[tid] = 0, sh.col_count[tid] = 0;
  if (tid == 0) sh.listed = 0, sh.chains = 0;
  // Per-row thresholds: the tile's fail cut from the smallest threshold of its rows and columns
  // (padding rows hold 2; the max delta bounds every d_qp), rounded down.
  TcCutoffs cut = a.cut;
  if (a.row_threshold != nullptr) {
    if (tid == 0) sh.min_threshold = 0x7f800000;  // +infinity's bits: non-negative floats order as ints
    __syncthreads();
    atomicMin(&sh.min_threshold, __float_as_int(__ldg(a.row_threshold + (tid < kTile ? rs + tid : cs + tid - kTile))));
    __syncthreads();
    cut.fail_below = __fsub_rd(__fsub_rd(__int_as_float(sh.min_threshold) * 65536.0f, a.max_delta_scaled), 1e-30f);
  }
  // The general path for the diagonal tile, and for padding rows or constant series (their
  // products are exactly 0) where a zero product does not fail at once.
  bool general = cs == rs;
  if (!(cut.fail_below > 0.0f)) {
    const int64_t s = tid < kTile ? rs + tid : cs + tid - kTile;
    general = __syncthreads_or(general || (tid < kTile ? s >= a.q1 : s >= a.n) ||
                               (s < a.n && is_constant(a.constant, s))) != 0;
  }

  float acc[4][4][4];
#pragma unroll
  for (int mi = 0; mi < 4; ++mi)
#pragma unroll
    for (int nj = 0; nj < 4; ++nj)
#pragma unroll
      for (int r = 0; r < 4; ++r) acc[mi][nj][r] = 0.0f;
  // This thread's 16-byte pieces of a stage: piece tid + 256 i (i < 4) is row (tid + 256 i) / 4
  // of the stage (A's 128, then B's), halves 8 (tid % 4) .. + 8 of the stage's k.
  const __half* halves = reinterpret_cast<const __half*>(a.halves);
  const int lh = (tid & 3) * 8;
  const __half* source = halves + ((tid >> 2) + rs) * a.k_pad + lh;  // piece 0's; piece i: 64 i rows on
  const int64_t b_rows = (cs - rs - kTile) * a.k_pad;                    // B's rows: 128 rows on, then cs - rs
  auto load_stage = [&](int s, int kk) {
    const int k = kk * kStageK;
    if (k + lh >= a.k_pad) return;  // the second half of a last stage of 16
    __half* st = sh.tile.stage + s * kStageHalves + (tid >> 2) * kLdsH + lh;
#pragma unroll
    for (int i = 0; i < 4; ++i)
      load16(st + 64 * i * kLdsH, source + (i < 2 ? 0 : b_rows) + 64 * i * a.k_pad + k);
  };
  // ldmatrix rows of this lane: A (m16 tiles) row l % 16, k half (l / 16); B (two n8 tiles an x4)
  // column l % 8 + 8 (l / 16), k half (l / 8) % 2.
  const int a_row = wr + (lane & 15), a_k = (lane >> 4) * 8;
  const int b_col = kTile + wc + (lane & 7) + ((lane >> 4) << 3), b_k = ((lane >> 3) & 1) * 8;
  const int k_steps = static_cast<int>((a.k_pad + kStageK - 1) / kStageK);
  const bool short_last = a.k_pad % kStageK != 0;
  int step = 0;
  // A stage's two k16 halves: both halves' fragments are read before the first half's products,
  // so that the second half's ldmatrix latency hides behind them (the asm statements keep their
  // source order).
  auto fragments = [&](const __half* st, int h, unsigned (&fa)[4][4], unsigned (&fb)[4][2]) {
#pragma unroll
    for (int mi = 0; mi < 4; ++mi) ldmatrix_x4(fa[mi], st + (a_row + 16 * mi) * kLdsH + a_k + kTcK * h);
#pragma unroll
    for (int jj = 0; jj < 2; ++jj) {
      unsigned r[4];
      ldmatrix_x4(r, st + (b_col + 16 * jj) * kLdsH + b_k + kTcK * h);
      fb[2 * jj][0] = r[0], fb[2 * jj][1] = r[1], fb[2 * jj + 1][0] = r[2], fb[2 * jj + 1][1] = r[3];
    }
  };
  auto products = [&](const unsigned (&fa)[4][4], const unsigned (&fb)[4][2]) {
#pragma unroll
    for (int mi = 0; mi < 4; ++mi)
#pragma unroll
      for (int nj = 0; nj < 4; ++nj) mma16816(acc[mi][nj], fa[mi], fb[nj][0], fb[nj][1]);
  };
  staged_k_loop(k_steps, load_stage, [&](int s) {
    const __half* st = sh.tile.stage + s * kStageHalves;
    unsigned fa0[4][4], fb0[4][2], fa1[4][4], fb1[4][2];
    fragments(st, 0, fa0, fb0);
    if (short_last && ++step == k_steps) {
      products(fa0, fb0);
      return;
    }
    fragments(st, 1, fa1, fb1);
    products(fa0, fb0);
    products(fa1, fb1);
  });
  __syncthreads();  // the counts were zeroed before any warp adds to them (k steps may be few)
  if (!general) {
    decide_registers<kAbs, kEdges>(a, sh, acc, cut, rs, cs, wr, wc, g, c);
    __syncthreads();
    general = sh.listed > kBandList;  // the list overflowed: decide the whole tile again
  }
  if (general) decide_shared<kAbs, kEdges>(a, sh, acc, cut, rs, cs, wr, wc, g, c);
  flush_tile<kEdges>(a, sh, rs, cs);
#endif
}

// The band's listed pairs, decided by their FP32 r: each warp takes 32 pairs at a time, one a
// lane, and walks k in chunks of 32: the warp copies the chunk of its 64 rows into shared memory
// (each row's 32 floats one coalesced load of the warp), then every lane continues its pair's
// fmaf chain over the chunk from there. So the rows move at the memory's bandwidth, 32 chains
// at once a warp, instead of one latency-bound load per k and lane.
constexpr int kRecomputeWarps = 4;
constexpr int kChunk = 32;
constexpr int kChunkLd = kChunk + 1;  // row stride in shared memory: lanes reading row `lane` at k hit bank lane + k

template <bool kEdges>
__global__ void __launch_bounds__(32 * kRecomputeWarps) tc_recompute_kernel(const float* __restrict__ rows, int t,
                                                                            EdgeRule rule, TcBandList list,
                                                                            unsigned long long* __restrict__ degree,
                                                                            TcEdgeOut edges,
                                                                            const float* __restrict__ row_threshold) {
  __shared__ float chunk[kRecomputeWarps][64 * kChunkLd];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  float* sm = chunk[warp];
  const unsigned long long count = min(*list.count, static_cast<unsigned long long>(list.capacity));
  const unsigned long long warps = uint64_t(gridDim.x) * kRecomputeWarps;
  for (unsigned long long base = (uint64_t(blockIdx.x) * kRecomputeWarps + warp) * 32; base < count;
       base += warps * 32) {
    const bool mine = base + lane < count;
    const uint2 qp = mine ? list.pairs[base + lane] : make_uint2(0u, 0u);
    const int pairs = static_cast<int>(min(static_cast<unsigned long long>(32), count - base));
    float acc = 0.0f;
    for (int k0 = 0; k0 < t; k0 += kChunk) {
      const int k = k0 + lane;
      // Row j < 32: pair j's q; row 32 + j: pair j's p (pairs past the list read row 0, unused).
#pragma unroll 8
      for (int j = 0; j < pairs; ++j) {
        const unsigned q = __shfl_sync(0xffffffffu, qp.x, j), p = __shfl_sync(0xffffffffu, qp.y, j);
        sm[j * kChunkLd + lane] = k < t ? __ldg(rows + int64_t(q) * t + k) : 0.0f;
        sm[(32 + j) * kChunkLd + lane] = k < t ? __ldg(rows + int64_t(p) * t + k) : 0.0f;
      }
      __syncwarp();
      const int stop = min(kChunk, t - k0);
      const float* a = sm + lane * kChunkLd;
      const float* b = sm + (32 + lane) * kChunkLd;
      for (int i = 0; i < stop; ++i) acc = fmaf(a[i], b[i], acc);
      __syncwarp();
    }
    if (mine && pair_passes(row_threshold, rule, qp.x, qp.y, pair_r(acc))) {
      if (kEdges) {
        record_edge(edges, qp.x, qp.y, pair_r(acc));
      } else {
        atomicAdd(degree + qp.x, 1ull);
        atomicAdd(degree + qp.y, 1ull);
      }
    }
  }
}

}  // namespace

bool tc_degree_available(int device) {
  int major = 0;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess || major < 8) return false;
  // The binary the device would run must be one built for sm_80+ (not the body-less JIT of older PTX).
  cudaFuncAttributes attr{};
  if (cudaFuncGetAttributes(&attr, tc_degree_kernel<true, false>) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return attr.binaryVersion >= 80 || attr.ptxVersion >= 80;
}

cudaError_t tc_degree_prepare(const float* rows, int64_t t, int64_t n, const uint8_t* constant, int64_t k_pad,
                              double row_factor, uint16_t* halves, float* row_delta, cudaStream_t stream) {
  const int64_t n_pad = tc_rows_pad(n);
  constexpr int kWarps = 8;
  const int64_t blocks = (n_pad + kWarps - 1) / kWarps;
  tc_prepare_kernel<<<static_cast<unsigned>(blocks), 32 * kWarps, 0, stream>>>(
      rows, static_cast<int>(t), n, n_pad, constant, row_factor, static_cast<int>(k_pad),
      reinterpret_cast<__half*>(halves), row_delta);
  return cudaGetLastError();
}

// Blocks of a band: every group's rows_g x (nx - 8 g) (tile_of).
static int64_t tc_degree_blocks(int64_t row_tiles, int64_t col_tiles) {
  int64_t blocks = 0;
  for (int64_t y0 = 0; y0 < row_tiles; y0 += kGroupRows)
    blocks += std::min(int64_t(kGroupRows), row_tiles - y0) * (col_tiles - y0);
  return blocks;
}

cudaError_t tc_degree_band(const TcDegreeArgs& args, cudaStream_t stream) {
  if (args.q1 <= args.q0 || args.n <= 1) return cudaSuccess;
  const int64_t blocks = tc_degree_blocks(args.row_tiles, args.col_tiles);
  if (blocks <= 0) return cudaSuccess;
  if (blocks > 0x7fffffff) return cudaErrorInvalidConfiguration;
  const bool edges = args.edges.values != nullptr;
  auto kernel = args.rule.absolute ? (edges ? tc_degree_kernel<true, true> : tc_degree_kernel<true, false>)
                                   : (edges ? tc_degree_kernel<false, true> : tc_degree_kernel<false, false>);
  const cudaError_t attr =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(sizeof(TcShared)));
  if (attr != cudaSuccess) return attr;
  kernel<<<static_cast<unsigned>(blocks), kThreads, sizeof(TcShared), stream>>>(args);
  return cudaGetLastError();
}

cudaError_t tc_degree_recompute(const float* rows, int64_t t, EdgeRule rule, TcBandList list,
                                unsigned long long* degree, int blocks, cudaStream_t stream) {
  if (list.pairs == nullptr) return cudaSuccess;
  tc_recompute_kernel<false>
      <<<blocks, 32 * kRecomputeWarps, 0, stream>>>(rows, static_cast<int>(t), rule, list, degree, TcEdgeOut{}, nullptr);
  return cudaGetLastError();
}

cudaError_t tc_edge_recompute(const float* rows, int64_t t, EdgeRule rule, TcBandList list, TcEdgeOut out, int blocks,
                              cudaStream_t stream, const float* row_threshold) {
  if (list.pairs == nullptr) return cudaSuccess;
  tc_recompute_kernel<true>
      <<<blocks, 32 * kRecomputeWarps, 0, stream>>>(rows, static_cast<int>(t), rule, list, nullptr, out, row_threshold);
  return cudaGetLastError();
}

}  // namespace kernels
}  // namespace fc
