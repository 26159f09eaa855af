#include "base/huge_pages.hpp"

#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

namespace fc {

namespace {

constexpr uintptr_t kHugePage = uintptr_t(2) << 20;

bool disabled(const char* name) {
  const char* env = std::getenv(name);
  return env != nullptr && std::strcmp(env, "0") == 0;
}

}  // namespace

void advise_huge_pages(void* begin, size_t bytes) {
  if (begin == nullptr || disabled("FASTCONN_HUGEPAGE") || disabled("FASTCONN_CUDA_HUGEPAGE")) return;
  const uintptr_t b = (reinterpret_cast<uintptr_t>(begin) + kHugePage - 1) & ~(kHugePage - 1);
  const uintptr_t e = (reinterpret_cast<uintptr_t>(begin) + bytes) & ~(kHugePage - 1);
  if (e > b) madvise(reinterpret_cast<void*>(b), e - b, MADV_HUGEPAGE);
}

void* huge_allocate(size_t bytes) {
  // The block from operator new, the value's start aligned within it (to 2 MiB when large, else
  // to 16 bytes) with the block's address kept in the pointer just before it, for huge_free.
  constexpr size_t kLarge = size_t(1) << 20;
  // Large: whole huge pages (the tail of the last one is never touched, so it costs no memory).
  const size_t align = bytes >= kLarge ? kHugePage : 16;
  bytes = (bytes + align - 1) / align * align;
  char* raw = static_cast<char*>(::operator new(bytes + align + sizeof(void*)));
  const uintptr_t start = (reinterpret_cast<uintptr_t>(raw) + sizeof(void*) + align - 1) & ~uintptr_t(align - 1);
  void* p = reinterpret_cast<void*>(start);
  static_cast<void**>(p)[-1] = raw;
  if (align == kHugePage) advise_huge_pages(p, bytes);
  return p;
}

void huge_free(void* p) {
  if (p != nullptr) ::operator delete(static_cast<void**>(p)[-1]);
}

}  // namespace fc
