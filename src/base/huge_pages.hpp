// Transparent huge pages for large host buffers the library fills itself.
#pragma once

#include <cstddef>

namespace fc {

// Asks the kernel to back the 2 MiB-aligned part of [begin, begin + bytes) with transparent huge
// pages (madvise MADV_HUGEPAGE; THP in "madvise" mode does nothing without it). Call it before the
// first touch: a fresh buffer then faults 2 MiB at a time instead of 4 KiB (on the H100 machine a
// 16 GB output filled in 0.55 s instead of 0.87-1.03 s, bench/RESULTS-gpu.md). Advisory: failure
// is harmless. FASTCONN_HUGEPAGE=0 (or the older FASTCONN_CUDA_HUGEPAGE=0) turns it off.
void advise_huge_pages(void* begin, size_t bytes);

}  // namespace fc
