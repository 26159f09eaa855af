// Launchers of the kernels that assemble a graph's symmetric CSR on the device from the upper
// edges threshold_edges leaves in its arena (src/backend/cuda/cuda_csr.cpp drives them).
// Plain declarations over raw device pointers and a stream; each returns the launch status for
// the caller to check. Nothing depends on scheduling: counts use integer atomics, positions
// come from scans and a stable sort, so the CSR is the same bits run to run.
//
// Layout (graph_backend.hpp's SymmetricCsr): row u holds its lower neighbours (w < u, ascending) and
// then its upper ones (ascending). The upper halves are the arena's rows copied in place; the
// lower halves are the arena's edges sorted stably by column, so each column's rows stay
// ascending (the arena is in row order).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace fc {
namespace kernels {

// What an edge weighs in the CSR (fc_graph_weights): 1, r or |r|.
enum CsrWeight : int { kCsrBinary = 0, kCsrSigned = 1, kCsrAbsolute = 2 };

// lower[c] += 1 for every arena column c (lower zeroed by the caller).
cudaError_t csr_count_lower(const int64_t* arena_cols, int64_t edges, unsigned long long* lower, cudaStream_t stream);

// first_edge[u] = sum of row_count before u, lower_start[u] = sum of lower before u, and
// offsets[u] = first_edge[u] + lower_start[u] for u in [0, n], so offsets[n] = 2 x edges.
// `scratch` of csr_scan_bytes(n) bytes.
size_t csr_scan_bytes(int64_t n);
cudaError_t csr_scan(const int64_t* row_count, const unsigned long long* lower, int64_t n, int64_t* first_edge,
                     int64_t* lower_start, int64_t* offsets, void* scratch, cudaStream_t stream);

// Row u's upper edges into columns / weights at offsets[u] + lower[u], and every edge's sort
// record: key[x] = its column, record[x] = (its row << 32) | the bits of its weight.
cudaError_t csr_place_upper(const int64_t* arena_cols, const float* arena_vals, const int64_t* row_count,
                            const int64_t* first_edge, const unsigned long long* lower, const int64_t* offsets, int64_t n,
                            CsrWeight weight, int64_t* columns, float* weights, uint32_t* key, uint64_t* record,
                            cudaStream_t stream);

// Stable sort of (key, record) by the key's low `key_bits` bits. Buffers key[0], record[0] hold
// the input; the sorted pairs end in key[*which], record[*which] (a host int, set before the
// sort runs). `scratch` of csr_sort_bytes(edges, key_bits) bytes. edges <= INT32_MAX.
size_t csr_sort_bytes(int64_t edges, int key_bits);
cudaError_t csr_sort(uint32_t* key[2], uint64_t* record[2], int64_t edges, int key_bits, int* which, void* scratch,
                     size_t scratch_bytes, cudaStream_t stream);

// Sorted edge y of column v = key[y] goes to row v at offsets[v] + (y - lower_start[v]).
cudaError_t csr_place_lower(const uint32_t* key, const uint64_t* record, int64_t edges, const int64_t* offsets,
                            const int64_t* lower_start, int64_t* columns, float* weights, cudaStream_t stream);

}  // namespace kernels
}  // namespace fc
