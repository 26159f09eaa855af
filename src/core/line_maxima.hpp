// The largest of many lines e_i + a_i p at a point p that changes at every query, while single
// intercepts change and lines are removed: the choice of the next move in the Kernighan-Lin
// sweeps of core/modularity.cpp, where a flip moves p (every node's gain depends on it) but changes
// the intercepts of the flipped node's neighbours only.
//
// A scan of all n lines per query costs O(n), and a sweep makes up to n queries. Here the lines are
// cut into blocks of kBlock consecutive indices; each block keeps the upper envelope of its live
// lines (slopes sorted once, the envelope rebuilt in O(kBlock) when one of its lines changes), so
// a query costs O((n / kBlock) log kBlock) and an update O(kBlock).
//
// Rounding: the envelope is built with products of differences, so a line that loses to another
// by a few ulps at p may be chosen over it. Callers get the chosen line's value as e_i + a_i p,
// computed as a scan would, and the choice is deterministic (the same input, the same line).
#pragma once

#include <cstdint>
#include <vector>

namespace fc {

class LineMaxima {
 public:
  static constexpr int64_t kBlock = 16;

  // Lines 0 .. n-1 with slopes a[i] (fixed until the next reset) and intercepts e[i], all live.
  void reset(const double* a, const double* e, int64_t n);
  void set_intercept(int64_t i, double e);
  void remove(int64_t i);
  // The live line with the largest e_i + a_i p (ties between blocks: the lower block), its value
  // in *value; -1 when no line is live.
  int64_t argmax(double p, double* value);

 private:
  void rebuild(int64_t block);

  int64_t n_ = 0;
  std::vector<double> a_, e_;
  std::vector<char> live_, dirty_;
  std::vector<int64_t> order_;  // per block: its indices by slope, then index
  std::vector<int64_t> hull_;   // per block: the envelope's lines, slopes ascending
  std::vector<int64_t> hull_size_;
};

}  // namespace fc
