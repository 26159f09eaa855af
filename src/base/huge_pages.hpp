// Transparent huge pages for large host buffers the library fills itself.
#pragma once

#include <cstddef>
#include <memory>
#include <new>

namespace fc {

// Asks the kernel to back the 2 MiB-aligned part of [begin, begin + bytes) with transparent huge
// pages (madvise MADV_HUGEPAGE; THP in "madvise" mode does nothing without it). Call it before the
// first touch: a fresh buffer then faults 2 MiB at a time instead of 4 KiB (on the H100 machine a
// 16 GB output filled in 0.55 s instead of 0.87-1.03 s, bench/RESULTS-gpu.md). Advisory: failure
// is harmless. FASTCONN_HUGEPAGE=0 (or the older FASTCONN_CUDA_HUGEPAGE=0) turns it off.
void advise_huge_pages(void* begin, size_t bytes);

// Scratch of `count` values of a trivial type, not zeroed, whose large allocations (>= 1 MiB) are
// 2 MiB-aligned with huge pages advised: a call's fresh N x N scratch otherwise faults 4 KiB at a
// time (the CPU partial correlation of 1,000 series: 3,250 faults, 4 ms of a 33 ms call). The
// memory comes from the global operator new (so that failure injection reaches it); throws
// std::bad_alloc when memory is short.
void* huge_allocate(size_t bytes);
void huge_free(void* p);
struct HugeDeleter {
  void operator()(void* p) const { huge_free(p); }
};
template <class T>
using HugeBuffer = std::unique_ptr<T[], HugeDeleter>;
template <class T>
HugeBuffer<T> huge_buffer(size_t count) {
  if (count > (size_t(-1) >> 2) / sizeof(T)) throw std::bad_alloc();  // no size arithmetic overflows
  return HugeBuffer<T>(static_cast<T*>(huge_allocate(count * sizeof(T))));
}

}  // namespace fc
