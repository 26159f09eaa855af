// Fisher's z transform of correlation outputs in place (fc_fisher_z_f32 / _f64).
#pragma once

#include <cstdint>

namespace fc {

// values[i] = atanh(values[i]), i < count; +-1 -> +-inf, NaN stays. Checks first (nothing is
// changed when it fails): values non-null unless count is 0, count >= 0, every value in [-1, 1]
// or NaN (FC_ERR_INVALID_ARG names the first other one).
void fisher_z(float* values, int64_t count);
void fisher_z(double* values, int64_t count);

}  // namespace fc
