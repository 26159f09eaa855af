// huge_buffer.hpp - the program's large host buffers (the scan's voxels as read, the gathered
// series), backed by transparent huge pages where the kernel offers them (THP "always", or
// "madvise" as on the GPU machine).
//
// Why: the buffers are filled, and first touched, by every core while fc_context_create starts
// CUDA on a thread of its own (context_start.hpp). With 4 KiB pages the 344 MiB of a whole-brain
// scan and its 184 MiB of series take some 135,000 page faults, each holding the process's
// memory map lock that the driver's own mappings wait for: the CUDA start took 0.257 s beside the
// reads against 0.211 s alone (bench/cli/RESULTS.md). 2 MiB pages need 512 times fewer faults.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <memory>

namespace fcli {

// `bytes` of uninitialized memory for free() (so that libnifti2's nifti_image_free can release
// a scan's data), 2 MiB-aligned with huge pages asked for; null when out of memory.
// FASTCONN_HUGEPAGE=0 turns huge pages off here as it does in the library (plain malloc).
inline void* huge_alloc(size_t bytes) {
  constexpr size_t kHuge = size_t(2) << 20;
  static const bool enabled = [] {
    const char* v = std::getenv("FASTCONN_HUGEPAGE");
    return v == nullptr || std::strcmp(v, "0") != 0;
  }();
  if (bytes < kHuge || !enabled) return std::malloc(bytes > 0 ? bytes : 1);
  const size_t rounded = (bytes + kHuge - 1) / kHuge * kHuge;
  void* p = std::aligned_alloc(kHuge, rounded);
  if (p != nullptr) madvise(p, rounded, MADV_HUGEPAGE);  // advisory: failure leaves 4 KiB pages
  return p;
}

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
template <class T>
using HugeArray = std::unique_ptr<T[], FreeDeleter>;

}  // namespace fcli
