// Low rank: the best rank-l approximation (Eckart-Young) of a series set's correlation matrix
// R = Z Z^T from the small t x t eigenproblem of Z^T Z (LAPACK dsyevd, float64), as V = Z U_l.
#pragma once

#include <cstdint>

#include "core/context.hpp"
#include "core/series.hpp"

namespace fc {

// Throws FC_ERR_INVALID_ARG unless 1 <= rank <= t.
void require_rank(int64_t rank, int64_t t);

// factor: s.n x rank, row-major (the caller checked its size); rel_error may be null.
void pcc_lowrank(const ContextState& ctx, const SeriesData& s, int64_t rank, float* factor, double* rel_error);

}  // namespace fc
