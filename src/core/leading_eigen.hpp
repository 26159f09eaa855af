// The algebraically largest eigenpair of a symmetric operator given only as y = B x: Lanczos
// with full reorthogonalization and thick (Krylov-Schur) restarts, for Newman's modularity
// matrices (core/modularity.*), which are never formed.
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
// Deterministic: the start vector comes from a seeded splitmix64 stream, and every dot product
// and norm is summed in fixed chunks of kChunk elements whose partial sums are added in chunk
// order, so the bits never depend on the number of OpenMP threads.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

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

// Elements per chunk of every reduction: partial sums per chunk, added in chunk order.
constexpr int64_t kReductionChunk = 2048;

// The OpenMP threads worth starting for `work` multiply-adds: at least kWorkPerThread each (a
// fork and join of 16 threads costs about what 16 x 65536 of them take), at most `threads`
// (0 = OpenMP's default); 1 means the calling thread alone.
constexpr int64_t kWorkPerThread = 65536;
int parallel_team(int64_t work, int threads);

// sum_i a[i] * b[i], bit-identical for any `threads` (0 = OpenMP's default).
double deterministic_dot(const double* a, const double* b, int64_t n, int threads);

// y = B x for vectors of the operator's dimension (x and y never alias).
using SymmetricOperator = std::function<void(const double* x, double* y)>;

struct EigenOptions {
  double tolerance = 1e-8;       // residual test, relative to |theta| + scale
  double scale = 0;              // a norm estimate of B; the largest |Ritz value| seen is used when larger
  int64_t max_basis = 32;        // Lanczos vectors before a restart (at least 3; at most n)
  int64_t keep = 0;              // Ritz vectors kept at a restart (0: max_basis / 2)
  int64_t max_products = 10000;  // operator applications before giving up (the best pair is returned)
  uint64_t seed = 1;             // start vector
  int threads = 0;               // OpenMP threads of the vector operations (0 = default)
};

struct EigenResult {
  double value = 0;            // theta, the Ritz value
  std::vector<double> vector;  // x, unit norm, sign fixed so that its first non-zero entry is > 0
  int64_t iterations = 0;      // operator applications, the confirming ones included
  double residual = 0;         // ||B x - theta x||, computed explicitly
  bool converged = false;
};

// The algebraically largest eigenpair of the n x n symmetric operator (n >= 1).
EigenResult leading_eigenpair(int64_t n, const SymmetricOperator& op, const EigenOptions& options);

// All eigenpairs of a small dense symmetric matrix a (n x n, row-major, overwritten) by cyclic
// Jacobi rotations: values in descending order, vectors[i * n + j] = component i of vector j.
void symmetric_eigen(std::vector<double>& a, int64_t n, std::vector<double>& values, std::vector<double>& vectors);

}  // namespace fc
