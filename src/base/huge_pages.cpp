#include "base/huge_pages.hpp"

#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

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

}  // namespace fc
