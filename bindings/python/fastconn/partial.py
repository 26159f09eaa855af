"""Partial correlation and precision of a region set (nilearn's ConnectivityMeasure kinds
"partial correlation" and "precision", with its Ledoit-Wolf shrinkage by default).

partial_correlation(x): the series are standardized (population sd), their correlation matrix R
shrunk to S = (1 - a) R + a I (a: Ledoit-Wolf's automatic intensity, exactly as scikit-learn's
ledoit_wolf_shrinkage computes it, or a given number in [0, 1]), inverted by Cholesky (the
precision P), and output="partial" gives -P_ij / sqrt(P_ii P_jj) with diagonal 1
(fc_partial_correlation / fc_partial_correlation_triu). So sklearn's LedoitWolf().fit(z) on the
standardized columns z has S as covariance_ and P as its inverse. N > T is fine with a > 0.

>>> import numpy as np, fastconn
>>> from sklearn.covariance import LedoitWolf
>>> x, regions = fastconn.data.timeseries()
>>> p, a = fastconn.partial_correlation(x, rowvar=False, precision="fp64", return_shrinkage=True)
>>> z = (x - x.mean(0)) / x.std(0)
>>> lw = LedoitWolf().fit(z)
>>> prec = np.linalg.inv(lw.covariance_)
>>> d = np.sqrt(np.diag(prec))
>>> ref = -prec / np.outer(d, d)
>>> np.fill_diagonal(ref, 1.0)
>>> bool(np.abs(p - ref).max() < 1e-8), bool(abs(a - lw.shrinkage_) < 1e-12)
(True, True)
>>> q = fastconn.partial_correlation(x, shrinkage=0.1, output="precision", rowvar=False, precision="fp64")
>>> q.shape, q.dtype
((31, 31), dtype('float64'))
>>> fastconn.partial_correlation(x, shrinkage=1.5, rowvar=False)
Traceback (most recent call last):
...
fastconn.InvalidArgumentError: ...
"""

import numpy as np

from . import _fastconn as _fc
from .layout import series_matrix
from .options import ORDERS, lookup, real

__all__ = ["PARTIAL_OUTPUTS", "PartialMethods", "partial_correlation"]

#: the `output` argument: the partial correlation matrix or the precision (inverse of S)
PARTIAL_OUTPUTS = {"partial": _fc.FC_PARTIAL_CORRELATION, "precision": _fc.FC_PARTIAL_PRECISION}

#: the automatic intensity (the C library's FC_SHRINKAGE_LEDOIT_WOLF)
LEDOIT_WOLF = "ledoit-wolf"


def shrinkage_value(shrinkage):
    """The C shrinkage argument: -1 (FC_SHRINKAGE_LEDOIT_WOLF) for "ledoit-wolf", else the real
    number given (its range, [0, 1], is checked by fastconn, which names the value)."""
    if isinstance(shrinkage, str):
        if shrinkage != LEDOIT_WOLF:
            raise ValueError(f"shrinkage must be {LEDOIT_WOLF!r} or a number in [0, 1], got {shrinkage!r}")
        return _fc.FC_SHRINKAGE_LEDOIT_WOLF
    return real(shrinkage, "shrinkage")


class PartialMethods:
    """The partial-correlation computation of fastconn.Context (see fastconn.partial)."""

    def partial_correlation(self, x, shrinkage=LEDOIT_WOLF, output="partial", triu=False, order="row", rowvar=None,
                            return_shrinkage=False):
        """Partial correlation (or precision) of x's series (see fastconn.partial_correlation)."""
        code = lookup(PARTIAL_OUTPUTS, output, "output")
        order_code = lookup(ORDERS, order, "order")
        a = shrinkage_value(shrinkage)
        matrix = series_matrix(x, rowvar, "x")
        n = matrix.shape[0]
        with self._lock:
            series = self._upload(matrix)
            if triu:
                out = np.empty(_fc.fc_triu_size(n), dtype=np.float64)
                used = _fc.fc_partial_correlation_triu(self._live(), series, a, code, order_code, out)
            else:
                out = np.empty((n, n), dtype=np.float64)
                used = _fc.fc_partial_correlation(self._live(), series, a, code, out)
        return (out, float(used)) if return_shrinkage else out


def partial_correlation(x, shrinkage=LEDOIT_WOLF, output="partial", triu=False, order="row", rowvar=None,
                        return_shrinkage=False, backend=None, precision=None):
    """Partial correlation (output="partial") or precision (output="precision") of x's series,
    float64: nilearn's ConnectivityMeasure(kind="partial correlation" / "precision") with its
    default Ledoit-Wolf shrinkage, without the Python covariance estimator.

    shrinkage: "ledoit-wolf" (the automatic intensity, as sklearn's LedoitWolf on the standardized
        series) or a number a in [0, 1] (sklearn's ShrunkCovariance(shrinkage=a)); a = 0 needs
        N <= T - 1 (the correlation matrix is singular otherwise), a > 0 works for any N, T.
    triu=True: the strict upper triangle, N(N-1)/2 values in `order` ("row": numpy's
        triu_indices(N, 1); "col": grouped by the larger index), instead of the N x N matrix.
    return_shrinkage=True: (result, the intensity applied).
    precision="fp64" stores the series in float64 (use it for float64 accuracy: partial
    correlations amplify rounding by the conditioning of S). A constant series raises
    InvalidArgumentError naming it (its precision row is undefined). Computed in float64 on the
    context's backend: BLAS and a Cholesky inverse on the host (CPU), cuBLAS and cuSOLVER on the
    device (CUDA; agrees with the CPU to rounding amplified by S's conditioning, see fastconn.h).
    See fastconn.partial for an example against scikit-learn.

    >>> import numpy as np, fastconn
    >>> x, regions = fastconn.data.timeseries()
    >>> p = fastconn.partial_correlation(x, rowvar=False)
    >>> p.shape, p.dtype, bool(np.all(np.diag(p) == 1))
    ((31, 31), dtype('float64'), True)
    >>> t = fastconn.partial_correlation(x, rowvar=False, triu=True)
    >>> bool(np.array_equal(t, p[np.triu_indices(31, 1)]))
    True
    """
    from . import _context_for  # imported late: the package imports this module
    return _context_for(backend, precision, None).partial_correlation(x, shrinkage, output, triu, order, rowvar,
                                                                       return_shrinkage)
