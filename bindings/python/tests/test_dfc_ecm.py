"""fastconn.dfc_ecm (fc_dfc_ecm): row k is ecm() of window k, bit for bit, and numpy's float64
leading eigenvector of (R_k + 1) / 2; tapers, odd sizes, constant series, bad input."""

import numpy as np
import pytest

import fastconn

from conftest import synthetic


def dense_ecm(x):
    w, v = np.linalg.eigh((np.atleast_2d(np.corrcoef(x)) + 1) / 2)
    return np.abs(v[:, -1]), w[-1]


@pytest.mark.parametrize("n", [1, 2, 3, 37, 211])
def test_matches_numpy_per_window(n):
    x = synthetic(n, 130, seed=n)
    c, values = fastconn.dfc_ecm(x, 40, step=15, rowvar=True, precision="fp64", backend="cpu", eigenvalue=True)
    starts = fastconn.window_starts(130, 40, 15)
    assert c.shape == (len(starts), n) and values.shape == (len(starts),)
    for k, b in enumerate(starts):
        expected, lam = dense_ecm(x[:, b:b + 40])
        assert np.linalg.norm(c[k] - expected) <= 1e-6 * np.linalg.norm(expected)
        assert abs(values[k] - lam) <= 1e-6 * lam


def gaussian_weights(length, sigma):
    """fastconn's Gaussian taper (fc_taper): the window's rectangle convolved with a Gaussian,
    restricted to the window, scaled to a maximum of 1."""
    k = np.arange(length)
    w = np.exp(-(k[:, None] - k[None, :]) ** 2 / (2 * sigma ** 2)).sum(axis=1)
    return w / w.max()


def tapered_ecm(x, w):
    """Dense ECM of the weighted correlation: r of sqrt(w) (x - weighted mean), float64."""
    z = (x - (x * w).sum(axis=1, keepdims=True) / w.sum()) * np.sqrt(w)
    z /= np.linalg.norm(z, axis=1, keepdims=True)
    vals, vecs = np.linalg.eigh((z @ z.T + 1) / 2)
    return np.abs(vecs[:, -1])


def test_rectangular_windows_as_ecm_of_the_window():
    x = synthetic(23, 90, seed=5)
    c = fastconn.dfc_ecm(x, 30, step=11, rowvar=True, precision="fp64", backend="cpu")
    for k, b in enumerate(fastconn.window_starts(90, 30, 11)):
        # the window's samples uploaded as a set of their own: the same up to the rows' rounding
        ref = fastconn.ecm(x[:, b:b + 30], rowvar=True, precision="fp64", backend="cpu")
        assert np.abs(c[k] - ref).max() <= 1e-12


def test_gaussian_taper_matches_numpy():
    x = synthetic(19, 100, seed=6)
    c = fastconn.dfc_ecm(x, 40, step=20, taper=("gaussian", 6.0), rowvar=True, precision="fp64", backend="cpu")
    w = gaussian_weights(40, 6.0)
    for k, b in enumerate(fastconn.window_starts(100, 40, 20)):
        expected = tapered_ecm(x[:, b:b + 40], w)
        assert np.linalg.norm(c[k] - expected) <= 1e-6 * np.linalg.norm(expected)


def test_constant_in_one_window():
    x = synthetic(8, 60, seed=3)
    x[2, :20] = 5.0
    with pytest.warns(fastconn.ConstantSeriesWarning):
        c = fastconn.dfc_ecm(x, 20, step=20, rowvar=True, precision="fp64", backend="cpu")
    assert np.isnan(c[0, 2]) and np.isfinite(c[1:]).all()
    z = fastconn.dfc_ecm(x, 20, step=20, rowvar=True, precision="fp64", backend="cpu", constant="zero")
    assert np.isfinite(z).all()


def test_bad_input():
    x = synthetic(5, 40)
    with pytest.raises(fastconn.InvalidArgumentError, match="tolerance"):
        fastconn.dfc_ecm(x, 10, step=5, rowvar=True, tolerance=0.5)
    with pytest.raises(fastconn.InvalidArgumentError, match="length"):
        fastconn.dfc_ecm(x, 1, step=5, rowvar=True)
    with pytest.raises(fastconn.InvalidArgumentError, match="step"):
        fastconn.dfc_ecm(x, 10, step=0, rowvar=True)
