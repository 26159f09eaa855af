// base/huge_pages.hpp's huge_buffer: the scratch of the host calls' N x N matrices (partial
// correlation, the block inverse). Large buffers start on a 2 MiB boundary (so the advised huge
// pages cover them from their first value), small ones on 16 bytes; every value is writable and
// reads back; sizes 0 and 1 work; memory comes from the global operator new, which this program
// counts (so failure injection in test_faults reaches it).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>

#include "base/huge_pages.hpp"

namespace {
std::atomic<long> g_news{0};
}  // namespace

void* operator new(std::size_t n) {
  ++g_news;
  if (void* p = std::malloc(n != 0 ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace {

uintptr_t address(const void* p) { return reinterpret_cast<uintptr_t>(p); }

TEST(HugeBuffer, AlignedWritableAndFromOperatorNew) {
  for (size_t count : {size_t(0), size_t(1), size_t(3), size_t(1000), size_t(131071), size_t(131072),
                       size_t(1000003), size_t(2) << 20}) {
    const long before = g_news.load();
    fc::HugeBuffer<double> b = fc::huge_buffer<double>(count);
    EXPECT_EQ(g_news.load(), before + 1) << count;
    ASSERT_NE(b.get(), nullptr) << count;
    const bool large = count * sizeof(double) >= (size_t(1) << 20);
    EXPECT_EQ(address(b.get()) % (large ? (size_t(2) << 20) : 16), 0u) << count;
    for (size_t i = 0; i < count; ++i) b[i] = double(i) * 0.5 - 7;
    for (size_t i = 0; i < count; i += 1 + count / 1000) ASSERT_EQ(b[i], double(i) * 0.5 - 7) << count << " " << i;
  }
}

TEST(HugeBuffer, SizesPastTheAddressSpaceThrowBadAlloc) {
  const long before = g_news.load();
  EXPECT_THROW(fc::huge_buffer<double>(size_t(-1) / 8), std::bad_alloc);
  EXPECT_THROW(fc::huge_buffer<double>(size_t(-1) / 4), std::bad_alloc);
  EXPECT_EQ(g_news.load(), before);  // refused before asking for memory
}

}  // namespace
