// The largest of many lines e_i + a_i p at a point p that changes at every query, while single
// intercepts change and lines are removed: the choice of the next move in the Kernighan-Lin
// sweeps of modules/modularity.cpp, where a flip moves p (every node's gain depends on it) but changes
// the intercepts of the flipped node's neighbours only.
//
// A scan of all n lines per query costs O(n), and a sweep makes up to n queries. Two structures
// replace it, chosen at reset:
//   - few distinct slopes D, at most n / 4 (a binary graph's slopes are +-k_i / 2m: a few
//     hundred degrees):
//     lines of one slope are ordered by intercept alone, so each slope class keeps a max-heap of
//     intercepts; a query looks at the D class tops, an update is O(log n);
//   - otherwise (weighted graphs) the lines are cut into blocks of kBlock consecutive indices;
//     each block keeps the upper envelope of its live lines (slopes sorted once, the envelope
//     rebuilt in O(kBlock) when one of its lines changes); a query costs
//     O((n / kBlock) log kBlock), an update O(kBlock).
//
// Rounding: the envelope is built with products of differences, and two intercepts of one class
// may round to the same value at p, so a line that a scan ranks a few ulps higher (or ties with a
// lower index) may lose. Callers get the chosen line's value as e_i + a_i p, computed as a scan
// would, and the choice is deterministic (the same input, the same line).
#pragma once

#include <cstdint>
#include <vector>

namespace fc {

class LineMaxima {
 public:
  static constexpr int64_t kBlock = 16;

  // Lines 0 .. n-1 with slopes a[i] (fixed until the next reset) and intercepts e[i], all live.
  void reset(const double* a, const double* e, int64_t n);
  // The same, with the slopes' magnitudes ranked by the caller: rank[i] in 0 .. ranks-1, equal for
  // equal |a[i]| and ordered as they are (rank_magnitudes). Skips the sort of the n slopes that
  // finds the slope classes (O(n log n), most of a reset): O(n + ranks) when ranks <= n, else the
  // sort after all (reset(a, e, n) ranks the lines' own magnitudes and comes here).
  void reset(const double* a, const double* e, int64_t n, const int64_t* rank, int64_t ranks);
  void set_intercept(int64_t i, double e);
  void remove(int64_t i);
  // The live line with the largest e_i + a_i p (ties between blocks: the lower block), its value
  // in *value; -1 when no line is live.
  int64_t argmax(double p, double* value);

 private:
  void rebuild(int64_t block);
  void build_classes();  // heaps of class_of_'s classes (class_slope_.size() of them), or the blocks
  std::vector<int64_t> class_of_key_;
  // slope classes: heap_[class_begin_[c] .. + class_size_[c]) is class c's max-heap of line
  // indices by (intercept, then lower index); where_[i] is line i's place in it.
  bool higher(int64_t i, int64_t j) const;
  void sift_up(int64_t c, int64_t x);
  void sift_down(int64_t c, int64_t x);
  bool by_class_ = false;
  std::vector<double> class_slope_;
  std::vector<int64_t> class_of_, class_begin_, class_size_, heap_, where_;

  int64_t n_ = 0;
  std::vector<double> a_, e_;
  std::vector<char> live_, dirty_;
  std::vector<int64_t> order_;  // per block: its indices by slope, then index
  std::vector<int64_t> hull_;   // per block: the envelope's lines, slopes ascending
  std::vector<int64_t> hull_size_;
};

// Each m[i]'s rank among the distinct values of m (0: the smallest; equal values, equal ranks),
// for LineMaxima::reset's ranked form; *ranks: the number of distinct values. OpenMP threads
// (0 = default) for the lookups; the result does not depend on them.
std::vector<int64_t> rank_magnitudes(const std::vector<double>& m, int64_t* ranks, int threads);

}  // namespace fc
