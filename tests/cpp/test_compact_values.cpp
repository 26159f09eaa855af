// The compact codes of kernels/compact_values.cuh (the one definition both backends compile):
// int16 at +-1, 0, NaN and at the rounding boundaries +-0.5/32767, +-1.5/32767 (ties to even)
// and just off them; half against the CPU's own converter (F16C, round to nearest even) on a
// million random floats, on every half and every midpoint between neighbours (float and double
// paths), the float path against the double path; decoding inverts encoding.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>

#include "kernels/compact_values.cuh"

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#define FASTCONN_TEST_F16C 1
#endif

namespace {

using fc::kernels::decode_half;
using fc::kernels::decode_int16;
using fc::kernels::encode_half;
using fc::kernels::encode_int16;

TEST(CompactInt16, FixedPoints) {
  EXPECT_EQ(encode_int16(1.0), 32767);
  EXPECT_EQ(encode_int16(-1.0), -32767);
  EXPECT_EQ(encode_int16(0.0), 0);
  EXPECT_EQ(encode_int16(-0.0), 0);
  EXPECT_EQ(encode_int16(std::numeric_limits<double>::quiet_NaN()), -32768);
  EXPECT_EQ(encode_int16(std::numeric_limits<float>::quiet_NaN()), -32768);
  EXPECT_EQ(decode_int16(32767), 1.0);
  EXPECT_EQ(decode_int16(-32767), -1.0);
  EXPECT_EQ(decode_int16(0), 0.0);
  EXPECT_TRUE(std::isnan(decode_int16(-32768)));
}

TEST(CompactInt16, RoundingBoundaries) {
  const double q = 1.0 / 32767.0;
  // ties (r * 32767 exactly k + 1/2 in double) go to the even code
  for (double k : {0.5, 1.5, 2.5, -1.5, 32765.5}) {
    const double r = k * q;
    if (r * 32767.0 != k) continue;  // not an exact tie after the division's rounding
    const double even = std::nearbyint(k);
    EXPECT_EQ(encode_int16(r), static_cast<int16_t>(even)) << k;
  }
  // just inside and outside the first boundaries (one part in 1e9 off)
  EXPECT_EQ(encode_int16(0.5 * q * (1 + 1e-9)), 1);
  EXPECT_EQ(encode_int16(0.5 * q * (1 - 1e-9)), 0);
  EXPECT_EQ(encode_int16(-0.5 * q * (1 + 1e-9)), -1);
  EXPECT_EQ(encode_int16(-0.5 * q * (1 - 1e-9)), 0);
  EXPECT_EQ(encode_int16(1.5 * q * (1 + 1e-9)), 2);
  EXPECT_EQ(encode_int16(1.5 * q * (1 - 1e-9)), 1);
  EXPECT_EQ(encode_int16(static_cast<float>(0.5 * q * 1.001)), 1);
  EXPECT_EQ(encode_int16(static_cast<float>(0.5 * q * 0.999)), 0);
  EXPECT_EQ(encode_int16(std::nextafter(1.0, 0.0)), 32767);
  EXPECT_EQ(encode_int16(1.0 - 0.6 * q), 32766);
  // every code decodes to a value that encodes back to it, float or double
  for (int c = -32767; c <= 32767; ++c) {
    const int16_t code = static_cast<int16_t>(c);
    ASSERT_EQ(encode_int16(decode_int16(code)), code);
    ASSERT_EQ(encode_int16(static_cast<float>(decode_int16(code))), code);
  }
}

TEST(CompactInt16, ErrorBound) {
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  double worst = 0.0;
  for (int k = 0; k < 1000000; ++k) {
    const float r = u(gen);
    worst = std::max(worst, std::fabs(decode_int16(encode_int16(r)) - static_cast<double>(r)));
  }
  EXPECT_LE(worst, 0.5 / 32767.0);
  EXPECT_GT(worst, 0.49 / 32767.0);  // the bound is reached, not loose
}

TEST(CompactHalf, FixedPoints) {
  EXPECT_EQ(encode_half(1.0), 0x3C00);
  EXPECT_EQ(encode_half(-1.0), 0xBC00);
  EXPECT_EQ(encode_half(0.0), 0x0000);
  EXPECT_EQ(encode_half(-0.0), 0x8000);
  EXPECT_EQ(encode_half(std::numeric_limits<double>::quiet_NaN()), 0x7E00);
  EXPECT_EQ(encode_half(65504.0), 0x7BFF);
  EXPECT_EQ(encode_half(65520.0), 0x7C00);
  EXPECT_EQ(encode_half(std::ldexp(1.0, -24)), 0x0001);
  EXPECT_EQ(encode_half(std::ldexp(1.0, -25)), 0x0000);                     // tie to even (0)
  EXPECT_EQ(encode_half(std::ldexp(3.0, -25)), 0x0002);                     // tie to even (2)
  EXPECT_EQ(encode_half(std::nextafter(std::ldexp(1.0, -25), 1.0)), 0x0001);
  EXPECT_EQ(decode_half(0x3C00), 1.0);
  EXPECT_TRUE(std::isnan(decode_half(0x7E00)));
  EXPECT_TRUE(std::signbit(decode_half(0x8000)));
}

TEST(CompactHalf, EveryHalfAndMidpoint) {
  for (uint32_t h = 0; h < 0x7C00; ++h) {  // every finite non-negative half, and its negative
    const uint16_t bits = static_cast<uint16_t>(h);
    const double v = decode_half(bits);
    ASSERT_EQ(encode_half(v), bits) << h;
    ASSERT_EQ(encode_half(-v), static_cast<uint16_t>(bits | 0x8000)) << h;
    ASSERT_EQ(encode_half(static_cast<float>(v)), bits) << h;  // the float path (every half is a float)
    ASSERT_EQ(encode_half(static_cast<float>(-v)), static_cast<uint16_t>(bits | 0x8000)) << h;
    if (h + 1 < 0x7C00) {
      // the midpoint to the next half goes to the even one of the two (a float too: 12 bits)
      const double mid = (v + decode_half(static_cast<uint16_t>(h + 1))) / 2;
      const uint16_t even = (h % 2 == 0) ? bits : static_cast<uint16_t>(h + 1);
      const float mid_f = static_cast<float>(mid);
      ASSERT_EQ(static_cast<double>(mid_f), mid);
      ASSERT_EQ(encode_half(mid), even) << h;
      ASSERT_EQ(encode_half(mid_f), even) << h;
      ASSERT_EQ(encode_half(std::nextafter(mid, 0.0)), bits) << h;
      ASSERT_EQ(encode_half(std::nextafter(mid, 1e9)), static_cast<uint16_t>(h + 1)) << h;
      ASSERT_EQ(encode_half(std::nextafter(mid_f, 0.0f)), bits) << h;
      ASSERT_EQ(encode_half(std::nextafter(mid_f, 1e9f)), static_cast<uint16_t>(h + 1)) << h;
    }
  }
}

// The float path (integer steps) and the double path (one rounding from double) agree on every
// float: random bit patterns of every magnitude, float subnormals, and the largest values.
TEST(CompactHalf, FloatPathEqualsDoublePath) {
  std::mt19937 gen(13);
  std::uniform_int_distribution<uint32_t> any_bits;
  for (int k = 0; k < 2000000; ++k) {
    const uint32_t b = any_bits(gen);
    float x;
    std::memcpy(&x, &b, sizeof x);
    ASSERT_EQ(encode_half(x), encode_half(static_cast<double>(x))) << b;
  }
  for (float x : {std::numeric_limits<float>::denorm_min(), -std::numeric_limits<float>::denorm_min(), 1e-30f, 65519.99f,
                  65520.0f, 65535.0f, 65536.0f, std::numeric_limits<float>::infinity(),
                  -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN(), -0.0f})
    EXPECT_EQ(encode_half(x), encode_half(static_cast<double>(x))) << x;
}

#ifdef FASTCONN_TEST_F16C
// cpuid leaf 1: ECX bit 29 (F16C), with bit 27 (OSXSAVE) and XCR0's SSE and AVX state bits, as
// F16C is VEX-encoded. Not __builtin_cpu_supports("f16c"): clang before 16 does not know the
// string (the CI's sanitizer build failed on it).
bool cpu_has_f16c() {
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return false;
  if (!(c & (1u << 29)) || !(c & (1u << 27))) return false;
  unsigned lo, hi;
  __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (lo & 6u) == 6u;
}

__attribute__((target("f16c"))) uint16_t hardware_half(float x) {
  return static_cast<uint16_t>(_cvtss_sh(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}

TEST(CompactHalf, SameAsTheCpusConverter) {
  if (!cpu_has_f16c()) GTEST_SKIP() << "this CPU has no F16C";
  std::mt19937 gen(11);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::uniform_int_distribution<uint32_t> any_bits;
  for (int k = 0; k < 1000000; ++k) {
    const float r = u(gen);
    ASSERT_EQ(encode_half(r), hardware_half(r)) << r;
    float x;
    const uint32_t b = any_bits(gen);
    std::memcpy(&x, &b, sizeof x);
    if (std::isnan(x)) continue;  // NaN payloads: ours is always 0x7E00
    ASSERT_EQ(encode_half(x), hardware_half(x)) << x;
  }
}
#endif

}  // namespace
