// Row ranges of about equal work for the parts of a split computation (backend/split_backend.hpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace fc {

// Boundaries b[0] = begin <= b[1] <= ... <= b[parts] = end of `parts` row bands of about equal
// work, offset_of(r) being the work before row r (non-decreasing: the triangle's closed-form pair
// offsets, or r itself); the inner boundaries are multiples of granularity (so a band keeps a
// backend's tile grid), each the multiple nearest the row where the band's share is reached.
// Bands may be empty (fewer granules than parts).
template <class OffsetOf>
std::vector<int64_t> equal_bands(int64_t begin, int64_t end, int64_t parts, int64_t granularity, OffsetOf&& offset_of) {
  const int64_t base = offset_of(begin), total = offset_of(end) - base;
  granularity = std::max<int64_t>(1, granularity);
  std::vector<int64_t> b(static_cast<size_t>(parts + 1), end);
  b[0] = begin;
  for (int64_t k = 1; k < parts; ++k) {
    // k / parts of the total without overflow (total may be near 2^62)
    const int64_t target = base + (total / parts) * k + (total % parts) * k / parts;
    int64_t lo = begin, hi = end;  // the first row whose offset reaches the target
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      if (offset_of(mid) < target) lo = mid + 1;
      else hi = mid;
    }
    const int64_t rounded = (lo + granularity / 2) / granularity * granularity;
    b[static_cast<size_t>(k)] = std::min(end, std::max(b[static_cast<size_t>(k - 1)], rounded));
  }
  return b;
}

}  // namespace fc
