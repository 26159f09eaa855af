/* test_triangle_index.c - fc_triu_size / fc_triu_offset / fc_triu_pair: exhaustive round trips
 * for small N in both orders, sampled round trips near the 64-bit limit, and the error values. */
#include "check.h"

/* Every pair of n series, visited in the order's own sequence, must sit at offsets 0, 1, 2, ...
 * and fc_triu_pair must give the pair back. */
static void exhaustive(int64_t n) {
  int64_t i, j, expected = 0, pi = -1, pj = -1;
  /* row order: i outer, j inner */
  for (i = 0; i < n; ++i)
    for (j = i + 1; j < n; ++j, ++expected) {
      CHECK(fc_triu_offset(n, FC_TRIU_ROW, i, j) == expected);
      CHECK(fc_triu_offset(n, FC_TRIU_ROW, j, i) == expected); /* unordered pair */
      CHECK_OK(fc_triu_pair(n, FC_TRIU_ROW, expected, &pi, &pj));
      CHECK(pi == i && pj == j);
    }
  CHECK(expected == fc_triu_size(n));
  /* column order: j outer, i inner */
  expected = 0;
  for (j = 1; j < n; ++j)
    for (i = 0; i < j; ++i, ++expected) {
      CHECK(fc_triu_offset(n, FC_TRIU_COL, i, j) == expected);
      CHECK(fc_triu_offset(n, FC_TRIU_COL, j, i) == expected);
      CHECK_OK(fc_triu_pair(n, FC_TRIU_COL, expected, &pi, &pj));
      CHECK(pi == i && pj == j);
    }
  CHECK(expected == fc_triu_size(n));
}

/* offset -> pair -> offset for offsets spread over a huge triangle, plus its ends. */
static void sampled(int64_t n) {
  const int64_t size = fc_triu_size(n);
  int order;
  CHECK(size > 0);
  for (order = 0; order < 2; ++order) {
    check_rng g;
    int k;
    g.state = 0x5eedULL + (uint64_t)n;
    for (k = 0; k < 2000; ++k) {
      int64_t off, i = -1, j = -1;
      if (k == 0) off = 0;
      else if (k == 1) off = size - 1;
      else off = (int64_t)(check_uniform(&g) * (double)size);
      if (off >= size) off = size - 1;
      CHECK_OK(fc_triu_pair(n, (fc_triu_order)order, off, &i, &j));
      CHECK(0 <= i && i < j && j < n);
      CHECK(fc_triu_offset(n, (fc_triu_order)order, i, j) == off);
    }
  }
  /* the last pair is (n-2, n-1) in both orders, the first (0, 1) */
  CHECK(fc_triu_offset(n, FC_TRIU_ROW, n - 2, n - 1) == size - 1);
  CHECK(fc_triu_offset(n, FC_TRIU_COL, n - 2, n - 1) == size - 1);
  CHECK(fc_triu_offset(n, FC_TRIU_ROW, 0, 1) == 0);
  CHECK(fc_triu_offset(n, FC_TRIU_COL, 0, 1) == 0);
}

static void sizes(void) {
  CHECK(fc_triu_size(0) == 0);
  CHECK(fc_triu_size(1) == 0);
  CHECK(fc_triu_size(2) == 1);
  CHECK(fc_triu_size(31) == 465);
  CHECK(fc_triu_size(-1) == -1);
  /* where 32-bit indices break: the count itself must be exact in 64 bits */
  CHECK(fc_triu_size(65537) == (int64_t)65537 * 65536 / 2);
  CHECK(fc_triu_size(92683) == (int64_t)92683 * 92682 / 2);
  CHECK(fc_triu_size(92683) > (int64_t)4294967295LL);
  /* the largest N whose count fits in int64_t is 2^32; one more does not fit */
  CHECK(fc_triu_size((int64_t)1 << 32) == ((int64_t)1 << 31) * (((int64_t)1 << 32) - 1));
  CHECK(fc_triu_size(((int64_t)1 << 32) + 1) == -1);
}

static void errors(void) {
  int64_t i = 0, j = 0;
  CHECK(fc_triu_offset(10, FC_TRIU_ROW, 3, 3) == -1); /* no diagonal in the strict triangle */
  CHECK(fc_triu_offset(10, FC_TRIU_ROW, -1, 3) == -1);
  CHECK(fc_triu_offset(10, FC_TRIU_ROW, 3, 10) == -1);
  CHECK(fc_triu_offset(1, FC_TRIU_ROW, 0, 1) == -1);
  CHECK(fc_triu_offset(10, (fc_triu_order)2, 0, 1) == -1);
  CHECK_STATUS(fc_triu_pair(10, FC_TRIU_ROW, 0, NULL, &j), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_triu_pair(10, FC_TRIU_ROW, 0, &i, NULL), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_triu_pair(10, FC_TRIU_ROW, 45, &i, &j), FC_ERR_INVALID_ARG); /* size is 45 */
  CHECK_ERROR_MENTIONS("45");
  CHECK_STATUS(fc_triu_pair(10, FC_TRIU_COL, -1, &i, &j), FC_ERR_INVALID_ARG);
  CHECK_STATUS(fc_triu_pair(1, FC_TRIU_ROW, 0, &i, &j), FC_ERR_INVALID_ARG);
  CHECK_STATUS(fc_triu_pair(10, (fc_triu_order)5, 0, &i, &j), FC_ERR_INVALID_ARG);
}

int main(void) {
  const int64_t small[] = {2, 3, 4, 5, 17, 64, 101};
  size_t k;
  sizes();
  for (k = 0; k < sizeof small / sizeof small[0]; ++k) exhaustive(small[k]);
  sampled(65537);
  sampled(92683);
  sampled(1000003);
  sampled((int64_t)1 << 32);
  errors();
  return check_report();
}
