// Fisher z (fisher_z.hpp): checked first, then elementwise on OpenMP's default threads.
#include "pcc/fisher_z.hpp"

#include <cmath>
#include <string>

#include "base/error.hpp"

namespace fc {
namespace {

template <class T>
void transform(T* values, int64_t count) {
  if (count < 0) fail(FC_ERR_INVALID_ARG, "count is " + std::to_string(count) + "; expected >= 0");
  if (count == 0) return;
  require_not_null(values, "values");
  // The first value outside [-1, 1] (NaN passes), found before anything is written.
  int64_t bad = count;
#pragma omp parallel for schedule(static) reduction(min : bad)
  for (int64_t i = 0; i < count; ++i)
    if (values[i] > T(1) || values[i] < T(-1)) bad = i < bad ? i : bad;
  if (bad < count)
    fail(FC_ERR_INVALID_ARG, "values[" + std::to_string(bad) + "] is " + exact_text(static_cast<double>(values[bad])) +
                                 ", outside [-1, 1]: not a correlation (nothing was changed)");
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < count; ++i) {
    const T v = values[i];
    // atanh(+-1) is +-inf (a pole error, which the C library reports through errno only).
    values[i] = v == T(1) ? INFINITY : v == T(-1) ? -INFINITY : std::atanh(v);
  }
}

}  // namespace

void fisher_z(float* values, int64_t count) { transform(values, count); }
void fisher_z(double* values, int64_t count) { transform(values, count); }

}  // namespace fc
