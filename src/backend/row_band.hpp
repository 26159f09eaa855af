// A row band of a network call (graph_backend.hpp's *_rows): the rows q in [begin, end) of the
// pairs (q, p), p > q (top_k: the rows themselves). Backends check a band against their
// granularity before touching anything, so a misplaced band fails instead of giving other bits.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backend/graph_backend.hpp"
#include "base/error.hpp"

namespace fc {

struct RowBand {
  int64_t begin = 0, end = 0;
};

// [begin, end) of n rows, begin a multiple of `granularity` and end one too or n; else
// FC_ERR_INVALID_ARG naming the band.
inline RowBand checked_row_band(int64_t n, int64_t begin, int64_t end, int64_t granularity) {
  const bool aligned = granularity > 0 && begin % granularity == 0 && (end == n || end % granularity == 0);
  if (begin < 0 || end > n || begin > end || !aligned)
    fail(FC_ERR_INVALID_ARG, "row band [" + std::to_string(begin) + ", " + std::to_string(end) + ") of " +
                                 std::to_string(n) + " series: a band lies within [0, " + std::to_string(n) +
                                 ") and starts at a multiple of " + std::to_string(granularity) +
                                 " and ends at one or at " + std::to_string(n));
  return RowBand{begin, end};
}

// abs_histogram_rows adds into `counts`: it must hold kAbsHistogramBins entries.
inline void check_histogram_bins(const std::vector<int64_t>& counts) {
  if (static_cast<int64_t>(counts.size()) != kAbsHistogramBins)
    fail(FC_ERR_INVALID_ARG, "the |r| histogram has " + std::to_string(counts.size()) + " bins, not " +
                                 std::to_string(kAbsHistogramBins));
}

}  // namespace fc
