// The degree decided on tensor cores, exactly (issue 32): the 128 x 128 tiles of fused_degree.cu,
// but their products r~ come from TF32 tensor cores (FP32 accumulation), about 8x the FP32 SIMT
// rate. A pair is decided from r~ when the test gives the same answer anywhere in
// [r~ - delta, r~ + delta] (tc_bound.hpp: delta bounds |r~ - r| for the FP32 r of pair_tile.cuh,
// tc_cutoffs turns it into two float bounds on r~);
// a pair inside that band gets its FP32 r recomputed here by the very fmaf chain of
// pair_tile.cuh (k = 0 .. t_pad - 1 from 0.0f on the same stored rows), and is decided by it. So
// every degree is the one fused_degree.cu gives, bit for bit, and most pairs never pay for FP32.
//
// Degrees only: the strength would need every kept pair's r in FP32 (fused_degree.cu keeps that).
//
// Layout: 8 warps, warp w covers rows 32 (w / 2) .. + 32 and columns 64 (w % 2) .. + 64 of the
// tile. Operands staged through shared memory as in pair_tile.cuh (cp.async, kTileStages stages
// of kTileK values of k), rows padded to kLds floats; products by mma.sync PTX (m16n8k8) with the
// fragment layout the PTX ISA specifies, decided in registers. (An nvcuda::wmma version, whose
// accumulators must go through shared memory to be read in a known layout, was 27 % slower.)
// Each pair's pass is added into shared per-tile row and column counts, then to the degrees once
// per block (integer atomics: exact in any order).
//
// Measured on the H100 (bench/RESULTS-tc.md): at 90,112 x 165, |r| >= 0.3, 0.67 % of pairs fall
// in the band and this kernel takes 50 ms against the FP32 kernel's 31 ms: the band pairs'
// fmaf chains read the k-major copy (one cache line per k per series), about 3x the tile loads'
// traffic (they now read the row-major rows instead: not yet measured). So it is not the default
// (FASTCONN_TC_DEGREE=1 asks for it).
#include <cmath>

#include "kernels/async_copy.cuh"
#include "kernels/graph_pair.cuh"
#include "kernels/pair_tile.cuh"

namespace fc {
namespace kernels {
namespace {

constexpr int kTile = kFusedTile;
constexpr int kThreads = kTileThreads;

// Tensor-core code only where it compiles (sm_80+); older targets get an empty kernel, never
// launched (tc_degree_available).
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
#define FC_TC_DEGREE_BODY 1
constexpr int kK = kTileK;                  // 8: one stage is one m16n8k8 step
constexpr int kLds = kTile + 8;             // padded row of a stage: 544 bytes, 32-byte aligned
constexpr int kStageValues = 2 * kK * kLds;  // A (rows q) then B (columns p)
static_assert(kK == 8 && kTile == 128 && kThreads == 256, "the warp layout below");

// The FP32 r of pair (q, p), exactly as tile_products computes it: one fmaf chain over k from
// 0.0f, on the same floats, read from the row-major rows (n x t, which the k-major copy
// transposes) so that a series' values share cache lines instead of taking one per k. The k-major
// copy's zero padding past t adds fmaf(0, 0, acc) = acc (acc is never -0: it starts at +0 and a
// sum that cancels rounds to +0), so stopping at t gives the same bits.
__device__ __noinline__ float chain_product(const float* __restrict__ rows, int t, int64_t q, int64_t p) {
  const float* a = rows + q * t;
  const float* b = rows + p * t;
  float acc = 0.0f;
#pragma unroll 8
  for (int k = 0; k < t; ++k) acc = fmaf(__ldg(a + k), __ldg(b + k), acc);
  return acc;
}

#endif

// A band's arguments (tc_degree_band's), as one kernel parameter.
struct TcArgs {
  const float* zt;  // k-major copy (the tensor-core products)
  int64_t ld;
  int k_steps;
  const float* rows;  // row-major rows, n x t (the recomputed chains)
  int t;
  int64_t n, q0, q1;
  const uint8_t* constant;
  EdgeRule rule;
  TcCutoffs cut;
  unsigned long long* degree;
  unsigned long long* recomputed;
};

#ifdef FC_TC_DEGREE_BODY
// The block's shared memory: the operand stages, the tile's counts and its band list.
constexpr int kBandList = 1024;  // band pairs a tile defers; more are recomputed where found
struct TcShared {
  float stage[kTileStages * kStageValues];
  int row_count[kTile], col_count[kTile];
  unsigned long long recomputed;
  int band_count;
  unsigned short band_list[kBandList];  // tile row * 128 + tile column
};

// Zeroes the counts; then, for each stage of kK values of k, step(a, b) with a[k * kLds + row]
// and b[k * kLds + column] of the tile's rows rs.. and columns cs.. (cp.async, kTileStages deep,
// as pair_tile.cuh's tile_products). Every thread of the block calls this.
template <class Step>
__device__ __forceinline__ void tc_main_loop(const float* __restrict__ zt, int64_t ld, int64_t rs, int64_t cs,
                                             int k_steps, TcShared& sh, Step&& step) {
  const int tid = threadIdx.x;
  if (tid < kTile) sh.row_count[tid] = 0, sh.col_count[tid] = 0;
  if (tid == 0) sh.recomputed = 0, sh.band_count = 0;
  const int lk = tid / (kTile / 4), lc = (tid % (kTile / 4)) * 4;  // this thread's 16 bytes of a stage
  const float* ga = zt + lk * ld + rs + lc;
  const float* gb = zt + lk * ld + cs + lc;
  auto load_stage = [&](int s, int kk) {
    float* st = sh.stage + s * kStageValues;
    load16(st + lk * kLds + lc, ga + int64_t(kk) * kK * ld);
    load16(st + kK * kLds + lk * kLds + lc, gb + int64_t(kk) * kK * ld);
  };
  staged_k_loop(k_steps, load_stage, [&](int s) {
    const float* a = sh.stage + s * kStageValues;
    step(a, a + kK * kLds);
  });
  __syncthreads();  // the counts were zeroed before any warp adds to them (k_steps may be 0)
}

// Whether pair's tensor-core value v leaves it a chance to pass: false for most pairs, checked
// first, before the pair is looked at any further.
__device__ __forceinline__ bool tc_may_pass(float v, EdgeRule rule, TcCutoffs cut) {
  return (rule.absolute ? fabsf(v) : v) >= cut.fail_below;
}

// The decision of pair (q, p) = (rs + tr, cs + tc) from its tensor-core value v, given
// tc_may_pass. A pair in the band goes on the tile's band list (false here; tc_flush decides
// it), or, when the list is full, is recomputed in FP32 here and counted in redo. Recomputing
// where found stalls the warp for a whole fmaf chain per pair (measured on the H100: 7x slower
// at 90,112 x 165); the list lets all 256 threads recompute at once.
__device__ __forceinline__ bool tc_decide(const TcArgs& band, TcShared& sh, float v, int tr, int tc, int64_t q,
                                          int64_t p, unsigned long long& redo) {
  if ((band.rule.absolute ? fabsf(v) : v) >= band.cut.pass_from) return true;
  const int at = atomicAdd(&sh.band_count, 1);
  if (at < kBandList) {
    sh.band_list[at] = static_cast<unsigned short>(tr * kTile + tc);
    return false;
  }
  ++redo;
  return passes(pair_r(chain_product(band.rows, band.t, q, p)), band.rule);
}

// The tile's band list decided (one pair a thread at a time), then its counts into the degrees,
// once per block (and the recomputed pairs).
__device__ __forceinline__ void tc_flush(const TcArgs& band, TcShared& sh, unsigned long long redo, int64_t rs,
                                         int64_t cs) {
  unsigned long long* __restrict__ degree = band.degree;
  unsigned long long* __restrict__ recomputed = band.recomputed;
  const int tid = threadIdx.x;
  __syncthreads();  // the list is complete
  const int listed = min(sh.band_count, kBandList);
  for (int i = tid; i < listed; i += kThreads) {
    const int tr = sh.band_list[i] / kTile, tc = sh.band_list[i] % kTile;
    ++redo;
    if (passes(pair_r(chain_product(band.rows, band.t, rs + tr, cs + tc)), band.rule)) {
      atomicAdd(&sh.row_count[tr], 1);
      atomicAdd(&sh.col_count[tc], 1);
    }
  }
  if (recomputed != nullptr && redo > 0) atomicAdd(&sh.recomputed, redo);
  __syncthreads();
  if (tid < kTile) {
    if (sh.row_count[tid] > 0) atomicAdd(degree + rs + tid, static_cast<unsigned long long>(sh.row_count[tid]));
    if (sh.col_count[tid] > 0) atomicAdd(degree + cs + tid, static_cast<unsigned long long>(sh.col_count[tid]));
  }
  if (tid == 0 && recomputed != nullptr && sh.recomputed > 0) atomicAdd(recomputed, sh.recomputed);
}

__device__ __forceinline__ unsigned tf32_bits(float x) {  // cvt.rna: round to nearest, ties away
  unsigned u;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(u) : "f"(x));
  return u;
}

// The products by mma.sync.m16n8k8 (PTX), whose fragments' layout is specified (PTX ISA, "Matrix
// fragments for mma.m16n8k8", .tf32): with g = lane / 4 and c = lane % 4, A's registers hold (row, k) = (g, c),
// (g + 8, c), (g, c + 4), (g + 8, c + 4); B's (k, column) = (c, g), (c + 4, g); the accumulators'
// (row, column) = (g, 2c), (g, 2c + 1), (g + 8, 2c), (g + 8, 2c + 1). So the decisions are made
// in registers. A warp: 32 rows (two m16 pieces) x 64 columns (eight n8 pieces). Shared-memory
// reads are conflict-free: lanes differ in g (consecutive words) and c (rows kLds = 8 mod 32 apart).
__device__ __forceinline__ void mma_tile(const TcArgs& band, TcShared& sh, int64_t rs, int64_t cs) {
  const float* zt = band.zt;
  const int64_t ld = band.ld, n = band.n, q1 = band.q1;
  const int k_steps = band.k_steps;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, c = lane & 3;
  const int wr = (warp >> 1) * 32, wc = (warp & 1) * 64;  // the warp's corner in the tile
  float acc[2][8][4];
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j)
#pragma unroll
      for (int r = 0; r < 4; ++r) acc[i][j][r] = 0.0f;
  tc_main_loop(zt, ld, rs, cs, k_steps, sh, [&](const float* a, const float* b) {
    unsigned fa[2][4], fb[8][2];
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
      for (int r = 0; r < 4; ++r) fa[i][r] = tf32_bits(a[(c + 4 * (r >> 1)) * kLds + wr + 16 * i + g + 8 * (r & 1)]);
#pragma unroll
    for (int j = 0; j < 8; ++j)
#pragma unroll
      for (int r = 0; r < 2; ++r) fb[j][r] = tf32_bits(b[(c + 4 * r) * kLds + wc + 8 * j + g]);
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
      for (int j = 0; j < 8; ++j)
        asm volatile(
            "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
            "{%0, %1, %2, %3};\n"
            : "+f"(acc[i][j][0]), "+f"(acc[i][j][1]), "+f"(acc[i][j][2]), "+f"(acc[i][j][3])
            : "r"(fa[i][0]), "r"(fa[i][1]), "r"(fa[i][2]), "r"(fa[i][3]), "r"(fb[j][0]), "r"(fb[j][1]));
  });

  // This thread's rows wr + 16 i + g + 8 h and columns wc + 8 j + 2 c + e.
  unsigned row_live = 0, col_live = 0;
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int64_t q = rs + wr + 16 * i + g + 8 * h;
      if (q < q1 && !is_constant(band.constant, q)) row_live |= 1u << (2 * i + h);
    }
#pragma unroll
  for (int j = 0; j < 8; ++j)
#pragma unroll
    for (int e = 0; e < 2; ++e) {
      const int64_t p = cs + wc + 8 * j + 2 * c + e;
      if (p < n && !is_constant(band.constant, p)) col_live |= 1u << (2 * j + e);
    }
  unsigned long long redo = 0;
  int row_passes[4] = {0, 0, 0, 0}, col_passes[16];
#pragma unroll
  for (int x = 0; x < 16; ++x) col_passes[x] = 0;
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j)
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        const int h = r >> 1, e = r & 1;
        const int64_t q = rs + wr + 16 * i + g + 8 * h, p = cs + wc + 8 * j + 2 * c + e;
        const bool live = ((row_live >> (2 * i + h)) & (col_live >> (2 * j + e)) & 1u) != 0;
        const float v = acc[i][j][r];
        if (tc_may_pass(v, band.rule, band.cut) && live && p > q &&
            tc_decide(band, sh, v, wr + 16 * i + g + 8 * h, wc + 8 * j + 2 * c + e, q, p, redo)) {
          ++row_passes[2 * i + h];
          ++col_passes[2 * j + e];
        }
      }
  // Rows: the 4 lanes of a g hold a row's 64 columns of the warp; columns: the 8 g's of a c.
#pragma unroll
  for (int x = 0; x < 4; ++x) {
    int v = row_passes[x];
    v += __shfl_xor_sync(0xffffffffu, v, 1);
    v += __shfl_xor_sync(0xffffffffu, v, 2);
    if (c == 0 && v > 0) atomicAdd(&sh.row_count[wr + 16 * (x >> 1) + g + 8 * (x & 1)], v);
  }
#pragma unroll
  for (int x = 0; x < 16; ++x) {
    int v = col_passes[x];
    v += __shfl_xor_sync(0xffffffffu, v, 4);
    v += __shfl_xor_sync(0xffffffffu, v, 8);
    v += __shfl_xor_sync(0xffffffffu, v, 16);
    if (g == 0 && v > 0) atomicAdd(&sh.col_count[wc + 8 * (x >> 1) + 2 * c + (x & 1)], v);
  }
  tc_flush(band, sh, redo, rs, cs);
}
#endif

// Block (x, y): rows q in [q0 + 128 y, + 128) (those below q1), columns p in [q0 + 128 y +
// 128 x, + 128) (those below n), pairs p > q, as fused_degree.cu's blocks.
__global__ void __launch_bounds__(kThreads, 2) tc_degree_kernel(TcArgs args) {
#ifdef FC_TC_DEGREE_BODY
  __shared__ __align__(32) TcShared sh;
  const int64_t rs = args.q0 + int64_t(blockIdx.y) * kTile;
  const int64_t cs = rs + int64_t(blockIdx.x) * kTile;
  if (rs >= args.q1 || cs >= args.n) return;  // the whole block
  mma_tile(args, sh, rs, cs);
#endif
}

}  // namespace

bool tc_degree_available(int device) {
  int major = 0;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess || major < 8) return false;
  // The binary the device would run must be one built for sm_80+ (not the body-less JIT of older PTX).
  cudaFuncAttributes attr{};
  if (cudaFuncGetAttributes(&attr, tc_degree_kernel) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return attr.binaryVersion >= 80 || attr.ptxVersion >= 80;
}

cudaError_t tc_degree_band(const float* zt, int64_t ld, int64_t t_pad, const float* rows, int64_t t, int64_t n,
                           int64_t q0, int64_t q1,
                           const uint8_t* constant, EdgeRule rule, TcCutoffs cut,
                           unsigned long long* degree, unsigned long long* recomputed, cudaStream_t stream) {
  if (q1 <= q0 || n <= 1) return cudaSuccess;
  const dim3 grid(static_cast<unsigned>((n - q0 + kTile - 1) / kTile), static_cast<unsigned>((q1 - q0 + kTile - 1) / kTile));
  const TcArgs args{zt, ld, static_cast<int>(t_pad / kTileK), rows, static_cast<int>(t), n, q0, q1, constant, rule, cut,
                    degree, recomputed};
  tc_degree_kernel<<<grid, kThreads, 0, stream>>>(args);
  return cudaGetLastError();
}

}  // namespace kernels
}  // namespace fc
