// Low rank: the best rank-l approximation (Eckart-Young) of a series set's correlation matrix
// R = Z Z^T from the small t x t eigenproblem of Z^T Z (LAPACK dsyevd, float64), as V = Z U_l.
#pragma once

#include <cstdint>
#include <vector>

#include "context/context.hpp"
#include "pcc/series.hpp"

namespace fc {

// Throws FC_ERR_INVALID_ARG unless 1 <= rank <= t.
void require_rank(int64_t rank, int64_t t);

// From the t x t Gram matrix Z^T Z (overwritten) to basis (t x rank, row-major: the leading
// eigenvectors, signs fixed) and the exact relative Frobenius error (may be null). Single-threaded
// LAPACK, so the bits do not depend on the thread count and callers may run several at once.
void lowrank_basis(int64_t t, int64_t rank, std::vector<double>& gram, std::vector<double>& basis, double* rel_error);

// factor: s.n x rank, row-major (the caller checked its size); rel_error may be null.
void pcc_lowrank(const ContextState& ctx, const SeriesData& s, int64_t rank, float* factor, double* rel_error);

}  // namespace fc
