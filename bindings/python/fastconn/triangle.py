"""Where a pair sits in the ordered strict upper triangle, and back (fc_triu_size, fc_triu_offset,
fc_triu_pair): 64-bit arithmetic, so N(N-1)/2 may pass 2^32.

order="row": (0,1), (0,2), ..., (0,N-1), (1,2), ...: scipy's condensed (squareform) order and
numpy.triu_indices(N, 1); order="col": (0,1), (0,2), (1,2), (0,3), (1,3), (2,3), ...: pairs
grouped by the larger index (the order a triangle grows in as series are added).

>>> import numpy as np, fastconn
>>> fastconn.triu_size(31)
465
>>> fastconn.triu_offset(31, 2, 5), fastconn.triu_offset(31, 5, 2, order="col")
(61, 12)
>>> fastconn.triu_pair(31, 61)
(2, 5)
>>> i, j = np.triu_indices(31, 1)
>>> int(i[61]), int(j[61])
(2, 5)
>>> fastconn.triu_size(100_000)            # past 2^32
4999950000
"""

import numpy as np

from . import _fastconn as _fc
from .options import ORDERS, integer, invalid_argument, lookup

__all__ = ["triu_size", "triu_offset", "triu_pair", "decode"]


def triu_size(n_series):
    """N(N-1)/2, the number of pairs of n_series series (the length of every triangle)."""
    n = integer(n_series, "n_series")
    size = _fc.fc_triu_size(n)
    if size < 0:
        raise invalid_argument(f"n_series must be >= 0 with N(N-1)/2 below 2^63, not {n}")
    return size


def triu_offset(n_series, i, j, order="row"):
    """The offset of the pair (i, j) (either way round, i != j) in the triangle of n_series
    series in `order` ("row" or "col")."""
    code = lookup(ORDERS, order, "order")
    n, i, j = integer(n_series, "n_series"), integer(i, "i"), integer(j, "j")
    offset = _fc.fc_triu_offset(n, code, i, j)
    if offset < 0:
        raise invalid_argument(f"no pair ({i}, {j}) among {n} series: need i != j, both in [0, {n})")
    return offset


def triu_pair(n_series, offset, order="row"):
    """The pair (i, j), i < j, stored at `offset` of the triangle of n_series series in `order`."""
    code = lookup(ORDERS, order, "order")
    return tuple(_fc.fc_triu_pair(integer(n_series, "n_series"), code, integer(offset, "offset")))


def decode(codes, dtype=np.float32):
    """The r values of compact codes (dtype=np.int16 or np.float16 outputs of pcc_triu, corrcoef,
    blocks, dfc_triu), as fc_decode_values computes them: int16 code / 32767 (in float64, then
    rounded to `dtype`), -32768 is NaN; float16 widened exactly. Any shape; a new array.

    >>> import numpy as np, fastconn
    >>> fastconn.decode(np.array([32767, -32767, 0, 16384, -32768], dtype=np.int16)).tolist()
    [1.0, -1.0, 0.0, 0.5000152587890625, nan]
    >>> fastconn.decode(np.array([1.0, -0.5, np.nan], dtype=np.float16), dtype=np.float64).tolist()
    [1.0, -0.5, nan]
    """
    codes = np.asarray(codes)
    dtype = np.dtype(dtype)
    if dtype not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise ValueError(f"dtype must be float32 or float64, got {dtype}")
    if codes.dtype == np.float16:
        return codes.astype(dtype)
    if codes.dtype != np.int16:
        raise TypeError(f"codes must be int16 (FC_VALUES_INT16) or float16 (FC_VALUES_HALF), got {codes.dtype}")
    values = codes.astype(np.float64) / 32767.0
    values[codes == -32768] = np.nan
    return values.astype(dtype)
