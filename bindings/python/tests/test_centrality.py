"""fastconn.ecm, eigenvector_centrality, Spearman (method="spearman", spearman()) and fisher_z,
against numpy float64 dense eigenvectors, igraph, scipy.stats.spearmanr and numpy.arctanh."""

import doctest
import sys
import warnings

import numpy as np
import pytest
import scipy.sparse
import scipy.stats

import fastconn

from conftest import synthetic


def dense_ecm(x):
    """The leading eigenvector of (R + 1) / 2 by numpy (float64), unit norm, positive; lambda."""
    r = np.corrcoef(x)
    w, v = np.linalg.eigh((r + 1) / 2)
    return np.abs(v[:, -1]), w[-1]


@pytest.mark.parametrize("n", [2, 40, 300])
def test_ecm_matches_dense_float64(n):
    x = synthetic(n, 150, seed=n)
    expected, lam = dense_ecm(x)
    c, value = fastconn.ecm(x, rowvar=True, precision="fp64", backend="cpu", eigenvalue=True)
    assert c.dtype == np.float64 and c.shape == (n,)
    assert np.abs(c - expected).max() <= 1e-6 * np.abs(expected).max()
    assert abs(value - lam) <= 1e-6 * lam
    # fp32 storage: still close; rowvar=False reads the transpose
    c32 = fastconn.ecm(x.T, rowvar=False, backend="cpu")
    assert np.abs(c32 - expected).max() < 1e-4


def test_ecm_spearman_is_ecm_of_ranks():
    x = np.round(synthetic(30, 80, seed=3))  # ties
    ranks = scipy.stats.rankdata(x, axis=1)
    expected, _ = dense_ecm(ranks)
    c = fastconn.ecm(x, rowvar=True, method="spearman", precision="fp64", backend="cpu")
    assert np.abs(c - expected).max() < 1e-8


def test_ecm_constant_series():
    x = synthetic(10, 60)
    x[4] = 3.0
    with pytest.warns(fastconn.ConstantSeriesWarning, match="4"):
        c = fastconn.ecm(x, rowvar=True, precision="fp64", backend="cpu")
    assert np.isnan(c[4]) and not np.isnan(np.delete(c, 4)).any()
    expected, _ = dense_ecm(np.delete(x, 4, axis=0))
    assert np.abs(np.delete(c, 4) - expected).max() < 1e-8
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        z = fastconn.ecm(x, rowvar=True, constant="zero", backend="cpu")
    assert np.isfinite(z).all() and (z >= 0).all()


def test_ecm_bad_values_named():
    x = synthetic(5, 30)
    with pytest.raises(fastconn.InvalidArgumentError, match="0.5"):
        fastconn.ecm(x, rowvar=True, tolerance=0.5)
    with pytest.raises(fastconn.InvalidArgumentError, match="kendall"):
        fastconn.ecm(x, rowvar=True, method="kendall")
    with pytest.raises(TypeError, match="tolerance"):
        fastconn.ecm(x, rowvar=True, tolerance="small")
    x[2, 7] = np.nan
    with pytest.raises(fastconn.InvalidArgumentError, match="2"):
        fastconn.ecm(x, rowvar=True)


def test_graph_centrality_matches_igraph():
    igraph = pytest.importorskip("igraph")
    x = synthetic(50, 120, seed=5)
    g = fastconn.network(x, density=0.15, weights="abs", rowvar=True)
    ig = g.to_igraph()
    for weighted in (True, False):
        c, lam = g.eigenvector_centrality(weighted=weighted, eigenvalue=True)
        ref, ref_lam = ig.eigenvector_centrality(scale=True, weights="weight" if weighted else None,
                                                 return_eigenvalue=True)
        assert np.abs(c - np.asarray(ref)).max() < 1e-6
        assert abs(lam - ref_lam) < 1e-6 * ref_lam
        assert c.max() == 1.0


def test_graph_centrality_inputs_and_errors():
    a = np.zeros((4, 4))
    a[0, 1] = a[1, 0] = 2.0
    a[1, 2] = a[2, 1] = 1.0
    dense = fastconn.eigenvector_centrality(a)
    assert np.allclose(dense, fastconn.eigenvector_centrality(scipy.sparse.csr_matrix(a)))
    w, v = np.linalg.eigh(a)
    assert np.abs(dense - np.abs(v[:, -1]) / np.abs(v[:, -1]).max()).max() < 1e-8
    assert abs(dense[3]) < 1e-12  # node 3 is isolated: outside the leading component
    empty, lam = fastconn.eigenvector_centrality(np.zeros((3, 3)), eigenvalue=True)
    assert np.array_equal(empty, np.ones(3)) and lam == 0.0
    a[2, 3] = a[3, 2] = -1.0
    with pytest.raises(fastconn.InvalidArgumentError, match="-1"):
        fastconn.eigenvector_centrality(a)
    with pytest.raises(fastconn.InvalidArgumentError, match=r"tolerance is 9\.9+5e-21"):
        fastconn.eigenvector_centrality(np.zeros((3, 3)), tolerance=1e-20)
    with pytest.raises(TypeError, match="graph"):
        fastconn.eigenvector_centrality("graph")


@pytest.mark.parametrize("precision, tol", [("fp32", 1e-5), ("fp64", 1e-12)])
def test_spearman_matches_scipy_with_ties(precision, tol):
    x = np.round(synthetic(20, 90, seed=9))  # ties
    assert max(90 - np.unique(row).size for row in x) > 10 and np.ptp(x, axis=1).min() > 0
    expected = scipy.stats.spearmanr(x, axis=1).statistic
    assert np.abs(fastconn.spearman(x, rowvar=True, precision=precision) - expected).max() < tol
    assert np.abs(fastconn.corrcoef(x.T, rowvar=False, method="spearman", precision=precision) - expected).max() < tol
    triu = fastconn.pcc_triu(x, rowvar=True, method="spearman", precision=precision)
    assert np.abs(triu - expected[np.triu_indices(20, 1)]).max() < tol
    cross = fastconn.cross(x[:3], x, rowvar=True, method="spearman", precision=precision)
    assert np.abs(cross - expected[:3]).max() < tol
    k, s = fastconn.degree(x, threshold=0.3, rowvar=True, method="spearman", precision=precision)
    near = np.abs(np.abs(expected) - 0.3) < 1e-6
    strong = (np.abs(expected) >= 0.3) & ~np.eye(20, dtype=bool)
    assert np.array_equal(k, strong.sum(axis=1)) or near.any()
    g = fastconn.graph(x, threshold=0.3, rowvar=True, method="spearman", precision=precision).toarray()
    assert np.array_equal(g != 0, strong) or near.any()
    # Pearson stays Pearson
    assert np.abs(fastconn.corrcoef(x, rowvar=True, precision="fp64") - np.corrcoef(x)).max() < 1e-12


def test_spearman_bad_method_and_constant():
    x = synthetic(6, 40)
    with pytest.raises(fastconn.InvalidArgumentError, match="'rank'"):
        fastconn.corrcoef(x, rowvar=True, method="rank")
    x[1] = 5.0
    with pytest.warns(fastconn.ConstantSeriesWarning, match="1"):
        rho = fastconn.spearman(x, rowvar=True)
    assert np.isnan(rho[1]).all()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fisher_z_matches_arctanh(dtype):
    r = fastconn.corrcoef(synthetic(25, 70), rowvar=True, dtype=dtype)
    z = fastconn.fisher_z(r)
    assert z is not r and z.dtype == dtype and z.shape == r.shape
    off = ~np.eye(25, dtype=bool)
    np.testing.assert_array_max_ulp(z[off], np.arctanh(r)[off], maxulp=2)  # libm's atanh vs numpy's
    assert np.isposinf(np.diag(z)).all()
    assert fastconn.fisher_z(r, out=r) is r and np.array_equal(r, z)  # in place: the same bits
    assert np.array_equal(fastconn.fisher_z(np.array([1.0, -1.0, np.nan])), [np.inf, -np.inf, np.nan],
                          equal_nan=True)
    assert fastconn.fisher_z([0.5]).dtype == np.float64 and fastconn.fisher_z([0, 1]).dtype == np.float32


def test_fisher_z_bad_value_named_and_untouched():
    r = np.array([0.1, 0.2, 1.25, -3.0])
    with pytest.raises(fastconn.InvalidArgumentError, match="1.25"):
        fastconn.fisher_z(r, out=r)
    assert np.array_equal(r, [0.1, 0.2, 1.25, -3.0])
    with pytest.raises(ValueError, match="contiguous"):
        fastconn.fisher_z(np.zeros((4, 4))[:, 1], out=np.zeros((4, 4))[:, 1])
    with pytest.raises(TypeError, match="float32 or float64"):
        fastconn.fisher_z(np.zeros(3, dtype=np.int64), out=np.zeros(3, dtype=np.int64))


def test_doctests_from_any_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the examples read fastconn.data, not files next to the tests
    import fastconn.centrality
    for module in (fastconn.centrality, sys.modules["fastconn.network"], fastconn):
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        assert result.failed == 0 and result.attempted > 0, module.__name__
