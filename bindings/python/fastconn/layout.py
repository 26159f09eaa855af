"""How numpy arrays become fastconn series: a (series, time) view of the caller's data.

fastconn reads element (s, t) at data[s * series_stride + t * time_stride], so any 2-D numpy
array of float32 or float64 -- C or Fortran order, a transpose, a slice, read-only or a view of
someone else's buffer -- can be passed without a copy: the low-level module turns the view's
byte strides into element strides. Only arrays fastconn cannot address (another dtype, foreign
byte order, misalignment, negative or zero strides, overlapping rows) are converted, once.
"""

import numpy as np

from .notices import RowvarWarning, warn

#: dtypes used in place (native byte order only: np.dtype(">f8") differs from these)
NATIVE_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def series_matrix(a, rowvar=None, name="x"):
    """Return `a` as a 2-D array with axis 0 = series and axis 1 = time.

    Follows numpy.corrcoef: a 1-D array is one series; with rowvar=True each row is a series,
    with rowvar=False each column is one (unless there is a single row, as numpy does).
    rowvar=None (every function's default) reads rows as series too, as numpy does, but warns
    (RowvarWarning) when a 2-D array has more rows than columns: a (time, regions) array such as
    (250, 31) would otherwise give 250 "series" of 31 time points without a word. Voxel data
    held as (voxels, time) has more rows than columns too: pass rowvar=True to say so.

    The result is a view of `a` when fastconn can read `a` as it is (see `is_addressable`), else
    one converted copy: float32 stays float32 (so does float16), everything else -> float64.
    """
    array = np.asarray(a)
    if array.ndim not in (1, 2):
        raise ValueError(f"{name} must be 1-D or 2-D, got an array of shape {array.shape}")
    if np.iscomplexobj(array):
        raise TypeError(f"{name} is complex; fastconn correlates real series only")
    if array.dtype.kind not in "biuf":
        raise TypeError(f"{name} has dtype {array.dtype}; expected a real numeric array")
    if rowvar is None:
        if array.ndim == 2 and array.shape[0] > array.shape[1]:
            rows, columns = array.shape
            warn(f"{name} has {rows} rows and {columns} columns and rowvar was not given, so each row is a series "
                 f"(numpy.corrcoef's convention): {rows} series of {columns} time points. For a (time, series) "
                 f"array such as nilearn's signals pass rowvar=False; pass rowvar=True if the rows are the series",
                 RowvarWarning)
        rowvar = True
    if array.ndim == 1:
        view = array[np.newaxis, :]
    elif rowvar or array.shape[0] == 1:
        view = array
    else:
        view = array.T
    if view.size == 0:
        # numpy gives NaNs or an empty matrix here; fastconn says what is missing (an empty axis
        # has no usable stride, so no copy would help).
        raise ValueError(f"{name} is empty: shape {array.shape} gives {view.shape[0]} series of {view.shape[1]} "
                         f"time points; fastconn needs at least 1 series of at least 2 time points")
    if is_addressable(view):
        return view
    single = array.dtype.kind == "f" and array.dtype.itemsize <= 4
    return np.ascontiguousarray(view, dtype=np.float32 if single else np.float64)


def element_strides(view):
    """(series_stride, time_stride) in elements, as fastconn will receive them (1 for an axis
    of length 1, whose stride numpy leaves arbitrary)."""
    item = view.dtype.itemsize
    return tuple(1 if dim <= 1 else stride // item for dim, stride in zip(view.shape, view.strides))


def is_addressable(view):
    """True if fastconn can read the 2-D (series, time) array `view` in place."""
    if view.dtype not in NATIVE_DTYPES or not view.flags.aligned:
        return False
    item = view.dtype.itemsize
    for dim, stride in zip(view.shape, view.strides):
        if dim > 1 and (stride <= 0 or stride % item != 0):
            return False
    n, t = view.shape
    series_stride, time_stride = element_strides(view)
    # fastconn's no-overlap rule: one dimension nests inside the other.
    return n <= 1 or series_stride >= t * time_stride or time_stride >= n * series_stride
