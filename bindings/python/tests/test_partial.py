"""fastconn.partial_correlation against scikit-learn's LedoitWolf / ShrunkCovariance on the
standardized series and numpy's inverse (float64), N > T included; outputs, layouts, bad input."""

import doctest
import sys

import numpy as np
import pytest

sklearn_covariance = pytest.importorskip("sklearn.covariance")

import fastconn

from conftest import synthetic


def reference(x, shrinkage):
    """(partial, precision, intensity) of x (series, time) by sklearn + numpy, float64: the
    estimator on the columns standardized with ddof = 0, as fastconn documents."""
    z = x.T - x.T.mean(axis=0)
    z = z / z.std(axis=0)
    if shrinkage == "ledoit-wolf":
        est = sklearn_covariance.LedoitWolf(store_precision=False, assume_centered=False).fit(z)
        a = est.shrinkage_
    else:
        est = sklearn_covariance.ShrunkCovariance(shrinkage=shrinkage, store_precision=False).fit(z)
        a = shrinkage
    precision = np.linalg.inv(est.covariance_)
    d = np.sqrt(np.diag(precision))
    partial = -precision / np.outer(d, d)
    np.fill_diagonal(partial, 1.0)
    return partial, precision, a


@pytest.mark.parametrize("n,t", [(2, 50), (3, 40), (31, 250), (47, 30), (101, 60)])  # N > T in the last two
@pytest.mark.parametrize("shrinkage", ["ledoit-wolf", 0.3])
def test_matches_sklearn(n, t, shrinkage):
    x = synthetic(n, t, seed=n + t)
    partial, precision, a = reference(x, shrinkage)
    p, used = fastconn.partial_correlation(x, shrinkage=shrinkage, rowvar=True, precision="fp64", backend="cpu",
                                           return_shrinkage=True)
    assert p.shape == (n, n) and p.dtype == np.float64
    assert abs(used - a) <= 1e-12
    assert np.abs(p - partial).max() <= 1e-6
    assert np.all(np.diag(p) == 1.0) and np.array_equal(p, p.T)
    q = fastconn.partial_correlation(x.T, shrinkage=shrinkage, output="precision", rowvar=False, precision="fp64",
                                     backend="cpu")
    assert np.abs(q - precision).max() <= 1e-6 * np.abs(precision).max()


def test_fmri_rows_and_fp32(fmri):
    partial, _, _ = reference(fmri.T, "ledoit-wolf")
    p64 = fastconn.partial_correlation(fmri, rowvar=False, precision="fp64", backend="cpu")
    assert np.abs(p64 - partial).max() <= 1e-6
    p32 = fastconn.partial_correlation(fmri, rowvar=False, backend="cpu")  # float rows: looser
    assert np.abs(p32 - partial).max() <= 1e-3


def test_triangle_orders():
    x = synthetic(13, 70, seed=5)
    p = fastconn.partial_correlation(x, rowvar=True, precision="fp64", backend="cpu")
    row = fastconn.partial_correlation(x, rowvar=True, precision="fp64", backend="cpu", triu=True)
    assert np.array_equal(row, p[np.triu_indices(13, 1)])
    col = fastconn.partial_correlation(x, rowvar=True, precision="fp64", backend="cpu", triu=True, order="col",
                                       output="precision")
    q = fastconn.partial_correlation(x, rowvar=True, precision="fp64", backend="cpu", output="precision")
    for i, j in [(0, 1), (2, 11), (11, 12)]:
        assert col[fastconn.triu_offset(13, i, j, order="col")] == q[i, j]


def test_context_method_same_bits():
    x = synthetic(9, 40, seed=2)
    with fastconn.Context(backend="cpu", precision="fp64") as ctx:
        a = ctx.partial_correlation(x, shrinkage=0.2, rowvar=True)
    b = fastconn.partial_correlation(x, shrinkage=0.2, rowvar=True, backend="cpu", precision="fp64")
    assert np.array_equal(a, b)


def test_bad_input():
    x = synthetic(6, 30, seed=1)
    with pytest.raises(fastconn.InvalidArgumentError, match="1.5"):
        fastconn.partial_correlation(x, shrinkage=1.5, rowvar=True)
    with pytest.raises(fastconn.InvalidArgumentError, match="nan"):
        fastconn.partial_correlation(x, shrinkage=float("nan"), rowvar=True)
    with pytest.raises(ValueError, match="shrinkage"):
        fastconn.partial_correlation(x, shrinkage="oas", rowvar=True)
    with pytest.raises(ValueError, match="output"):
        fastconn.partial_correlation(x, output="covariance", rowvar=True)
    constant = x.copy()
    constant[3] = 2.0
    with pytest.raises(fastconn.InvalidArgumentError, match="3"):
        fastconn.partial_correlation(constant, rowvar=True)
    # no shrinkage with N > T - 1: R is singular
    with pytest.raises(fastconn.InvalidArgumentError):
        fastconn.partial_correlation(synthetic(20, 10), shrinkage=0.0, rowvar=True)


def test_docstrings():
    from fastconn import partial
    failed, tried = doctest.testmod(partial, optionflags=doctest.ELLIPSIS)
    assert tried > 0 and failed == 0
