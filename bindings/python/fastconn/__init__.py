"""fastconn: fast all-pairs Pearson correlation of fMRI time series, on a GPU or the CPU.

>>> import numpy as np, fastconn
>>> x, regions = fastconn.data.timeseries()               # bundled: 250 time points x 31 regions
>>> r = fastconn.corrcoef(x, rowvar=False)                # like numpy.corrcoef: (31, 31) float32
>>> bool(np.abs(r - np.corrcoef(x, rowvar=False)).max() < 1e-5)
True
>>> d = fastconn.pcc_triu(x, rowvar=False)                # scipy's condensed vector: 465 pairs
>>> g = fastconn.graph(x, density=0.1, rowvar=False)      # the network as a scipy.sparse.csr_matrix
>>> w = fastconn.dfc_triu(x, 100, step=10, rowvar=False)  # every sliding window's triangle (fastconn.dynamic)
>>> m = fastconn.modularity(g)                            # its modules: m.labels, m.q (fastconn.modules)
>>> c = fastconn.ecm(x, rowvar=False)                     # eigenvector centrality (fastconn.centrality)
>>> d.shape, g.shape, w.shape, m.labels.shape
((465,), (31, 31), (16, 465), (31,))

rowvar: as in numpy.corrcoef, rowvar=True reads each row as a series and rowvar=False each
column. Every function's default, rowvar=None, reads rows but warns (RowvarWarning) when a 2-D
array has more rows than columns: (time, regions) arrays, as nilearn and pandas hold them, need
rowvar=False, and (voxels, time) arrays are best passed with rowvar=True.

The module-level functions run on a per-thread default context, or on the Context of an
enclosing `with fastconn.Context(...):` block. Passing backend / precision / constant selects a
context with those settings for that call (cached per thread, so repeated calls are cheap).

float32 and float64 arrays are read in place whatever their order (C, Fortran, transposed,
sliced, read-only); other dtypes are converted once. Computations release the GIL. Every
failure raises FastconnError (a RuntimeError) or a subclass: InvalidArgumentError (also a
ValueError: bad arguments, NaN / Inf input naming the series), OutOfMemoryError (also a
MemoryError), BackendUnavailableError, AbortedError; each has .status, the fc_status code.

Results are float32, or float64 with precision="fp64" (or dtype=np.float64 where a function
takes dtype): the dtype of the returned array says which. Series with zero variance correlate as
NaN (constant="nan", with one ConstantSeriesWarning per call naming their indices) or 0
(constant="zero"). The sample data is in fastconn.data; the library's version and backends:
version(), has_cuda(), cuda_available(), cpu_info(), backend_name(). Cohorts of subjects on Dask
distributed, resumable: fastconn.cohort.run_cohort.

The low-level module fastconn._fastconn is the SWIG wrapping of include/fastconn/fastconn.h.
"""

import threading

import numpy as np

from . import _fastconn, data
from ._fastconn import (AbortedError, BackendUnavailableError, FastconnError, InvalidArgumentError,
                        OutOfMemoryError)
from .context import BlockInfo, Context, entered_context
from .dynamic import (SlidingWindow, dfc_degree, dfc_ecm, dfc_graphs, dfc_lowrank, dfc_networks, dfc_summary, dfc_triu,
                      lowrank, sliding_windows, window, window_starts)
from .modules import Modules, leiden, modularity, modularity_score
from .multilayer import Multilayer, multilayer_modularity
from .centrality import eigenvector_centrality, fisher_z
from .partial import partial_correlation
from .lfcd import lfcd
from .network import Graph, load_graph, save_graph, to_igraph, to_networkx
from .notices import ConstantSeriesWarning, RowvarWarning
from .triangle import decode, triu_offset, triu_pair, triu_size

__all__ = ["Context", "BlockInfo", "Graph", "corrcoef", "cross", "pcc_triu", "blocks", "graph", "edges", "degree",
           "network", "backend_name", "has_cuda", "cuda_available", "cpu_info", "version", "default_context", "FastconnError",
           "InvalidArgumentError", "OutOfMemoryError", "BackendUnavailableError", "AbortedError", "RowvarWarning",
           "ConstantSeriesWarning", "__version__", "data",
           # graphs: files and other libraries; the triangle's index arithmetic; compact values' decoding
           "save_graph", "load_graph", "to_igraph", "to_networkx", "triu_size", "triu_offset", "triu_pair", "decode",
           # sliding windows and low rank (fastconn.dynamic), modules (fastconn.modules)
           "SlidingWindow", "window", "window_starts", "sliding_windows", "dfc_triu", "dfc_networks", "dfc_graphs",
           "dfc_degree", "dfc_summary", "lowrank", "dfc_lowrank", "Modules", "modularity", "modularity_score",
           "leiden", "Multilayer", "multilayer_modularity",
           # centrality, rank correlation, Fisher z (fastconn.centrality)
           "ecm", "eigenvector_centrality", "spearman", "fisher_z", "dfc_ecm",
           # partial correlation and precision (fastconn.partial)
           "partial_correlation", "lfcd"]

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


def corrcoef(x, y=None, rowvar=None, dtype=None, backend=None, precision=None, constant=None, method="pearson"):
    """Pearson correlation coefficients, like numpy.corrcoef(x, y, rowvar).

    rowvar=True: each row of x is a series (variable) and each column a time point;
    rowvar=False: the transpose; None (default): rows, with a RowvarWarning when x has more rows
    than columns. With y, the (nx + ny) square matrix of all series of x and y (cross() gives
    just the nx x ny block). backend ("auto", "cpu", "cuda"), precision ("fp32", "fp64", "tf32")
    and constant ("nan", "zero") default to the current context's settings (auto / fp32 / nan).
    The result is float32, or float64 with precision="fp64" (dtype= overrides either way).
    method="spearman" gives Spearman's rho (as scipy.stats.spearmanr; see spearman()).

    >>> import numpy as np, fastconn
    >>> x, regions = fastconn.data.timeseries()
    >>> fastconn.corrcoef(x, rowvar=False).dtype, fastconn.corrcoef(x, rowvar=False, precision="fp64").dtype
    (dtype('float32'), dtype('float64'))
    >>> r = fastconn.corrcoef(x.T)                   # (31, 250): rows are series, no warning
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     wrong = fastconn.corrcoef(x)            # (250, 31) without rowvar: 250 "series"
    >>> wrong.shape, caught[0].category.__name__
    ((250, 250), 'RowvarWarning')
    """
    return _context_for(backend, precision, constant).corrcoef(x, y, rowvar, dtype, method)


def spearman(x, y=None, rowvar=None, dtype=None, backend=None, precision=None, constant=None):
    """Spearman's rank correlation matrix: corrcoef(..., method="spearman"). Each series is
    replaced by its ranks (ties share their average rank), so the result is
    scipy.stats.spearmanr(x, y, axis=...)'s rho (fc_series_create_ranked_*).

    >>> import numpy as np, scipy.stats, fastconn
    >>> x, regions = fastconn.data.timeseries()
    >>> rho = fastconn.spearman(x, rowvar=False, precision="fp64")
    >>> bool(np.abs(rho - scipy.stats.spearmanr(x).statistic).max() < 1e-12)
    True
    """
    return _context_for(backend, precision, constant).corrcoef(x, y, rowvar, dtype, "spearman")


def cross(x, y, rowvar=None, dtype=None, backend=None, precision=None, constant=None, method="pearson"):
    """r(x_i, y_j) for every series of x and of y: an nx x ny matrix (seed-to-voxel maps), float32
    or float64 with precision="fp64" (fc_pcc_cross_f64; dtype= overrides either way);
    method="spearman": Spearman's rho.

    >>> import numpy as np, fastconn
    >>> x, regions = fastconn.data.timeseries()
    >>> s = fastconn.cross(x[:, :3], x, rowvar=False, precision="fp64")    # 3 seeds x 31 regions
    >>> s.shape, s.dtype, bool(np.abs(s - np.corrcoef(x, rowvar=False)[:3]).max() < 1e-12)
    ((3, 31), dtype('float64'), True)
    """
    return _context_for(backend, precision, constant).cross(x, y, rowvar, dtype, method)


def pcc_triu(x, order="row", rowvar=None, dtype=None, out=None, backend=None, precision=None, constant=None,
             method="pearson"):
    """The strict upper triangle of corrcoef(x), N(N-1)/2 values: with order="row", scipy's
    condensed form (squareform(1 - r, checks=False) is the correlation distance matrix) and
    corrcoef(x)[numpy.triu_indices(N, 1)]; order="col" groups the pairs by the larger index.
    dtype: np.float32 or np.float64 (default: float64 with precision="fp64", else float32).
    method="spearman": Spearman's rho.

    >>> import numpy as np, fastconn
    >>> x, regions = fastconn.data.timeseries()
    >>> d = fastconn.pcc_triu(x, rowvar=False)
    >>> bool(np.array_equal(d, fastconn.corrcoef(x, rowvar=False)[np.triu_indices(31, 1)]))
    True
    >>> c = fastconn.pcc_triu(x, order="col", rowvar=False, dtype=np.float64)
    >>> c.dtype, bool(c[fastconn.triu_offset(31, 2, 5, order="col")] == d[fastconn.triu_offset(31, 2, 5)])
    (dtype('float64'), True)

    Half the bytes (fc_pcc_triu_compact): dtype=np.int16 gives codes round(r * 32767) (NaN:
    -32768), dtype=np.float16 half-precision values; fastconn.decode gives float32 back.

    >>> codes = fastconn.pcc_triu(x, rowvar=False, dtype=np.int16)
    >>> bool(np.abs(fastconn.decode(codes) - d).max() <= 0.5 / 32767 + 1e-7)
    True
    >>> h = fastconn.pcc_triu(x, rowvar=False, dtype=np.float16)
    >>> bool(np.array_equal(h, d.astype(np.float16)))
    True
    """
    return _context_for(backend, precision, constant).pcc_triu(x, order, rowvar, dtype, out, method)


def blocks(x, rows=0, rowvar=None, dtype=None, backend=None, precision=None, constant=None):
    """Yield (BlockInfo, values) over the row-ordered triangle of x, `rows` rows per block
    (0: chosen from the memory limit). np.concatenate of the values is pcc_triu(x); they are
    float32, or float64 with precision="fp64" (fc_blocks_next_f64; dtype= overrides).

    >>> import numpy as np, fastconn
    >>> x, regions = fastconn.data.timeseries()
    >>> parts = list(fastconn.blocks(x, rows=10, rowvar=False, precision="fp64"))
    >>> [(info.row_begin, info.row_end, info.triu_offset) for info, values in parts]
    [(0, 10, 0), (10, 20, 255), (20, 30, 410)]
    >>> parts[0][1].dtype
    dtype('float64')
    """
    return _context_for(backend, precision, constant).blocks(x, rows, rowvar, dtype)


def graph(x, threshold=None, density=None, topk=None, signed=False, weights="r", rowvar=None, backend=None,
          precision=None, constant=None, method="pearson"):
    """The correlation network of x's series as a symmetric scipy.sparse.csr_matrix (float32
    data, int32 indptr / indices when they fit, else int64; no diagonal), without the N x N
    matrix. Exactly one rule: threshold=t (|r| >= t, t in [0, 1]; r >= t, t in [-1, 1], with
    signed=True), density=d (the ceil(d * N(N-1)/2) pairs of largest |r|, d in [0, 1]) or
    topk=k (each series' k largest |r|, k >= 1 whole, symmetrized by union). weights: "r", "abs"
    or "binary". Zero-variance series get no edges. See Context.network for ties.
    method="spearman": the network of Spearman's rho (so for edges(), network(), degree()).

    >>> import fastconn, scipy.sparse.csgraph
    >>> x, regions = fastconn.data.timeseries()
    >>> g = fastconn.graph(x, topk=2, rowvar=False)
    >>> g.indptr.dtype, scipy.sparse.csgraph.connected_components(g, directed=False)[0] >= 1
    (dtype('int32'), True)
    >>> fastconn.graph(x, threshold=1.5, rowvar=False)
    Traceback (most recent call last):
    ...
    fastconn.InvalidArgumentError: threshold must be one number in [-1, 1], not 1.5
    """
    return _context_for(backend, precision, constant).graph(x, threshold, density, topk, signed, weights, rowvar,
                                                            method)


def edges(x, threshold=None, density=None, topk=None, signed=False, weights="r", rowvar=None, backend=None,
          precision=None, constant=None, method="pearson"):
    """graph(...) as an edge list (i, j, w): int64, int64, float32 arrays, i < j, sorted by (i, j).

    >>> import fastconn
    >>> x, regions = fastconn.data.timeseries()
    >>> i, j, w = fastconn.edges(x, density=0.1, rowvar=False)
    >>> i.size, bool((i < j).all())
    (47, True)
    """
    return _context_for(backend, precision, constant).edges(x, threshold, density, topk, signed, weights, rowvar,
                                                            method)


def network(x, threshold=None, density=None, topk=None, signed=False, weights="r", rowvar=None, backend=None,
            precision=None, constant=None, method="pearson"):
    """graph(...) as a fastconn.Graph, whose tocsr(), edges(), to_igraph(), to_networkx() copy it
    out and save(path) writes it (build once, read many ways).

    >>> import fastconn
    >>> x, regions = fastconn.data.timeseries()
    >>> fastconn.network(x, threshold=-0.2, signed=True, rowvar=False).n_nodes
    31
    """
    return _context_for(backend, precision, constant).network(x, threshold, density, topk, signed, weights, rowvar,
                                                              method)


def degree(x, threshold=None, density=None, topk=None, signed=False, rowvar=None, backend=None, precision=None,
           constant=None, method="pearson"):
    """(degree, strength) of every series of x under one rule of graph(): the int64 edge count
    and the float64 sum of edge weights (r with signed=True, else |r|). Threshold rules count
    without building a graph.

    >>> import fastconn
    >>> x, regions = fastconn.data.timeseries()
    >>> k, s = fastconn.degree(x, topk=3, rowvar=False)
    >>> k.dtype, s.dtype, bool((k >= 3).all())
    (dtype('int64'), dtype('float64'), True)
    """
    return _context_for(backend, precision, constant).degree(x, threshold, density, topk, signed, rowvar, method)


def ecm(x, rowvar=None, tolerance=None, method="pearson", eigenvalue=False, threshold=None, density=None, topk=None,
        signed=False, weights="binary", backend=None, precision=None, constant=None):
    """Eigenvector centrality of the correlation matrix of x's series, float64 with unit L2 norm
    and entries >= 0 (AFNI's 3dECM scaling); with eigenvalue=True, (centrality, lambda).

    Without an edge rule: the fast ECM (Wink et al. 2012, AFNI's 3dECM -fecm), the leading
    eigenvector of (R + 1) / 2, R = corrcoef(x), computed without forming R (O(N T) per product).
    Zero-variance series get NaN and are left out of the matrix with constant="nan" (one
    ConstantSeriesWarning naming them), or stay in it with r = 0 with constant="zero" (AFNI's
    answer).
    With threshold= / density= / topk= (and signed=, as network() takes them): the thresholded
    ECM (Lohmann et al. 2010; C-PAC's eigenvector centrality), the leading eigenvector of the
    network's adjacency, weights="binary" (every edge 1), "abs" (|r|) or "r" (r: every edge needs
    r >= 0, e.g. threshold=t >= 0 with signed=True). The network is built as network() builds it
    (on the GPU for a CUDA context) and freed after: it takes the graph's memory (about density
    x N^2 entries of 12 bytes). Series without edges (zero-variance ones among them) get 0.
    tolerance: the residual test ||B c - lambda c|| <= tolerance * lambda, None for fastconn's
    1e-10, else in [1e-13, 0.1]. method="spearman": of Spearman's rho. precision="fp64" stores
    the normalized rows in float64 (relative error <= 1e-6).

    >>> import numpy as np, fastconn
    >>> x, regions = fastconn.data.timeseries()
    >>> c = fastconn.ecm(x, rowvar=False)
    >>> c.dtype, c.shape, bool(abs(np.linalg.norm(c) - 1) < 1e-12), bool((c > 0).all())
    (dtype('float64'), (31,), True, True)
    >>> t = fastconn.ecm(x, rowvar=False, threshold=0.3, weights="abs")   # |r| >= 0.3, weighted by |r|
    >>> bool(abs(np.linalg.norm(t) - 1) < 1e-12)
    True
    >>> fastconn.ecm(x, rowvar=False, tolerance=0.5)
    Traceback (most recent call last):
    ...
    fastconn.InvalidArgumentError: ...
    """
    return _context_for(backend, precision, constant).ecm(x, rowvar, tolerance, method, eigenvalue, threshold, density,
                                                          topk, signed, weights)


def backend_name(backend="auto"):
    """The backend a context asked for `backend` runs on: "cpu" or "cuda".

    >>> import fastconn
    >>> fastconn.backend_name("cpu")
    'cpu'
    """
    return _context_for(backend=backend).backend


def has_cuda():
    """True if the library was built with the CUDA backend (a device may still be absent; see
    cuda_available())."""
    return bool(_fastconn.fc_has_cuda())


def cuda_available():
    """True if a CUDA context can be created now: the CUDA backend is built in and a device is
    usable (what backend="auto" picks then).

    >>> import fastconn
    >>> fastconn.cuda_available() == (fastconn.backend_name("auto") == "cuda")
    True
    """
    if not has_cuda():
        return False
    try:
        Context(backend="cuda")
    except BackendUnavailableError:
        return False
    return True


def __getattr__(name):
    # fastconn.cohort (cohorts on Dask distributed) is imported on first use, not with the
    # package: `python3 -m fastconn.cohort` then runs it without a second copy.
    if name == "cohort":
        import importlib
        return importlib.import_module(".cohort", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def cpu_info():
    """What the CPU backend runs on this machine, one line (fc_cpu_info): the pair-kernel path
    (avx512, avx2 or portable; FASTCONN_CPU_ISA in the environment, read once, asks for a lower
    one) and the BLAS kernel OpenBLAS picked for the parts that still use it.

    >>> import fastconn
    >>> fastconn.cpu_info().startswith("pair kernels: ")
    True
    """
    return _fastconn.fc_cpu_info()


def version():
    """The run-time version of the C library, (major, minor, patch) (fc_version); __version__ is
    the same as a string.

    >>> import fastconn
    >>> ".".join(map(str, fastconn.version())) == fastconn.__version__
    True
    """
    return tuple(_fastconn.fc_version())
