// The density rule's guess (src/backend/density_guess.hpp) and the sample it is drawn from
// (kernels/pair_sample.hpp), on the host: the pairs are where they must be and uniform, the
// sample sizes within their bounds, and the guess the bin edge the documented rule names. The
// rule's answer never depends on the guess: test_graph's DensityGuessGivesTheExactPassesGraph
// checks that on both backends.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "backend/density_guess.hpp"
#include "kernels/pair_sample.hpp"

namespace {

using fc::kAbsHistogramBins;
using fc::kAbsHistogramShift;

TEST(PairSample, ScaleIsTheHighHalfOfTheProduct) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 100000; ++i) {
    const uint64_t h = rng();
    const int64_t n = static_cast<int64_t>(rng() % 0xFFFFFFFFull) + 1;  // [1, 2^32 - 1]
    const unsigned __int128 want = (static_cast<unsigned __int128>(h) * static_cast<uint64_t>(n)) >> 64;
    ASSERT_EQ(fc::kernels::scale_to(h, n), static_cast<int64_t>(want)) << h << " x " << n;
  }
  EXPECT_EQ(fc::kernels::scale_to(~0ull, 0xFFFFFFFFll), 0xFFFFFFFFll - 1);
  EXPECT_EQ(fc::kernels::scale_to(0, 5), 0);
}

TEST(PairSample, PairsAreInRangeAndUniform) {
  for (int64_t n : {1, 2, 3, 7, 1031}) {
    std::vector<int64_t> count(static_cast<size_t>(n * n), 0);
    const int64_t draws = 2000 * n * n > 4000000 ? 4000000 : 2000 * n * n;
    for (int64_t s = 0; s < draws; ++s) {
      const fc::kernels::SampledPair d = fc::kernels::sampled_pair(fc::kernels::kDensitySampleSeed, s, n);
      ASSERT_GE(d.q, 0);
      ASSERT_LT(d.q, n);
      ASSERT_GE(d.p, 0);
      ASSERT_LT(d.p, n);
      ++count[static_cast<size_t>(d.q * n + d.p)];
    }
    if (n > 7) continue;  // every cell counted often enough to test below
    const double mean = double(draws) / double(n * n);
    for (int64_t c : count) EXPECT_LT(std::fabs(double(c) - mean), 6.0 * std::sqrt(mean)) << "n = " << n;
  }
  // The same draws each time (the guess must be reproducible).
  const auto a = fc::kernels::sampled_pair(fc::kernels::kDensitySampleSeed, 12345, 1000003);
  const auto b = fc::kernels::sampled_pair(fc::kernels::kDensitySampleSeed, 12345, 1000003);
  EXPECT_EQ(a.q, b.q);
  EXPECT_EQ(a.p, b.p);
}

TEST(DensityGuess, SampleSizesStayInBounds) {
  const int64_t big = int64_t(1) << 40;
  EXPECT_EQ(fc::density_sample_pairs(200, big, int64_t(1) << 33), int64_t(1) << 22);
  EXPECT_EQ(fc::density_sample_pairs(4000, big, int64_t(1) << 33), (int64_t(1) << 33) / 32000);
  EXPECT_EQ(fc::density_sample_pairs(200, int64_t(1) << 20, int64_t(1) << 33), int64_t(1) << 15);  // a 32nd
  EXPECT_EQ(fc::density_sample_pairs(200, 500000, int64_t(1) << 33), 0);  // below 2^14: no guess
  EXPECT_EQ(fc::density_sample_pairs(1 << 20, big, int64_t(1) << 27), 0);
  EXPECT_EQ(fc::density_sample_pairs(0, big, int64_t(1) << 27), int64_t(1) << 22);
}

uint32_t bin_of(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return bits >> kAbsHistogramShift;
}

TEST(DensityGuess, IsTheEdgeOfTheBinWhereTheMarginIsReached) {
  // A sample of V values uniform in [0, 1): p V + 5 sqrt(p V) + 8 of them at or above the guess,
  // fewer above its bin.
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  const int64_t valid = 100000, eligible = 50000000;
  std::vector<int64_t> counts(static_cast<size_t>(kAbsHistogramBins), 0);
  std::vector<float> values;
  for (int64_t i = 0; i < valid; ++i) {
    values.push_back(u(rng));
    ++counts[bin_of(values.back())];
  }
  for (int64_t target : {int64_t(1), int64_t(5000), int64_t(2500000), int64_t(40000000)}) {
    SCOPED_TRACE("target " + std::to_string(target));
    float guess = -2.0f;
    ASSERT_TRUE(fc::density_guess_from_sample(counts, valid, target, eligible, guess));
    const double pv = double(valid) * double(target) / double(eligible);
    const double j = std::ceil(pv + 5.0 * std::sqrt(pv) + 8.0);
    int64_t at_or_above = 0, above_bin = 0;
    for (float v : values) {
      at_or_above += v >= guess;
      above_bin += bin_of(v) > bin_of(guess);
    }
    EXPECT_GE(double(at_or_above), j);
    EXPECT_LT(double(above_bin), j);
    uint32_t bits;
    std::memcpy(&bits, &guess, sizeof bits);
    EXPECT_EQ(bits % (1u << kAbsHistogramShift), 0u) << "a bin's lower edge";
  }
  float guess = 0.0f;
  EXPECT_FALSE(fc::density_guess_from_sample(counts, valid, eligible, eligible, guess)) << "j beyond the sample";
  EXPECT_FALSE(fc::density_guess_from_sample(counts, 0, 10, eligible, guess)) << "no sample";
  EXPECT_FALSE(fc::density_guess_from_sample(std::vector<int64_t>(10, 1), 10, 1, eligible, guess)) << "wrong bins";
}

}  // namespace
