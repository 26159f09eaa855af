// Upper envelopes of blocks of lines (line_maxima.hpp says what for and why).
#include "modules/line_maxima.hpp"

#include <algorithm>
#include <cmath>

#include "base/parallel_team.hpp"
#include "modules/leading_eigen.hpp"

namespace fc {

namespace {
// Slope classes when there are at most n / kClassesPerLine distinct slopes. A query scans the D
// class tops, where the envelopes scan n / kBlock blocks and rebuild every block a flip's
// neighbours touched; measured on the voxel network's fine-tuning (bench/RESULTS-modularity.md,
// fifth session), moves of groups with D between n / 16 and n / 4 took half the time by classes
// (19,762 nodes: 5.0 -> 2.4 ms for 540 moves), so classes are taken up to n / 4 (was n / 16).
constexpr int64_t kClassesPerLine = 4;
}  // namespace

bool LineMaxima::higher(int64_t i, int64_t j) const {
  const double ei = e_[static_cast<size_t>(i)], ej = e_[static_cast<size_t>(j)];
  return ei != ej ? ei > ej : i < j;
}

void LineMaxima::sift_up(int64_t c, int64_t x) {
  int64_t* h = heap_.data() + class_begin_[static_cast<size_t>(c)];
  const int64_t i = h[x];
  while (x > 0) {
    const int64_t parent = (x - 1) / 2;
    if (!higher(i, h[parent])) break;
    h[x] = h[parent];
    where_[static_cast<size_t>(h[x])] = x;
    x = parent;
  }
  h[x] = i;
  where_[static_cast<size_t>(i)] = x;
}

void LineMaxima::sift_down(int64_t c, int64_t x) {
  int64_t* h = heap_.data() + class_begin_[static_cast<size_t>(c)];
  const int64_t size = class_size_[static_cast<size_t>(c)], i = h[x];
  for (;;) {
    int64_t child = 2 * x + 1;
    if (child >= size) break;
    if (child + 1 < size && higher(h[child + 1], h[child])) ++child;
    if (!higher(h[child], i)) break;
    h[x] = h[child];
    where_[static_cast<size_t>(h[x])] = x;
    x = child;
  }
  h[x] = i;
  where_[static_cast<size_t>(i)] = x;
}

void LineMaxima::reset(const double* a, const double* e, int64_t n) {
  // The slopes' magnitudes ranked here (one sort), then the ranked reset: one way to the classes.
  std::vector<double> magnitude(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) magnitude[static_cast<size_t>(i)] = std::fabs(a[i]);
  int64_t ranks = 0;
  const std::vector<int64_t> rank = rank_magnitudes(magnitude, &ranks, 1);
  reset(a, e, n, rank.data(), ranks);  // (ranks <= n: no way back here)
}

void LineMaxima::reset(const double* a, const double* e, int64_t n, const int64_t* rank, int64_t ranks) {
  if (ranks > n) {
    reset(a, e, n);
    return;
  }
  n_ = n;
  a_.assign(a, a + n);
  e_.assign(e, e + n);
  live_.assign(static_cast<size_t>(n), 1);
  // A slope's key orders the slopes as they are: negative ones by falling magnitude, then zero
  // and the positive ones by rising magnitude (-0 and +0 share the key of 0, as they compare equal).
  auto key = [&](int64_t i) { return a[i] < 0 ? ranks - 1 - rank[i] : ranks + rank[i]; };
  class_of_key_.assign(static_cast<size_t>(2 * ranks), -1);
  for (int64_t i = 0; i < n; ++i) class_of_key_[static_cast<size_t>(key(i))] = i;  // a line of that slope
  class_slope_.clear();
  for (int64_t& c : class_of_key_)
    if (c >= 0) {
      class_slope_.push_back(a[c]);
      c = int64_t(class_slope_.size()) - 1;
    }
  if (int64_t(class_slope_.size()) * kClassesPerLine <= n) {
    class_of_.resize(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) class_of_[static_cast<size_t>(i)] = class_of_key_[static_cast<size_t>(key(i))];
  }
  build_classes();
}

void LineMaxima::build_classes() {
  const int64_t n = n_, classes = int64_t(class_slope_.size());
  by_class_ = classes * kClassesPerLine <= n;
  if (by_class_) {
    class_size_.assign(static_cast<size_t>(classes), 0);
    for (int64_t i = 0; i < n; ++i) ++class_size_[static_cast<size_t>(class_of_[static_cast<size_t>(i)])];
    class_begin_.assign(static_cast<size_t>(classes + 1), 0);
    for (int64_t c = 0; c < classes; ++c)
      class_begin_[static_cast<size_t>(c + 1)] = class_begin_[static_cast<size_t>(c)] + class_size_[static_cast<size_t>(c)];
    heap_.resize(static_cast<size_t>(n));
    where_.resize(static_cast<size_t>(n));
    std::fill(class_size_.begin(), class_size_.end(), 0);
    for (int64_t i = 0; i < n; ++i) {  // each class in index order, then made a heap from the bottom
      const int64_t c = class_of_[static_cast<size_t>(i)];
      const int64_t x = class_size_[static_cast<size_t>(c)]++;
      heap_[static_cast<size_t>(class_begin_[static_cast<size_t>(c)] + x)] = i;
      where_[static_cast<size_t>(i)] = x;
    }
    // (the top of a heap is the class's highest line whatever the heap's shape: `higher` orders
    // every two lines, so the choices do not depend on how the heaps were built)
    for (int64_t c = 0; c < classes; ++c)
      for (int64_t x = class_size_[static_cast<size_t>(c)] / 2 - 1; x >= 0; --x) sift_down(c, x);
    return;
  }
  const int64_t blocks = (n + kBlock - 1) / kBlock;
  dirty_.assign(static_cast<size_t>(blocks), 1);
  hull_size_.assign(static_cast<size_t>(blocks), 0);
  order_.resize(static_cast<size_t>(n));
  hull_.resize(static_cast<size_t>(n));
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t begin = b * kBlock, end = std::min(n, begin + kBlock);
    int64_t* o = order_.data() + begin;
    for (int64_t i = begin; i < end; ++i) o[i - begin] = i;
    std::sort(o, o + (end - begin), [&](int64_t x, int64_t y) {
      return a_[static_cast<size_t>(x)] != a_[static_cast<size_t>(y)] ? a_[static_cast<size_t>(x)] < a_[static_cast<size_t>(y)]
                                                                     : x < y;
    });
  }
}

void LineMaxima::set_intercept(int64_t i, double e) {
  const double old = e_[static_cast<size_t>(i)];
  e_[static_cast<size_t>(i)] = e;
  if (!by_class_) {
    dirty_[static_cast<size_t>(i / kBlock)] = 1;
    return;
  }
  if (!live_[static_cast<size_t>(i)]) return;
  const int64_t c = class_of_[static_cast<size_t>(i)], x = where_[static_cast<size_t>(i)];
  if (e > old) sift_up(c, x);
  else sift_down(c, x);
}

void LineMaxima::remove(int64_t i) {
  if (!live_[static_cast<size_t>(i)]) return;
  live_[static_cast<size_t>(i)] = 0;
  if (!by_class_) {
    dirty_[static_cast<size_t>(i / kBlock)] = 1;
    return;
  }
  const int64_t c = class_of_[static_cast<size_t>(i)], x = where_[static_cast<size_t>(i)];
  int64_t* h = heap_.data() + class_begin_[static_cast<size_t>(c)];
  const int64_t last = --class_size_[static_cast<size_t>(c)];
  if (x == last) return;
  const int64_t moved = h[last];  // the last leaf fills the hole, then finds its place
  h[x] = moved;
  where_[static_cast<size_t>(moved)] = x;
  sift_up(c, x);
  sift_down(c, where_[static_cast<size_t>(moved)]);
}

// Andrew's monotone chain over the block's live lines in slope order: a line stays when it is the
// highest somewhere. For equal slopes only the highest intercept can be (the first in index order
// on a tie); l2 between l1 and l3 is never the highest when l3 overtakes l1 no later than l2 does.
void LineMaxima::rebuild(int64_t block) {
  const int64_t begin = block * kBlock, end = std::min(n_, begin + kBlock);
  int64_t* h = hull_.data() + begin;
  int64_t m = 0;
  for (int64_t x = begin; x < end; ++x) {
    const int64_t i = order_[static_cast<size_t>(x)];
    if (!live_[static_cast<size_t>(i)]) continue;
    const double ai = a_[static_cast<size_t>(i)], ei = e_[static_cast<size_t>(i)];
    if (m > 0 && a_[static_cast<size_t>(h[m - 1])] == ai) {
      if (ei <= e_[static_cast<size_t>(h[m - 1])]) continue;
      --m;
    }
    while (m >= 2) {
      const double a1 = a_[static_cast<size_t>(h[m - 2])], e1 = e_[static_cast<size_t>(h[m - 2])];
      const double a2 = a_[static_cast<size_t>(h[m - 1])], e2 = e_[static_cast<size_t>(h[m - 1])];
      // crossing of l1 and l3 at or before that of l1 and l2: (e1 - ei) / (ai - a1) <= (e1 - e2) / (a2 - a1)
      if ((e1 - ei) * (a2 - a1) <= (e1 - e2) * (ai - a1)) --m;
      else break;
    }
    h[m++] = i;
  }
  hull_size_[static_cast<size_t>(block)] = m;
  dirty_[static_cast<size_t>(block)] = 0;
}

int64_t LineMaxima::argmax(double p, double* value) {
  int64_t best = -1;
  double top = 0;
  if (by_class_) {
    const int64_t classes = int64_t(class_slope_.size());
    for (int64_t c = 0; c < classes; ++c) {
      if (class_size_[static_cast<size_t>(c)] == 0) continue;
      const int64_t i = heap_[static_cast<size_t>(class_begin_[static_cast<size_t>(c)])];
      const double v = e_[static_cast<size_t>(i)] + a_[static_cast<size_t>(i)] * p;
      if (best < 0 || v > top || (v == top && i < best)) {
        best = i;
        top = v;
      }
    }
    if (value != nullptr) *value = top;
    return best;
  }
  const int64_t blocks = int64_t(dirty_.size());
  for (int64_t b = 0; b < blocks; ++b) {
    if (dirty_[static_cast<size_t>(b)]) rebuild(b);
    const int64_t m = hull_size_[static_cast<size_t>(b)];
    if (m == 0) continue;
    const int64_t* h = hull_.data() + b * kBlock;
    auto at = [&](int64_t x) { return e_[static_cast<size_t>(h[x])] + a_[static_cast<size_t>(h[x])] * p; };
    // the envelope's values at p rise and then fall along the slopes: find the peak
    int64_t lo = 0, hi = m - 1;
    while (lo < hi) {
      const int64_t mid = (lo + hi) / 2;
      if (at(mid) < at(mid + 1)) lo = mid + 1;
      else hi = mid;
    }
    const double v = at(lo);
    if (best < 0 || v > top) {
      best = h[lo];
      top = v;
    }
  }
  if (value != nullptr) *value = top;
  return best;
}

std::vector<int64_t> rank_magnitudes(const std::vector<double>& m, int64_t* ranks, int threads) {
  std::vector<double> distinct(m);
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  *ranks = int64_t(distinct.size());
  const int64_t n = int64_t(m.size());
  std::vector<int64_t> rank(static_cast<size_t>(n));
  const int team = parallel_team(n * 16, threads);
#pragma omp parallel for schedule(static) num_threads(team) if (team > 1)
  for (int64_t i = 0; i < n; ++i)
    rank[static_cast<size_t>(i)] =
        std::lower_bound(distinct.begin(), distinct.end(), m[static_cast<size_t>(i)]) - distinct.begin();
  return rank;
}

}  // namespace fc
