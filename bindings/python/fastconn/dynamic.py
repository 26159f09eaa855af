"""Dynamic (sliding-window) connectivity and low-rank correlation matrices.

A window is the N series restricted to time points [begin, begin + length). fastconn uploads
the data once and normalizes each window from the stored rows (O(N length) work, nothing
uploaded again). The all-windows functions take (width, step): windows k = 0 .. W-1 begin at
k * step, W = (T - width) // step + 1 (`window_starts` gives the begins). taper:

- None or "rectangular": every sample of the window weighs 1;
- ("gaussian", sigma): Allen et al. 2014, the window's rectangle convolved with a Gaussian of
  standard deviation sigma samples, restricted to the window and scaled to a maximum of 1:
  w_k = sum_{j=0}^{L-1} exp(-(k - j)^2 / (2 sigma^2)) / max; r is the weighted correlation (the
  weighted mean and variance are used).

A series constant within a window follows the context's constant policy there ("nan" or
"zero"), as a constant series does in corrcoef. Invalid specs (width < 2, width > T, step < 1,
sigma <= 0, begin + length > T) raise InvalidArgumentError (a ValueError) naming the value.

Example, on the bundled data (fastconn.data: 250 time points x 31 ROIs):

>>> import numpy as np, fastconn
>>> x, regions = fastconn.data.timeseries()
>>> fastconn.dfc_triu(x, 100, step=10, rowvar=False).shape   # 16 windows x 465 pairs
(16, 465)
>>> for k, begin, r in fastconn.sliding_windows(x, 100, step=75, rowvar=False):
...     print(k, begin, r.shape)
0 0 (465,)
1 75 (465,)
2 150 (465,)
>>> degree, strength = fastconn.dfc_degree(x, 100, step=10, threshold=0.5, rowvar=False)
>>> degree.shape, strength.dtype
((16, 31), dtype('float64'))
>>> mean, sd = fastconn.dfc_summary(x, 100, step=10, rowvar=False)   # variability map
>>> factor, error = fastconn.lowrank(x, 5, rowvar=False)              # R ~= factor @ factor.T
>>> factor.shape, bool(error < 0.5)
((31, 5), True)
"""

import collections

import numpy as np

from . import _fastconn as _fc
from .centrality import tolerance_value
from .layout import series_matrix
from .network import GRAPH_WEIGHTS, Graph, edge_rule
from .notices import ConstantSeriesWarning, constant_windows_message, shown_indices, warn
from .options import ORDERS, compact_format, integer, lookup, result_dtype, taper_spec

__all__ = ["SlidingWindow", "window", "window_starts", "sliding_windows", "dfc_triu", "dfc_networks", "dfc_graphs",
           "dfc_ecm",
           "dfc_degree", "dfc_summary", "lowrank", "dfc_lowrank"]

SlidingWindow = collections.namedtuple("SlidingWindow", "index begin values")
SlidingWindow.__doc__ = """One window of sliding_windows(): its index k, its first time point
(k * step) and its row-ordered triangle (float32, N(N-1)/2 values, scipy's condensed order)."""


def window_starts(n_time, width, step=1):
    """The first time point of every window of `width` samples every `step` samples in `n_time`
    samples: an int64 array of W = (n_time - width) // step + 1 values (fc_window_count).

    >>> import fastconn
    >>> fastconn.window_starts(250, 100, step=50)
    array([  0,  50, 100, 150])
    """
    n_time, width, step = integer(n_time, "n_time"), integer(width, "width"), integer(step, "step")
    count = _fc.fc_window_count(n_time, width, step)
    if count < 0:
        raise ValueError(f"no windows of width {width} and step {step} in {n_time} time points: "
                         "need 2 <= width <= n_time and step >= 1")
    return np.arange(count, dtype=np.int64) * step


class DynamicMethods:
    """The sliding-window and low-rank computations of fastconn.Context (see fastconn.dynamic)."""

    def _windows(self, matrix, width, step, taper):
        """Upload `matrix` and check the window spec: (series, W, spec), spec = (width, step,
        fc_taper, sigma) as the C calls take them. An invalid spec raises fastconn's own
        InvalidArgumentError, naming the value."""
        width, step = integer(width, "width"), integer(step, "step")
        code, sigma = taper_spec(taper)
        series = self._upload(matrix)
        count = _fc.fc_window_count(matrix.shape[1], width, step)
        if count < 0:
            _fc.fc_dfc_begin(self._live(), series, width, step, code, sigma)  # raises, naming the value
            raise ValueError(f"no windows of width {width} and step {step} in {matrix.shape[1]} time points")
        return series, count, (width, step, code, sigma)

    def _warn_constant_windows(self, matrix, series, count, spec, name="x"):
        """One ConstantSeriesWarning for this call when constant="nan" and windows hold series
        constant within them: how many windows, and which series in the first (fastconn counts
        each window's constant series; numpy finds which only in the first such window)."""
        if self._constant != "nan" or count <= 0:
            return
        iterator = _fc.fc_dfc_begin(self._live(), series, *spec)
        hit = [k for k in range(count) if _fc.fc_series_info(_fc.fc_dfc_window(iterator, k))[2] > 0]
        if hit:
            width, step = spec[0], spec[1]
            first = hit[0] * step
            which = np.flatnonzero(np.ptp(matrix[:, first:first + width], axis=1) == 0)
            warn(constant_windows_message(name, len(hit), first, which), ConstantSeriesWarning)

    def window(self, x, begin, length, taper=None, order="row", rowvar=None, dtype=None):
        """The triangle of the window [begin, begin + length) of x's series (optionally tapered):
        pcc_triu(x[:, begin:begin + length]) without copying or re-uploading the data (the window
        is a series of fastconn's, fc_series_window). dtype: float32 or float64, by default the
        precision's (float64 for "fp64", else float32)."""
        order_code = lookup(ORDERS, order, "order")
        code, sigma = taper_spec(taper)
        matrix = series_matrix(x, rowvar, "x")
        out = np.empty(_fc.fc_triu_size(matrix.shape[0]), dtype=result_dtype(dtype, self._precision))
        compute = _fc.fc_pcc_triu_f64 if out.dtype == np.float64 else _fc.fc_pcc_triu
        with self._lock:
            parent = self._upload(matrix)
            begin, length = integer(begin, "begin"), integer(length, "length")
            part = _fc.fc_series_window(self._live(), parent, begin, length, code, sigma)
            compute(self._handle, part, order_code, out)
            if self._constant == "nan" and _fc.fc_series_info(part)[2] > 0:
                which = np.flatnonzero(np.ptp(matrix[:, begin:begin + length], axis=1) == 0)
                warn(constant_windows_message("x", 1, begin, which), ConstantSeriesWarning)
        return out

    def sliding_windows(self, x, width, step=1, taper=None, rowvar=None):
        """Yield SlidingWindow(index, begin, values) for every window, values its float32
        row-ordered triangle (a new array each time). The input and the spec are checked now;
        each window is computed when it is asked for."""
        matrix = series_matrix(x, rowvar, "x")
        with self._lock:
            series, count, spec = self._windows(matrix, width, step, taper)
            iterator = _fc.fc_dfc_begin(self._live(), series, *spec)
        if matrix.shape[0] == 1:
            # One series has no pairs: fastconn's iterator is done at once, while dfc_triu has W
            # empty rows; yield those, so that the two agree.
            return (SlidingWindow(k, k * spec[1], np.empty(0, dtype=np.float32)) for k in range(count))
        return self._iterate_windows(iterator, _fc.fc_triu_size(matrix.shape[0]), matrix, spec[0])

    def _iterate_windows(self, iterator, size, matrix, width):
        # `self` stays referenced by this generator, so the progress callable stays alive.
        warned = self._constant != "nan"
        while True:
            values = np.empty(size, dtype=np.float32)
            with self._lock:
                status, info = _fc.fc_dfc_next_triu(iterator, values)
            if status == _fc.FC_DONE:
                return
            if not warned and info[6] > 0:
                # once per iteration, at the first window that holds constant series (info.n_constant)
                warned = True
                which = np.flatnonzero(np.ptp(matrix[:, info[1]:info[1] + width], axis=1) == 0)
                warn(f"window {info[0]} (from time point {info[1]}) is the first to hold series of x with zero "
                     f"variance, so their correlations there are NaN: series {shown_indices(which)} "
                     "(constant='zero' gives 0 instead)", ConstantSeriesWarning)
            # The capacity holds a whole window, so each block is one window's triangle.
            yield SlidingWindow(info[0], info[1], values)

    def dfc_triu(self, x, width, step=1, taper=None, order="row", rowvar=None, out=None, dtype=None):
        """Every window's triangle: a float32 (W, N(N-1)/2) array, row k = window k (begin
        k * step) in `order` ("row": scipy's condensed order). dtype=np.int16 or np.float16: the
        compact values of fc_dfc_triu_compact (see pcc_triu; fastconn.decode). `out`, a writable
        C-contiguous array of that shape and dtype (np.memmap works), receives the values instead."""
        order_code = lookup(ORDERS, order, "order")
        matrix = series_matrix(x, rowvar, "x")
        size = _fc.fc_triu_size(matrix.shape[0])
        dtype = np.dtype(np.float32) if dtype is None else result_dtype(dtype, "fp32", compact=True)
        if dtype == np.float64:
            raise ValueError("dtype must be float32, int16 or float16 (the window triangles have no float64 form)")
        with self._lock:
            series, count, spec = self._windows(matrix, width, step, taper)
            if out is None:
                out = np.empty((count, size), dtype=dtype)
            elif out.shape != (count, size) or out.dtype != dtype or not out.flags.c_contiguous:
                raise ValueError(f"out is {out.dtype} {out.shape}; {count} windows of {matrix.shape[0]} series need a "
                                 f"C-contiguous {dtype} ({count}, {size}) array")
            fmt = compact_format(dtype)
            if fmt is None:
                _fc.fc_dfc_triu(self._live(), series, *spec, order_code, out.reshape(-1))
            else:
                _fc.fc_dfc_triu_compact(self._live(), series, *spec, order_code, fmt, out.reshape(-1))
            self._warn_constant_windows(matrix, series, count, spec)
        return out

    def dfc_networks(self, x, width, step=1, taper=None, threshold=None, density=None, topk=None, signed=False,
                     weights="r", rowvar=None):
        """Every window's network (the rules and weights of Context.network) as a list of W
        fastconn.Graph."""
        rule, param = edge_rule(threshold, density, topk, signed)
        weights_code = lookup(GRAPH_WEIGHTS, weights, "weights")
        matrix = series_matrix(x, rowvar, "x")
        graphs = []
        with self._lock:
            series, _, spec = self._windows(matrix, width, step, taper)
            iterator = _fc.fc_dfc_begin(self._live(), series, *spec)
            while True:
                status, handle, index = _fc.fc_dfc_next_graph(iterator, rule, param, weights_code)
                if status == _fc.FC_DONE:
                    break
                assert index == len(graphs), f"fc_dfc_next_graph gave window {index} after {len(graphs)} windows"
                graphs.append(Graph._adopt(handle))
        return graphs

    def dfc_graphs(self, x, width, step=1, taper=None, threshold=None, density=None, topk=None, signed=False,
                   weights="r", rowvar=None):
        """dfc_networks(...) as a list of W symmetric scipy.sparse.csr_matrix (as graph())."""
        return [g.tocsr() for g in self.dfc_networks(x, width, step, taper, threshold, density, topk, signed, weights,
                                                     rowvar)]

    def dfc_degree(self, x, width, step=1, taper=None, threshold=None, density=None, topk=None, signed=False,
                   rowvar=None):
        """Time-resolved (degree, strength): (W, N) int64 edge counts and float64 sums of edge
        weights (r with signed=True, else |r|), row k as degree() gives it for window k."""
        rule, param = edge_rule(threshold, density, topk, signed)
        matrix = series_matrix(x, rowvar, "x")
        with self._lock:
            series, count, spec = self._windows(matrix, width, step, taper)
            degree = np.empty((count, matrix.shape[0]), dtype=np.int64)
            strength = np.empty((count, matrix.shape[0]), dtype=np.float64)
            _fc.fc_dfc_degree(self._live(), series, *spec, rule, param, degree.reshape(-1), strength.reshape(-1))
        return degree, strength

    def dfc_ecm(self, x, width, step=1, taper=None, tolerance=None, rowvar=None, eigenvalue=False):
        """Time-resolved fast ECM: a (W, N) float64 array, row k as ecm() gives it for window k
        (and the W eigenvalues with eigenvalue=True)."""
        matrix = series_matrix(x, rowvar, "x")
        with self._lock:
            series, count, spec = self._windows(matrix, width, step, taper)
            centrality = np.empty((count, matrix.shape[0]), dtype=np.float64)
            values = np.empty(count, dtype=np.float64)
            _fc.fc_dfc_ecm(self._live(), series, *spec, tolerance_value(tolerance), centrality.reshape(-1), values)
            self._warn_constant_windows(matrix, series, count, spec)
        return (centrality, values) if eigenvalue else centrality

    def dfc_summary(self, x, width, step=1, taper=None, order="row", rowvar=None):
        """(mean, sd) of every pair's r over the windows, without storing them: two float64
        triangles in `order`; sd is the sample standard deviation (divisor W - 1, NaN for one
        window). A pair whose r is NaN in some window (constant there, constant="nan") gets NaN."""
        order_code = lookup(ORDERS, order, "order")
        matrix = series_matrix(x, rowvar, "x")
        size = _fc.fc_triu_size(matrix.shape[0])
        mean = np.empty(size, dtype=np.float64)
        sd = np.empty(size, dtype=np.float64)
        with self._lock:
            series, count, spec = self._windows(matrix, width, step, taper)
            _fc.fc_dfc_summary(self._live(), series, *spec, order_code, mean, sd)
            self._warn_constant_windows(matrix, series, count, spec)
        return mean, sd

    def lowrank(self, x, rank, rowvar=None):
        """The best rank-`rank` approximation of corrcoef(x) (Eckart-Young): (factor, rel_error)
        with factor an (N, rank) float32 array, corrcoef(x) ~= factor @ factor.T, and rel_error
        the exact ||R - factor factor^T||_F / ||R||_F. Needs 1 <= rank <= T; constant series get
        zero rows."""
        rank = integer(rank, "rank")
        matrix = series_matrix(x, rowvar, "x")
        factor = np.empty((matrix.shape[0], max(rank, 0)), dtype=np.float32)
        with self._lock:
            rel_error = _fc.fc_pcc_lowrank(self._live(), self._upload(matrix), rank, factor.reshape(-1))
        return factor, rel_error

    def dfc_lowrank(self, x, width, step, rank, taper=None, rowvar=None):
        """lowrank() of every window: (factors, rel_errors), a float32 (W, N, rank) array and W
        float64 relative errors."""
        rank = integer(rank, "rank")
        matrix = series_matrix(x, rowvar, "x")
        with self._lock:
            series, count, spec = self._windows(matrix, width, step, taper)
            factors = np.empty((count, matrix.shape[0], max(rank, 0)), dtype=np.float32)
            rel_errors = np.empty(count, dtype=np.float64)
            _fc.fc_dfc_lowrank(self._live(), series, *spec, rank, factors.reshape(-1), rel_errors)
        return factors, rel_errors


def _context(backend, precision, constant):
    from . import _context_for  # the package's per-thread contexts; imported late (the package imports this module)
    return _context_for(backend, precision, constant)


def window(x, begin, length, taper=None, order="row", rowvar=None, dtype=None, backend=None, precision=None,
           constant=None):
    """The triangle of the window [begin, begin + length) of x's series, N(N-1)/2 values in
    `order` (dtype float32 or float64): pcc_triu(x[:, begin:begin + length]) for rowvar=True,
    or of the tapered window with taper=("gaussian", sigma). Without a taper equal to

    >>> import numpy as np, fastconn
    >>> x, regions = fastconn.data.timeseries()
    >>> r = fastconn.window(x, 50, 100, rowvar=False, dtype=np.float64, precision="fp64")
    >>> bool(np.allclose(r, np.corrcoef(x[50:150].T)[np.triu_indices(31, 1)]))
    True
    """
    return _context(backend, precision, constant).window(x, begin, length, taper, order, rowvar, dtype)


def sliding_windows(x, width, step=1, taper=None, rowvar=None, backend=None, precision=None, constant=None):
    """Yield SlidingWindow(index, begin, values) for windows of `width` samples every `step`:
    values is the window's float32 triangle in scipy's condensed order, computed when asked for.

    >>> import numpy as np, fastconn
    >>> x, regions = fastconn.data.timeseries()
    >>> [(k, begin) for k, begin, r in fastconn.sliding_windows(x, 150, step=50, rowvar=False)]
    [(0, 0), (1, 50), (2, 100)]
    """
    return _context(backend, precision, constant).sliding_windows(x, width, step, taper, rowvar)


def dfc_triu(x, width, step=1, taper=None, order="row", rowvar=None, out=None, backend=None, precision=None,
             constant=None, dtype=None):
    """Every window's triangle as one float32 (W, N(N-1)/2) array (window k in row k); dtype=
    np.int16 or np.float16 gives compact values instead (half the bytes; fastconn.decode).

    >>> import numpy as np, fastconn
    >>> x, regions = fastconn.data.timeseries()
    >>> fastconn.dfc_triu(x, 60, step=20, taper=("gaussian", 3.0), rowvar=False).shape
    (10, 465)
    >>> codes = fastconn.dfc_triu(x, 60, step=20, rowvar=False, dtype=np.int16)
    >>> r = fastconn.dfc_triu(x, 60, step=20, rowvar=False)
    >>> bool(np.abs(fastconn.decode(codes) - r).max() <= 0.5 / 32767 + 1e-7)
    True
    """
    return _context(backend, precision, constant).dfc_triu(x, width, step, taper, order, rowvar, out, dtype)


def dfc_networks(x, width, step=1, taper=None, threshold=None, density=None, topk=None, signed=False, weights="r",
                 rowvar=None, backend=None, precision=None, constant=None):
    """Every window's network as a list of fastconn.Graph (the rules of graph()), streamed from
    fastconn's window iterator (fc_dfc_next_graph) one window at a time.

    >>> import fastconn
    >>> x, regions = fastconn.data.timeseries()
    >>> nets = fastconn.dfc_networks(x, 100, step=50, topk=2, rowvar=False)
    >>> len(nets), nets[0].n_nodes
    (4, 31)
    """
    return _context(backend, precision, constant).dfc_networks(x, width, step, taper, threshold, density, topk, signed,
                                                               weights, rowvar)


def dfc_graphs(x, width, step=1, taper=None, threshold=None, density=None, topk=None, signed=False, weights="r",
               rowvar=None, backend=None, precision=None, constant=None):
    """Every window's network as a list of W scipy.sparse.csr_matrix, with exactly one rule of
    graph(): threshold=t (|r| >= t; r >= t with signed=True), density=d or topk=k; weights "r",
    "abs" or "binary".

    >>> import numpy as np, fastconn
    >>> x, regions = fastconn.data.timeseries()
    >>> graphs = fastconn.dfc_graphs(x, 100, step=50, density=0.1, rowvar=False)
    >>> [g.nnz // 2 for g in graphs]   # ceil(0.1 * 465) edges in each window
    [47, 47, 47, 47]
    """
    return _context(backend, precision, constant).dfc_graphs(x, width, step, taper, threshold, density, topk, signed,
                                                             weights, rowvar)


def dfc_degree(x, width, step=1, taper=None, threshold=None, density=None, topk=None, signed=False, rowvar=None,
               backend=None, precision=None, constant=None):
    """Time-resolved (degree, strength): (W, N) int64 and float64 arrays, row k as degree()
    gives it for window k, without any window's N x N matrix.

    >>> import numpy as np, fastconn
    >>> x, regions = fastconn.data.timeseries()
    >>> k, s = fastconn.dfc_degree(x, 100, step=50, topk=3, rowvar=False)
    >>> k.shape, bool((k >= 3).all())
    ((4, 31), True)
    """
    return _context(backend, precision, constant).dfc_degree(x, width, step, taper, threshold, density, topk, signed,
                                                             rowvar)


def dfc_ecm(x, width, step=1, taper=None, tolerance=None, rowvar=None, eigenvalue=False, backend=None, precision=None,
            constant=None):
    """Time-resolved fast eigenvector centrality: a (W, N) float64 array whose row k is ecm(x)
    of window k (the leading eigenvector of (R_k + 1) / 2, unit norm, without any window's N x N
    matrix; fc_dfc_ecm), the same bits as ecm() on window(x, ...) k; with eigenvalue=True,
    (centrality, the W eigenvalues). A series constant in a window gets NaN there under
    constant="nan" (a ConstantSeriesWarning), or stays in with r = 0 under constant="zero".

    >>> import numpy as np, fastconn
    >>> x, regions = fastconn.data.timeseries()
    >>> c = fastconn.dfc_ecm(x, 100, step=50, rowvar=False, precision="fp64")
    >>> w, v = np.linalg.eigh((np.corrcoef(x[50:150], rowvar=False) + 1) / 2)
    >>> c.shape, bool(np.abs(c[1] - np.abs(v[:, -1])).max() < 1e-8)
    ((4, 31), True)
    """
    return _context(backend, precision, constant).dfc_ecm(x, width, step, taper, tolerance, rowvar, eigenvalue)


def dfc_summary(x, width, step=1, taper=None, order="row", rowvar=None, backend=None, precision=None, constant=None):
    """(mean, sd) of each pair's r over the windows (sd with divisor W - 1): two float64
    triangles, the usual connectivity-variability maps, without storing the windows.

    >>> import numpy as np, fastconn
    >>> x, regions = fastconn.data.timeseries()
    >>> mean, sd = fastconn.dfc_summary(x, 100, step=10, rowvar=False)
    >>> bool(np.allclose(sd, fastconn.dfc_triu(x, 100, step=10, rowvar=False).std(axis=0, ddof=1), atol=1e-5))
    True
    """
    return _context(backend, precision, constant).dfc_summary(x, width, step, taper, order, rowvar)


def lowrank(x, rank, rowvar=None, backend=None, precision=None, constant=None):
    """(factor, rel_error): corrcoef(x) ~= factor @ factor.T with factor (N, rank) float32, the
    best rank-`rank` approximation (Eckart-Young, from the small T x T eigenproblem), and its
    exact relative Frobenius error. N * rank numbers instead of N(N-1)/2.

    >>> import numpy as np, fastconn
    >>> x, regions = fastconn.data.timeseries()
    >>> factor, error = fastconn.lowrank(x, 10, rowvar=False)
    >>> r = np.corrcoef(x, rowvar=False)
    >>> bool(abs(np.linalg.norm(r - factor @ factor.T) / np.linalg.norm(r) - error) < 1e-4)
    True
    """
    return _context(backend, precision, constant).lowrank(x, rank, rowvar)


def dfc_lowrank(x, width, step, rank, taper=None, rowvar=None, backend=None, precision=None, constant=None):
    """lowrank() of every window: factors (W, N, rank) float32 and rel_errors (W,) float64.

    >>> import numpy as np, fastconn
    >>> x, regions = fastconn.data.timeseries()
    >>> factors, errors = fastconn.dfc_lowrank(x, 100, 50, 8, rowvar=False)
    >>> factors.shape, errors.shape
    ((4, 31, 8), (4,))
    """
    return _context(backend, precision, constant).dfc_lowrank(x, width, step, rank, taper, rowvar)
