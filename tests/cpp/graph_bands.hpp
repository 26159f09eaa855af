// A backend's row bands of the network calls (graph_backend.hpp's *_rows) joined as the split
// backend joins them, against the same backend's whole calls, bit for bit (memcmp): edges
// concatenated in band order, degree and fixed-point strength summed (strength = ldexp(fixed,
// -bits)), histograms added, top-k rows side by side. Each band must also report its own work as
// progress (pairs of its rows; top_k: its rows). A band the backend declines (false) must leave
// its outputs untouched; the checks then say so (Joined::declined) and compare nothing.
// Included by tests/cpp/test_graph_bands.cpp (CPU) and tests/gpu/test_cuda_graph_bands.cpp.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "api/handles.hpp"
#include "api_calls.hpp"
#include "base/triangle_index.hpp"
#include "reference.hpp"

namespace fctest {

// Structured (fMRI-like) series with three constant ones (the first, one in the middle, the last).
inline Dataset band_data(int64_t n, int64_t t, uint64_t seed) {
  Dataset d = structured_data(n, t, seed);
  for (int64_t c : {int64_t(0), n / 3, n - 1}) make_constant(d, c, 3.0 + double(c));
  return d;
}

inline std::string precision_name(fc_precision p) {
  return p == FC_PRECISION_FP64 ? "FP64" : p == FC_PRECISION_TF32 ? "TF32" : "FP32";
}

inline fc::Backend& bands_backend(const Context& c) { return *c.get()->state->backend; }
inline fc::SeriesView bands_view(const Series& s) { return s.get()->data->view(); }

// Calls f(run) with the context's settings; returns the progress units it reported.
template <class F>
int64_t reported_units(const Context& c, F&& f) {
  fc::Progress progress(nullptr, nullptr, 0);
  const fc::RunSettings run = c.get()->state->run_settings(progress);
  f(run);
  return progress.done();
}

inline int64_t granularity_of(const Context& c, const Series& s) {
  fc::Progress progress(nullptr, nullptr, 0);
  return bands_backend(c).graph_row_granularity(bands_view(s), c.get()->state->run_settings(progress));
}

// Pairs (q, p), p > q, of the rows q in [b, e) of n series.
inline int64_t band_pairs(int64_t n, int64_t b, int64_t e) {
  if (n < 2) return 0;
  return fc::row_start(n, std::min(e, n - 1)) - fc::row_start(n, std::min(b, n - 1));
}

// Band ends 0 = c0 <= c1 <= ... <= ck = n at multiples of g: `parts` random cuts (repeats make
// empty bands), or with parts < 0 every multiple of g (one granule a band).
inline std::vector<int64_t> band_cuts(int64_t n, int64_t g, int parts, uint64_t seed) {
  std::vector<int64_t> cuts{0};
  const int64_t granules = (n + g - 1) / g;
  if (parts < 0) {
    for (int64_t m = 1; m < granules; ++m) cuts.push_back(m * g);
  } else {
    Random rng(seed);
    for (int p = 0; p < parts; ++p) cuts.push_back(g * static_cast<int64_t>(rng.uniform() * static_cast<double>(granules)));
    std::sort(cuts.begin(), cuts.end());
  }
  cuts.push_back(n);
  return cuts;
}

inline std::string cuts_text(const std::vector<int64_t>& cuts) {
  std::string s = "bands at";
  for (int64_t c : cuts) s += " " + std::to_string(c);
  return s;
}

// Two arrays of one element type (vectors of any allocator): the same size and bytes.
template <class A, class B>
bool same_bits(const A& a, const B& b) {
  static_assert(sizeof(a[0]) == sizeof(b[0]), "arrays of one element type");
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(a[0])) == 0);
}

enum class Joined { checked, declined };

// threshold_edges_rows over the bands, concatenated, against threshold_edges.
inline Joined join_edges(const Context& c, const Series& s, const fc::EdgeTest& test, const std::vector<int64_t>& cuts) {
  fc::Backend& be = bands_backend(c);
  const fc::SeriesView v = bands_view(s);
  fc::UpperEdges whole, joined;
  reported_units(c, [&](const fc::RunSettings& run) { be.threshold_edges(v, test, whole, run); });
  for (size_t b = 0; b + 1 < cuts.size(); ++b) {
    fc::UpperEdges band;
    band.row_count.assign(3, -5);  // replaced when the band runs, untouched when declined
    bool ran = false;
    const int64_t units = reported_units(c, [&](const fc::RunSettings& run) {
      ran = be.threshold_edges_rows(v, test, cuts[b], cuts[b + 1], band, run);
    });
    if (!ran) {
      EXPECT_EQ(band.row_count, std::vector<int64_t>(3, -5)) << "a declined band wrote its output";
      EXPECT_EQ(units, 0) << "a declined band reported progress";
      return Joined::declined;
    }
    EXPECT_EQ(static_cast<int64_t>(band.row_count.size()), cuts[b + 1] - cuts[b]) << "band " << b;
    EXPECT_EQ(units, band_pairs(v.n, cuts[b], cuts[b + 1])) << "progress of band " << b;
    joined.row_count.insert(joined.row_count.end(), band.row_count.begin(), band.row_count.end());
    joined.columns.insert(joined.columns.end(), band.columns.begin(), band.columns.end());
    joined.values.insert(joined.values.end(), band.values.begin(), band.values.end());
  }
  EXPECT_TRUE(same_bits(whole.row_count, joined.row_count)) << "row counts";
  EXPECT_TRUE(same_bits(whole.columns, joined.columns)) << "columns: " << whole.columns.size() << " vs " << joined.columns.size();
  EXPECT_TRUE(same_bits(whole.values, joined.values)) << "values";
  return Joined::checked;
}

// threshold_degree_rows over the bands, summed, against threshold_degree: degree and strength,
// degree alone (strength_fixed null) or strength alone (degree null).
enum class DegreeParts { both, degree_only, strength_only };

inline Joined join_degree(const Context& c, const Series& s, const fc::EdgeTest& test, const std::vector<int64_t>& cuts,
                          DegreeParts parts) {
  fc::Backend& be = bands_backend(c);
  const fc::SeriesView v = bands_view(s);
  const size_t n = static_cast<size_t>(v.n);
  const bool want_degree = parts != DegreeParts::strength_only, want_strength = parts != DegreeParts::degree_only;
  std::vector<int64_t> degree(n, -1);
  std::vector<double> strength(n, -1.0);
  reported_units(c, [&](const fc::RunSettings& run) {
    be.threshold_degree(v, test, want_degree ? degree.data() : nullptr, want_strength ? strength.data() : nullptr, run);
  });
  std::vector<int64_t> deg_sum(n, 0), fixed_sum(n, 0);
  for (size_t b = 0; b + 1 < cuts.size(); ++b) {
    // Added into: start from a known non-zero value and take it off again.
    std::vector<int64_t> deg(n, 3), fixed(n, 3);
    bool ran = false;
    const int64_t units = reported_units(c, [&](const fc::RunSettings& run) {
      ran = be.threshold_degree_rows(v, test, cuts[b], cuts[b + 1], want_degree ? deg.data() : nullptr,
                                     want_strength ? fixed.data() : nullptr, run);
    });
    if (!ran) {
      EXPECT_TRUE(std::all_of(deg.begin(), deg.end(), [](int64_t x) { return x == 3; }) &&
                  std::all_of(fixed.begin(), fixed.end(), [](int64_t x) { return x == 3; }))
          << "a declined band wrote its output";
      EXPECT_EQ(units, 0) << "a declined band reported progress";
      return Joined::declined;
    }
    EXPECT_EQ(units, band_pairs(v.n, cuts[b], cuts[b + 1])) << "progress of band " << b;
    for (size_t i = 0; i < n; ++i) {
      deg_sum[i] += deg[i] - 3;
      fixed_sum[i] += fixed[i] - 3;
    }
  }
  const int bits = be.strength_fraction_bits(v);
  std::vector<double> joined_strength(n);
  for (size_t i = 0; i < n; ++i) joined_strength[i] = std::ldexp(static_cast<double>(fixed_sum[i]), -bits);
  if (want_degree) {
    EXPECT_TRUE(same_bits(degree, deg_sum)) << "degrees";
  }
  if (want_strength) {
    EXPECT_TRUE(same_bits(strength, joined_strength)) << "strengths (" << bits << " fraction bits)";
    for (size_t i = 0; i < n; ++i)
      if (std::memcmp(&strength[i], &joined_strength[i], sizeof(double)) != 0) {
        ADD_FAILURE() << "first different strength: series " << i << " whole " << strength[i] << " joined " << joined_strength[i];
        break;
      }
  }
  return Joined::checked;
}

// abs_histogram_rows over the bands, added, against abs_histogram.
inline Joined join_histogram(const Context& c, const Series& s, const std::vector<int64_t>& cuts) {
  fc::Backend& be = bands_backend(c);
  const fc::SeriesView v = bands_view(s);
  std::vector<int64_t> whole;
  reported_units(c, [&](const fc::RunSettings& run) { be.abs_histogram(v, whole, run); });
  std::vector<int64_t> joined(static_cast<size_t>(fc::kAbsHistogramBins), 0);
  for (size_t b = 0; b + 1 < cuts.size(); ++b) {
    std::vector<int64_t> counts(static_cast<size_t>(fc::kAbsHistogramBins), 2);
    bool ran = false;
    const int64_t units = reported_units(c, [&](const fc::RunSettings& run) {
      ran = be.abs_histogram_rows(v, cuts[b], cuts[b + 1], counts, run);
    });
    if (!ran) {
      EXPECT_TRUE(std::all_of(counts.begin(), counts.end(), [](int64_t x) { return x == 2; })) << "a declined band wrote its output";
      EXPECT_EQ(units, 0) << "a declined band reported progress";
      return Joined::declined;
    }
    EXPECT_EQ(units, band_pairs(v.n, cuts[b], cuts[b + 1])) << "progress of band " << b;
    for (size_t x = 0; x < joined.size(); ++x) joined[x] += counts[x] - 2;
  }
  EXPECT_TRUE(same_bits(whole, joined)) << "histograms";
  return Joined::checked;
}

// top_k_rows over the bands, side by side, against top_k.
inline Joined join_top_k(const Context& c, const Series& s, int64_t k, const std::vector<int64_t>& cuts) {
  fc::Backend& be = bands_backend(c);
  const fc::SeriesView v = bands_view(s);
  const size_t cells = static_cast<size_t>(v.n * k);
  std::vector<int64_t> whole_cols(cells, -9), cols(cells, -9);
  std::vector<float> whole_vals(cells, -9.0f), vals(cells, -9.0f);
  reported_units(c, [&](const fc::RunSettings& run) { be.top_k(v, k, whole_cols.data(), whole_vals.data(), run); });
  for (size_t b = 0; b + 1 < cuts.size(); ++b) {
    const size_t at = static_cast<size_t>(cuts[b] * k);
    bool ran = false;
    const int64_t units = reported_units(c, [&](const fc::RunSettings& run) {
      ran = be.top_k_rows(v, k, cuts[b], cuts[b + 1], cols.data() + at, vals.data() + at, run);
    });
    if (!ran) {
      EXPECT_TRUE(std::all_of(cols.begin() + static_cast<std::ptrdiff_t>(at), cols.end(), [](int64_t x) { return x == -9; }))
          << "a declined band wrote its output";
      EXPECT_EQ(units, 0) << "a declined band reported progress";
      return Joined::declined;
    }
    EXPECT_EQ(units, cuts[b + 1] - cuts[b]) << "progress of band " << b;
  }
  EXPECT_TRUE(same_bits(whole_cols, cols)) << "top-k columns";
  EXPECT_TRUE(same_bits(whole_vals, vals)) << "top-k values";
  return Joined::checked;
}

// Every primitive joined over `cuts`; how many of them the backend declined.
inline int join_all(const Context& c, const Series& s, const fc::EdgeTest& test, int64_t k, const std::vector<int64_t>& cuts) {
  SCOPED_TRACE(cuts_text(cuts));
  int declined = 0;
  declined += join_edges(c, s, test, cuts) == Joined::declined;
  for (DegreeParts parts : {DegreeParts::both, DegreeParts::degree_only, DegreeParts::strength_only})
    declined += join_degree(c, s, test, cuts, parts) == Joined::declined;
  declined += join_histogram(c, s, cuts) == Joined::declined;
  declined += join_top_k(c, s, k, cuts) == Joined::declined;
  return declined;
}

// A context setting of join_matrix: its name, the context, and how many of join_all's six joins
// it declines (no band path).
struct BandSetting {
  std::string name;
  std::function<Context()> make;
  int declined;
};

// The matrix of one n: T = 2, 17, 165 (band_data), every setting, both edge tests over a random
// split and the one-granule-a-band split, and k past the candidates where n < 63 (rows padded
// alike).
inline void join_matrix(int64_t n, const std::vector<BandSetting>& settings) {
  for (int64_t t : {2, 17, 165}) {
    const Dataset d = band_data(n, t, 1000 + uint64_t(n) * 7 + uint64_t(t));
    for (const BandSetting& st : settings) {
      SCOPED_TRACE("n " + std::to_string(n) + " t " + std::to_string(t) + " " + st.name);
      const Context c = st.make();
      const Series s = make_series(c, d);
      const int64_t g = granularity_of(c, s);
      ASSERT_GT(g, 0);
      uint64_t seed = uint64_t(n * 31 + t);
      for (const fc::EdgeTest test : {fc::EdgeTest{true, 0.3f}, fc::EdgeTest{false, 0.2f}})
        for (int parts : {-1, 3}) {
          SCOPED_TRACE(test.absolute ? "|r| >= 0.3" : "r >= 0.2");
          EXPECT_EQ(st.declined, join_all(c, s, test, 5, band_cuts(n, g, parts, ++seed)));
        }
      // (at most 64: the CUDA backend selects up to 1024, and the n x k result counts against a limit)
      EXPECT_EQ(st.declined, join_all(c, s, fc::EdgeTest{true, 0.0f}, std::min<int64_t>(n + 2, 64), band_cuts(n, g, 2, ++seed)));
    }
  }
}

}  // namespace fctest
