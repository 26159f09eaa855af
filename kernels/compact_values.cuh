// The compact value formats (fc_value_format): the one definition of their codes, compiled for
// the host (the CPU backend's writer, fc_decode_values) and for the device (the CUDA extraction
// kernels), so that both backends turn a value into the same 2 bytes. Plain C++ with <cmath>
// only: no CUDA header is needed outside nvcc. Output types: int16_t holds FC_VALUES_INT16 codes,
// uint16_t the bits of FC_VALUES_HALF (IEEE binary16); float and double are the plain outputs.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#ifdef __CUDACC__
#define FC_HOST_DEVICE __host__ __device__
#else
#define FC_HOST_DEVICE
#endif

namespace fc {
namespace kernels {

constexpr int16_t kInt16NanCode = -32768;  // the code of NaN (no r maps to it)
constexpr double kInt16Scale = 32767.0;

// round(r * 32767) with ties to even, r in [-1, 1] (clamped values); NaN -> -32768. The product
// of a float or double r by 32767 is rounded once (double), and rint's nearest-even rounding
// gives the exact nearest code: |code / 32767 - r| <= 0.5 / 32767 for r of float, about 1.5e-5.
FC_HOST_DEVICE inline int16_t encode_int16(double r) {
  if (r != r) return kInt16NanCode;
  double code = rint(r * kInt16Scale);
  code = code > kInt16Scale ? kInt16Scale : (code < -kInt16Scale ? -kInt16Scale : code);
  return static_cast<int16_t>(code);
}

FC_HOST_DEVICE inline double decode_int16(int16_t code) {
  return code == kInt16NanCode ? NAN : static_cast<double>(code) / kInt16Scale;
}

// IEEE binary16 bits of x, rounded to nearest even (as __float2half_rn and numpy's astype), in
// one rounding from the double (FP64 outputs). NaN -> 0x7E00 (the quiet NaN numpy writes),
// overflow -> infinity. encode_half(float) below gives the same bits for every float.
FC_HOST_DEVICE inline uint16_t encode_half(double x) {
  uint64_t xbits = 0;
  memcpy(&xbits, &x, sizeof xbits);
  const uint16_t sign = (xbits >> 63) != 0 ? 0x8000 : 0;  // -0.0 keeps its sign, as in IEEE
  const double a = fabs(x);
  if (a != a) return 0x7E00;
  if (a >= 65520.0) return sign | 0x7C00;  // rounds past the largest half (65504)
  if (a < 6.103515625e-05) {               // below 2^-14: a multiple of 2^-24 (a subnormal or 0)
    // rint(a * 2^24) is exact scaling then one rounding; 1024 is the smallest normal's bits
    return static_cast<uint16_t>(sign | static_cast<uint16_t>(rint(a * 16777216.0)));
  }
  int k = 0;
  const double f = frexp(a, &k);           // a = f 2^k, f in [0.5, 1): exponent k - 1
  const double m = rint(ldexp(f, 11));     // 1 + 10 fraction bits, in [1024, 2048]
  // m = 2048 carries into the exponent field, which is the right rounding up to the next binade
  const uint32_t bits = (static_cast<uint32_t>(k - 1 + 15) << 10) + (static_cast<uint32_t>(m) - 1024u);
  return static_cast<uint16_t>(sign | bits);
}

// The same rounding for a float, in integer steps on its bits (F. Giesen's float_to_half_fast3_rtne,
// public domain): the FP32 outputs' path, several times faster than the double one on a CPU. Bits
// of the float are added a rounding bias of 0xFFF plus the lowest kept bit (ties to even); values
// below 2^-14 are aligned by adding 0.5 in float arithmetic (round to nearest even on both host
// and device; a float subnormal flushed to 0 gives the same half, 0).
FC_HOST_DEVICE inline uint16_t encode_half(float x) {
  uint32_t f = 0;
  memcpy(&f, &x, sizeof f);
  const uint32_t sign = f & 0x80000000u;
  f ^= sign;
  uint32_t h;
  if (f > 0x7F800000u) return 0x7E00;  // NaN, whatever its sign and payload (as the double path)
  if (f >= 0x47800000u) {               // >= 65536 or Inf: Inf
    h = 0x7C00u;
  } else if (f < 0x38800000u) {  // below 2^-14: a multiple of 2^-24 after adding 0.5
    float aligned = 0;
    memcpy(&aligned, &f, sizeof aligned);
    aligned += 0.5f;
    memcpy(&f, &aligned, sizeof f);
    h = f - 0x3F000000u;
  } else {
    const uint32_t odd = (f >> 13) & 1u;
    h = (f + 0xC8000FFFu + odd) >> 13;  // rebias the exponent (15 - 127) << 23, round, take the bits
  }
  return static_cast<uint16_t>(h | (sign >> 16));
}

FC_HOST_DEVICE inline double decode_half(uint16_t h) {
  const double sign = (h & 0x8000) ? -1.0 : 1.0;
  const int e = (h >> 10) & 0x1F, m = h & 0x3FF;
  if (e == 0x1F) return m != 0 ? NAN : sign * INFINITY;
  if (e == 0) return sign * ldexp(static_cast<double>(m), -24);
  return sign * ldexp(static_cast<double>(m + 1024), e - 25);
}

// A finished value (clamped r, the constant policy's value, or the diagonal's 1) as output type
// O: float and double take it as they are; the compact types take its code.
template <class O>
struct Encode {
  template <class V>
  FC_HOST_DEVICE static O of(V v) {
    return static_cast<O>(v);
  }
};
template <>
struct Encode<int16_t> {
  template <class V>
  FC_HOST_DEVICE static int16_t of(V v) {
    return encode_int16(static_cast<double>(v));
  }
};
template <>
struct Encode<uint16_t> {
  FC_HOST_DEVICE static uint16_t of(float v) { return encode_half(v); }
  FC_HOST_DEVICE static uint16_t of(double v) { return encode_half(v); }
};

}  // namespace kernels
}  // namespace fc
