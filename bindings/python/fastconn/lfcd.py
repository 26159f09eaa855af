"""lFCD, local functional connectivity density (Tomasi and Volkow 2010; AFNI's 3dLFCD).

lfcd(x, coords, dims, threshold): for each voxel (series) s, the number of voxels of the cluster
grown from s over the voxel grid, where a voxel adjacent to the cluster joins when its r with the
seed s is >= threshold (|r| >= threshold unless signed=True). The seed counts itself (AFNI's
convention): 1 for a seed no neighbour joins. Zero-variance series have no r: they never join a
cluster, and their own lFCD is 0 (fc_pcc_lfcd).

>>> import numpy as np, fastconn
>>> mask = np.zeros((3, 2, 2), dtype=bool)
>>> mask[0, 0, 0] = mask[1, 0, 0] = mask[2, 0, 0] = True   # a row of three voxels ...
>>> mask[0, 1, 1] = True                       # ... and one touching the first along an edge only
>>> coords = np.argwhere(mask)                 # (n, 3), C order: (0,0,0), (0,1,1), (1,0,0), (2,0,0)
>>> t = np.arange(20.0)
>>> x = np.stack([np.sin(t), np.sin(t) + 0.1 * np.cos(3 * t), np.sin(t) + 0.1 * t, np.cos(t)], axis=1)  # (T, n)
>>> fastconn.lfcd(x, coords, mask.shape, threshold=0.5, signed=True, neighbourhood=6, rowvar=False)
array([2, 1, 2, 1])
>>> fastconn.lfcd(x, coords, mask.shape, threshold=0.5, signed=True, neighbourhood=18, rowvar=False)
array([3, 3, 3, 1])
"""

import numbers

import numpy as np

from . import _fastconn as _fc
from .centrality import check_method
from .layout import series_matrix
from .network import edge_rule
from .notices import ConstantSeriesWarning, shown_indices, warn
from .options import invalid_argument

__all__ = ["NEIGHBOURHOODS", "LfcdMethods", "voxel_coords", "grid_dims"]

#: the neighbourhoods fc_pcc_lfcd takes: faces (6), faces and edges (18), faces, edges and corners (26)
NEIGHBOURHOODS = (6, 18, 26)


def voxel_coords(coords, n):
    """coords as the flat int32 array fc_pcc_lfcd reads: an (n, 3) array of integers (any integer
    dtype whose values fit int32); ValueError / TypeError naming what is wrong otherwise."""
    array = np.asarray(coords)
    if array.ndim != 2 or array.shape[1] != 3:
        raise ValueError(f"coords must be an (n, 3) array of voxel indices (i, j, k), got shape {array.shape}")
    if array.shape[0] != n:
        raise ValueError(f"coords has {array.shape[0]} rows; x has {n} series (one voxel per series)")
    if array.size and not np.issubdtype(array.dtype, np.integer):
        raise TypeError(f"coords must hold integers, got dtype {array.dtype}")
    if array.size and (array.min() < np.iinfo(np.int32).min or array.max() > np.iinfo(np.int32).max):
        raise invalid_argument(f"coords holds {array.min()} .. {array.max()}, beyond int32")
    return np.ascontiguousarray(array, dtype=np.int32).reshape(-1)


def grid_dims(dims):
    """dims as the int64 array fc_pcc_lfcd reads: three integers (a mask's shape will do)."""
    values = tuple(dims)
    if len(values) != 3 or not all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in values):
        raise ValueError(f"dims must be three integers (nx, ny, nz), e.g. a mask's shape, got {dims!r}")
    return np.array(values, dtype=np.int64)


class LfcdMethods:
    """The lFCD computation of fastconn.Context (see fastconn.lfcd)."""

    def lfcd(self, x, coords, dims, threshold, signed=False, neighbourhood=26, rowvar=None, method="pearson"):
        """lFCD of x's series at voxels coords of a dims grid (see fastconn.lfcd): int64 counts."""
        check_method(method)
        rule, param = edge_rule(threshold=threshold, signed=signed)
        if isinstance(neighbourhood, bool) or neighbourhood not in NEIGHBOURHOODS:
            raise invalid_argument(f"neighbourhood must be 6, 18 or 26, not {neighbourhood!r}")
        matrix = series_matrix(x, rowvar, "x")
        flat = voxel_coords(coords, matrix.shape[0])
        shape = grid_dims(dims)
        counts = np.empty(matrix.shape[0], dtype=np.int64)
        with self._lock:
            series = self._upload(matrix, method)
            _fc.fc_pcc_lfcd(self._live(), series, flat, shape, int(neighbourhood), rule, param, counts)
            if self._constant == "nan" and _fc.fc_series_info(series)[2] > 0:
                which = np.flatnonzero(np.ptp(matrix, axis=1) == 0)
                warn(f"{len(which)} series of x have zero variance, so they have no correlation: their lFCD is 0 "
                     f"and they join no cluster: {shown_indices(which)} (constant='zero' silences this)",
                     ConstantSeriesWarning)
        return counts


def lfcd(x, coords, dims, threshold, signed=False, neighbourhood=26, rowvar=None, backend=None, precision=None,
         constant=None, method="pearson"):
    """Local functional connectivity density (Tomasi and Volkow 2010, AFNI's 3dLFCD) of x's series,
    each a voxel: coords[s] = (i, j, k) of series s (an (n, 3) integer array, e.g.
    np.argwhere(mask) for series in the mask's C order) on a grid of shape dims = (nx, ny, nz).
    Returns int64 counts: for each seed, the voxels of the cluster grown from it, where a voxel
    adjacent to the cluster (sharing a face: neighbourhood=6; a face or an edge: 18; a face, an edge
    or a corner: 26, AFNI's) joins when its r with the SEED is >= threshold (signed=True) or
    |r| >= threshold (the default). The seed counts itself (>= 1); zero-variance series have no r:
    they never join, and get 0 (one ConstantSeriesWarning with constant="nan"). Only seed-to-
    candidate products are computed, never the N x N matrix; on a CUDA context the clusters grow on
    the GPU, with the same counts as on the CPU. Coordinates off the grid or two series on
    one voxel raise InvalidArgumentError naming them.

    >>> import numpy as np, fastconn
    >>> mask = np.zeros((5, 5, 5), dtype=bool)
    >>> mask[1:4, 1:4, 1:4] = True                   # a 3 x 3 x 3 cube of voxels
    >>> coords = np.argwhere(mask)
    >>> x = np.random.default_rng(0).standard_normal((40, 1)) + 0.3 * np.random.default_rng(1).standard_normal((40, 27))
    >>> counts = fastconn.lfcd(x, coords, mask.shape, threshold=0.5, rowvar=False)
    >>> counts.dtype, counts.shape, bool((counts >= 1).all() and (counts <= 27).all())
    (dtype('int64'), (27,), True)
    >>> fastconn.lfcd(x, coords + 3, mask.shape, threshold=0.5, rowvar=False)
    Traceback (most recent call last):
    ...
    fastconn.InvalidArgumentError: ...
    """
    from . import _context_for  # imported late: the package imports this module
    return _context_for(backend, precision, constant).lfcd(x, coords, dims, threshold, signed, neighbourhood, rowvar,
                                                           method)
