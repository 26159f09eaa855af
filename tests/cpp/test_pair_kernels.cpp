// The CPU pair kernels (src/backend/cpu/pair_kernels.hpp, compiled in): every ISA path this CPU
// has gives each product as one fma chain over k from +0 (the CUDA pair kernel's bits, its zero
// padding of k to a multiple of 8 included), on odd shapes, within 1e-5 (float) and 1e-12
// (double) of a float64 dot product of unit-norm rows, and a path never runs past the CPU.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "backend/cpu/pair_kernels.hpp"

namespace {

using fc::cpu::CpuIsa;

// The CUDA kernel's chain (kernels/pair_tile.cuh): acc = 0; acc = fma(a_k, b_k, acc) for
// k < t_pad = t rounded up to 8, with zeros past t.
template <class T>
T cuda_chain(const T* a, const T* b, int64_t t) {
  T acc = T(0);
  const int64_t t_pad = (t + 7) / 8 * 8;
  for (int64_t k = 0; k < t_pad; ++k) acc = k < t ? std::fma(a[k], b[k], acc) : std::fma(T(0), T(0), acc);
  return acc;
}

// Rows of unit norm and zero mean, as the backends store normalized series; `constant_row` is
// all zeros (a constant series).
template <class T>
std::vector<T> unit_rows(int64_t n, int64_t t, uint32_t seed, int64_t constant_row = -1) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> normal;
  std::vector<T> z(static_cast<size_t>(n * t));
  for (int64_t i = 0; i < n; ++i) {
    std::vector<double> x(static_cast<size_t>(t));
    double mean = 0.0;
    for (auto& v : x) mean += (v = normal(gen) + 0.3 * std::sin(double(i)));
    mean /= double(t);
    double ss = 0.0;
    for (auto& v : x) ss += (v - mean) * (v - mean);
    for (int64_t k = 0; k < t; ++k) z[i * t + k] = i == constant_row ? T(0) : T((x[k] - mean) / std::sqrt(ss));
  }
  return z;
}

template <class T>
void check_shape(CpuIsa isa, int64_t m, int64_t n, int64_t t) {
  SCOPED_TRACE(std::string(fc::cpu::isa_name(isa)) + " m=" + std::to_string(m) + " n=" + std::to_string(n) +
               " t=" + std::to_string(t));
  const auto a = unit_rows<T>(m, t, uint32_t(7 * m + t), m > 2 ? 1 : -1);
  const auto b = unit_rows<T>(n, t, uint32_t(11 * n + t + 1));
  const int64_t ldc = n + 5;  // columns past n must stay untouched
  std::vector<T> c(static_cast<size_t>(m * ldc), T(-7));
  fc::cpu::pair_products(isa, m, n, t, a.data(), b.data(), c.data(), ldc);
  const double tolerance = sizeof(T) == 4 ? 1e-5 : 1e-12;
  int64_t wrong_bits = 0, far = 0;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < ldc; ++j) {
      const T got = c[i * ldc + j];
      if (j >= n) {
        EXPECT_EQ(got, T(-7)) << "wrote past column n at (" << i << ", " << j << ")";
        continue;
      }
      const T want = cuda_chain(&a[i * t], &b[j * t], t);
      if (std::memcmp(&want, &got, sizeof(T)) != 0) ++wrong_bits;
      double exact = 0.0;
      for (int64_t k = 0; k < t; ++k) exact += double(a[i * t + k]) * double(b[j * t + k]);
      if (!(std::fabs(double(got) - exact) <= tolerance)) ++far;
    }
  EXPECT_EQ(wrong_bits, 0) << "products whose bits differ from the CUDA kernel's chain";
  EXPECT_EQ(far, 0) << "products farther than " << tolerance << " from float64";
}

std::vector<CpuIsa> paths() {
  std::vector<CpuIsa> out;
  for (int i = 0; i <= int(fc::cpu::best_isa()); ++i) out.push_back(CpuIsa(i));
  return out;
}

TEST(PairKernels, EveryPathGivesTheCudaChainOnOddShapes) {
  for (CpuIsa isa : paths()) {
    for (int64_t m : {1, 2, 3, 7, 13, 61})
      for (int64_t n : {1, 2, 3, 5, 47, 49, 97})
        for (int64_t t : {2, 3, 8, 9, 17, 165}) {
          check_shape<float>(isa, m, n, t);
          check_shape<double>(isa, m, n, t);
        }
  }
}

TEST(PairKernels, LongSeriesAndWholeTilesContinueTheChainAcrossKChunks) {
  for (CpuIsa isa : paths()) {
    check_shape<float>(isa, 250, 490, 1201);  // k in several chunks; column blocks past 480
    check_shape<double>(isa, 19, 485, 2003);
  }
}

// A chain that ends at -0 (an underflow of a negative product: 1e-30 * -1e-30 rounds to -0 in
// float, and -0 + 0 * -0 stays -0) becomes +0 exactly when t is not a multiple of 8, as the
// CUDA kernel's zero padding makes it.
TEST(PairKernels, NegativeZeroFollowsTheCudaPadding) {
  for (CpuIsa isa : paths()) {
    for (int64_t t : {8, 9}) {
      std::vector<float> a(static_cast<size_t>(t), 0.0f), b(static_cast<size_t>(t), -0.0f);
      float c = 1.0f;
      a[0] = 1e-30f;
      b[0] = -1e-30f;
      fc::cpu::pair_products(isa, 1, 1, t, a.data(), b.data(), &c, 1);
      EXPECT_EQ(std::signbit(c), t % 8 == 0) << fc::cpu::isa_name(isa) << " t=" << t;
      EXPECT_EQ(c, 0.0f);
    }
  }
}

// BlockDone: at each call the columns [0, cols_done) of the rows it names already hold the whole
// call's values (with k in several chunks too: only the last chunk's blocks are told), each row's
// cols_done rises from call to call, and the last call of a row names all n columns.
template <class T>
void check_block_done(int64_t m, int64_t n, int64_t t) {
  SCOPED_TRACE("m=" + std::to_string(m) + " n=" + std::to_string(n) + " t=" + std::to_string(t) + " " +
               std::to_string(8 * sizeof(T)) + "-bit");
  const auto a = unit_rows<T>(m, t, uint32_t(3 * m + t));
  const auto b = unit_rows<T>(n, t, uint32_t(5 * n + t));
  const CpuIsa isa = fc::cpu::cpu_isa();
  std::vector<T> want(static_cast<size_t>(m * n));
  fc::cpu::pair_products(isa, m, n, t, a.data(), b.data(), want.data(), n);
  struct State {
    const std::vector<T>* want;
    std::vector<T> c;
    std::vector<int64_t> done;  // each row's cols_done so far
    int64_t n, calls = 0, early = 0, not_rising = 0;
  } st{&want, std::vector<T>(static_cast<size_t>(m * n), T(-7)), std::vector<int64_t>(static_cast<size_t>(m), 0), n};
  fc::cpu::BlockDone done;
  done.context = &st;
  done.call = [](void* context, int64_t i0, int rows, int64_t cols_done) {
    State& s = *static_cast<State*>(context);
    ++s.calls;
    for (int64_t i = i0; i < i0 + rows; ++i) {
      if (cols_done <= s.done[static_cast<size_t>(i)]) ++s.not_rising;
      s.done[static_cast<size_t>(i)] = cols_done;
      if (std::memcmp(&s.c[static_cast<size_t>(i * s.n)], &(*s.want)[static_cast<size_t>(i * s.n)], sizeof(T) * size_t(cols_done)) != 0)
        ++s.early;
    }
  };
  const fc::cpu::PackedRows<T> packed(isa, b.data(), n, t, 1);
  fc::cpu::pair_products(m, n, t, a.data(), b.data(), packed, 0, st.c.data(), n, done);
  EXPECT_EQ(std::memcmp(st.c.data(), want.data(), want.size() * sizeof(T)), 0);
  EXPECT_GT(st.calls, 0);
  EXPECT_EQ(st.early, 0) << "calls named values that were not final yet";
  EXPECT_EQ(st.not_rising, 0) << "a row's cols_done did not rise";
  for (int64_t i = 0; i < m; ++i) EXPECT_EQ(st.done[static_cast<size_t>(i)], n) << "row " << i;
}

TEST(PairKernels, BlockDoneTellsOfFinalValuesOnly) {
  for (int64_t t : {1, 165, 2003}) {  // 2003: several k chunks
    check_block_done<float>(61, 485, t);  // 485: two column blocks
    check_block_done<double>(13, 485, t);
    check_block_done<double>(1, 3, t);
  }
}

TEST(PairKernels, RequestedPathIsClampedToWhatTheCpuHas) {
  using fc::cpu::isa_for;
  const CpuIsa best = fc::cpu::best_isa();
  EXPECT_EQ(isa_for(nullptr), best);
  EXPECT_EQ(isa_for("no-such-isa"), best);
  EXPECT_EQ(isa_for("portable"), CpuIsa::kPortable);
  EXPECT_EQ(isa_for("avx2"), std::min(CpuIsa::kAvx2, best));
  EXPECT_EQ(isa_for("avx512"), best == CpuIsa::kAvx512 ? CpuIsa::kAvx512 : best);
  EXPECT_STREQ(fc::cpu::isa_name(CpuIsa::kAvx512), "avx512");
  EXPECT_STREQ(fc::cpu::isa_name(CpuIsa::kAvx2), "avx2");
  EXPECT_STREQ(fc::cpu::isa_name(CpuIsa::kPortable), "portable");
}

}  // namespace
