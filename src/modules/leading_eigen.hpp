// The algebraically largest eigenpair of a symmetric operator given only as y = B x: Lanczos
// with full reorthogonalization and thick (Krylov-Schur) restarts, for Newman's modularity
// matrices (modules/modularity.*), which are never formed.
//
// Why not the power method (Wu et al. 2010): it converges like (lambda_2 / lambda_1)^k, so it
// stalls when the two leading eigenvalues are close (a network with many similar modules), and it
// finds the eigenvalue of largest magnitude, which for a modularity matrix is often the most
// negative one (hence their shift and second run). Lanczos finds both ends of the spectrum from
// one Krylov space; keeping the best Ritz vectors at a restart (Stewart's Krylov-Schur form,
// B V = V H + f e^T with H symmetric) retains what has been learnt about the leading cluster.
//
// Convergence is tested on the residual, ||B x - theta x|| <= tolerance * (|theta| + scale),
// first from the Krylov relation (|beta| |y_last|, free) and then confirmed with one explicit
// product; the reported residual is the explicit one.
//
// Early answers: a caller for whom a rougher eigenvector may do (modularity: a split needs the
// signs, and a split that stands is as good as its gain) sets early_tolerance above tolerance and
// passes `accept`. The first pair that meets early_tolerance, from a basis of at least early_basis
// vectors, is handed to accept; if it takes it, that is the answer, else the iteration goes on
// from where it was to `tolerance`. accept is asked once at most, so a caller that rejects gets
// the answer it would have had without it (with one confirming product more).
//
// Warm starts: a caller that knows a guess of the leading eigenvector (modularity: a group's
// parent's second Ritz vector, restricted to the group) passes it as `warm`. The start vector is
// then the guess plus a random vector of kWarmNoise times its norm: the guess gives the wanted
// eigenvector a large component, so the early iterations that look for it from a random start are
// saved, and the random part keeps a component along every eigenvector, so a guess that is
// orthogonal to the leading one (a symmetric graph) cannot hide it.
//
// Deterministic: the start vector comes from a seeded splitmix64 stream, and every dot product
// and norm is summed in fixed chunks of kChunk elements whose partial sums are added in chunk
// order, so the bits never depend on the number of OpenMP threads.
#pragma once

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "backend/eigen_space.hpp"

namespace fc {

// splitmix64 (Steele, Lea and Flood 2014): tiny, seedable, identical on every platform.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  double uniform() { return double(next() >> 11) * (1.0 / 9007199254740992.0); }  // [0, 1)

 private:
  uint64_t state_;
};

// sum_i a[i] * b[i], bit-identical for any `threads` (0 = OpenMP's default).
double deterministic_dot(const double* a, const double* b, int64_t n, int threads);

// y = B x for vectors of the operator's dimension (x and y never alias).
using SymmetricOperator = std::function<void(const double* x, double* y)>;

// The OpenMP threads (0 = OpenMP's default) an operation may take, asked as it starts: a
// modularity analysis that shares the cores with others takes more as they end
// (modules/modularity.cpp's find_modules). The bits never depend on the answer.
using ThreadCount = std::function<int()>;

// The eigensolver's vectors in host memory, B applied by `op`; vector operations on `threads`
// OpenMP threads (0 = default).
class HostSpace : public EigenSpace {
 public:
  HostSpace(SymmetricOperator op, int threads) : HostSpace(std::move(op), [threads] { return threads; }) {}
  HostSpace(SymmetricOperator op, ThreadCount threads) : op_(std::move(op)), threads_(std::move(threads)) {}
  void reserve(int64_t n, int64_t slots) override;
  void upload(int64_t slot, const double* x) override;
  void download(int64_t slot, double* x) override;
  void apply(int64_t from, int64_t to) override;
  void project(int64_t cols, int64_t w, double* h) override;
  double subtract(int64_t cols, const double* h, int64_t w) override;
  double dot(int64_t a, int64_t b) override;
  void scale(int64_t slot, double factor) override;
  void copy(int64_t from, int64_t to) override;
  void subtract_scaled(int64_t x, double alpha, int64_t y) override;
  void combine(int64_t cols, const double* y, int64_t ldy, int64_t k, int64_t out) override;

 private:
  double* at(int64_t slot) { return data_.data() + slot * n_; }
  SymmetricOperator op_;
  ThreadCount threads_;
  int64_t n_ = 0;
  std::vector<double> data_, partial_;
};

struct EigenOptions {
  double tolerance = 1e-8;       // residual test, relative to |theta| + scale
  double scale = 0;              // a norm estimate of B; the largest |Ritz value| seen is used when larger
  int64_t max_basis = 32;        // Lanczos vectors before a restart (at least 3; at most n)
  int64_t keep = 0;              // Ritz vectors kept at a restart (0: max_basis / 2)
  int64_t max_products = 10000;  // operator applications before giving up (the best pair is returned)
  uint64_t seed = 1;             // start vector
  int threads = 0;               // OpenMP threads of the vector operations (0 = default)
  const double* warm = nullptr;  // n values, any norm: a guess of the leading eigenvector (above), or null
  bool want_next = false;        // also return the Ritz vector of the second largest Ritz value
  double early_tolerance = 0;    // above tolerance: the residual test of an early answer (header), else none
  // The Lanczos vectors an early answer needs at least. From a warm start the first few vectors can
  // meet early_tolerance while their signs still follow the guess: modularity's early splits after
  // 4 products lost a community of a planted partition of 300 (and 12 of one of 1000), after 8
  // they did not (bench/RESULTS-modularity.md, sixth session).
  int64_t early_basis = 8;
};

// The random part of a warm start, relative to the guess (both normalized first). Measured on the
// voxel network of bench/RESULTS-modularity.md: 1627 products with no random part, 1715 with 0.3,
// 1771 with 1, 2331 with a random start alone.
constexpr double kWarmNoise = 0.3;

struct EigenResult {
  double value = 0;            // theta, the Ritz value
  std::vector<double> vector;  // x, unit norm, sign fixed so that its first non-zero entry is > 0
  int64_t iterations = 0;      // operator applications, the confirming ones included
  double residual = 0;         // ||B x - theta x||, computed explicitly
  bool converged = false;      // its residual met the tolerance (an early answer: early_tolerance)
  std::vector<double> next;    // with want_next (and a basis of 2 or more): that Ritz vector, unit norm
  bool early = false;          // an early answer (it met early_tolerance only, and was accepted)
};

// Asked once at most, with the first pair that meets early_tolerance: true takes it as the answer.
using EarlyAccept = std::function<bool(const EigenResult&)>;

// The slots leading_eigenpair reserves in its space for an n x n problem (what a device space
// must hold: a backend sizes its buffers by it before the eigensolve starts).
int64_t eigen_slots(int64_t n, const EigenOptions& options);

// The algebraically largest eigenpair of the n x n symmetric operator (n >= 1), in a HostSpace.
EigenResult leading_eigenpair(int64_t n, const SymmetricOperator& op, const EigenOptions& options,
                              const EarlyAccept& accept = nullptr);
// The same in any space (options.threads unused: the space has its own).
EigenResult leading_eigenpair(int64_t n, EigenSpace& space, const EigenOptions& options,
                              const EarlyAccept& accept = nullptr);

// All eigenpairs of a small dense symmetric matrix a (n x n, row-major, overwritten) by Householder
// tridiagonalization and implicit QR steps (modules/small_eigen.cpp): values in descending order,
// vectors[i * n + j] = component i of vector j, orthonormal.
void symmetric_eigen(std::vector<double>& a, int64_t n, std::vector<double>& values, std::vector<double>& vectors);

}  // namespace fc
