// The vector space of an eigensolve, as an interface a backend implements: the Lanczos solver of
// modules/leading_eigen.hpp works through it, and a backend's device engine (CUDA:
// backend/cuda/cuda_modules.cpp) keeps the vectors on its device. Declared on the backend floor so
// that a backend implements it without including the capability that uses it.
#pragma once

#include <cstdint>

namespace fc {

// Elements per chunk of every reduction: partial sums per chunk, added in chunk order; within a
// chunk, interleaved sums (EigenSpace says how).
constexpr int64_t kReductionChunk = 2048;
constexpr int kReductionLanes = 8;

// Where the eigensolver keeps its vectors and how it combines them. HostSpace holds them in memory
// and applies a SymmetricOperator; a backend's space keeps them on its device (CUDA: the
// modularity groups of src/backend/cuda/cuda_modules.cpp). Vectors are numbered slots of n
// values. Every operation is specified to the bit, so that any space gives the host's result:
// products and sums rounded once each (no fused multiply-add), and every reduction in
// chunk_dot's order (leading_eigen.cpp): chunks of kReductionChunk elements, in each chunk
// kReductionLanes interleaved sums (element i to lane i % kReductionLanes, the chunk's tail past
// the last full group of lanes to lane 0) added as ((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7)),
// the chunks' sums added in order to 0.
class EigenSpace {
 public:
  virtual ~EigenSpace() = default;
  // Room for `slots` vectors of n values; called first, once per eigenproblem.
  virtual void reserve(int64_t n, int64_t slots) = 0;
  virtual void upload(int64_t slot, const double* x) = 0;
  virtual void download(int64_t slot, double* x) = 0;
  // slot `to` = B slot `from`.
  virtual void apply(int64_t from, int64_t to) = 0;
  // h[l] = slot l . slot w for l < cols (a_i b_i summed as above), and h[cols] = slot w . slot w.
  virtual void project(int64_t cols, int64_t w, double* h) = 0;
  // slot w -= h[l] slot l for l = 0 .. cols-1 in turn (w_i - (h_l v_i), one l after the other);
  // returns sqrt(slot w . slot w).
  virtual double subtract(int64_t cols, const double* h, int64_t w) = 0;
  // Classical Gram-Schmidt twice against slots 0 .. cols-1: project into h1, subtract h1, project
  // into h2 (h2[cols]: slot w . slot w after the first pass), subtract h2; returns the final norm as
  // subtract does. The same operations in that order, so the same bits; a device space needs one
  // synchronization for all of it instead of four (the caller wants h1, h2 and the norm only at
  // the end). (On the H100 that measured no faster: a step's cost is mostly the host launching
  // its kernels, bench/RESULTS-modularity.md.)
  virtual double orthogonalize(int64_t cols, int64_t w, double* h1, double* h2) {
    project(cols, w, h1);
    subtract(cols, h1, w);
    project(cols, w, h2);
    return subtract(cols, h2, w);
  }
  virtual double dot(int64_t a, int64_t b) = 0;
  virtual void scale(int64_t slot, double factor) = 0;           // x_i * factor
  virtual void copy(int64_t from, int64_t to) = 0;
  // slot to = slot from * factor (each x_i * factor): copy and scale in one (one kernel on a device).
  virtual void copy_scaled(int64_t from, int64_t to, double factor) {
    copy(from, to);
    scale(to, factor);
  }
  virtual void subtract_scaled(int64_t x, double alpha, int64_t y) = 0;  // y_i - (alpha x_i)
  // slot out + c = sum over l < cols of slot l * y[l * ldy + c] (from 0, l in order), c < k.
  virtual void combine(int64_t cols, const double* y, int64_t ldy, int64_t k, int64_t out) = 0;
};

}  // namespace fc
