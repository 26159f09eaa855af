"""References for the network tests: edge sets read back from scipy matrices, and the edges the
ranking rules must select from a given triangle of correlations (numpy only, no fastconn)."""

import math

import numpy as np


def row_order_index(i, j, n):
    """Position of the pair (i, j), i < j, in the row-ordered triangle (numpy.triu_indices(n, 1))."""
    i = np.asarray(i, dtype=np.int64)
    j = np.asarray(j, dtype=np.int64)
    return i * n - i * (i + 1) // 2 + (j - i - 1)


def adjacency(matrix):
    """The stored pattern of a sparse matrix as a dense bool array (whatever the weights)."""
    dense = np.zeros(matrix.shape, dtype=bool)
    rows = np.repeat(np.arange(matrix.shape[0]), np.diff(matrix.indptr))
    dense[rows, matrix.indices] = True
    return dense


def pair_indices(matrix):
    """The row-order pair index of every edge of a symmetric CSR matrix, ascending."""
    upper = np.triu(adjacency(matrix), 1)
    i, j = np.nonzero(upper)
    return np.sort(row_order_index(i, j, matrix.shape[0]))


def assert_well_formed(matrix, n):
    """fastconn's CSR contract: n x n, float32 data, int32 indices (every test graph fits), sorted
    unique columns per row, no diagonal, symmetric pattern and weights."""
    assert matrix.shape == (n, n)
    assert matrix.data.dtype == np.float32
    assert matrix.indptr.dtype == np.int32 and matrix.indices.dtype == np.int32
    assert matrix.indptr[0] == 0 and matrix.indptr[-1] == matrix.indices.size == matrix.data.size
    for row in range(n):
        cols = matrix.indices[matrix.indptr[row]:matrix.indptr[row + 1]]
        assert np.all(np.diff(cols) > 0), f"row {row}: columns not sorted and unique"
        assert row not in cols, f"row {row} has a self-loop"
    dense = matrix.toarray()
    np.testing.assert_array_equal(dense, dense.T)
    np.testing.assert_array_equal(adjacency(matrix), adjacency(matrix).T)


def density_from_triangle(triangle, count):
    """Pair indices of the `count` largest |r| of a row-ordered triangle (NaN: constant, never
    chosen), ties to the smaller pair index, ascending."""
    key = np.abs(triangle.astype(np.float64))
    eligible = np.flatnonzero(~np.isnan(key))
    order = eligible[np.lexsort((eligible, -key[eligible]))]
    return np.sort(order[:count])


def tie_cut_densities(triangle, limit=3):
    """Densities whose edge count ceil(d * pairs) cuts through a run of >= 3 equal |r| values,
    so that the tie rule decides which of them are kept."""
    pairs = triangle.size
    key = np.sort(np.abs(triangle[~np.isnan(triangle)]).astype(np.float64))[::-1]
    densities = []
    x = 1
    while x + 1 < key.size and len(densities) < limit:
        if key[x - 1] == key[x] == key[x + 1]:
            density = (x - 0.5) / pairs
            if math.ceil(density * pairs) == x:  # the documented product in double
                densities.append(density)
                x += 50
        x += 1
    return densities


def top_k_from_triangle(triangle, n, k):
    """Pair indices of each series' k largest |r| (ties to the smaller index; constant series,
    NaN, never chosen), symmetrized by union, ascending."""
    full = np.full((n, n), np.nan)
    iu = np.triu_indices(n, 1)
    full[iu] = np.abs(triangle.astype(np.float64))
    full.T[iu] = full[iu]
    chosen = set()
    for i in range(n):
        candidates = np.flatnonzero(~np.isnan(full[i]))
        best = candidates[np.lexsort((candidates, -full[i, candidates]))][:k]
        chosen.update(int(row_order_index(min(i, j), max(i, j), n)) for j in best)
    return np.array(sorted(chosen), dtype=np.int64)
