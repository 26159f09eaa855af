"""fastconn.ecm with an edge rule (fc_pcc_ecm_thresholded, Lohmann et al. 2010) against numpy
float64: the dense correlation matrix, thresholded (|r| >= t, r >= t, or the densest pairs),
binary or weighted, and np.linalg.eigh; and against igraph's eigenvector_centrality of the same
network. Odd sizes, constant series, bad input."""

import numpy as np
import pytest
import scipy.stats

import fastconn

from conftest import synthetic

igraph = pytest.importorskip("igraph")


def dense_thresholded(x, rule, param, weights):
    """The thresholded matrix of x (series, time) by numpy, float64, diagonal 0."""
    r = np.corrcoef(x)
    n = r.shape[0]
    if rule == "threshold":
        keep = np.abs(r) >= param
    elif rule == "signed":
        keep = r >= param
    else:  # density: the ceil(d * pairs) largest |r| (no ties in these data)
        iu = np.triu_indices(n, 1)
        count = int(np.ceil(param * iu[0].size))
        keep = np.zeros((n, n), dtype=bool)
        if count:
            order = np.argsort(-np.abs(r[iu]), kind="stable")[:count]
            keep[iu[0][order], iu[1][order]] = True
        keep |= keep.T
    np.fill_diagonal(keep, False)
    values = {"binary": 1.0, "abs": np.abs(r), "r": r}[weights]
    return np.where(keep, values, 0.0)


def leading(a):
    w, v = np.linalg.eigh(a)
    return np.abs(v[:, -1]), w[-1]


def call(x, rule, param, weights, **kw):
    args = {"threshold": dict(threshold=param), "signed": dict(threshold=param, signed=True),
            "density": dict(density=param)}[rule]
    return fastconn.ecm(x, rowvar=True, precision="fp64", backend="cpu", weights=weights, eigenvalue=True, **args,
                        **kw)


CASES = [("threshold", 0.3, "binary"), ("threshold", 0.25, "abs"), ("signed", 0.2, "r"), ("density", 0.1, "binary"),
         ("density", 0.05, "abs")]


@pytest.mark.parametrize("n", [41, 301, 2000])
@pytest.mark.parametrize("rule,param,weights", CASES)
def test_matches_numpy_eigh(n, rule, param, weights):
    if n == 2000 and rule != "density":
        pytest.skip("one rule at the largest size keeps the test short")
    x = synthetic(n, 120, seed=n)
    a = dense_thresholded(x, rule, param, weights)
    expected, lam = leading(a)
    c, value = call(x, rule, param, weights)
    assert c.dtype == np.float64 and c.shape == (n,)
    assert np.all(c >= 0) and abs(np.linalg.norm(c) - 1) < 1e-12
    # relative error in the vector and the eigenvalue (the leading eigenvalue of these
    # connected networks is simple)
    assert np.linalg.norm(c - expected) <= 1e-6 * np.linalg.norm(expected)
    assert abs(value - lam) <= 1e-6 * lam


@pytest.mark.parametrize("weights", ["binary", "abs"])
def test_matches_igraph(weights):
    x = synthetic(97, 150, seed=4)
    g = fastconn.network(x, density=0.08, weights=weights, rowvar=True, precision="fp64", backend="cpu")
    ig = fastconn.to_igraph(g)
    expected = np.array(ig.eigenvector_centrality(scale=True, weights="weight" if weights != "binary" else None))
    c = fastconn.ecm(x, rowvar=True, density=0.08, weights=weights, precision="fp64", backend="cpu")
    # the same vector up to scaling: igraph scales to a largest entry of 1
    assert np.abs(c / c.max() - expected).max() <= 1e-6


def test_odd_sizes_and_constant():
    x = synthetic(7, 60, seed=8)
    for n in (1, 2, 3):
        c, lam = call(x[:n], "density", 1.0, "binary")
        assert np.allclose(c, 1 / np.sqrt(n), rtol=0, atol=1e-12) and abs(lam - (n - 1)) < 1e-12
    xc = x.copy()
    xc[4] = 2.5
    c, lam = call(xc, "threshold", 0.0, "binary")  # every pair but the constant series' ones
    assert c[4] == 0
    expected, _ = leading(dense_thresholded(np.delete(xc, 4, axis=0), "threshold", 0.0, "binary"))
    assert np.abs(np.delete(c, 4) - expected).max() < 1e-12
    # no edges at all: 1/sqrt(N) everywhere, lambda 0
    c, lam = call(x, "threshold", 1.0, "abs")
    assert lam == 0 and np.array_equal(c, np.full(7, 1 / np.sqrt(7)))


def test_spearman_and_fp32():
    x = np.round(synthetic(50, 90, seed=2))
    c32 = fastconn.ecm(x, rowvar=True, density=0.2, backend="cpu")
    c64 = fastconn.ecm(x, rowvar=True, density=0.2, backend="cpu", precision="fp64")
    assert np.abs(c32 - c64).max() < 1e-4  # float rows: no pair at the density's edge flips here
    s = fastconn.ecm(x, rowvar=True, threshold=0.3, backend="cpu", precision="fp64", method="spearman")
    expected, _ = leading(dense_thresholded(scipy.stats.rankdata(x, axis=1), "threshold", 0.3, "binary"))
    assert np.abs(s - expected).max() < 1e-8


def test_bad_input():
    x = synthetic(6, 30, seed=1)
    with pytest.raises(fastconn.InvalidArgumentError, match="nan"):
        fastconn.ecm(x, rowvar=True, threshold=float("nan"))
    with pytest.raises(fastconn.InvalidArgumentError, match="1.5"):
        fastconn.ecm(x, rowvar=True, density=1.5)
    with pytest.raises(fastconn.InvalidArgumentError, match="-0.1"):
        fastconn.ecm(x, rowvar=True, density=-0.1)
    with pytest.raises(fastconn.InvalidArgumentError, match="weight"):  # r < 0 on an |r| edge
        fastconn.ecm(x, rowvar=True, density=1.0, weights="r")
    with pytest.raises(ValueError, match="weights"):
        fastconn.ecm(x, rowvar=True, density=0.5, weights="log")
    with pytest.raises(ValueError, match="threshold"):
        fastconn.ecm(x, rowvar=True, weights="abs")
    with pytest.raises(ValueError, match="exactly one"):
        fastconn.ecm(x, rowvar=True, threshold=0.3, density=0.1)
