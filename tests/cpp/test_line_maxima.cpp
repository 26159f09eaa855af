// LineMaxima (src/modules/line_maxima.hpp), the choice of the next Kernighan-Lin move of large
// groups: against a scan of every live line, through random intercept changes, removals and
// query points, with equal slopes, equal lines, block-sized and odd line counts, and slopes of
// both signs as the sweeps have them (a_i = s_i k_i / 2m). Few distinct slopes take the slope
// classes' heaps, many the blocks' envelopes: both are checked.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "modules/leading_eigen.hpp"
#include "modules/line_maxima.hpp"

namespace {

struct Scan {
  std::vector<double> a, e;
  std::vector<char> live;
  double best(double p) const {
    double top = -INFINITY;
    for (size_t i = 0; i < a.size(); ++i)
      if (live[i]) top = std::max(top, e[i] + a[i] * p);
    return top;
  }
};

void check_against_scan(int64_t n, int distinct_slopes, uint64_t seed) {
  fc::SplitMix64 rng(seed);
  Scan s;
  for (int64_t i = 0; i < n; ++i) {
    const double k = distinct_slopes > 0 ? double(1 + rng.next() % uint64_t(distinct_slopes)) : 1 + 50 * rng.uniform();
    s.a.push_back((rng.uniform() < 0.5 ? -1 : 1) * k * 1e-3);
    s.e.push_back(rng.uniform() * 10 - 5);
  }
  s.live.assign(size_t(n), 1);
  fc::LineMaxima lines;
  lines.reset(s.a.data(), s.e.data(), n);
  // The ranked reset, with the slopes' magnitudes ranked among more values than the lines have
  // (as fc_modularity ranks every node's and resets with a group's lines): gaps between the
  // ranks, and more ranks than lines for small n (the sort after all). Its choices must be the
  // sorting reset's, line for line.
  std::vector<double> magnitudes;
  for (double x : s.a) magnitudes.push_back(std::fabs(x));
  for (int x = 0; x < 50; ++x) magnitudes.push_back(rng.uniform() * 0.1);
  int64_t ranks = 0;
  const std::vector<int64_t> all = fc::rank_magnitudes(magnitudes, &ranks, 2);
  fc::LineMaxima ranked;
  ranked.reset(s.a.data(), s.e.data(), n, all.data(), ranks);
  for (int64_t step = 0; step < n; ++step) {
    const double p = (rng.uniform() - 0.5) * 4000;
    double value = 0;
    const int64_t i = lines.argmax(p, &value);
    ASSERT_GE(i, 0);
    ASSERT_TRUE(s.live[size_t(i)]);
    EXPECT_EQ(value, s.e[size_t(i)] + s.a[size_t(i)] * p);  // the value a scan computes for it
    const double want = s.best(p);
    EXPECT_LE(std::fabs(value - want), 1e-12 * (1 + std::fabs(want))) << "step " << step << " p " << p;
    double ranked_value = 0;
    ASSERT_EQ(ranked.argmax(p, &ranked_value), i) << "step " << step;
    EXPECT_EQ(ranked_value, value);
    // the chosen line goes, a few others change (a flip's neighbours)
    s.live[size_t(i)] = 0;
    lines.remove(i);
    ranked.remove(i);
    for (int x = 0; x < 5; ++x) {
      const int64_t j = int64_t(rng.next() % uint64_t(n));
      if (!s.live[size_t(j)]) continue;
      s.e[size_t(j)] += rng.uniform() * 2 - 1;
      lines.set_intercept(j, s.e[size_t(j)]);
      ranked.set_intercept(j, s.e[size_t(j)]);
    }
  }
  double value = 0;
  EXPECT_EQ(lines.argmax(0.0, &value), -1);  // all removed
  EXPECT_EQ(ranked.argmax(0.0, &value), -1);
}

TEST(LineMaxima, AgreesWithAScan) {
  // slopes 0: continuous (envelopes); 1, 3, 40 magnitudes (2, 6, 80 slopes): classes from n = 8,
  // 24 and 320 on (n / 4 lines a class at least), envelopes below
  for (int64_t n : {1, 2, 3, 63, 64, 65, 127, 1000, 2053, 2600, 5003})
    for (int slopes : {0, 1, 3, 40}) {
      SCOPED_TRACE("n = " + std::to_string(n) + ", distinct slopes " + std::to_string(slopes));
      check_against_scan(n, slopes, uint64_t(n * 131 + slopes));
    }
}

TEST(LineMaxima, SlopeClassesGiveTheScansChoice) {
  // 4 slopes over 600 lines (slope classes): equal intercepts within a class go to the lower index,
  // as a scan's first maximum does.
  const int64_t n = 600;
  std::vector<double> a(n), e(n);
  for (int64_t i = 0; i < n; ++i) {
    a[size_t(i)] = double(i % 4) - 1.5;
    e[size_t(i)] = double((i * 7) % 11);
  }
  fc::LineMaxima lines;
  lines.reset(a.data(), e.data(), n);
  for (double p : {-3.0, -0.25, 0.0, 0.5, 4.0}) {
    int64_t want = -1;
    double top = -INFINITY;
    for (int64_t i = 0; i < n; ++i)
      if (e[size_t(i)] + a[size_t(i)] * p > top) top = e[size_t(i)] + a[size_t(i)] * p, want = i;
    double value = 0;
    EXPECT_EQ(lines.argmax(p, &value), want) << "p " << p;
    EXPECT_EQ(value, top);
  }
}

TEST(LineMaxima, RankedSlopesGiveTheSameClasses) {
  // Zero slopes of both signs (-0 and +0 are one slope), negative and positive ones of equal
  // magnitude, ranks with gaps: the ranked reset's choices are the sorting reset's at every step.
  const int64_t n = 2000;
  fc::SplitMix64 rng(7);
  std::vector<double> a(n), e(n), magnitude(n);
  for (int64_t i = 0; i < n; ++i) {
    const double k = double(rng.next() % 9) * 0.25;  // 0, 0.25, .., 2
    a[size_t(i)] = (rng.uniform() < 0.5 ? -1.0 : 1.0) * k;
    e[size_t(i)] = double(rng.next() % 13);  // ties within classes: the lower index
    magnitude[size_t(i)] = 3 * k;                // ranked as |a| is, but not |a| itself
  }
  int64_t ranks = 0;
  const std::vector<int64_t> rank = fc::rank_magnitudes(magnitude, &ranks, 1);
  EXPECT_EQ(ranks, 9);
  fc::LineMaxima sorted, ranked;
  sorted.reset(a.data(), e.data(), n);
  ranked.reset(a.data(), e.data(), n, rank.data(), ranks);
  for (int64_t step = 0; step < n; ++step) {
    const double p = double(int64_t(rng.next() % 41) - 20) * 0.5;
    double v1 = 0, v2 = 0;
    const int64_t i = sorted.argmax(p, &v1);
    ASSERT_EQ(ranked.argmax(p, &v2), i) << "step " << step;
    ASSERT_EQ(v1, v2);
    sorted.remove(i);
    ranked.remove(i);
    const int64_t j = int64_t(rng.next() % uint64_t(n));
    const double ej = e[size_t(j)] + double(int64_t(rng.next() % 5) - 2);
    sorted.set_intercept(j, ej);
    ranked.set_intercept(j, ej);
  }
}

TEST(LineMaxima, EqualLinesGiveTheLowestIndexOfTheBlock) {
  const std::vector<double> a(10, 0.5), e(10, 2.0);
  fc::LineMaxima lines;
  lines.reset(a.data(), e.data(), 10);
  double value = 0;
  EXPECT_EQ(lines.argmax(3.0, &value), 0);
  EXPECT_EQ(value, 3.5);
  lines.remove(0);
  EXPECT_EQ(lines.argmax(3.0, &value), 1);
}

}  // namespace
