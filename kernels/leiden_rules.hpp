// The arithmetic of fc_leiden_v2's synchronous Leiden (FC_LEIDEN_SYNCHRONOUS), the same bits on the
// host and the device: its CPU engine (src/backend/cpu/cpu_leiden.cpp) and CUDA engine
// (src/backend/cuda/cuda_leiden.cpp, kernels/leiden_sync.cu) both judge with these functions, so
// both give the same labels. Plain C++ (with __host__ __device__ under nvcc), so a host test can
// check it.
//
// Why the same bits hold on both sides:
//   - weights are fixed point: every edge weight and node weight is an int64 (the graph's weights
//     times a power of 2, rounded once), so every sum (a node's weight to a community, a
//     community's total) is exact in any order: device atomics and host loops agree;
//   - the gains are a fixed sequence of double operations, each rounded once: on the device
//     through the _rn intrinsics, which nvcc never fuses into a multiply-add; on the host in a
//     file built with -ffp-contract=off (CMakeLists.txt);
//   - every choice is an arg max with ties to the smaller id, so the order the candidates are met
//     in (a hash table's on the device, a row's on the host) does not matter.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define FC_LEIDEN_HD __host__ __device__ __forceinline__
#else
#define FC_LEIDEN_HD inline
#endif

namespace fc {
namespace kernels {

// The null model's coefficients in the fixed-point unit (leiden.hpp's objective): the null term
// of moving node v (weights kp_v, kn_v) from community a (sums Kp_a, Kn_a, v included) to c is
//   gp kp_v (Kp_c - Kp_a + kp_v) - gn kn_v (Kn_c - Kn_a + kn_v),
// and a move gains (w_vc - w_va) minus it. epsilon: a move must gain more.
struct SyncTerms {
  double gp = 0, gn = 0, epsilon = 0;
  // Moves a node may make in one level (0: no limit). Simultaneous moves can swap nodes back and
  // forth for ever at the upper levels of a multilayer graph (a level of 47 nodes made 304 moves in
  // its 64 rounds); a node that has used its moves stops, so the level ends.
  int32_t max_node_moves = 0;
};

FC_LEIDEN_HD double leiden_mul(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}

FC_LEIDEN_HD double leiden_sub(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dsub_rn(a, b);
#else
  return a - b;
#endif
}

// dw = w_vc - w_va; dp = Kp_c - Kp_a + kp_v and dn likewise (exact int64 differences).
FC_LEIDEN_HD double sync_gain(const SyncTerms& t, int64_t dw, int64_t kp_v, int64_t dp, int64_t kn_v, int64_t dn) {
  const double pos = leiden_mul(t.gp, leiden_mul(double(kp_v), double(dp)));
  const double neg = leiden_mul(t.gn, leiden_mul(double(kn_v), double(dn)));
  return leiden_sub(double(dw), leiden_sub(pos, neg));
}

// Subcommunity r (weights rp, rn; weight ext to the rest of its community S, sums sp, sn) is well
// connected when leaving S alone would not raise the quality (the paper's
// E(r, S - r) >= gamma ||r|| (||S|| - ||r||)): gain of the move from S to an empty community <= 0.
FC_LEIDEN_HD bool sync_well_connected(const SyncTerms& t, int64_t ext, int64_t rp, int64_t rn, int64_t sp, int64_t sn) {
  // Moving r out of S: dw = 0 - ext, dp = 0 - sp + rp.
  return sync_gain(t, -ext, rp, rp - sp, rn, rn - sn) <= 0;
}

FC_LEIDEN_HD double leiden_add(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}

// The layered null model (multilayer modularity; backend/leiden_engine.hpp): node v's weight is a
// list of (layer l_x, weight k_x > 0), layers ascending, entries begin .. end; the sums of a
// community (or subcommunity) are a row of L values, one per layer. Returns
//   sum_x gp[l_x] (k_x ((to ? to[l_x] : 0) - (from ? from[l_x] : 0) + (self ? k_x : 0))),
// the terms added in list order from 0. The move of v from a to c: to = c's row, from = a's,
// self; the join of v (alone) to subcommunity r: to = r's row, no from, no self; v leaving its
// community S alone: no to, from = S's row, self. W: int64_t on the host, the device's unsigned
// words (two's complement) there.
template <class W>
FC_LEIDEN_HD double layered_null(const double* gp, const int32_t* layer, const W* weight, int64_t begin, int64_t end,
                                 const W* to, const W* from, bool self) {
  double sum = 0;
  for (int64_t x = begin; x < end; ++x) {
    const int32_t l = layer[x];
    const int64_t k = static_cast<int64_t>(weight[x]);
    const int64_t d = (to != nullptr ? static_cast<int64_t>(to[l]) : 0) - (from != nullptr ? static_cast<int64_t>(from[l]) : 0) +
                      (self ? k : 0);
    sum = leiden_add(sum, leiden_mul(gp[l], leiden_mul(double(k), double(d))));
  }
  return sum;
}

// The null term of subcommunity r (sums r_row) leaving its community (sums s_row) alone:
// sum over the layers l with r_row[l] != 0, ascending, of gp[l] (R_l (R_l - S_l)), from 0. For a
// subcommunity of one node it equals layered_null(.., no to, from = S's row, self).
template <class W>
FC_LEIDEN_HD double layered_own(const double* gp, const W* r_row, const W* s_row, int64_t layers) {
  double sum = 0;
  for (int64_t l = 0; l < layers; ++l) {
    const int64_t r = static_cast<int64_t>(r_row[l]);
    if (r == 0) continue;
    sum = leiden_add(sum, leiden_mul(gp[l], leiden_mul(double(r), double(r - static_cast<int64_t>(s_row[l])))));
  }
  return sum;
}

// sync_well_connected's test with the layered null term `own` (layered_own) of leaving alone.
FC_LEIDEN_HD bool layered_well_connected(int64_t ext, double own) { return leiden_sub(double(-ext), own) <= 0; }

// Whether node v is judged in round `round`: a seeded half of the nodes in even rounds, the other
// half in odd ones. Judging a node and its neighbours in the same round against the same state is
// what lets simultaneous moves undo each other; halves make that rarer, and every node is judged
// every other round.
FC_LEIDEN_HD bool sync_judged(uint64_t salt, int64_t v, int64_t round) {
  uint64_t x = salt + static_cast<uint64_t>(v) * 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  x ^= x >> 31;
  return ((x ^ static_cast<uint64_t>(round)) & 1) == 0;
}

// Whether candidate (gain g, id c) beats the best so far (gain bg, id bc; bc < 0: none yet): the
// larger gain, ties to the smaller id.
FC_LEIDEN_HD bool sync_better(double g, int64_t c, double bg, int64_t bc) {
  return bc < 0 || g > bg || (g == bg && c < bc);
}

// A weight w of the graph (float) times coefficient c (the objective's c+ or c-: 1 or w+ / (w+ + w-))
// in the fixed-point unit `scale` (a power of 2), rounded to nearest (ties to even) once.
FC_LEIDEN_HD int64_t sync_fixed(float w, double c, double scale) {
#if defined(__CUDA_ARCH__)
  return __double2ll_rn(__dmul_rn(__dmul_rn(double(w), c), scale));
#else
  const double x = double(w) * c * scale;
  // nearbyint under the default rounding mode: ties to even, as __double2ll_rn.
  return static_cast<int64_t>(__builtin_nearbyint(x));
#endif
}

}  // namespace kernels
}  // namespace fc
