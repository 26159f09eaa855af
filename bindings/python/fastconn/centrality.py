"""Eigenvector centrality, Spearman's rho and Fisher's z.

ecm(x): fast eigenvector centrality of the correlation matrix (Wink et al. 2012, AFNI's
3dECM -fecm): the leading eigenvector of (R + 1) / 2 with unit L2 norm and entries >= 0, found
without forming R (fc_pcc_ecm); with an edge rule (threshold= / density= / topk=, as network()),
the thresholded ECM of Lohmann et al. (2010): the leading eigenvector of the thresholded matrix,
binary or weighted (fc_pcc_ecm_thresholded). eigenvector_centrality(graph): the leading eigenvector of a
graph's adjacency, scaled so its largest entry is 1 (igraph's eigenvector_centrality(scale=True);
fc_graph_eigenvector_centrality). method="spearman" on corrcoef / cross / pcc_triu / ecm /
graph / edges / network / degree ranks
each series first (average ranks for ties, as scipy.stats.spearmanr): the results are Spearman's
rho (fc_series_create_ranked_*). fisher_z(r): atanh(r), r = +-1 giving +-inf (fc_fisher_z_*).

>>> import numpy as np, fastconn
>>> x, regions = fastconn.data.timeseries()
>>> c, lam = fastconn.ecm(x, rowvar=False, precision="fp64", eigenvalue=True)
>>> r = np.corrcoef(x, rowvar=False)
>>> w, v = np.linalg.eigh((r + 1) / 2)
>>> bool(np.abs(c - np.abs(v[:, -1])).max() < 1e-8), bool(abs(lam - w[-1]) < 1e-8)
(True, True)
>>> t = fastconn.ecm(x, rowvar=False, density=0.2, precision="fp64")    # binarized, 20 % of the pairs
>>> a = np.abs(r) >= np.sort(np.abs(r[np.triu_indices(31, 1)]))[-93]
>>> np.fill_diagonal(a, False)
>>> w, v = np.linalg.eigh(a.astype(float))
>>> bool(np.abs(t - np.abs(v[:, -1])).max() < 1e-8)
True
>>> g = fastconn.network(x, density=0.2, weights="abs", rowvar=False)
>>> e = g.eigenvector_centrality()
>>> float(e.max()), e.shape
(1.0, (31,))
>>> rho = fastconn.spearman(x, rowvar=False)
>>> z = fastconn.fisher_z(rho)           # a new float32 array; rho is unchanged
>>> bool(np.isinf(z[0, 0])), bool(np.allclose(z[0, 1], np.arctanh(rho[0, 1])))
(True, True)
"""

import numpy as np

from . import _fastconn as _fc
from .layout import series_matrix
from .network import GRAPH_WEIGHTS, as_graph, edge_rule
from .options import invalid_argument, lookup, real

__all__ = ["METHODS", "CentralityMethods", "eigenvector_centrality", "fisher_z"]

#: the correlation of the `method` arguments
METHODS = ("pearson", "spearman")


def check_method(method):
    """method, checked: "pearson" or "spearman" (InvalidArgumentError naming it otherwise)."""
    if not isinstance(method, str) or method not in METHODS:
        raise invalid_argument(f"method must be one of {list(METHODS)}, not {method!r}")
    return method


def tolerance_value(tolerance):
    """The C tolerance of tolerance=None (0: fastconn's default 1e-10) or a real number (its range,
    [1e-13, 0.1], is checked by fastconn, which names the value)."""
    return 0.0 if tolerance is None else real(tolerance, "tolerance")


class CentralityMethods:
    """The centrality computations of fastconn.Context (see fastconn.centrality)."""

    def ecm(self, x, rowvar=None, tolerance=None, method="pearson", eigenvalue=False, threshold=None, density=None,
            topk=None, signed=False, weights="binary"):
        """ECM of x's series (see fastconn.ecm): float64 centrality (and the eigenvalue); fast ECM
        without an edge rule, the thresholded ECM of network()'s rule with one."""
        method = check_method(method)
        thresholded = not (threshold is None and density is None and topk is None)
        if thresholded:
            rule, param = edge_rule(threshold, density, topk, signed)
            weight_code = lookup(GRAPH_WEIGHTS, weights, "weights")
        elif signed or weights != "binary":
            raise ValueError("signed= and weights= apply to the thresholded ECM: give threshold=, density= or topk=")
        matrix = series_matrix(x, rowvar, "x")
        centrality = np.empty(matrix.shape[0], dtype=np.float64)
        value = np.empty(1, dtype=np.float64)
        with self._lock:
            series = self._upload(matrix, method)
            if thresholded:
                _fc.fc_pcc_ecm_thresholded(self._live(), series, rule, param, weight_code, tolerance_value(tolerance),
                                           centrality, value)
            else:
                _fc.fc_pcc_ecm(self._live(), series, tolerance_value(tolerance), centrality, value)
                self._warn_constant(("x", series, matrix))
        return (centrality, float(value[0])) if eigenvalue else centrality

    def eigenvector_centrality(self, graph, weighted=True, tolerance=None, eigenvalue=False):
        """Eigenvector centrality of `graph` (see fastconn.eigenvector_centrality)."""
        handle = as_graph(graph)._handle
        n = int(_fc.fc_graph_info(handle)[0])
        centrality = np.empty(n, dtype=np.float64)
        value = np.empty(1, dtype=np.float64)
        with self._lock:
            _fc.fc_graph_eigenvector_centrality(self._live(), handle, 1 if weighted else 0, tolerance_value(tolerance),
                                                centrality, value)
        return (centrality, float(value[0])) if eigenvalue else centrality


def eigenvector_centrality(graph, weighted=True, tolerance=None, eigenvalue=False):
    """Eigenvector centrality of a network: the leading eigenvector of its adjacency matrix A
    (A_ij = w_ij, weighted=True, weights >= 0; or 1 for every edge, weighted=False), float64,
    scaled so that its largest entry is 1, as igraph's eigenvector_centrality(scale=True); with
    eigenvalue=True, (centrality, lambda). A graph without edges gives 1 everywhere (lambda 0); on
    a disconnected graph the answer lives on the component with the largest eigenvalue (0
    elsewhere). A negative weight raises InvalidArgumentError naming the edge.

    graph: a fastconn.Graph, a symmetric scipy.sparse matrix or a dense symmetric numpy
        adjacency without diagonal (as modularity() takes). tolerance: the residual test
        ||A x - lambda x|| <= tolerance * lambda, None for fastconn's 1e-10, else in [1e-13, 0.1].
    Computed on the host (OpenMP) whatever the backend. Graph.eigenvector_centrality is the same.

    >>> import numpy as np, fastconn
    >>> ring = np.roll(np.eye(6), 1, axis=1) + np.roll(np.eye(6), -1, axis=1)  # every node alike
    >>> fastconn.eigenvector_centrality(ring, eigenvalue=True)
    (array([1., 1., 1., 1., 1., 1.]), 2.0)
    >>> fastconn.eigenvector_centrality(-ring)
    Traceback (most recent call last):
    ...
    fastconn.InvalidArgumentError: ...
    """
    from . import default_context  # imported late: the package imports this module
    return default_context().eigenvector_centrality(graph, weighted, tolerance, eigenvalue)


def fisher_z(r, out=None):
    """Fisher's z transform, atanh(r), of any array of correlations (corrcoef, pcc_triu, ...):
    r = 1 and -1 give +inf and -inf (a correlation matrix's diagonal becomes inf), NaN stays NaN.
    A value outside [-1, 1] raises InvalidArgumentError naming the first one (and nothing is
    changed).

    By default a new array is returned (float64 for float64 input, else float32) and r is left
    as it is; out=r transforms a contiguous float32 / float64 array in place (no copy), and out=
    any other writable contiguous array of r's shape and a float dtype receives the values.

    >>> import numpy as np, fastconn
    >>> r = np.array([0.0, 0.5, -1.0])
    >>> fastconn.fisher_z(r).round(6).tolist()
    [0.0, 0.549306, -inf]
    >>> z = fastconn.fisher_z(r, out=r)           # in place
    >>> z is r, bool(abs(r[1] - np.arctanh(0.5)) < 1e-15)
    (True, True)
    >>> fastconn.fisher_z([0.2, 1.5])
    Traceback (most recent call last):
    ...
    fastconn.InvalidArgumentError: ...
    """
    if out is None:
        array = np.asarray(r)
        dtype = np.float64 if array.dtype == np.float64 else np.float32
        out = np.array(array, dtype=dtype, order="C", copy=True)
    elif out is not r:
        array = np.asarray(r)
        if not isinstance(out, np.ndarray) or out.shape != array.shape:
            raise ValueError(f"out must be a numpy array of r's shape {array.shape}")
        out[...] = array  # checked below before anything else is done with it
    if not isinstance(out, np.ndarray) or out.dtype not in (np.float32, np.float64):
        raise TypeError(f"out must be a float32 or float64 numpy array, got {type(out).__name__} "
                        f"{getattr(out, 'dtype', '')}")
    if not out.flags.c_contiguous:
        raise ValueError("out must be C-contiguous to be transformed in place")
    flat = out.reshape(-1)
    transform = _fc.fc_fisher_z_f64 if out.dtype == np.float64 else _fc.fc_fisher_z_f32
    transform(flat)
    return out
