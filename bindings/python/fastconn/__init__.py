"""fastconn: fast all-pairs Pearson correlation of fMRI time series, on a GPU or the CPU.

    import numpy as np, fastconn
    r = fastconn.corrcoef(x)                  # like numpy.corrcoef(x): each row a series
    d = fastconn.pcc_triu(x, rowvar=False)    # scipy's condensed vector of a (time, series) array
    g = fastconn.graph(x, density=0.1)        # the network as a scipy.sparse.csr_matrix
    w = fastconn.dfc_triu(x, 100, step=10)    # every sliding window's triangle (fastconn.dynamic)
    m = fastconn.modularity(g)                # its modules: m.labels, m.q (fastconn.modules)

The module-level functions run on a per-thread default context, or on the Context of an
enclosing `with fastconn.Context(...):` block. Passing backend / precision / constant selects a
context with those settings for that call (cached per thread, so repeated calls are cheap).

float32 and float64 arrays are read in place whatever their order (C, Fortran, transposed,
sliced, read-only); other dtypes are converted once. Computations release the GIL. Every
failure raises FastconnError (a RuntimeError) or a subclass: InvalidArgumentError (also a
ValueError: bad arguments, NaN / Inf input naming the series), OutOfMemoryError (also a
MemoryError), BackendUnavailableError, AbortedError; each has .status, the fc_status code.

The low-level module fastconn._fastconn is the SWIG wrapping of include/fastconn/fastconn.h.
"""

import threading

import numpy as np

from . import _fastconn
from ._fastconn import (AbortedError, BackendUnavailableError, FastconnError, InvalidArgumentError,
                        OutOfMemoryError)
from .context import BlockInfo, Context, entered_context
from .dynamic import (SlidingWindow, dfc_degree, dfc_graphs, dfc_lowrank, dfc_networks, dfc_summary, dfc_triu, lowrank,
                      sliding_windows, window, window_starts)
from .modules import Modules, modularity, modularity_score
from .network import Graph

__all__ = ["Context", "BlockInfo", "Graph", "corrcoef", "cross", "pcc_triu", "blocks", "graph", "edges", "degree",
           "network", "backend_name", "has_cuda", "default_context", "FastconnError", "InvalidArgumentError", "OutOfMemoryError",
           "BackendUnavailableError", "AbortedError", "__version__",
           # sliding windows and low rank (fastconn.dynamic), modules (fastconn.modules)
           "SlidingWindow", "window", "window_starts", "sliding_windows", "dfc_triu", "dfc_networks", "dfc_graphs",
           "dfc_degree", "dfc_summary", "lowrank", "dfc_lowrank", "Modules", "modularity", "modularity_score"]

__version__ = "%d.%d.%d" % tuple(_fastconn.fc_version())

# Contexts are used by one thread at a time, so each thread gets its own defaults.
_per_thread = threading.local()


def default_context():
    """The context module-level functions use in this thread: the innermost `with Context(...)`
    block's, else this thread's default (backend "auto", precision "fp32", constant "nan")."""
    entered = entered_context()
    if entered is not None:
        return entered
    if getattr(_per_thread, "default", None) is None:
        _per_thread.default = Context()
    return _per_thread.default


def _context_for(backend=None, precision=None, constant=None):
    """default_context(), or a cached per-thread context that differs in the given settings."""
    base = default_context()
    settings = base.settings()
    for key, value in (("backend", backend), ("precision", precision), ("constant", constant)):
        if value is not None:
            settings[key] = value
    if settings == base.settings():
        return base
    cache = getattr(_per_thread, "variants", None)
    if cache is None:
        cache = _per_thread.variants = {}
    key = tuple(sorted(settings.items()))
    if key not in cache:
        cache[key] = Context(**settings)
    return cache[key]


def corrcoef(x, y=None, rowvar=True, backend=None, precision=None, constant=None):
    """Pearson correlation coefficients, like numpy.corrcoef(x, y, rowvar).

    rowvar=True: each row of x is a series (variable) and each column a time point;
    rowvar=False: the transpose. With y, the (nx + ny) square matrix of all series of x and y
    (cross() gives just the nx x ny block). backend ("auto", "cpu", "cuda"), precision ("fp32",
    "fp64", "tf32") and constant ("nan", "zero") default to the current context's settings
    (auto / fp32 / nan). The result is float32, or float64 with precision="fp64".
    """
    return _context_for(backend, precision, constant).corrcoef(x, y, rowvar)


def cross(x, y, rowvar=True, backend=None, precision=None, constant=None):
    """r(x_i, y_j) for every series of x and of y: an nx x ny float32 matrix."""
    return _context_for(backend, precision, constant).cross(x, y, rowvar)


def pcc_triu(x, order="row", rowvar=True, dtype=np.float32, out=None, backend=None, precision=None,
             constant=None):
    """The strict upper triangle of corrcoef(x), N(N-1)/2 values: with order="row", scipy's
    condensed form (squareform(1 - r, checks=False) is the correlation distance matrix) and
    corrcoef(x)[numpy.triu_indices(N, 1)]. dtype: np.float32 or np.float64."""
    return _context_for(backend, precision, constant).pcc_triu(x, order, rowvar, dtype, out)


def blocks(x, rows=0, rowvar=True, backend=None, precision=None, constant=None):
    """Yield (BlockInfo, values) over the row-ordered triangle of x, `rows` rows per block
    (0: chosen from the memory limit). np.concatenate of the values is pcc_triu(x)."""
    return _context_for(backend, precision, constant).blocks(x, rows, rowvar)


def graph(x, threshold=None, density=None, topk=None, signed=False, weights="r", rowvar=True, backend=None,
          precision=None, constant=None):
    """The correlation network of x's series as a symmetric scipy.sparse.csr_matrix (float32
    data, int64 indptr / indices, no diagonal), without the N x N matrix. Exactly one rule:
    threshold=t (|r| >= t; r >= t with signed=True), density=d (the ceil(d * N(N-1)/2) pairs of
    largest |r|) or topk=k (each series' k largest |r|, symmetrized by union). weights: "r",
    "abs" or "binary". Zero-variance series get no edges. See Context.network for ties."""
    return _context_for(backend, precision, constant).graph(x, threshold, density, topk, signed, weights, rowvar)


def edges(x, threshold=None, density=None, topk=None, signed=False, weights="r", rowvar=True, backend=None,
          precision=None, constant=None):
    """graph(...) as an edge list (i, j, w): int64, int64, float32 arrays, i < j, sorted by (i, j)."""
    return _context_for(backend, precision, constant).edges(x, threshold, density, topk, signed, weights, rowvar)


def network(x, threshold=None, density=None, topk=None, signed=False, weights="r", rowvar=True, backend=None,
            precision=None, constant=None):
    """graph(...) as a fastconn.Graph, whose tocsr() and edges() copy it out (build once, read both)."""
    return _context_for(backend, precision, constant).network(x, threshold, density, topk, signed, weights, rowvar)


def degree(x, threshold=None, density=None, topk=None, signed=False, rowvar=True, backend=None, precision=None,
           constant=None):
    """(degree, strength) of every series of x under one rule of graph(): the int64 edge count
    and the float64 sum of edge weights (r with signed=True, else |r|). Threshold rules count
    without building a graph."""
    return _context_for(backend, precision, constant).degree(x, threshold, density, topk, signed, rowvar)


def backend_name(backend="auto"):
    """The backend a context asked for `backend` runs on: "cpu" or "cuda"."""
    return _context_for(backend=backend).backend


def has_cuda():
    """True if the library was built with the CUDA backend (a device may still be absent)."""
    return bool(_fastconn.fc_has_cuda())
