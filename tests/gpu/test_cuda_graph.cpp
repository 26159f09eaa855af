// The CUDA backend's network primitives (threshold_edges, threshold_degree, abs_histogram,
// top_k), called through the Backend interface of a context made with the public API. Checked
// against this backend's own fc_pcc_triu (the r tested must be the same bits), the float64
// reference (edge sets agree except pairs within kNearThreshold of the threshold), the CPU
// backend's primitives when it has them, and themselves (degree = row sums of the edges,
// determinism, memory limits forcing many bands and arena flushes, cancellation).
//
// Skips when no CUDA context can be made; FASTCONN_REQUIRE_CUDA=1 makes that a failure.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "api_calls.hpp"
#include "api/handles.hpp"
#include "graph_reference.hpp"
#include "reference.hpp"
#include "require_cuda.hpp"
#include "scoped_env.hpp"

namespace {

using namespace fctest;

constexpr double kNearThreshold = 1e-5;  // FP32 products: |r - r64| <= 1e-5 at these T

fc::Backend& backend_of(const Context& c) { return *c.get()->state->backend; }
fc::SeriesView view_of(const Series& s) { return s.get()->data->view(); }

// Runs f with the context's settings and a progress reporter (fn may cancel).
template <class F>
void with_run(const Context& c, int64_t total, F&& f, fc_progress_fn fn = nullptr, void* user = nullptr) {
  fc::Progress progress(fn, user, total);
  fc::RunSettings run = c.get()->state->run_settings(progress);
  f(run);
}

Dataset graph_data(int64_t n, int64_t t, uint64_t seed) {
  Dataset d = structured_data(n, t, seed);
  make_constant(d, 0, 2.0);
  make_constant(d, n / 3, -1.0);
  make_constant(d, n - 1, 5.0);
  return d;
}

bool passes(float r, const fc::EdgeTest& test) { return (test.absolute ? std::fabs(r) : r) >= test.threshold; }

fc::UpperEdges edges_of(const Context& c, const Series& s, fc::EdgeTest test) {
  fc::UpperEdges e;
  const fc::SeriesView v = view_of(s);
  with_run(c, triu_size(v.n), [&](const fc::RunSettings& run) { backend_of(c).threshold_edges(v, test, e, run); });
  return e;
}

// Structural checks: row_count sums to the edges, columns ascending above the diagonal.
void check_shape(const fc::UpperEdges& e, int64_t n) {
  ASSERT_EQ(static_cast<int64_t>(e.row_count.size()), n);
  ASSERT_EQ(e.columns.size(), e.values.size());
  int64_t at = 0;
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t k = 0; k < e.row_count[i]; ++k, ++at) {
      ASSERT_GT(e.columns[at], i) << "row " << i;
      ASSERT_LT(e.columns[at], n);
      if (k > 0) { ASSERT_GT(e.columns[at], e.columns[at - 1]) << "row " << i; }
    }
  }
  ASSERT_EQ(at, static_cast<int64_t>(e.columns.size()));
}

// Dense (i, j) -> edge value, NaN when absent.
std::vector<float> dense_of(const fc::UpperEdges& e, int64_t n) {
  std::vector<float> d(static_cast<size_t>(n * n), std::nanf(""));
  int64_t at = 0;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < e.row_count[i]; ++k, ++at) d[static_cast<size_t>(i * n + e.columns[at])] = e.values[at];
  return d;
}

struct Case {
  int64_t n, t;
  fc::EdgeTest test;
};

class CudaGraphEdges : public ::testing::TestWithParam<Case> {};

TEST_P(CudaGraphEdges, SameBitsAsTriuAndAgreeWithFloat64) {
  REQUIRE_CUDA();
  const Case c = GetParam();
  const Dataset d = graph_data(c.n, c.t, 4242 + c.n);
  const Reference ref = normalize(d);
  Context ctx(FC_BACKEND_CUDA);
  const Series s = make_series(ctx, d);
  const fc::UpperEdges e = edges_of(ctx, s, c.test);
  check_shape(e, c.n);
  const std::vector<float> tri = pcc_triu(ctx, s, FC_TRIU_ROW);
  const std::vector<float> dense = dense_of(e, c.n);
  int64_t off = 0, expected = 0, near = 0;
  for (int64_t i = 0; i < c.n; ++i)
    for (int64_t j = i + 1; j < c.n; ++j, ++off) {
      const float got = dense[static_cast<size_t>(i * c.n + j)];
      const bool constant = ref.constant[i] || ref.constant[j];
      // This backend's own triangle: exactly the pairs whose value passes, with the same bits.
      const bool want = !constant && passes(tri[off], c.test);
      expected += want;
      ASSERT_EQ(want, !std::isnan(got)) << "pair (" << i << ", " << j << ") r = " << tri[off];
      if (want) { ASSERT_EQ(0, std::memcmp(&got, &tri[off], sizeof got)) << "pair (" << i << ", " << j << ")"; }
      // The float64 reference: the same decision except within kNearThreshold of the threshold.
      if (constant) continue;
      const double r64 = dot(ref.row(i), ref.row(j), ref.t);
      const double x = c.test.absolute ? std::fabs(r64) : r64;
      if (std::fabs(x - c.test.threshold) <= kNearThreshold) {
        ++near;
        continue;
      }
      ASSERT_EQ(x >= c.test.threshold, !std::isnan(got)) << "pair (" << i << ", " << j << ") r64 = " << r64;
      if (want) { ASSERT_NEAR(got, r64, 1e-5); }
    }
  EXPECT_EQ(expected, static_cast<int64_t>(e.columns.size()));
  EXPECT_GT(expected, 0) << "the test threshold must select some edges";
  EXPECT_LT(expected, triu_size(c.n)) << "and reject some";
  RecordProperty("near_threshold_pairs", static_cast<int>(near));
}

INSTANTIATE_TEST_SUITE_P(Sizes, CudaGraphEdges,
                         ::testing::Values(Case{5, 40, {true, 0.0f}}, Case{257, 64, {true, 0.5f}},
                                           Case{1009, 97, {true, 0.3f}}, Case{1009, 97, {false, 0.2f}},
                                           Case{2053, 120, {false, -0.25f}}),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           const Case& c = info.param;
                           return "n" + std::to_string(c.n) + (c.test.absolute ? "_abs" : "_signed") + "_" +
                                  std::to_string(info.index);
                         });

// A memory limit that forces many bands and an arena smaller than the graph (flushes to the
// host mid-run): the same edge set as without a limit, values within rounding.
TEST(CudaGraph, MemoryLimitManyBandsAndArenaFlushes) {
  REQUIRE_CUDA();
  const int64_t n = 1500, t = 80;
  const Dataset d = graph_data(n, t, 77);
  Context free_ctx(FC_BACKEND_CUDA);
  Context tight(FC_BACKEND_CUDA);
  tight.memory_limit(int64_t(3) << 20);
  const Series s1 = make_series(free_ctx, d), s2 = make_series(tight, d);
  const fc::EdgeTest test{true, 0.0f};  // every pair of non-constant series: ~1.1 M edges
  const fc::UpperEdges a = edges_of(free_ctx, s1, test), b = edges_of(tight, s2, test);
  check_shape(b, n);
  const int64_t alive = n - 3;
  ASSERT_EQ(static_cast<int64_t>(b.columns.size()), alive * (alive - 1) / 2);
  ASSERT_EQ(a.columns, b.columns);
  ASSERT_EQ(a.row_count, b.row_count);
  for (size_t k = 0; k < a.values.size(); ++k) ASSERT_NEAR(a.values[k], b.values[k], 2e-6) << k;
}

// Per series, from the float64 reference: pairs that surely pass the test, pairs within
// kNearThreshold of the threshold (either way), and the float64 weight of the sure ones.
struct Float64Degree {
  std::vector<int64_t> sure, near;
  std::vector<double> weight;
};
Float64Degree float64_degree(const Reference& ref, const fc::EdgeTest& test) {
  Float64Degree f{std::vector<int64_t>(ref.n, 0), std::vector<int64_t>(ref.n, 0), std::vector<double>(ref.n, 0.0)};
  for (int64_t i = 0; i < ref.n; ++i)
    for (int64_t j = i + 1; j < ref.n; ++j) {
      if (ref.constant[i] || ref.constant[j]) continue;
      const double r = dot(ref.row(i), ref.row(j), ref.t), v = test.absolute ? std::fabs(r) : r;
      if (std::fabs(v - test.threshold) <= kNearThreshold) {
        ++f.near[i], ++f.near[j];
      } else if (v >= test.threshold) {
        ++f.sure[i], ++f.sure[j];
        f.weight[i] += v, f.weight[j] += v;
      }
    }
  return f;
}

// Degree and strength against the row sums of the graph's edges. The tiled path
// (FASTCONN_CUDA_FUSED_DEGREE=0) reads the very tiles the edges come from: equal degrees, sums
// equal to rounding. The fused kernel (the default) computes its own products, in another
// summation order than cuBLAS: a pair's r may differ by an ulp or two, so a degree may differ
// only by the series' pairs within kNearThreshold of the threshold, and where the degrees agree
// the strengths agree to a few float ulps a pair. Both are bit-identical run to run.
TEST(CudaGraph, DegreeIsRowSumsOfEdgesAndDeterministic) {
  REQUIRE_CUDA();
  const int64_t n = 1777, t = 90;
  const Dataset d = graph_data(n, t, 9);
  const Reference ref = normalize(d);
  for (const char* fused : {"0", "1"})
    for (const fc::EdgeTest test : {fc::EdgeTest{true, 0.35f}, fc::EdgeTest{false, 0.3f}}) {
      SCOPED_TRACE(std::string("FASTCONN_CUDA_FUSED_DEGREE=") + fused + (test.absolute ? ", |r|" : ", r"));
      const ScopedEnv env("FASTCONN_CUDA_FUSED_DEGREE", fused);
      Context ctx(FC_BACKEND_CUDA);
      const Series s = make_series(ctx, d);
      const fc::UpperEdges e = edges_of(ctx, s, test);
      std::vector<int64_t> deg_ref(n, 0);
      std::vector<double> str_ref(n, 0.0);
      int64_t at = 0;
      for (int64_t i = 0; i < n; ++i)
        for (int64_t k = 0; k < e.row_count[i]; ++k, ++at) {
          const int64_t j = e.columns[at];
          const double w = test.absolute ? std::fabs(e.values[at]) : e.values[at];
          ++deg_ref[i], ++deg_ref[j];
          str_ref[i] += w, str_ref[j] += w;
        }
      std::vector<int64_t> deg(n, -1), deg2(n, -1);
      std::vector<double> str(n, -1), str2(n, -1);
      const fc::SeriesView v = view_of(s);
      with_run(ctx, triu_size(n), [&](const fc::RunSettings& run) { backend_of(ctx).threshold_degree(v, test, deg.data(), str.data(), run); });
      with_run(ctx, triu_size(n), [&](const fc::RunSettings& run) { backend_of(ctx).threshold_degree(v, test, deg2.data(), str2.data(), run); });
      if (std::string(fused) == "0") {
        EXPECT_EQ(deg, deg_ref);
        for (int64_t i = 0; i < n; ++i) ASSERT_NEAR(str[i], str_ref[i], 1e-9 * (1 + std::fabs(str_ref[i]))) << i;
      } else {
        const Float64Degree f = float64_degree(ref, test);
        int64_t equal = 0;
        for (int64_t i = 0; i < n; ++i) {
          ASSERT_LE(std::llabs(deg[i] - deg_ref[i]), f.near[i]) << "series " << i;
          if (deg[i] != deg_ref[i]) continue;
          ++equal;
          ASSERT_NEAR(str[i], str_ref[i], 4e-7 * (1 + deg[i])) << "series " << i;
        }
        EXPECT_GT(equal, n * 9 / 10);
      }
      EXPECT_EQ(0, std::memcmp(str.data(), str2.data(), n * sizeof(double))) << "strength must be bit-identical run to run";
      EXPECT_EQ(deg, deg2);
      // Degree only.
      std::vector<int64_t> deg3(n, -1);
      with_run(ctx, triu_size(n), [&](const fc::RunSettings& run) { backend_of(ctx).threshold_degree(v, test, deg3.data(), nullptr, run); });
      EXPECT_EQ(deg3, deg);
    }
}

// Each band's pass runs on a high-priority stream of its own by default, on the GEMM's stream
// with FASTCONN_CUDA_PASS_STREAMS=0: the same kernels in the same order, so the same bits, and a
// memory limit of many bands exercises the events that hand each tile between the two streams.
TEST(CudaGraph, PassStreamsGiveTheSameBitsAsOneStream) {
  REQUIRE_CUDA();
  const int64_t n = 2311, t = 75;
  const Dataset d = graph_data(n, t, 2311);
  const fc::EdgeTest test{true, 0.3f};
  struct Result {
    fc::UpperEdges edges;
    std::vector<int64_t> degree;
    std::vector<double> strength;
  };
  auto run = [&](const char* mode) {
    const char* old = std::getenv("FASTCONN_CUDA_PASS_STREAMS");
    const std::string saved = old != nullptr ? old : "";
    setenv("FASTCONN_CUDA_PASS_STREAMS", mode, 1);
    Context ctx(FC_BACKEND_CUDA);
    ctx.memory_limit(int64_t(8) << 20);  // about 2 M values a tile: tens of bands
    const Series s = make_series(ctx, d);
    Result r;
    r.edges = edges_of(ctx, s, test);
    r.degree.assign(n, -1);
    r.strength.assign(n, -1);
    const fc::SeriesView v = view_of(s);
    with_run(ctx, triu_size(n), [&](const fc::RunSettings& rs) {
      backend_of(ctx).threshold_degree(v, test, r.degree.data(), r.strength.data(), rs);
    });
    if (old != nullptr) setenv("FASTCONN_CUDA_PASS_STREAMS", saved.c_str(), 1);
    else unsetenv("FASTCONN_CUDA_PASS_STREAMS");
    return r;
  };
  const Result split = run("1"), one = run("0");
  check_shape(split.edges, n);
  EXPECT_GT(split.edges.columns.size(), 1000u);
  EXPECT_EQ(split.edges.row_count, one.edges.row_count);
  EXPECT_EQ(split.edges.columns, one.edges.columns);
  ASSERT_EQ(split.edges.values.size(), one.edges.values.size());
  EXPECT_EQ(0, std::memcmp(split.edges.values.data(), one.edges.values.data(), split.edges.values.size() * sizeof(float)));
  EXPECT_EQ(split.degree, one.degree);
  EXPECT_EQ(0, std::memcmp(split.strength.data(), one.strength.data(), n * sizeof(double)));
}

struct DegreeResult {
  std::vector<int64_t> degree;
  std::vector<double> strength;
};

// threshold_degree with FASTCONN_CUDA_FUSED_DEGREE set to `fused` ("1": products computed by
// the fused kernel, "0": cuBLAS tiles and the degree pass), in a fresh context.
DegreeResult degree_with(const Dataset& d, const fc::EdgeTest& test, const char* fused, int64_t memory_limit = 0) {
  const ScopedEnv env("FASTCONN_CUDA_FUSED_DEGREE", fused);
  Context ctx(FC_BACKEND_CUDA);
  if (memory_limit > 0) ctx.memory_limit(memory_limit);
  const Series s = make_series(ctx, d);
  DegreeResult r{std::vector<int64_t>(d.n, -1), std::vector<double>(d.n, -1.0)};
  const fc::SeriesView v = view_of(s);
  with_run(ctx, triu_size(d.n), [&](const fc::RunSettings& run) {
    backend_of(ctx).threshold_degree(v, test, r.degree.data(), r.strength.data(), run);
  });
  return r;
}

// The fused degree kernel (kernels/fused_degree.cu) at sizes around its 128 x 128 tiles and 8-deep
// k steps, with constant series (a signed threshold below 0 would count their r = 0 pairs if
// they were not excluded), against the tiled path and the float64 reference: degrees between
// the pairs that surely pass and those plus the ones within kNearThreshold, strengths as the
// float64 sums where no pair is that close.
TEST(CudaGraph, FusedDegreeMatchesTiledPathAndFloat64AtOddSizes) {
  REQUIRE_CUDA();
  struct Shape {
    int64_t n, t;
  };
  for (const Shape sh : {Shape{2, 2}, Shape{3, 5}, Shape{7, 2}, Shape{127, 9}, Shape{128, 8}, Shape{129, 31},
                         Shape{257, 165}, Shape{389, 17}, Shape{1031, 64}}) {
    Dataset d = structured_data(sh.n, sh.t, 1000 + sh.n);
    if (sh.n >= 7) {
      make_constant(d, 1, 3.0);
      make_constant(d, sh.n - 2, -2.0);
    }
    const Reference ref = normalize(d);
    for (const fc::EdgeTest test : {fc::EdgeTest{true, 0.3f}, fc::EdgeTest{false, -0.2f}, fc::EdgeTest{true, 0.0f}}) {
      SCOPED_TRACE("n = " + std::to_string(sh.n) + ", t = " + std::to_string(sh.t) + ", threshold " +
                   std::to_string(test.threshold) + (test.absolute ? " on |r|" : " on r"));
      const DegreeResult fused = degree_with(d, test, "1"), tiled = degree_with(d, test, "0");
      const Float64Degree f = float64_degree(ref, test);
      for (int64_t i = 0; i < sh.n; ++i) {
        for (const DegreeResult* r : {&fused, &tiled}) {
          ASSERT_GE(r->degree[i], f.sure[i]) << "series " << i << (r == &fused ? " (fused)" : " (tiled)");
          ASSERT_LE(r->degree[i], f.sure[i] + f.near[i]) << "series " << i << (r == &fused ? " (fused)" : " (tiled)");
          if (f.near[i] == 0) { ASSERT_NEAR(r->strength[i], f.weight[i], 1e-5 * (1 + f.sure[i])) << "series " << i; }
        }
        if (fused.degree[i] == tiled.degree[i]) {
          ASSERT_NEAR(fused.strength[i], tiled.strength[i], 4e-7 * (1 + fused.degree[i])) << "series " << i;
        }
        if (ref.constant[i]) {
          ASSERT_EQ(fused.degree[i], 0) << "constant series " << i;
          ASSERT_EQ(fused.strength[i], 0.0) << "constant series " << i;
        }
      }
    }
  }
}

// Bands of whole 128-row tiles under a memory limit (many of them, two streams), the same
// result as one band; bit-identical run to run.
TEST(CudaGraph, FusedDegreeBandsAndDeterminism) {
  REQUIRE_CUDA();
  const Dataset d = graph_data(3001, 40, 77);
  const fc::EdgeTest test{true, 0.25f};
  const DegreeResult one = degree_with(d, test, "1"), again = degree_with(d, test, "1");
  const DegreeResult banded = degree_with(d, test, "1", int64_t(2) << 20);  // ~200 K pairs a band
  EXPECT_EQ(one.degree, again.degree);
  EXPECT_EQ(0, std::memcmp(one.strength.data(), again.strength.data(), d.n * sizeof(double)));
  EXPECT_EQ(one.degree, banded.degree);
  EXPECT_EQ(0, std::memcmp(one.strength.data(), banded.strength.data(), d.n * sizeof(double)))
      << "fixed-point sums are exact in any order, whatever the bands";
  int64_t edges2 = 0;
  for (int64_t k : one.degree) edges2 += k;
  EXPECT_GT(edges2, 2 * 1000);
}

TEST(CudaGraph, HistogramMatchesTriuBits) {
  REQUIRE_CUDA();
  const int64_t n = 1333, t = 70;
  const Dataset d = graph_data(n, t, 31);
  const Reference ref = normalize(d);
  for (const int64_t limit : {int64_t(0), int64_t(2) << 20}) {
    Context ctx(FC_BACKEND_CUDA);
    ctx.memory_limit(limit);
    const Series s = make_series(ctx, d);
    std::vector<int64_t> counts;
    with_run(ctx, triu_size(n), [&](const fc::RunSettings& run) { backend_of(ctx).abs_histogram(view_of(s), counts, run); });
    ASSERT_EQ(static_cast<int64_t>(counts.size()), fc::kAbsHistogramBins);
    Context plain(FC_BACKEND_CUDA);  // the default plan's triangle
    const Series sp = make_series(plain, d);
    const std::vector<float> tri = pcc_triu(plain, sp, FC_TRIU_ROW);
    std::vector<int64_t> want(static_cast<size_t>(fc::kAbsHistogramBins), 0);
    int64_t off = 0, total = 0;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = i + 1; j < n; ++j, ++off) {
        if (ref.constant[i] || ref.constant[j]) continue;
        const float a = std::fabs(tri[off]);
        uint32_t bits;
        std::memcpy(&bits, &a, 4);
        ++want[bits >> fc::kAbsHistogramShift];
        ++total;
      }
    int64_t got_total = 0, moved = 0;
    for (int64_t b = 0; b < fc::kAbsHistogramBins; ++b) {
      got_total += counts[b];
      moved += std::abs(counts[b] - want[b]);
    }
    EXPECT_EQ(got_total, total);
    if (limit == 0) EXPECT_EQ(counts, want);  // same tiles: same bits, same bins
    else { EXPECT_LE(moved, total / 1000) << "other tiles may move a value across a bin edge by rounding only"; }
  }
}

// Top-k against a selection from the float64 reference: the k columns and their order agree
// except where two candidates' |r64| lie within kNearThreshold of each other.
TEST(CudaGraph, TopKAgreesWithFloat64Selection) {
  REQUIRE_CUDA();
  const int64_t n = 901, t = 75;
  const Dataset d = graph_data(n, t, 55);
  const Reference ref = normalize(d);
  Context ctx(FC_BACKEND_CUDA);
  const Series s = make_series(ctx, d);
  for (const int64_t k : {int64_t(1), int64_t(7), int64_t(40)}) {
    std::vector<int64_t> cols(static_cast<size_t>(n * k), -5);
    std::vector<float> vals(static_cast<size_t>(n * k), -5.0f);
    with_run(ctx, n, [&](const fc::RunSettings& run) { backend_of(ctx).top_k(view_of(s), k, cols.data(), vals.data(), run); });
    int64_t checked_rows = 0;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t* c = cols.data() + i * k;
      if (ref.constant[i]) {
        for (int64_t m = 0; m < k; ++m) ASSERT_EQ(c[m], -1) << "constant row " << i;
        continue;
      }
      std::vector<std::pair<double, int64_t>> cand;
      for (int64_t j = 0; j < n; ++j)
        if (j != i && !ref.constant[j]) cand.push_back({std::fabs(dot(ref.row(i), ref.row(j), t)), j});
      std::sort(cand.begin(), cand.end(), [](auto& a, auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
      bool ambiguous = false;
      for (int64_t m = 0; m < k && m + 1 < static_cast<int64_t>(cand.size()); ++m)
        ambiguous = ambiguous || cand[m].first - cand[m + 1].first <= kNearThreshold;
      for (int64_t m = 0; m < k; ++m) {
        ASSERT_GE(c[m], 0) << "row " << i;
        ASSERT_NE(c[m], i);
        ASSERT_FALSE(ref.constant[c[m]]);
        ASSERT_NEAR(vals[i * k + m], dot(ref.row(i), ref.row(c[m]), t), 1e-5);
        if (m > 0) { ASSERT_GE(std::fabs(vals[i * k + m - 1]), std::fabs(vals[i * k + m])); }
        if (!ambiguous) { ASSERT_EQ(c[m], cand[m].second) << "row " << i << " rank " << m; }
      }
      checked_rows += !ambiguous;
    }
    EXPECT_GT(checked_rows, n / 2) << "most rows must have no near-tie";
  }
  // Fewer candidates than k: padded with -1 / 0.
  const Dataset small = graph_data(5, 30, 3);  // 3 constant series, 2 others
  const Series s5 = make_series(ctx, small);
  std::vector<int64_t> cols(5 * 3, -5);
  std::vector<float> vals(5 * 3, -5.0f);
  with_run(ctx, 5, [&](const fc::RunSettings& run) { backend_of(ctx).top_k(view_of(s5), 3, cols.data(), vals.data(), run); });
  const Reference r5 = normalize(small);
  for (int64_t i = 0; i < 5; ++i) {
    const int64_t expected = r5.constant[i] ? 0 : 1;
    for (int64_t m = 0; m < 3; ++m) {
      if (m < expected) { EXPECT_GE(cols[i * 3 + m], 0); }
      else { EXPECT_EQ(cols[i * 3 + m], -1) << i; }
      if (m >= expected) { EXPECT_EQ(vals[i * 3 + m], 0.0f); }
    }
  }
}

int cancel_after_first(int64_t, int64_t, void* calls) { return ++*static_cast<int*>(calls) >= 1 ? 1 : 0; }

TEST(CudaGraph, CancelStopsAndLeavesTheBackendUsable) {
  REQUIRE_CUDA();
  const int64_t n = 3000, t = 50;
  const Dataset d = graph_data(n, t, 12);
  Context ctx(FC_BACKEND_CUDA);
  ctx.memory_limit(int64_t(8) << 20);  // many bands, so the cancel lands mid-run
  const Series s = make_series(ctx, d);
  const fc::SeriesView v = view_of(s);
  const fc::EdgeTest test{true, 0.4f};
  int calls = 0;
  fc::UpperEdges e;
  bool cancelled = false;
  try {
    with_run(ctx, triu_size(n), [&](const fc::RunSettings& run) { backend_of(ctx).threshold_edges(v, test, e, run); },
             cancel_after_first, &calls);
  } catch (const std::exception& ex) {
    cancelled = std::string(ex.what()).find("cancel") != std::string::npos;
  }
  EXPECT_TRUE(cancelled);
  EXPECT_EQ(calls, 1);
  calls = 0;
  std::vector<int64_t> deg(n);
  cancelled = false;
  try {
    with_run(ctx, triu_size(n), [&](const fc::RunSettings& run) { backend_of(ctx).threshold_degree(v, test, deg.data(), nullptr, run); },
             cancel_after_first, &calls);
  } catch (const std::exception& ex) {
    cancelled = std::string(ex.what()).find("cancel") != std::string::npos;
  }
  EXPECT_TRUE(cancelled);
  // Then a full run works and agrees with an unlimited context.
  const fc::UpperEdges after = edges_of(ctx, s, test);
  Context plain(FC_BACKEND_CUDA);
  const Series sp = make_series(plain, d);
  EXPECT_EQ(after.row_count, edges_of(plain, sp, test).row_count);
}

// fc_pcc_graph's symmetric CSR assembled on the device (threshold_graph returns true) equals the
// host assembly of the same edges bit for bit: positions, columns and weights, for every weight
// kind, both threshold rules, constant series, odd sizes, no edges at all. The host assembly is
// what a memory limit falls back to when it leaves no room for the device buffers past the edge
// arena (`limited` at n = 1201), or when the arena fills while the edges are kept on the device
// (`tight`: they then move to the host and the rest follow them).
TEST(CudaGraph, DeviceCsrEqualsHostAssembly) {
  REQUIRE_CUDA();
  struct Size {
    int64_t n, t;
  };
  for (const Size z : {Size{2, 5}, Size{3, 2}, Size{97, 31}, Size{1201, 64}}) {
    const Dataset d = z.n > 3 ? graph_data(z.n, z.t, 500 + z.n) : structured_data(z.n, z.t, 500 + z.n);
    Context gpu(FC_BACKEND_CUDA), limited(FC_BACKEND_CUDA), tight(FC_BACKEND_CUDA);
    limited.memory_limit(int64_t(8) << 20);  // at n = 1201: the arena (all pairs) takes what the tiles leave
    tight.memory_limit(int64_t(2) << 20);    // at n = 1201: an arena smaller than the graph
    const Series sg = make_series(gpu, d), sl = make_series(limited, d), st = make_series(tight, d);
    struct Rule {
      fc_edge_rule rule;
      double param;
    };
    for (const Rule r : {Rule{FC_EDGE_ABS_THRESHOLD, 0.2}, Rule{FC_EDGE_THRESHOLD, -0.1}, Rule{FC_EDGE_ABS_THRESHOLD, 1.5}})
      for (int w : {FC_GRAPH_BINARY, FC_GRAPH_WEIGHTED, FC_GRAPH_WEIGHTED_ABS}) {
        SCOPED_TRACE("n " + std::to_string(z.n) + " rule " + std::to_string(r.rule) + " param " + std::to_string(r.param) +
                     " weights " + std::to_string(w));
        // Which path each context takes (true: the device assembly).
        const fc::EdgeTest test{r.rule == FC_EDGE_ABS_THRESHOLD, static_cast<float>(r.param)};
        auto device_path = [&](const Context& c, const Series& s) {
          fc::SymmetricCsr csr;
          fc::UpperEdges edges;
          bool on_device = false;
          with_run(c, triu_size(z.n), [&](const fc::RunSettings& run) {
            on_device = backend_of(c).threshold_graph(view_of(s), test, w, csr, edges, run);
          });
          return on_device;
        };
        EXPECT_EQ(device_path(gpu, sg), z.n >= 2);
        if (z.n == 1201) {
          EXPECT_FALSE(device_path(limited, sl));
          EXPECT_FALSE(device_path(tight, st));
        }
        const Csr a = pcc_graph(gpu, sg, r.rule, r.param, w), b = pcc_graph(limited, sl, r.rule, r.param, w),
                  c = pcc_graph(tight, st, r.rule, r.param, w);
        EXPECT_TRUE(well_formed(a));
        for (const Csr* other : {&b, &c}) {
          ASSERT_EQ(a.n_edges, other->n_edges);
          ASSERT_EQ(a.offsets, other->offsets);
          ASSERT_EQ(a.columns, other->columns);
          ASSERT_EQ(0, std::memcmp(a.weights.data(), other->weights.data(), a.weights.size() * sizeof(float)));
        }
        if (r.param > 1.0) { EXPECT_EQ(a.n_edges, 0); }
        if (z.n == 1201 && r.param < 1.0) { EXPECT_GT(a.n_edges, 1000); }
      }
  }
}

// Whether host memory is page-locked for the device (cudaHostRegister or cudaHostAlloc).
bool locked(const void* p) {
  cudaPointerAttributes a;
  std::memset(&a, 0, sizeof a);
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return a.type == cudaMemoryTypeHost;
}

const void* columns_of(const fc_graph* g) { return g->data->columns.data(); }

// A graph built into the arrays a destroyed graph left (graph_recycler.hpp) copies straight into
// them once they are page-locked (host_pins.hpp): the same CSR as the first, staged build; the
// arrays stay locked while the context keeps them and are unlocked when they are freed, whether
// the graph or the context goes first. 2311 series, every pair an edge: 5.3 M entries, 43 MB of
// columns and 21 MB of weights, past the 16 MiB below which arrays are not locked.
TEST(CudaGraph, ReusedGraphArraysAreLockedAndUnlockedWhenFreed) {
  REQUIRE_CUDA();
  const int64_t n = 2311;
  const Dataset d = structured_data(n, 17, 2311);
  auto build = [&](const Context& c, const Series& s) {
    fc_graph* g = nullptr;
    check(fc_pcc_graph(c.get(), s.get(), FC_EDGE_ABS_THRESHOLD, 0.0, FC_GRAPH_WEIGHTED, &g), "fc_pcc_graph");
    return g;
  };
  auto same = [](const Csr& a, const Csr& b) {
    ASSERT_EQ(a.n_edges, b.n_edges);
    ASSERT_EQ(a.offsets, b.offsets);
    ASSERT_EQ(a.columns, b.columns);
    ASSERT_EQ(0, std::memcmp(a.weights.data(), b.weights.data(), a.weights.size() * sizeof(float)));
  };
  const void* kept = nullptr;
  Csr first;
  {
    Context ctx(FC_BACKEND_CUDA);
    const Series s = make_series(ctx, d);
    fc_graph* g1 = build(ctx, s);
    first = copy_out(g1);
    ASSERT_EQ(first.n_edges, n * (n - 1) / 2);
    const void* p1 = columns_of(g1);
    EXPECT_FALSE(locked(p1));  // fresh arrays: staged, first touched by the copy threads
    fc_graph_destroy(g1);      // its arrays go to the context
    fc_graph* g2 = build(ctx, s);
    EXPECT_EQ(columns_of(g2), p1);
    EXPECT_TRUE(locked(p1));
    same(first, copy_out(g2));
    fc_graph* g3 = build(ctx, s);  // while g2 lives: fresh arrays again
    EXPECT_FALSE(locked(columns_of(g3)));
    same(first, copy_out(g3));
    fc_graph_destroy(g3);
    fc_graph_destroy(g2);  // both kept by the context, g2's still locked
    EXPECT_TRUE(locked(p1));
    fc_graph* g4 = build(ctx, s);  // the larger kept arrays, or g3's (then locked now)
    EXPECT_TRUE(locked(columns_of(g4)));
    same(first, copy_out(g4));
    fc_graph_destroy(g4);
    kept = p1;
  }  // the context frees what it kept: unlocked first
  EXPECT_FALSE(locked(kept));

  // The graph outlives its context: unlocked when the graph is destroyed.
  fc_graph* last = nullptr;
  const void* p = nullptr;
  {
    Context ctx(FC_BACKEND_CUDA);
    const Series s = make_series(ctx, d);
    fc_graph_destroy(build(ctx, s));
    last = build(ctx, s);
    p = columns_of(last);
    EXPECT_TRUE(locked(p));
  }
  same(first, copy_out(last));
  EXPECT_TRUE(locked(p));
  fc_graph_destroy(last);
  EXPECT_FALSE(locked(p));
}

// The CPU backend's threshold edges: the same edge sets except pairs within kNearThreshold of the
// threshold. Both backends have the call, so an exception from either fails the test (it used to
// be a skip, which hid a broken CPU path even under FASTCONN_REQUIRE_CUDA=1: issue 35).
TEST(CudaGraph, AgreesWithCpuBackend) {
  REQUIRE_CUDA();
  const int64_t n = 1201, t = 88;
  const Dataset d = graph_data(n, t, 101);
  const Reference ref = normalize(d);
  Context gpu(FC_BACKEND_CUDA), cpu(FC_BACKEND_CPU);
  const Series sg = make_series(gpu, d), sc = make_series(cpu, d);
  const fc::EdgeTest test{true, 0.3f};
  const fc::UpperEdges ec = edges_of(cpu, sc, test);
  ASSERT_GT(ec.columns.size(), 0u) << "the CPU backend gave no edges at |r| >= 0.3";
  const fc::UpperEdges eg = edges_of(gpu, sg, test);
  const std::vector<float> dg = dense_of(eg, n), dc = dense_of(ec, n);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j) {
      const float a = dg[i * n + j], b = dc[i * n + j];
      if (std::isnan(a) == std::isnan(b)) {
        if (!std::isnan(a)) { ASSERT_NEAR(a, b, 2e-6); }
        continue;
      }
      const double r64 = std::fabs(dot(ref.row(i), ref.row(j), t));
      ASSERT_LE(std::fabs(r64 - test.threshold), kNearThreshold) << "(" << i << ", " << j << ") only on one backend";
    }
}

}  // namespace
