"""fastconn.Graph: an undirected network held by fastconn (fc_graph), from correlations
(Context.network) or from a symmetric scipy sparse matrix, and its copy-out as a
scipy.sparse.csr_matrix or an edge list; plus the parsing of the edge-rule arguments."""

import numbers

import numpy as np
import scipy.sparse

from . import _fastconn as _fc

#: weights= of graph / edges / network: the weight each edge carries
GRAPH_WEIGHTS = {"r": _fc.FC_GRAPH_WEIGHTED, "abs": _fc.FC_GRAPH_WEIGHTED_ABS, "binary": _fc.FC_GRAPH_BINARY}


def edge_rule(threshold=None, density=None, topk=None, signed=False):
    """(fc_edge_rule, param) for exactly one of threshold= / density= / topk=.

    threshold=t: |r| >= t, or r >= t with signed=True; density=d: the ceil(d * N(N-1)/2) pairs
    of largest |r|; topk=k: each series' k largest |r|, symmetrized by union. The values' ranges
    are checked by fastconn (InvalidArgumentError, a ValueError, naming the value)."""
    given = [(name, value) for name, value in (("threshold", threshold), ("density", density), ("topk", topk))
             if value is not None]
    if len(given) != 1:
        got = ", ".join(f"{name}={value!r}" for name, value in given) or "none"
        raise ValueError(f"give exactly one edge rule, threshold=, density= or topk= (got {got})")
    name, value = given[0]
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {value!r}")
    if signed and name != "threshold":
        raise ValueError(f"signed=True applies to threshold= only, not to {name}={value!r}")
    if name == "threshold":
        rule = _fc.FC_EDGE_THRESHOLD if signed else _fc.FC_EDGE_ABS_THRESHOLD
    else:
        rule = _fc.FC_EDGE_DENSITY if name == "density" else _fc.FC_EDGE_TOP_K
    return rule, float(value)


class Graph:
    """An undirected network without self-loops, held (copied) by fastconn.

    Graph(matrix) takes a square, symmetric scipy sparse matrix (or anything
    scipy.sparse.csr_matrix accepts): every stored entry is an edge weighing its value (as
    float32). fastconn validates it and names the first entry without a mirror, with a mirror of
    another weight, on the diagonal or not finite (InvalidArgumentError). Graphs built from
    correlations come from Context.network / fastconn.network.
    """

    def __init__(self, matrix):
        csr = scipy.sparse.csr_matrix(matrix)
        if csr.shape[0] != csr.shape[1]:
            raise ValueError(f"a graph's matrix must be square, got shape {csr.shape}")
        if not csr.has_sorted_indices:
            csr = csr.sorted_indices()  # fastconn needs ascending columns; duplicates it rejects
        nnz = csr.nnz
        self._handle = _fc.fc_graph_create_csr(np.ascontiguousarray(csr.indptr, dtype=np.int64),
                                               np.ascontiguousarray(csr.indices[:nnz], dtype=np.int64),
                                               np.ascontiguousarray(csr.data[:nnz], dtype=np.float32))

    @classmethod
    def _adopt(cls, handle):
        """The Graph of an fc_graph handle from fc_pcc_graph."""
        graph = cls.__new__(cls)
        graph._handle = handle
        return graph

    @property
    def n_nodes(self):
        return int(_fc.fc_graph_info(self._handle)[0])

    @property
    def n_edges(self):
        """Undirected edges (each appears twice in tocsr(), once in edges())."""
        return int(_fc.fc_graph_info(self._handle)[1])

    def tocsr(self):
        """The symmetric n_nodes x n_nodes scipy.sparse.csr_matrix: float32 data, int64 indptr
        and indices (fastconn's 64-bit offsets, filled in place), sorted columns, no diagonal."""
        n, m = _fc.fc_graph_info(self._handle)
        indptr = np.empty(n + 1, dtype=np.int64)
        indices = np.empty(2 * m, dtype=np.int64)
        data = np.empty(2 * m, dtype=np.float32)
        _fc.fc_graph_csr(self._handle, indptr, indices, data)
        # Assigned rather than passed to the constructor, which would narrow indices that fit in
        # int32 to a copy (scipy 1.10); the arrays already are canonical CSR.
        matrix = scipy.sparse.csr_matrix((n, n), dtype=np.float32)
        matrix.data, matrix.indices, matrix.indptr = data, indices, indptr
        matrix.has_sorted_indices = True
        return matrix

    def edges(self):
        """The edge list (i, j, w): int64, int64, float32 arrays with every edge once, i < j,
        sorted by (i, j)."""
        m = self.n_edges
        i = np.empty(m, dtype=np.int64)
        j = np.empty(m, dtype=np.int64)
        w = np.empty(m, dtype=np.float32)
        _fc.fc_graph_edges(self._handle, i, j, w)
        return i, j, w

    def __repr__(self):
        n, m = _fc.fc_graph_info(self._handle)
        return f"fastconn.Graph(n_nodes={n}, n_edges={m})"
