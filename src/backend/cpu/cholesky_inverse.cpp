// LAPACK's dpotrf + dpotri on one thread: OpenBLAS's threaded dpotrf was 10-40x slower than its
// one-thread run at N = 1000 on the shared 2-core machine (bench/RESULTS-partial.md), and a
// hand-tiled two-thread version (one-thread BLAS calls on 96 x 96 tiles shared by an OpenMP
// team) was no faster there either: under load, each of its barriers waits for a descheduled
// thread. One thread also makes the bits independent of the thread count. The row-major upper
// triangle is the column-major lower one, LAPACK's "L".
#include "backend/cpu/cholesky_inverse.hpp"

#include <cstddef>
#include <string>

#include "backend/cpu/cpu_tiles.hpp"
#include "base/error.hpp"

// LAPACK (OpenBLAS ships it), column-major; the trailing length is gfortran's hidden CHARACTER length.
extern "C" void dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info, size_t uplo_len);
extern "C" void dpotri_(const char* uplo, const int* n, double* a, const int* lda, int* info, size_t uplo_len);

namespace fc {
namespace cpu {

int64_t cholesky_inverse_upper(double* m, int64_t n) {
  const ThreadScope one_thread(1);
  const int ni = static_cast<int>(n);
  int info = 0;
  dpotrf_("L", &ni, m, &ni, &info, 1);
  if (info > 0) return info;
  if (info < 0) fail(FC_ERR_INTERNAL, "dpotrf: argument " + std::to_string(-info) + " was invalid");
  dpotri_("L", &ni, m, &ni, &info, 1);
  if (info != 0) fail(FC_ERR_INTERNAL, "dpotri failed (info " + std::to_string(info) + ")");
  return 0;
}

}  // namespace cpu
}  // namespace fc
