"""fastconn.Context: a fastconn context (backend, precision, constant policy, memory limit,
threads, progress) and the computations that run on it."""

import collections
import contextvars
import threading

import numpy as np

from . import _fastconn as _fc
from .layout import series_matrix
from .dynamic import DynamicMethods
from .modules import ModuleMethods
from .multilayer import MultilayerMethods
from .centrality import CentralityMethods, check_method
from .partial import PartialMethods
from .lfcd import LfcdMethods
from .network import GRAPH_WEIGHTS, Graph, edge_rule
from .notices import ConstantSeriesWarning, constant_message, warn
from .options import ORDERS, compact_format, lookup as _lookup, result_dtype

BACKENDS = {"auto": _fc.FC_BACKEND_AUTO, "cpu": _fc.FC_BACKEND_CPU, "cuda": _fc.FC_BACKEND_CUDA}
PRECISIONS = {"fp32": _fc.FC_PRECISION_FP32, "fp64": _fc.FC_PRECISION_FP64, "tf32": _fc.FC_PRECISION_TF32}
CONSTANT_POLICIES = {"nan": _fc.FC_CONSTANT_NAN, "zero": _fc.FC_CONSTANT_ZERO}

BlockInfo = collections.namedtuple("BlockInfo", "row_begin row_end triu_offset count")
BlockInfo.__doc__ = """A block of the row-ordered triangle: the pairs (i, j), row_begin <= i < row_end,
j > i, which are exactly triangle[triu_offset : triu_offset + count]."""

# The context that module-level functions use inside `with Context(...):` (per thread / task).
_entered = contextvars.ContextVar("fastconn_entered_context", default=None)


def _device_ids(devices):
    """devices= of Context as fc_context_create_cuda_devices takes it: None for "all", else an
    int32 array of the ids (fastconn checks them: negative, repeated or past the device count)."""
    if isinstance(devices, str):
        if devices != "all":
            raise ValueError(f"devices={devices!r}: pass a list of device ids or 'all'")
        return None
    ids = np.asarray(devices)
    if ids.ndim != 1 or ids.size == 0 or not np.issubdtype(ids.dtype, np.integer):
        raise ValueError(f"devices={devices!r}: pass a non-empty list of integer device ids or 'all'")
    return np.ascontiguousarray(ids, dtype=np.int32)


def _name_of(table, code):
    return next(name for name, value in table.items() if value == code)


class Context(DynamicMethods, ModuleMethods, MultilayerMethods, CentralityMethods, PartialMethods, LfcdMethods):
    """A fastconn context: where and how correlations are computed.

    backend: "auto" (CUDA when a device is visible, else CPU), "cpu" or "cuda".
    devices: with backend="cuda", several GPUs of this host as one context
        (fc_context_create_cuda_devices): a list of distinct device ids, the first the primary,
        or "all" for every visible device. Triangles, dense, cross, blocks and windows' triangles
        split across them with the same bits as one GPU; modules, centrality, partial correlation
        and lFCD run on the primary. None (default): one device, `device`.
    precision: "fp32" (float64 normalization, float32 products; |r - r64| <= 1e-5), "fp64"
        (|r - r64| <= 1e-12) or "tf32" (GPU tensor cores, about 1e-3).
    constant: what a zero-variance series correlates as, "nan" (like numpy) or "zero".
    memory_limit: bytes of working memory one computation may take (0: what is free).
    threads: CPU threads (0: all cores).
    progress: None or a callable(done, total) called from the computing thread; a true return
        value cancels (AbortedError), an exception propagates. Ctrl-C cancels in any case.

    Sliding-window (dynamic) connectivity and low rank: see fastconn.dynamic; modules of a
    graph: see fastconn.modules; centrality and Spearman: see fastconn.centrality; partial correlation: see fastconn.partial; lFCD: see fastconn.lfcd. Their methods on a Context take the same arguments as the
    module-level functions, less backend / precision / constant.

    Used as a context manager (`with Context(precision="fp64") as ctx:`), it is also the
    context of the module-level functions inside the block. A context runs one computation at a
    time: calls from several threads on one context are serialized. Its resources are freed by
    close() or when it is garbage collected. Every setting but the backend can be changed later.

    >>> import fastconn
    >>> x, regions = fastconn.data.timeseries()
    >>> ctx = fastconn.Context(backend="cpu", threads=1, memory_limit=64 << 20)
    >>> ctx.backend, ctx.threads, ctx.memory_limit
    ('cpu', 1, 67108864)
    >>> ctx.threads = 2                      # fc_context_set_threads
    >>> ctx.precision = "fp64"               # results now float64 (fc_*_f64)
    >>> ctx.corrcoef(x, rowvar=False).dtype
    dtype('float64')
    >>> with ctx:                            # module functions inside use ctx
    ...     fastconn.pcc_triu(x, rowvar=False).dtype
    dtype('float64')
    """

    def __init__(self, backend="auto", precision="fp32", constant="nan", memory_limit=0, threads=0,
                 device=-1, progress=None, devices=None):
        self._lock = threading.RLock()
        self._tokens = []
        self._requested_backend = backend
        self._device = int(device)
        code = _lookup(BACKENDS, backend, "backend")
        if devices is None:
            self._handle = _fc.fc_context_create(code, self._device)
        else:
            if code != _fc.FC_BACKEND_CUDA:
                raise ValueError(f"devices={devices!r} needs backend='cuda', not {backend!r}")
            self._handle = _fc.fc_context_create_cuda_devices(_device_ids(devices))
        self._backend = _name_of(BACKENDS, _fc.fc_context_get_backend(self._handle))
        self.precision = precision
        self.constant = constant
        self.memory_limit = memory_limit
        self.threads = threads
        self.progress = progress

    # --- settings -----------------------------------------------------------------------------
    @property
    def devices(self):
        """The CUDA devices the context computes on, the primary first (fc_context_get_cuda_devices);
        an error on a CPU context."""
        ids = np.zeros(256, dtype=np.int32)
        with self._lock:
            count = _fc.fc_context_get_cuda_devices(self._live(), ids)
        return [int(d) for d in ids[:count]]

    @property
    def backend(self):
        """The backend computations run on: "cpu" or "cuda" (what "auto" chose)."""
        return self._backend

    @property
    def precision(self):
        """"fp32", "fp64" or "tf32" (fc_context_set_precision): the arithmetic of the products,
        and the default dtype of results (float64 for "fp64", else float32)."""
        return self._precision

    @precision.setter
    def precision(self, value):
        code = _lookup(PRECISIONS, value, "precision")
        with self._lock:
            _fc.fc_context_set_precision(self._live(), code)
            self._precision = value

    @property
    def constant(self):
        """"nan" or "zero" (fc_context_set_constant_policy): what zero-variance series correlate as.
        Under "nan" the calls that return correlations warn (ConstantSeriesWarning) naming them."""
        return self._constant

    @constant.setter
    def constant(self, value):
        code = _lookup(CONSTANT_POLICIES, value, "constant")
        with self._lock:
            _fc.fc_context_set_constant_policy(self._live(), code)
            self._constant = value

    @property
    def memory_limit(self):
        """Bytes of working memory one computation may take (fc_context_set_memory_limit; 0: what
        is free, capped at a quarter of physical memory on the CPU). Results never depend on it."""
        return self._memory_limit

    @memory_limit.setter
    def memory_limit(self, value):
        with self._lock:
            _fc.fc_context_set_memory_limit(self._live(), int(value))
            self._memory_limit = int(value)

    @property
    def threads(self):
        """CPU threads a computation may use (fc_context_set_threads; 0: all cores)."""
        return self._threads

    @threads.setter
    def threads(self, value):
        with self._lock:
            _fc.fc_context_set_threads(self._live(), int(value))
            self._threads = int(value)

    @property
    def progress(self):
        """None or a callable(done, total) (fc_context_set_progress); a true return cancels."""
        return self._progress

    @progress.setter
    def progress(self, fn):
        with self._lock:
            # Installed even for None: the C trampoline is what checks for Ctrl-C. The context
            # only borrows fn, so this object keeps it alive.
            _fc.fc_context_set_progress(self._live(), fn)
            self._progress = fn

    def settings(self):
        """The arguments that recreate this context (progress excepted)."""
        return dict(backend=self._requested_backend, precision=self._precision, constant=self._constant,
                    memory_limit=self._memory_limit, threads=self._threads, device=self._device)

    # --- lifetime -------------------------------------------------------------------------------
    def _live(self):
        if self._handle is None:
            raise ValueError("operation on a closed fastconn.Context")
        return self._handle

    def close(self):
        """Free the context now (series and iterators still alive keep working)."""
        with self._lock:
            self._handle = None  # the owned SWIG proxy calls fc_context_destroy

    @property
    def closed(self):
        return self._handle is None

    def __enter__(self):
        self._tokens.append(_entered.set(self))
        return self

    def __exit__(self, *exc):
        _entered.reset(self._tokens.pop())
        return False

    def __repr__(self):
        state = "closed" if self.closed else f"backend={self._backend!r}"
        return (f"fastconn.Context({state}, precision={self._precision!r}, constant={self._constant!r}, "
                f"memory_limit={self._memory_limit}, threads={self._threads})")

    # --- computations ---------------------------------------------------------------------------
    def _upload(self, matrix, method="pearson"):
        """A series handle for a (series, time) array from layout.series_matrix (no copy here);
        method="spearman": of its ranks (fc_series_create_ranked_*), whose r is Spearman's rho."""
        if check_method(method) == "spearman":
            create = _fc.fc_series_create_ranked_f32 if matrix.dtype == np.float32 else _fc.fc_series_create_ranked_f64
        else:
            create = _fc.fc_series_create_f32 if matrix.dtype == np.float32 else _fc.fc_series_create_f64
        return create(self._live(), matrix)

    def _warn_constant(self, *named):
        """One ConstantSeriesWarning for this call when constant="nan" and some of the named sets,
        (name, series handle, (series, time) matrix), hold zero-variance series: their indices.
        fastconn counts them (exact equality of every sample); numpy finds which only then."""
        if self._constant != "nan":
            return
        parts = []
        for name, series, matrix in named:
            if _fc.fc_series_info(series)[2] > 0:
                parts.append((name, np.flatnonzero(np.ptp(matrix, axis=1) == 0)))
        if parts:
            warn(constant_message(parts), ConstantSeriesWarning)

    def corrcoef(self, x, y=None, rowvar=None, dtype=None, method="pearson"):
        """Pearson correlation matrix, as numpy.corrcoef(x, y, rowvar) computes it.

        With y, the (nx + ny) square matrix of x's and y's series together. dtype: float32 or
        float64; by default the precision's (float64 for "fp64" from fc_pcc_dense_f64 /
        fc_pcc_cross_f64, else float32). A single series gives a scalar, as in numpy.
        method="spearman": Spearman's rho instead (see fastconn.centrality). dtype=np.int16 or
        np.float16 (without y): the compact values of fc_pcc_dense_compact (fastconn.decode).
        """
        check_method(method)
        out_dtype = result_dtype(dtype, self._precision, compact=y is None)
        xm = series_matrix(x, rowvar, "x")
        ym = None if y is None else series_matrix(y, rowvar, "y")
        if ym is not None and ym.shape[1] != xm.shape[1]:
            raise ValueError(f"x has {xm.shape[1]} time points and y {ym.shape[1]}; they must match")
        n = xm.shape[0] + (0 if ym is None else ym.shape[0])
        out = np.empty((n, n), dtype=out_dtype)
        with self._lock:
            self._dense(xm, ym, out, method)
        return out[0, 0] if out.shape == (1, 1) else out

    def _dense(self, xm, ym, out, method="pearson"):
        """fc_pcc_dense(_f64) / fc_pcc_cross(_f64) straight into the blocks of `out` (views, no
        copies); one ConstantSeriesWarning for the call."""
        dense, cross = ((_fc.fc_pcc_dense_f64, _fc.fc_pcc_cross_f64) if out.dtype == np.float64
                        else (_fc.fc_pcc_dense, _fc.fc_pcc_cross))
        fmt = compact_format(out.dtype)
        if fmt is not None:  # one series set (corrcoef allows compact dtypes only without y)
            dense = lambda ctx, series, matrix: _fc.fc_pcc_dense_compact(ctx, series, fmt, matrix)
        nx = xm.shape[0]
        sx = self._upload(xm, method)
        dense(self._live(), sx, out[:nx, :nx])
        if ym is None:
            self._warn_constant(("x", sx, xm))
            return
        sy = self._upload(ym, method)
        dense(self._handle, sy, out[nx:, nx:])
        cross(self._handle, sx, sy, out[:nx, nx:])
        out[nx:, :nx] = out[:nx, nx:].T
        self._warn_constant(("x", sx, xm), ("y", sy, ym))

    def cross(self, x, y, rowvar=None, dtype=None, method="pearson"):
        """r(x_i, y_j) for every series i of x and j of y: an nx x ny matrix (seed-to-voxel
        maps), the off-diagonal block of corrcoef(x, y). dtype: float32 or float64; by default
        the precision's (float64 for "fp64", from fc_pcc_cross_f64, else float32).
        method="spearman": Spearman's rho."""
        check_method(method)
        out_dtype = result_dtype(dtype, self._precision)
        xm = series_matrix(x, rowvar, "x")
        ym = series_matrix(y, rowvar, "y")
        out = np.empty((xm.shape[0], ym.shape[0]), dtype=out_dtype)
        compute = _fc.fc_pcc_cross_f64 if out_dtype == np.float64 else _fc.fc_pcc_cross
        with self._lock:
            sx, sy = self._upload(xm, method), self._upload(ym, method)
            compute(self._live(), sx, sy, out)
            self._warn_constant(("x", sx, xm), ("y", sy, ym))
        return out

    def pcc_triu(self, x, order="row", rowvar=None, dtype=None, out=None, method="pearson"):
        """The strict upper triangle of corrcoef(x): N(N-1)/2 values.

        order="row" is scipy's condensed (squareform) order and numpy's triu_indices(n, 1);
        order="col" groups pairs by the larger index (fc_triu_offset / fc_triu_pair: see
        fastconn.triu_offset). dtype is np.float32 or np.float64, by default the precision's
        (float64 for "fp64", else float32), or a compact format (fc_pcc_triu_compact): np.int16,
        codes round(r * 32767) (NaN: -32768; |code / 32767 - r| <= 1.53e-5), or np.float16, r
        rounded to half precision (|error| <= 2.44e-4); fastconn.decode turns either into float32.
        `out`, a writable contiguous 1-D array of any of these dtypes (np.memmap works), receives
        the values instead of a new array. method="spearman": Spearman's rho.
        """
        check_method(method)
        order_code = _lookup(ORDERS, order, "order")
        matrix = series_matrix(x, rowvar, "x")
        size = _fc.fc_triu_size(matrix.shape[0])
        if out is None:
            out = np.empty(size, dtype=result_dtype(dtype, self._precision, compact=True))
        elif out.shape != (size,):
            raise ValueError(f"out has shape {out.shape}; the triangle of {matrix.shape[0]} series needs ({size},)")
        compute = _fc.fc_pcc_triu_f64 if out.dtype == np.float64 else _fc.fc_pcc_triu
        fmt = compact_format(out.dtype)
        if fmt is not None:
            compute = lambda ctx, series, order, values: _fc.fc_pcc_triu_compact(ctx, series, order, fmt, values)
        with self._lock:
            series = self._upload(matrix, method)
            compute(self._live(), series, order_code, out)
            self._warn_constant(("x", series, matrix))
        return out

    def blocks(self, x, rows=0, rowvar=None, dtype=None):
        """Iterate over the row-ordered triangle of x in blocks of `rows` rows (0: the memory
        limit decides), yielding (BlockInfo, values). values are float32 or float64 (dtype; by
        default the precision's: float64 for "fp64", from fc_blocks_next_f64), or int16 / float16
        codes (fc_blocks_next_compact; see pcc_triu). Concatenated, they are pcc_triu(x). The input is checked now (and constant series warned about);
        each block is computed when it is asked for, so only one block is in memory at a time."""
        out_dtype = result_dtype(dtype, self._precision, compact=True)
        matrix = series_matrix(x, rowvar, "x")
        with self._lock:
            series = self._upload(matrix)
            iterator = _fc.fc_pcc_blocks_begin(self._live(), series, int(rows))
            first_capacity = _fc.fc_blocks_max_count(iterator)
            self._warn_constant(("x", series, matrix))
        return self._iterate_blocks(iterator, matrix.shape[0], first_capacity, out_dtype)

    def _iterate_blocks(self, iterator, n, capacity, dtype):
        # `self` stays referenced by this generator, so the progress callable stays alive.
        rows_per_block = None
        next_block = _fc.fc_blocks_next_f64 if dtype == np.float64 else _fc.fc_blocks_next
        fmt = compact_format(dtype)
        if fmt is not None:
            next_block = lambda blocks, values: _fc.fc_blocks_next_compact(blocks, fmt, values)
        while True:
            values = np.empty(capacity, dtype=dtype)
            with self._lock:
                status, info = next_block(iterator, values)
            if status == _fc.FC_DONE:
                return
            info = BlockInfo(*info)
            yield info, values[:info.count]
            # Every block but the last has the same rows, so the next one's size is known and
            # each block gets an array of exactly its size.
            rows_per_block = rows_per_block or info.row_end - info.row_begin
            begin, end = info.row_end, min(n, info.row_end + rows_per_block)
            capacity = (end - begin) * (n - 1) - (end * (end - 1) - begin * (begin - 1)) // 2

    # --- networks -------------------------------------------------------------------------------
    def network(self, x, threshold=None, density=None, topk=None, signed=False, weights="r", rowvar=None,
                method="pearson"):
        """The correlation network of x's series as a fastconn.Graph, built tile by tile without
        the N x N matrix. Exactly one rule: threshold=t (|r| >= t; r >= t with signed=True),
        density=d (the ceil(d * N(N-1)/2) pairs of largest |r|, ties to the smaller pair index
        in numpy.triu_indices order) or topk=k (each series' k largest |r|, ties to the smaller
        index, symmetrized by union). weights: "r", "abs" (|r|) or "binary" (1). Zero-variance
        series get no edges. method="spearman": the network of Spearman's rho."""
        check_method(method)
        rule, param = edge_rule(threshold, density, topk, signed)
        code = _lookup(GRAPH_WEIGHTS, weights, "weights")
        matrix = series_matrix(x, rowvar, "x")
        with self._lock:
            handle = _fc.fc_pcc_graph(self._live(), self._upload(matrix, method), rule, param, code)
        return Graph._adopt(handle)

    def graph(self, x, threshold=None, density=None, topk=None, signed=False, weights="r", rowvar=None,
              method="pearson"):
        """network(...) as a symmetric scipy.sparse.csr_matrix (float32 data, int64 indices)."""
        return self.network(x, threshold, density, topk, signed, weights, rowvar, method).tocsr()

    def edges(self, x, threshold=None, density=None, topk=None, signed=False, weights="r", rowvar=None,
              method="pearson"):
        """network(...) as the edge list (i, j, w), i < j, sorted by (i, j)."""
        return self.network(x, threshold, density, topk, signed, weights, rowvar, method).edges()

    def degree(self, x, threshold=None, density=None, topk=None, signed=False, rowvar=None, method="pearson"):
        """(degree, strength) of every series under the rule of network(): the int64 number of
        edges and the float64 sum of their weights (r with signed=True, else |r|). Threshold
        rules never build a graph. method="spearman": of Spearman's rho."""
        check_method(method)
        rule, param = edge_rule(threshold, density, topk, signed)
        matrix = series_matrix(x, rowvar, "x")
        degree = np.empty(matrix.shape[0], dtype=np.int64)
        strength = np.empty(matrix.shape[0], dtype=np.float64)
        with self._lock:
            _fc.fc_pcc_degree(self._live(), self._upload(matrix, method), rule, param, degree, strength)
        return degree, strength


def entered_context():
    """The Context of the innermost `with Context(...)` block in this thread / task, or None."""
    return _entered.get()
