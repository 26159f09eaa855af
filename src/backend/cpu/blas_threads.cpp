// blas_threads.hpp: OpenBLAS on one thread where GNU and LLVM OpenMP runtimes are both loaded.
#include "backend/cpu/blas_threads.hpp"

#include <dlfcn.h>

extern "C" {
int openblas_get_parallel(void) __attribute__((weak));  // 0 sequential, 1 pthreads, 2 OpenMP
}

namespace fc {
namespace cpu {

bool blas_runtimes_mixed() {
  static const bool mixed = [] {
    const bool openmp_blas = openblas_get_parallel != nullptr && openblas_get_parallel() == 2;
    // GNU's runtime is asked for by its library name (both runtimes export GOMP_ entry points);
    // LLVM's libomp and Intel's libiomp5 by their own __kmpc_ entry points.
    void* gomp = dlopen("libgomp.so.1", RTLD_LAZY | RTLD_NOLOAD);
    const bool has_gomp = gomp != nullptr;
    if (gomp != nullptr) dlclose(gomp);
    const bool has_kmp = dlsym(RTLD_DEFAULT, "__kmpc_fork_call") != nullptr;
    return openmp_blas && has_gomp && has_kmp;
  }();
  return mixed;
}

int blas_threads(int wanted) { return blas_runtimes_mixed() ? 1 : wanted; }

}  // namespace cpu
}  // namespace fc
