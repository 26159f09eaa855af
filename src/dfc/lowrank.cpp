#include "dfc/lowrank.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "base/error.hpp"

// LAPACK (OpenBLAS ships it): eigenvalues ascending, eigenvectors overwrite a (column-major).
// The trailing lengths are the hidden arguments gfortran gives CHARACTER dummies.
extern "C" void dsyevd_(const char* jobz, const char* uplo, const int* n, double* a, const int* lda, double* w, double* work,
                        const int* lwork, int* iwork, const int* liwork, int* info, size_t jobz_len, size_t uplo_len);

namespace fc {
namespace {

// Symmetric eigendecomposition of the t x t matrix a (replaced by the eigenvectors, vector j at
// a[j * t .. j * t + t)), eigenvalues ascending into lambda. On one thread: LAPACK's blocked
// updates run through BLAS, whose threaded splits would make the bits depend on the thread count.
void symmetric_eigen(int64_t t, std::vector<double>& a, std::vector<double>& lambda) {
  if (t > std::numeric_limits<int>::max()) fail(FC_ERR_INVALID_ARG, "LAPACK takes 32-bit sizes; n_time " + std::to_string(t) + " exceeds them");
  const int n = static_cast<int>(t);
  int info = 0, lwork = -1, liwork = -1, iwork_query = 0;
  double work_query = 0.0;
  const int saved = omp_get_max_threads();
  omp_set_num_threads(1);
  struct Restore {
    int threads;
    ~Restore() { omp_set_num_threads(threads); }
  } restore{saved};
  dsyevd_("V", "U", &n, a.data(), &n, lambda.data(), &work_query, &lwork, &iwork_query, &liwork, &info, 1, 1);
  if (info != 0) fail(FC_ERR_INTERNAL, "dsyevd workspace query failed (info " + std::to_string(info) + ")");
  lwork = static_cast<int>(work_query);
  liwork = iwork_query;
  std::vector<double> work(static_cast<size_t>(std::max(1, lwork)));
  std::vector<int> iwork(static_cast<size_t>(std::max(1, liwork)));
  dsyevd_("V", "U", &n, a.data(), &n, lambda.data(), work.data(), &lwork, iwork.data(), &liwork, &info, 1, 1);
  if (info != 0)
    fail(FC_ERR_INTERNAL, "dsyevd failed on the " + std::to_string(t) + " x " + std::to_string(t) + " Gram matrix (info " +
                              std::to_string(info) + ")");
}

}  // namespace

void require_rank(int64_t rank, int64_t t) {
  if (rank < 1 || rank > t)
    fail(FC_ERR_INVALID_ARG, "rank " + std::to_string(rank) + " is outside [1, " + std::to_string(t) + "] (n_time)");
}

void lowrank_basis(int64_t t, int64_t rank, std::vector<double>& gram, std::vector<double>& basis, double* rel_error) {
  std::vector<double> lambda(static_cast<size_t>(t));
  symmetric_eigen(t, gram, lambda);

  // The leading `rank` eigenvectors (eigenvalues descending), signs fixed so that each one's
  // largest-magnitude entry (first on ties) is positive: the factor then repeats run to run.
  basis.assign(static_cast<size_t>(t * rank), 0.0);
  for (int64_t c = 0; c < rank; ++c) {
    const double* u = gram.data() + (t - 1 - c) * t;
    int64_t top = 0;
    for (int64_t i = 1; i < t; ++i)
      if (std::fabs(u[i]) > std::fabs(u[top])) top = i;
    const double sign = u[top] < 0.0 ? -1.0 : 1.0;
    for (int64_t i = 0; i < t; ++i) basis[static_cast<size_t>(i * rank + c)] = sign * u[i];
  }

  if (rel_error != nullptr) {
    // ||Z Z^T||_F^2 = sum lambda_i^2 (Z Z^T and Z^T Z share their non-zero eigenvalues), and
    // ||Z Z^T - V V^T||_F^2 = the sum over the discarded ones. Rounding can leave eigenvalues of
    // a semidefinite matrix slightly negative: they count as 0. Summed from the smallest up.
    double discarded = 0.0, kept = 0.0;
    for (int64_t j = 0; j < t; ++j) {
      const double l = std::max(0.0, lambda[static_cast<size_t>(j)]);
      (j < t - rank ? discarded : kept) += l * l;
    }
    const double total = discarded + kept;
    *rel_error = total > 0.0 ? std::sqrt(discarded / total) : 0.0;
  }
}

void pcc_lowrank(const ContextState& ctx, const SeriesData& s, int64_t rank, float* factor, double* rel_error) {
  require_rank(rank, s.t);
  Progress progress = ctx.make_progress(0);  // callers report whole windows
  const RunSettings run = ctx.run_settings(progress);
  std::vector<double> gram(static_cast<size_t>(s.t * s.t)), basis;
  ctx.backend->gram(s.view(), gram.data(), run);
  lowrank_basis(s.t, rank, gram, basis, rel_error);
  ctx.backend->project(s.view(), basis.data(), rank, factor, run);
}

}  // namespace fc
