// The inverse of a symmetric positive definite matrix by its Cholesky factor, on the host, on
// one thread (cholesky_inverse.cpp says why).
#pragma once

#include <cstdint>

namespace fc {
namespace cpu {

// m: n x n, row-major, of which only the upper triangle (j >= i) is read: replaced by the upper
// triangle of the inverse (the lower one is left as it was). Returns 0, or the 1-based order of
// the first leading minor that is not positive definite (m is then partly overwritten).
int64_t cholesky_inverse_upper(double* m, int64_t n);

}  // namespace cpu
}  // namespace fc
