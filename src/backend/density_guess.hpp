// The density rule's threshold guessed from a sample (graph_backend.hpp, density_guess): the
// rule keeps the `target` strongest of the `eligible` pairs, and its exact answer needs only the
// pairs at or above the target'th largest |r|. A backend that can draw a sample of pairs
// (kernels/pair_sample.hpp) and count their |r| in abs_histogram's bins gives the rule a
// threshold at which, almost surely, at least `target` pairs pass, and not many more; the rule
// checks the count and falls back to the exact histogram when it is short (graph.cpp). So the
// rule needs one pass over the triangle instead of two, and its answer does not depend on the
// sample.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "backend/graph_backend.hpp"

namespace fc {

// Pairs a backend samples for the guess: at most max_bytes of rows read (two rows of t floats
// a pair), a 32nd of the eligible pairs and 2^22; 0 (no guess: the histogram is cheap there)
// below 2^14.
inline int64_t density_sample_pairs(int64_t t, int64_t eligible, int64_t max_bytes) {
  int64_t s = max_bytes / (8 * (t > 0 ? t : 1));
  if (s > eligible / 32) s = eligible / 32;
  if (s > (int64_t(1) << 22)) s = int64_t(1) << 22;
  return s < (int64_t(1) << 14) ? 0 : s;
}

// From the sample's counts (kAbsHistogramBins bins of abs_histogram) over `valid` eligible pairs:
// the lower edge of the highest bin at which the sample's count from the top reaches
// j = p V + 5 sqrt(p V) + 8, p = target / eligible (the sample count expected above the target'th
// largest |r|, then five standard deviations of it and a few pairs more). False when the sample
// cannot say (too few pairs, or j beyond them).
inline bool density_guess_from_sample(const std::vector<int64_t>& counts, int64_t valid, int64_t target, int64_t eligible,
                                      float& guess) {
  if (valid <= 0 || target <= 0 || eligible <= 0 || static_cast<int64_t>(counts.size()) != kAbsHistogramBins) return false;
  const double expected = static_cast<double>(valid) * static_cast<double>(target) / static_cast<double>(eligible);
  const double j = std::ceil(expected + 5.0 * std::sqrt(expected) + 8.0);
  if (j > static_cast<double>(valid)) return false;
  double above = 0.0;
  for (int64_t b = kAbsHistogramBins - 1; b >= 0; --b) {
    above += static_cast<double>(counts[static_cast<size_t>(b)]);
    if (above >= j) {
      const uint32_t bits = static_cast<uint32_t>(b) << kAbsHistogramShift;
      std::memcpy(&guess, &bits, sizeof guess);
      return true;
    }
  }
  return false;
}

}  // namespace fc
