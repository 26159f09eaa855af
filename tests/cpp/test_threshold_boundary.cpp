// The threshold rules keep r >= t (FC_EDGE_THRESHOLD) and |r| >= t (FC_EDGE_ABS_THRESHOLD),
// equality included (issue 35: a strict `>` passed every other test, whose float64 comparisons
// skip the pairs within 1e-6 of t). Here r equals t exactly in the library's own arithmetic:
//   - "pattern" series whose normalized values are exactly +-1/8 (64 samples) and +-1/4 in every
//     window of 16 samples that begins at an even sample: every product and every sum of products,
//     in any order and precision, is exact, so a copy correlates at exactly 1, a negated copy at
//     exactly -1, and two patterns at an exact multiple of 1/32 (1/8 in a window);
//   - thresholds set to values the library itself returned (its fc_pcc_triu / fc_dfc_triu r,
//     which every decision is made on: tests/cpp/test_graph.cpp checks the graphs' weights are
//     those bits).
// Graphs, degree, windows' graphs and windows' degree must keep every pair at the threshold, on
// every backend (CPU always; CUDA skipped without a device, labelled `gpu`). Degree takes its
// thresholds from the pattern pairs only: the CUDA backend's fused FP32 degree kernel may round a
// general pair's r an ulp away from the triangle's (tests/cpp/test_degree.cpp), never an exact one.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "backend_test.hpp"
#include "graph_reference.hpp"

namespace {

using namespace fctest;
using Pair = std::pair<int64_t, int64_t>;

constexpr int64_t kN = 300, kT = 64;  // rows past the 256-row tiles
constexpr int64_t kLength = 16, kStep = 8;

// Where the exact series sit (spread over the tiles), and one constant series.
constexpr int64_t kA = 0, kCopiesOfA[] = {7, 290}, kMinusA = 150;
constexpr int64_t kB = 40, kCopyOfB = 260, kMinusB = 41;
constexpr int64_t kC = 100;
constexpr int64_t kConstant = 123;
// A random series and its copy (r exactly 1 or not, as the arithmetic gives it) and random pairs
// whose r serve as thresholds for graphs.
constexpr int64_t kRandom = 200, kCopyOfRandom = 270;
const Pair kRandomPairs[] = {{5, 6}, {10, 257}, {33, 299}, {kRandom, kCopyOfRandom}, {kRandom, 201}};
const Pair kPatternPairs[] = {{kA, kB}, {kA, kC}, {kB, kC}, {kMinusA, kC}};

const Mode kModes[] = {{FC_PRECISION_FP32, FC_CONSTANT_NAN}, {FC_PRECISION_FP64, FC_CONSTANT_NAN},
                       {FC_PRECISION_FP32, FC_CONSTANT_ZERO}};

// 3 +- 2 in pairs of samples (+2, -2) or (-2, +2), the sign of each pair drawn from `rng`: the
// mean of any even-aligned stretch of even length is exactly 3, its deviations exactly +-2.
std::vector<double> pattern(Random& rng) {
  std::vector<double> x(static_cast<size_t>(kT));
  for (int64_t k = 0; k < kT; k += 2) {
    const double s = rng.uniform() < 0.5 ? 2.0 : -2.0;
    x[static_cast<size_t>(k)] = 3.0 + s;
    x[static_cast<size_t>(k + 1)] = 3.0 - s;
  }
  return x;
}

Dataset boundary_data() {
  Dataset d = structured_data(kN, kT, 0xB0DA7u);
  Random rng(0x35u);
  auto put = [&](int64_t s, const std::vector<double>& x, bool negated) {
    for (int64_t k = 0; k < kT; ++k) d.at(s, k) = negated ? 6.0 - x[static_cast<size_t>(k)] : x[static_cast<size_t>(k)];
  };
  const std::vector<double> a = pattern(rng), b = pattern(rng), c = pattern(rng);
  put(kA, a, false);
  for (int64_t s : kCopiesOfA) put(s, a, false);
  put(kMinusA, a, true);
  put(kB, b, false);
  put(kCopyOfB, b, false);
  put(kMinusB, b, true);
  put(kC, c, false);
  for (int64_t k = 0; k < kT; ++k) d.at(kCopyOfRandom, k) = d.at(kRandom, k);
  make_constant(d, kConstant, 2.0);
  return d;
}

int64_t pair_index(int64_t n, Pair p) {
  if (p.first > p.second) std::swap(p.first, p.second);
  return p.first * (2 * n - p.first - 1) / 2 + (p.second - p.first - 1);
}

struct Threshold {
  bool absolute;
  float t;
  std::string name() const { return std::string(absolute ? "|r| >= " : "r >= ") + exact_text(t); }
  static std::string exact_text(float v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(v));
    return buf;
  }
  fc_edge_rule rule() const { return absolute ? FC_EDGE_ABS_THRESHOLD : FC_EDGE_THRESHOLD; }
  double param() const { return static_cast<double>(t); }  // a float: the library's threshold is t itself
  bool passes(float r) const { return absolute ? std::fabs(r) >= t : r >= t; }
  bool equals(float r) const { return (absolute ? std::fabs(r) : r) == t; }
};

// What a threshold rule keeps of a row-order triangle (the library's r): every pair of
// non-constant series that passes, with its weight.
struct Expected {
  std::vector<Pair> edges;  // ascending
  std::vector<int64_t> degree;
  std::vector<double> strength;  // r (signed rule) or |r| summed in float64
  int64_t at_threshold = 0;      // kept pairs whose r (|r|) equals t exactly
};

Expected expected(const std::vector<float>& tri, int64_t n, const std::vector<uint8_t>& constant, const Threshold& th) {
  Expected e;
  e.degree.assign(static_cast<size_t>(n), 0);
  e.strength.assign(static_cast<size_t>(n), 0.0);
  for (int64_t i = 0, p = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j, ++p) {
      const float r = tri[static_cast<size_t>(p)];
      if (constant[static_cast<size_t>(i)] || constant[static_cast<size_t>(j)] || std::isnan(r) || !th.passes(r)) continue;
      e.edges.push_back({i, j});
      const double w = th.absolute ? std::fabs(static_cast<double>(r)) : static_cast<double>(r);
      ++e.degree[static_cast<size_t>(i)];
      ++e.degree[static_cast<size_t>(j)];
      e.strength[static_cast<size_t>(i)] += w;
      e.strength[static_cast<size_t>(j)] += w;
      e.at_threshold += th.equals(r);
    }
  return e;
}

// A graph's edges (i < j), ascending, from its CSR.
std::vector<Pair> upper_pairs(const fc_graph* g) {
  const Csr c = copy_out(g);
  std::vector<Pair> out;
  for (int64_t i = 0; i < c.n; ++i)
    for (int64_t x = c.offsets[static_cast<size_t>(i)]; x < c.offsets[static_cast<size_t>(i + 1)]; ++x)
      if (c.columns[static_cast<size_t>(x)] > i) out.push_back({i, c.columns[static_cast<size_t>(x)]});
  return out;
}

std::vector<uint8_t> constant_flags(const Series& s) {
  const int64_t n = s.n_series();
  std::vector<uint8_t> c(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    int k = 0;
    check(fc_series_is_constant(s.get(), i, &k), "fc_series_is_constant");
    c[static_cast<size_t>(i)] = static_cast<uint8_t>(k);
  }
  return c;
}

// The exact values: copies at 1, negated copies at -1 (checked, then used as thresholds), and the
// pattern pairs' r; `general` adds the random pairs' r.
std::vector<Threshold> thresholds(const std::vector<float>& tri, int64_t n, bool general) {
  EXPECT_EQ(tri[static_cast<size_t>(pair_index(n, {kA, kCopiesOfA[0]}))], 1.0f) << "a copy of an exact series";
  EXPECT_EQ(tri[static_cast<size_t>(pair_index(n, {kA, kCopiesOfA[1]}))], 1.0f) << "a copy of an exact series";
  EXPECT_EQ(tri[static_cast<size_t>(pair_index(n, {kB, kCopyOfB}))], 1.0f) << "a copy of an exact series";
  EXPECT_EQ(tri[static_cast<size_t>(pair_index(n, {kA, kMinusA}))], -1.0f) << "a negated exact series";
  EXPECT_EQ(tri[static_cast<size_t>(pair_index(n, {kB, kMinusB}))], -1.0f) << "a negated exact series";
  std::vector<Threshold> out = {{true, 1.0f}, {false, 1.0f}, {false, -1.0f}};
  std::vector<Pair> pairs(std::begin(kPatternPairs), std::end(kPatternPairs));
  if (general) pairs.insert(pairs.end(), std::begin(kRandomPairs), std::end(kRandomPairs));
  for (const Pair& p : pairs) {
    const float r = tri[static_cast<size_t>(pair_index(n, p))];
    out.push_back({true, std::fabs(r)});
    out.push_back({false, r});
  }
  for (size_t x = 3; x < 3 + 2 * std::size(kPatternPairs); ++x)  // the exact ones: multiples of 1/32 (1/8 in a window)
    EXPECT_EQ(std::fmod(out[x].t * 32.0f, 1.0f), 0.0f) << out[x].name() << ": not a pattern pair's exact r";
  return out;
}

::testing::AssertionResult same_degree(const std::vector<int64_t>& degree, const std::vector<double>& strength,
                                       const Expected& e, int64_t offset = 0) {
  const int64_t n = static_cast<int64_t>(e.degree.size());
  for (int64_t i = 0; i < n; ++i) {
    const size_t x = static_cast<size_t>(offset + i);
    if (degree[x] != e.degree[static_cast<size_t>(i)])
      return ::testing::AssertionFailure() << "series " << i << ": degree " << degree[x] << ", expected "
                                           << e.degree[static_cast<size_t>(i)];
    if (std::fabs(strength[x] - e.strength[static_cast<size_t>(i)]) > 1e-9)
      return ::testing::AssertionFailure() << "series " << i << ": strength " << strength[x] << ", expected "
                                           << e.strength[static_cast<size_t>(i)];
  }
  return ::testing::AssertionSuccess();
}

class ThresholdBoundary : public BackendTest {};

TEST_P(ThresholdBoundary, GraphsAndDegreeKeepPairsAtTheThreshold) {
  const Dataset d = boundary_data();
  for (const Mode& mode : kModes) {
    SCOPED_TRACE(mode_name(mode));
    const Context ctx = tested(mode);
    const Series s = make_series(ctx, d);
    const std::vector<uint8_t> constant = constant_flags(s);
    ASSERT_EQ(s.n_constant(), 1);
    const std::vector<float> tri = pcc_triu(ctx, s, FC_TRIU_ROW);
    for (bool general : {true, false})
      for (const Threshold& th : thresholds(tri, kN, general)) {
        SCOPED_TRACE(th.name() + (general ? " (graph)" : " (degree)"));
        const Expected e = expected(tri, kN, constant, th);
        ASSERT_GT(e.at_threshold, 0) << "no pair at the threshold: the case tests nothing";
        if (general) {
          fc_graph* g = nullptr;
          check(fc_pcc_graph(ctx.get(), s.get(), th.rule(), th.param(), FC_GRAPH_WEIGHTED, &g), "fc_pcc_graph");
          std::unique_ptr<fc_graph, void (*)(fc_graph*)> owner(g, fc_graph_destroy);
          const std::vector<Pair> got = upper_pairs(g);
          EXPECT_TRUE(got == e.edges) << got.size() << " edges, expected " << e.edges.size() << " of which "
                                      << e.at_threshold << " at the threshold";
          continue;
        }
        std::vector<int64_t> degree(static_cast<size_t>(kN), -1);
        std::vector<double> strength(static_cast<size_t>(kN), -1.0);
        check(fc_pcc_degree(ctx.get(), s.get(), th.rule(), th.param(), degree.data(), strength.data()), "fc_pcc_degree");
        EXPECT_TRUE(same_degree(degree, strength, e));
      }
  }
}

TEST_P(ThresholdBoundary, WindowsGraphsAndDegreeKeepPairsAtTheThreshold) {
  const Dataset d = boundary_data();
  const int64_t w = fc_window_count(kT, kLength, kStep), pairs = triu_size(kN);
  ASSERT_EQ(w, 7);
  for (const Mode& mode : kModes) {
    SCOPED_TRACE(mode_name(mode));
    const Context ctx = tested(mode);
    const Series s = make_series(ctx, d);
    const std::vector<uint8_t> constant = constant_flags(s);
    std::vector<float> all(static_cast<size_t>(w * pairs), kSentinel);
    check(fc_dfc_triu(ctx.get(), s.get(), kLength, kStep, FC_TAPER_RECTANGULAR, 0.0, FC_TRIU_ROW, all.data(), w * pairs),
          "fc_dfc_triu");
    std::vector<std::vector<float>> tri(static_cast<size_t>(w));
    for (int64_t k = 0; k < w; ++k) tri[static_cast<size_t>(k)].assign(all.begin() + k * pairs, all.begin() + (k + 1) * pairs);
    // One threshold for every window: the exact values of the first and last windows (and, for
    // graphs, their random pairs' r); each window is checked against its own triangle.
    for (bool general : {true, false}) {
      std::vector<Threshold> list = thresholds(tri.front(), kN, general);
      const std::vector<Threshold> last = thresholds(tri.back(), kN, general);
      list.insert(list.end(), last.begin() + 3, last.end());
      for (const Threshold& th : list) {
        SCOPED_TRACE(th.name() + (general ? " (windows' graphs)" : " (windows' degree)"));
        std::vector<Expected> e;
        int64_t at_threshold = 0;
        for (int64_t k = 0; k < w; ++k) {
          e.push_back(expected(tri[static_cast<size_t>(k)], kN, constant, th));
          at_threshold += e.back().at_threshold;
        }
        ASSERT_GT(at_threshold, 0) << "no pair at the threshold in any window: the case tests nothing";
        if (general) {
          fc_dfc* it = nullptr;
          check(fc_dfc_begin(ctx.get(), s.get(), kLength, kStep, FC_TAPER_RECTANGULAR, 0.0, &it), "fc_dfc_begin");
          std::unique_ptr<fc_dfc, void (*)(fc_dfc*)> owner(it, fc_dfc_destroy);
          for (int64_t k = 0; k < w; ++k) {
            fc_graph* g = nullptr;
            int64_t index = -1;
            ASSERT_EQ(fc_dfc_next_graph(it, th.rule(), th.param(), FC_GRAPH_WEIGHTED, &g, &index), FC_OK) << fc_last_error();
            std::unique_ptr<fc_graph, void (*)(fc_graph*)> graph_owner(g, fc_graph_destroy);
            ASSERT_EQ(index, k);
            const Expected& ek = e[static_cast<size_t>(k)];
            const std::vector<Pair> got = upper_pairs(g);
            EXPECT_TRUE(got == ek.edges) << "window " << k << ": " << got.size() << " edges, expected " << ek.edges.size()
                                         << " of which " << ek.at_threshold << " at the threshold";
          }
          continue;
        }
        std::vector<int64_t> degree(static_cast<size_t>(w * kN), -1);
        std::vector<double> strength(static_cast<size_t>(w * kN), -1.0);
        check(fc_dfc_degree(ctx.get(), s.get(), kLength, kStep, FC_TAPER_RECTANGULAR, 0.0, th.rule(), th.param(), degree.data(),
                            strength.data()),
              "fc_dfc_degree");
        for (int64_t k = 0; k < w; ++k) EXPECT_TRUE(same_degree(degree, strength, e[static_cast<size_t>(k)], k * kN)) << "window " << k;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, ThresholdBoundary, ::testing::Values(FC_BACKEND_CPU, FC_BACKEND_CUDA),
                         [](const ::testing::TestParamInfo<fc_backend>& info) { return std::string(backend_name(info.param)); });

}  // namespace
