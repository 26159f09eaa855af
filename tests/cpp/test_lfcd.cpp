// lFCD (issue 34), once per backend: the counts of every backend are the CPU backend's (the header
// promises the same counts on either), and a region growing written here from the float64
// reference (reference.hpp) agrees when no r lies near the threshold; windows of a series give the
// lFCD of the window's samples; thread counts change nothing.
#include <gtest/gtest.h>

#include <cmath>
#include <deque>
#include <vector>

#include "backend_test.hpp"
#include "lfcd_grid.hpp"
#include "reference.hpp"

namespace {

using namespace fctest;

// n voxels: the first n cells, in a seeded shuffled order, of a dims box with about a third of it
// left out (holes, and components where the holes cut it).
Grid holed_box(int64_t n, int64_t nx, int64_t ny, int64_t nz, uint64_t seed) {
  Random rng(seed);
  Grid g{{}, {nx, ny, nz}};
  for (int64_t k = 0; k < nz; ++k)
    for (int64_t j = 0; j < ny; ++j)
      for (int64_t i = 0; i < nx && static_cast<int64_t>(g.coords.size()) < 3 * n; ++i)
        if (rng.uniform() > 0.35) g.coords.insert(g.coords.end(), {int32_t(i), int32_t(j), int32_t(k)});
  EXPECT_EQ(static_cast<int64_t>(g.coords.size()), 3 * n) << "box too small for " << n << " voxels";
  return g;
}

// Breadth-first growth per seed from the dense float64 r (NaN for constant series: never joins).
std::vector<int64_t> grown(const std::vector<double>& r, const Grid& g, int64_t n, int neighbourhood, bool absolute,
                           double t) {
  const Voxels voxels(g);
  std::vector<int64_t> out(static_cast<size_t>(n), 0);
  for (int64_t seed = 0; seed < n; ++seed) {
    if (std::isnan(r[seed * n + seed])) continue;  // constant seed
    std::vector<char> in(static_cast<size_t>(n), 0);
    std::deque<int64_t> queue{seed};
    in[seed] = 1;
    int64_t count = 1;
    while (!queue.empty()) {
      const int64_t v = queue.front();
      queue.pop_front();
      voxels.neighbours(v, neighbourhood, [&](int64_t u) {
        if (in[u]) return;
        const double x = r[seed * n + u];
        if ((absolute ? std::fabs(x) : x) >= t) {
          in[u] = 1;
          ++count;
          queue.push_back(u);
        }
      });
    }
    out[seed] = count;
  }
  return out;
}

// A threshold near `want` at least `margin` from every r and |r| of the reference.
double clear_threshold(const std::vector<double>& r, double want, double margin) {
  double t = want;
  for (bool moved = true; moved;) {
    moved = false;
    for (double x : r)
      if (std::fabs(x - t) < margin || std::fabs(std::fabs(x) - t) < margin) {
        t += 2 * margin;
        moved = true;
      }
  }
  return t;
}

class Lfcd : public BackendTest {};

TEST_P(Lfcd, MatchesRegionGrowingAndTheCpuBackend) {
  const int64_t n = 613, t = 37;
  Dataset d = structured_data(n, t, 61);
  make_constant(d, 100, 4.0);
  make_constant(d, 101, -1.0);
  const Grid g = holed_box(n, 13, 11, 7, 5);
  const Reference ref = normalize(d);
  std::vector<double> r = reference_dense(ref);
  for (int64_t p = 0; p < n * n; ++p)
    if (p / n == 100 || p / n == 101 || p % n == 100 || p % n == 101) r[p] = std::nan("");
  for (const fc_precision precision : {FC_PRECISION_FP32, FC_PRECISION_FP64}) {
    const Context ctx = tested({precision, FC_CONSTANT_NAN});
    Context cpu(FC_BACKEND_CPU);
    cpu.precision(precision);
    const Series s = make_series(ctx, d), s_cpu = make_series(cpu, d);
    for (const bool absolute : {false, true}) {
      const double th = clear_threshold(r, absolute ? 0.55 : 0.35, precision == FC_PRECISION_FP64 ? 1e-9 : 1e-4);
      const fc_edge_rule rule = absolute ? FC_EDGE_ABS_THRESHOLD : FC_EDGE_THRESHOLD;
      for (const int h : {6, 18, 26}) {
        SCOPED_TRACE(std::to_string(h) + (absolute ? " |r|" : " r") + (precision == FC_PRECISION_FP64 ? " FP64" : " FP32"));
        const std::vector<int64_t> got = lfcd(ctx, s, g, h, rule, th);
        EXPECT_EQ(got, grown(r, g, n, h, absolute, th));
        EXPECT_EQ(got, lfcd(cpu, s_cpu, g, h, rule, th));
        EXPECT_EQ(got[100], 0);
      }
    }
  }
}

TEST_P(Lfcd, AWindowGivesTheLfcdOfItsSamples) {
  const int64_t n = 200, t = 60, begin = 13, length = 29;
  const Dataset d = structured_data(n, t, 8);
  Dataset part;
  part.n = n;
  part.t = length;
  part.x.resize(static_cast<size_t>(n * length));
  for (int64_t s = 0; s < n; ++s)
    for (int64_t k = 0; k < length; ++k) part.at(s, k) = d.at(s, begin + k);
  const Grid g = holed_box(n, 9, 8, 5, 3);
  const Context ctx = tested({FC_PRECISION_FP64, FC_CONSTANT_NAN});
  const Series whole = make_series(ctx, d);
  fc_series* raw = nullptr;
  check(fc_series_window(ctx.get(), whole.get(), begin, length, FC_TAPER_RECTANGULAR, 0, &raw), "fc_series_window");
  const Series window(raw);
  const double th = clear_threshold(reference_dense(normalize(part)), 0.4, 1e-9);
  EXPECT_EQ(lfcd(ctx, window, g, 26, FC_EDGE_THRESHOLD, th), lfcd(ctx, make_series(ctx, part), g, 26, FC_EDGE_THRESHOLD, th));
}

TEST_P(Lfcd, SameCountsForAnyThreadCount) {
  const int64_t n = 5003;  // a prime: the last step of seeds is partial
  const Dataset d = structured_data(n, 23, 4);
  const Grid g = holed_box(n, 23, 19, 18, 9);
  std::vector<int64_t> first;
  for (const int threads : {1, 2, 3}) {
    Context ctx = tested({FC_PRECISION_FP32, FC_CONSTANT_NAN});
    check(fc_context_set_threads(ctx.get(), threads), "fc_context_set_threads");
    const std::vector<int64_t> got = lfcd(ctx, make_series(ctx, d), g, 18, FC_EDGE_ABS_THRESHOLD, 0.9);
    if (first.empty()) {
      first = got;
      int64_t grew = 0;  // some clusters must grow (not a test of 1s), none may span the mask (time)
      for (int64_t c : got) grew += c > 1;
      EXPECT_GT(grew, n / 10);
    }
    EXPECT_EQ(got, first) << threads << " threads";
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, Lfcd, ::testing::Values(FC_BACKEND_CPU, FC_BACKEND_CUDA),
                         [](const ::testing::TestParamInfo<fc_backend>& info) { return backend_name(info.param); });

}  // namespace
