// fc_cpu_info's text (cpu_info.hpp). OpenBLAS's own queries are declared weak: with another
// CBLAS they are absent (null) and the line says only that a CBLAS is linked.
#include "backend/cpu/cpu_info.hpp"

#include "backend/cpu/blas_threads.hpp"
#include "backend/cpu/pair_kernels.hpp"

extern "C" {
char* openblas_get_corename(void) __attribute__((weak));
char* openblas_get_config(void) __attribute__((weak));
}

namespace fc {
namespace cpu {

std::string cpu_info() {
  std::string text = std::string("pair kernels: ") + isa_name(cpu_isa()) + " (this CPU: " + isa_name(best_isa()) + "); BLAS: ";
  if (openblas_get_corename != nullptr && openblas_get_config != nullptr) {
    // openblas_get_config: "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY Haswell MAX_THREADS=64"
    std::string config = openblas_get_config();
    const size_t version_end = config.find(' ', config.find(' ') + 1);
    text += config.substr(0, version_end) + ", core " + openblas_get_corename();
  } else {
    text += "linked CBLAS";
  }
  if (blas_runtimes_mixed()) text += " on one thread (GNU and LLVM OpenMP runtimes both loaded)";
  return text + " (eigensolves, low rank and the partial correlation's Cholesky leaves only)";
}

}  // namespace cpu
}  // namespace fc
