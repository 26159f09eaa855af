// A seeded sample of pairs (q, p) of distinct series, the same on the host and the device: the
// density rule's guess of its threshold (src/backend/density_guess.hpp) draws pairs with it on
// either backend. Plain C++ (with __host__ __device__ under nvcc), so a host test can check it.
//
// Draw s of seed: two splitmix64 outputs (Steele, Lea and Flood 2014) of the counter seed + 2 s
// and + 2 s + 1, each mapped to [0, n) by the high half of a 64 x 64-bit product (Lemire's
// multiply-shift: bias below n / 2^64). Uniform over the n^2 ordered pairs; the caller skips
// q == p and pairs with a constant series, so the kept draws are uniform over the eligible pairs
// i < j (each unordered pair is drawn as (i, j) and as (j, i)).
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define FC_PAIR_SAMPLE_HD __host__ __device__ __forceinline__
#else
#define FC_PAIR_SAMPLE_HD inline
#endif

namespace fc {
namespace kernels {

FC_PAIR_SAMPLE_HD uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// floor(h * n / 2^64): the high 64 bits of the 128-bit product, for n < 2^32.
FC_PAIR_SAMPLE_HD int64_t scale_to(uint64_t h, int64_t n) {
  const uint64_t lo = h & 0xFFFFFFFFull, hi = h >> 32, m = static_cast<uint64_t>(n);
  return static_cast<int64_t>((hi * m + ((lo * m) >> 32)) >> 32);
}

struct SampledPair {
  int64_t q, p;
};

FC_PAIR_SAMPLE_HD SampledPair sampled_pair(uint64_t seed, int64_t s, int64_t n) {
  const uint64_t c = seed + 2 * static_cast<uint64_t>(s);
  return SampledPair{scale_to(splitmix64(c), n), scale_to(splitmix64(c + 1), n)};
}

// The density rule's sample seed (any fixed value: the guess only has to be reproducible).
constexpr uint64_t kDensitySampleSeed = 0x5EED0D3A51A7E5ull;

}  // namespace kernels
}  // namespace fc
