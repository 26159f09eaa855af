// The CPU backend's row bands of the network calls (issue 33: one call split across devices
// with the same bits as one): any split at multiples of graph_row_granularity, joined
// (graph_bands.hpp), is the whole call bit for bit, for odd sizes, T = 2 (every r is +-1: ties
// everywhere), constant series, FP32 / FP64 / TF32, both edge tests, memory limits and thread
// counts; misplaced bands fail naming the band. Reached through the Backend interface of a
// context made with the public API (the methods are virtual; nothing internal is linked).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "graph_bands.hpp"

namespace {

using namespace fctest;

struct Setting {
  fc_precision precision;
  int64_t memory_limit;  // 0: automatic
  int threads;           // 0: all
};

Context cpu_context(const Setting& st) {
  Context c(FC_BACKEND_CPU);
  c.precision(st.precision).memory_limit(st.memory_limit);
  check(fc_context_set_threads(c.get(), st.threads), "fc_context_set_threads");
  return c;
}

BandSetting band_setting(const Setting& st) {
  return BandSetting{precision_name(st.precision) + " limit " + std::to_string(st.memory_limit) + " threads " +
                         std::to_string(st.threads),
                     [st] { return cpu_context(st); }, 0};
}

class CpuGraphBands : public ::testing::TestWithParam<int64_t> {};

// Every n and T of the matrix under each setting (TF32 is FP32 on the CPU; 256 KiB: one thread's
// tile, no packed copy of the series); the CPU backend never declines a band.
TEST_P(CpuGraphBands, JoinedBandsAreTheWholeCall) {
  join_matrix(GetParam(), {band_setting({FC_PRECISION_FP32, 0, 0}), band_setting({FC_PRECISION_FP64, 0, 0}),
                           band_setting({FC_PRECISION_TF32, 0, 2}), band_setting({FC_PRECISION_FP32, int64_t(256) << 10, 1}),
                           band_setting({FC_PRECISION_FP64, int64_t(256) << 10, 2})});
}

INSTANTIATE_TEST_SUITE_P(Sizes, CpuGraphBands, ::testing::Values(1, 2, 3, 7, 101, 1009, 2053),
                         [](const ::testing::TestParamInfo<int64_t>& info) { return "n" + std::to_string(info.param); });

// The joined checks compare something: at these sizes the graph has edges and non-edges, the
// split has several non-empty bands, and the bands' strengths are not all zero.
TEST(CpuGraphBandsSanity, SplitsAndResultsAreNotTrivial) {
  const Context c = cpu_context({FC_PRECISION_FP32, 0, 0});
  const Series s = make_series(c, band_data(1009, 165, 5));
  const fc::SeriesView v = bands_view(s);
  fc::Progress progress(nullptr, nullptr, 0);
  const fc::RunSettings run = c.get()->state->run_settings(progress);
  const int64_t g = bands_backend(c).graph_row_granularity(v, run);
  const std::vector<int64_t> cuts = band_cuts(1009, g, -1, 0);
  EXPECT_GE(cuts.size(), 5u) << cuts_text(cuts);
  fc::UpperEdges e;
  bands_backend(c).threshold_edges(v, fc::EdgeTest{true, 0.3f}, e, run);
  EXPECT_GT(e.columns.size(), 1000u);
  EXPECT_LT(static_cast<int64_t>(e.columns.size()), triu_size(1009) / 2);
  std::vector<int64_t> fixed(1009, 0);
  ASSERT_TRUE(bands_backend(c).threshold_degree_rows(v, fc::EdgeTest{true, 0.3f}, cuts[1], cuts[2], nullptr, fixed.data(), run));
  EXPECT_TRUE(std::any_of(fixed.begin(), fixed.end(), [](int64_t x) { return x != 0; }));
}

// A band off the grid, reversed or past n fails (fc::Error, FC_ERR_INVALID_ARG) naming it, writing nothing.
TEST(CpuGraphBandsSanity, MisplacedBandsFail) {
  const Context c = cpu_context({FC_PRECISION_FP32, 0, 0});
  const int64_t n = 700;
  const Series s = make_series(c, band_data(n, 40, 6));
  const fc::SeriesView v = bands_view(s);
  fc::Progress progress(nullptr, nullptr, 0);
  const fc::RunSettings run = c.get()->state->run_settings(progress);
  fc::Backend& be = bands_backend(c);
  const int64_t g = be.graph_row_granularity(v, run);
  ASSERT_GT(n, 2 * g) << "the test needs two whole granules";
  const std::vector<std::pair<int64_t, int64_t>> bad = {{1, g}, {0, g + 1}, {g, 0}, {0, n + g}, {-g, g}};
  for (const auto& [b, e] : bad) {
    SCOPED_TRACE("band [" + std::to_string(b) + ", " + std::to_string(e) + ")");
    std::vector<int64_t> deg(n, 0);
    try {
      be.threshold_degree_rows(v, fc::EdgeTest{true, 0.3f}, b, e, deg.data(), nullptr, run);
      ADD_FAILURE() << "no error";
    } catch (const std::exception& err) {  // fc::Error (its type info is the library's own)
      EXPECT_NE(std::string(err.what()).find("[" + std::to_string(b) + ", " + std::to_string(e) + ")"), std::string::npos)
          << err.what();
    }
    EXPECT_TRUE(std::all_of(deg.begin(), deg.end(), [](int64_t x) { return x == 0; }));
  }
}

// A band is cancelled as the whole call is: the progress callback's non-zero return stops it
// with FC_ERR_ABORTED at its next report, for every primitive.
TEST(CpuGraphBandsSanity, CancelStopsABand) {
  const Context c = cpu_context({FC_PRECISION_FP32, int64_t(1) << 20, 0});  // 1 MiB: many progress steps
  const int64_t n = 1500;
  const Series s = make_series(c, band_data(n, 60, 8));
  const fc::SeriesView v = bands_view(s);
  fc::Backend& be = bands_backend(c);
  int reports = 0;
  auto cancel = [](int64_t, int64_t, void* user) { return ++*static_cast<int*>(user) >= 2 ? 1 : 0; };
  const int64_t g = granularity_of(c, s), b = g, e = 5 * g;
  std::vector<int64_t> deg(n, 0), cols(static_cast<size_t>((e - b) * 4));
  std::vector<float> vals(cols.size());
  std::vector<int64_t> counts(static_cast<size_t>(fc::kAbsHistogramBins), 0);
  fc::UpperEdges edges;
  const std::vector<std::pair<const char*, std::function<void(const fc::RunSettings&)>>> calls = {
      {"edges", [&](const fc::RunSettings& r) { be.threshold_edges_rows(v, fc::EdgeTest{true, 0.3f}, b, e, edges, r); }},
      {"degree", [&](const fc::RunSettings& r) { be.threshold_degree_rows(v, fc::EdgeTest{true, 0.3f}, b, e, deg.data(), nullptr, r); }},
      {"histogram", [&](const fc::RunSettings& r) { be.abs_histogram_rows(v, b, e, counts, r); }},
      {"top-k", [&](const fc::RunSettings& r) { be.top_k_rows(v, 4, b, e, cols.data(), vals.data(), r); }}};
  for (const auto& [name, call] : calls) {
    SCOPED_TRACE(name);
    reports = 0;
    fc::Progress progress(cancel, &reports, 0);
    try {
      call(c.get()->state->run_settings(progress));
      ADD_FAILURE() << "not cancelled";
    } catch (const std::exception& err) {  // fc::Error with FC_ERR_ABORTED
      EXPECT_NE(std::string(err.what()).find("cancelled"), std::string::npos) << err.what();
    }
    EXPECT_EQ(reports, 2) << "stopped at the report that cancelled";
  }
}

}  // namespace
