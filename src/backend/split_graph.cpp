// SplitBackend's networks: a row band per part through graph_backend.hpp's band members, joined in
// band order (edges concatenated, degrees and strength sums added as integers, histograms added),
// so the result is the one part's, bit for bit. Where a part offers no band path (its band member
// returns false, having done nothing) the whole call runs on the primary part.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "backend/split_backend.hpp"
#include "base/part_threads.hpp"
#include "base/triangle_index.hpp"

namespace fc {
namespace {

// Runs band(i, rows[i], rows[i + 1], run_i) on every part with a non-empty band; true when each
// returned true.
bool all_bands(const SplitBackend& split, const std::vector<int64_t>& rows, const RunSettings& run,
               const std::function<bool(size_t, int64_t, int64_t, const RunSettings&)>& band) {
  std::vector<char> done(split.parts().size(), 1);
  split.run_on_parts(run, [&](size_t i, const RunSettings& r) {
    if (rows[i] < rows[i + 1]) done[i] = band(i, rows[i], rows[i + 1], r) ? 1 : 0;
  });
  return std::all_of(done.begin(), done.end(), [](char d) { return d != 0; });
}

// Bands of equal pair counts of the row-ordered triangle (the graph passes' work).
std::vector<int64_t> pair_bands(const SplitBackend& split, const SeriesView& s, const RunSettings& run) {
  const int64_t n = s.n;
  return split.bands(0, n, split.graph_row_granularity(s, run), [n](int64_t r) { return row_start(n, r); });
}

// Concatenates the parts' pieces in band order, each copied by its own thread (edge arrays reach
// gigabytes).
void concatenate(const std::vector<UpperEdges>& pieces, UpperEdges& out, const RunSettings& run) {
  std::vector<int64_t> row_at(pieces.size() + 1, 0), edge_at(pieces.size() + 1, 0);
  for (size_t i = 0; i < pieces.size(); ++i) {
    row_at[i + 1] = row_at[i] + static_cast<int64_t>(pieces[i].row_count.size());
    edge_at[i + 1] = edge_at[i] + static_cast<int64_t>(pieces[i].columns.size());
  }
  out.row_count.resize(static_cast<size_t>(row_at.back()));
  out.columns.resize(static_cast<size_t>(edge_at.back()));
  out.values.resize(static_cast<size_t>(edge_at.back()));
  const QuietRun quiet(run);
  run_parts(static_cast<int>(pieces.size()), quiet.run, [&](int i, const RunSettings&) {
    const UpperEdges& p = pieces[static_cast<size_t>(i)];
    std::copy(p.row_count.begin(), p.row_count.end(), out.row_count.begin() + row_at[static_cast<size_t>(i)]);
    std::copy(p.columns.begin(), p.columns.end(), out.columns.begin() + edge_at[static_cast<size_t>(i)]);
    std::copy(p.values.begin(), p.values.end(), out.values.begin() + edge_at[static_cast<size_t>(i)]);
  }, [](int i) { return "copy " + std::to_string(i); });
}

}  // namespace

int64_t SplitBackend::graph_row_granularity(const SeriesView& s, const RunSettings& run) const {
  return parts_[0]->graph_row_granularity(view_on(0, s), run);
}
bool SplitBackend::threshold_edges_rows(const SeriesView& s, const EdgeTest& test, int64_t row_begin, int64_t row_end,
                                        UpperEdges& out, const RunSettings& run) {
  return parts_[0]->threshold_edges_rows(view_on(0, s), test, row_begin, row_end, out, run);
}
bool SplitBackend::threshold_degree_rows(const SeriesView& s, const EdgeTest& test, int64_t row_begin, int64_t row_end,
                                         int64_t* degree, int64_t* strength_fixed, const RunSettings& run) {
  return parts_[0]->threshold_degree_rows(view_on(0, s), test, row_begin, row_end, degree, strength_fixed, run);
}
int SplitBackend::strength_fraction_bits(const SeriesView& s) const { return parts_[0]->strength_fraction_bits(view_on(0, s)); }
bool SplitBackend::abs_histogram_rows(const SeriesView& s, int64_t row_begin, int64_t row_end, std::vector<int64_t>& counts,
                                      const RunSettings& run) {
  return parts_[0]->abs_histogram_rows(view_on(0, s), row_begin, row_end, counts, run);
}
bool SplitBackend::top_k_rows(const SeriesView& s, int64_t k, int64_t row_begin, int64_t row_end, int64_t* columns,
                              float* values, const RunSettings& run) {
  return parts_[0]->top_k_rows(view_on(0, s), k, row_begin, row_end, columns, values, run);
}

void SplitBackend::threshold_edges(const SeriesView& s, const EdgeTest& test, UpperEdges& out, const RunSettings& run) {
  std::vector<UpperEdges> pieces(parts_.size());
  const std::vector<int64_t> rows = pair_bands(*this, s, run);
  if (all_bands(*this, rows, run, [&](size_t i, int64_t b, int64_t e, const RunSettings& r) {
        return parts_[i]->threshold_edges_rows(view_on(i, s), test, b, e, pieces[i], r);
      })) {
    concatenate(pieces, out, run);
    return;
  }
  parts_[0]->threshold_edges(view_on(0, s), test, out, run);
}

bool SplitBackend::threshold_graph(const SeriesView& s, const EdgeTest& test, int weights, SymmetricCsr& csr,
                                   UpperEdges& edges, const RunSettings& run) {
  std::vector<UpperEdges> pieces(parts_.size());
  const std::vector<int64_t> rows = pair_bands(*this, s, run);
  if (all_bands(*this, rows, run, [&](size_t i, int64_t b, int64_t e, const RunSettings& r) {
        return parts_[i]->threshold_edges_rows(view_on(i, s), test, b, e, pieces[i], r);
      })) {
    concatenate(pieces, edges, run);
    return false;  // the caller assembles the CSR from the edges: the same graph (graph_backend.hpp)
  }
  return parts_[0]->threshold_graph(view_on(0, s), test, weights, csr, edges, run);
}

std::unique_ptr<DeviceCsr> SplitBackend::threshold_graph_device(const SeriesView& s, const EdgeTest& test, int weights,
                                                                const RunSettings& run) {
  return parts_[0]->threshold_graph_device(view_on(0, s), test, weights, run);
}

void SplitBackend::copy_device_csr(DeviceCsr& g, SymmetricCsr& csr, const std::function<void()>& meanwhile) {
  parts_[0]->copy_device_csr(g, csr, meanwhile);
}

void SplitBackend::threshold_degree(const SeriesView& s, const EdgeTest& test, int64_t* degree, double* strength,
                                    const RunSettings& run) {
  const size_t n = static_cast<size_t>(s.n);
  std::vector<std::vector<int64_t>> degrees(parts_.size()), fixed(parts_.size());
  const std::vector<int64_t> rows = pair_bands(*this, s, run);
  if (all_bands(*this, rows, run, [&](size_t i, int64_t b, int64_t e, const RunSettings& r) {
        if (degree != nullptr) degrees[i].assign(n, 0);
        if (strength != nullptr) fixed[i].assign(n, 0);
        return parts_[i]->threshold_degree_rows(view_on(i, s), test, b, e, degree != nullptr ? degrees[i].data() : nullptr,
                                                strength != nullptr ? fixed[i].data() : nullptr, r);
      })) {
    const int bits = strength_fraction_bits(s);
    for (size_t x = 0; x < n; ++x) {
      int64_t d = 0, f = 0;
      for (size_t i = 0; i < parts_.size(); ++i) {
        if (!degrees[i].empty()) d += degrees[i][x];
        if (!fixed[i].empty()) f += fixed[i][x];
      }
      if (degree != nullptr) degree[x] = d;
      if (strength != nullptr) strength[x] = std::ldexp(static_cast<double>(f), -bits);
    }
    return;
  }
  parts_[0]->threshold_degree(view_on(0, s), test, degree, strength, run);
}

void SplitBackend::abs_histogram(const SeriesView& s, std::vector<int64_t>& counts, const RunSettings& run) {
  std::vector<std::vector<int64_t>> parts_counts(parts_.size());
  const std::vector<int64_t> rows = pair_bands(*this, s, run);
  if (all_bands(*this, rows, run, [&](size_t i, int64_t b, int64_t e, const RunSettings& r) {
        parts_counts[i].assign(static_cast<size_t>(kAbsHistogramBins), 0);
        return parts_[i]->abs_histogram_rows(view_on(i, s), b, e, parts_counts[i], r);
      })) {
    counts.assign(static_cast<size_t>(kAbsHistogramBins), 0);
    for (const auto& c : parts_counts)
      for (size_t bin = 0; bin < c.size(); ++bin) counts[bin] += c[bin];
    return;
  }
  parts_[0]->abs_histogram(view_on(0, s), counts, run);
}

// A guess needs no split: the first device's sample (every device holds all the series).
bool SplitBackend::density_guess(const SeriesView& s, int64_t target, int64_t eligible, float& guess,
                                 const RunSettings& run) {
  return parts_[0]->density_guess(view_on(0, s), target, eligible, guess, run);
}

void SplitBackend::top_k(const SeriesView& s, int64_t k, int64_t* columns, float* values, const RunSettings& run) {
  // Every row of top_k compares with all n series: equal row counts are equal work.
  const std::vector<int64_t> rows = bands(0, s.n, graph_row_granularity(s, run), [](int64_t r) { return r; });
  if (all_bands(*this, rows, run, [&](size_t i, int64_t b, int64_t e, const RunSettings& r) {
        return parts_[i]->top_k_rows(view_on(i, s), k, b, e, columns + b * k, values + b * k, r);
      }))
    return;
  parts_[0]->top_k(view_on(0, s), k, columns, values, run);
}

}  // namespace fc
