// How many threads the CPU backend lets OpenBLAS use for one call (the partial correlation's
// product and inverse, the only BLAS calls that run threaded; the others run inside a team of
// the backend's own, on one thread each).
//
// Debian's OpenBLAS is the OpenMP build, made for GNU libgomp. When LLVM's libomp is in the
// process as well (fastconn built with clang, as the sanitizer builds are; or another library
// loaded it), OpenBLAS's parallel regions go to libomp's GOMP_ entry points and may get fewer
// threads than OpenBLAS planned for; its threaded level-3 drivers then wait forever for the
// missing thread (seen: a dsyrk after a split context's part threads had run their OpenMP teams,
// ASan build; the OpenBLAS maintainers point at mixed runtimes for such hangs). So with both
// runtimes loaded and OpenBLAS's OpenMP build, BLAS calls run on one thread: slower, never stuck.
#pragma once

namespace fc {
namespace cpu {

// `wanted` (0: the OpenMP default), or 1 where mixed OpenMP runtimes make threaded BLAS unsafe.
int blas_threads(int wanted);

// Whether this process has that mixture (fc_cpu_info says so).
bool blas_runtimes_mixed();

}  // namespace cpu
}  // namespace fc
