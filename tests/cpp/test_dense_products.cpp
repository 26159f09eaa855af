// backend/cpu/dense_products.hpp: the float64 products of the CPU partial correlation (R = Z Z^T
// and its block inverse), A B^T through the pair kernels with leading dimensions, accumulation and
// the upper-blocks mode, against a long-double reference on odd sizes, with 1 and 2 threads giving
// the same bits, and nothing written outside the m x n block.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "backend/cpu/dense_products.hpp"

namespace {

struct Case {
  int64_t m, n, k;
};

std::vector<double> random_values(size_t count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  std::vector<double> v(count);
  for (double& x : v) x = normal(rng);
  return v;
}

TEST(DenseProducts, MatchTheReferenceOnOddSizes) {
  for (const Case c : {Case{1, 1, 1}, Case{2, 3, 2}, Case{3, 2, 5}, Case{7, 7, 13}, Case{97, 101, 211},
                       Case{200, 131, 1}, Case{131, 200, 300}, Case{5, 300, 0}}) {
    for (bool accumulate : {false, true}) {
      for (bool upper : {false, true}) {
        if (upper && c.m > c.n) continue;
        const int64_t lda = c.k + 3, ldb = c.k + 5, ldc = c.n + 2;
        const std::vector<double> a = random_values(static_cast<size_t>(c.m * lda), 1);
        const std::vector<double> b = random_values(static_cast<size_t>(c.n * ldb), 2);
        const std::vector<double> c0 = random_values(static_cast<size_t>(c.m * ldc), 3);
        std::vector<double> one = c0, two = c0;
        fc::cpu::dense_products(c.m, c.n, c.k, a.data(), lda, b.data(), ldb, one.data(), ldc, accumulate, upper, 1);
        fc::cpu::dense_products(c.m, c.n, c.k, a.data(), lda, b.data(), ldb, two.data(), ldc, accumulate, upper, 2);
        for (int64_t i = 0; i < c.m; ++i) {
          for (int64_t j = 0; j < ldc; ++j) {
            const size_t at = static_cast<size_t>(i * ldc + j);
            if (j >= c.n) {  // past the block: untouched
              ASSERT_EQ(one[at], c0[at]) << c.m << "x" << c.n << "x" << c.k << " at " << i << "," << j;
              continue;
            }
            if (upper && j < i) continue;  // below the diagonal: not promised
            long double want = accumulate ? c0[at] : 0.0L, size = std::fabs(want);
            for (int64_t l = 0; l < c.k; ++l) {
              const long double p = (long double)a[static_cast<size_t>(i * lda + l)] * b[static_cast<size_t>(j * ldb + l)];
              want += p;
              size += std::fabs(p);
            }
            ASSERT_LE(std::fabs((long double)one[at] - want), 1e-14L * (size + 1))
                << c.m << "x" << c.n << "x" << c.k << " acc " << accumulate << " upper " << upper << " at " << i << "," << j;
            ASSERT_EQ(one[at], two[at]) << "1 vs 2 threads at " << i << "," << j;
          }
        }
      }
    }
  }
}

}  // namespace
