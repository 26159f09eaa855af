"""fastconn.graph / edges / network: the correlation network as scipy CSR and as an edge list,
checked against numpy.corrcoef in float64 (threshold) and against fastconn's own triangle for
the ranking rules (density, top-k), whose ties only the exact float32 values can decide."""

import math

import numpy as np
import pytest
import scipy.sparse
import scipy.sparse.csgraph

import fastconn

from conftest import TOL, synthetic
from graph_reference import (adjacency, assert_well_formed, density_from_triangle, pair_indices, tie_cut_densities,
                             top_k_from_triangle)

# Pairs whose float64 |r| lies this close to a threshold may fall on either side in float32.
NEAR = 1e-6
# Edge weights are stored as float32, so even fp64 results carry float32 rounding.
WEIGHT_TOL = {"fp32": TOL["fp32"], "fp64": 1e-7}


def reference(x, rowvar=True):
    with np.errstate(invalid="ignore", divide="ignore"):  # constant series: NaN, like fastconn's "nan"
        return np.corrcoef(x, rowvar=rowvar)


def duplicated(n=60, t=120, seed=11):
    """Synthetic series where every 7th series from the 6th on is a copy of series 3: the copies
    correlate at exactly 1 with each other and identically with any other series (exact ties)."""
    x = synthetic(n, t, seed)
    x[5::7] = x[3]
    return x


def assert_threshold_graph(g, r64, threshold, signed, precision):
    """g holds the pairs with r (signed) or |r| >= threshold in float64, except pairs within NEAR
    of the threshold, weighing r; and the comparison is not trivially satisfied."""
    n = r64.shape[0]
    iu = np.triu_indices(n, 1)
    value = r64[iu] if signed else np.abs(r64[iu])
    expected = value >= threshold
    got = adjacency(g)[iu]
    near = np.abs(value - threshold) <= NEAR
    assert np.all((got == expected) | near), f"{np.sum((got != expected) & ~near)} pairs differ away from the threshold"
    assert 0.02 < expected.mean() < 0.9, "the threshold should keep some pairs and drop others"
    weights = g.toarray()[iu][got]
    assert np.max(np.abs(weights - r64[iu][got])) <= WEIGHT_TOL[precision]


@pytest.mark.parametrize("precision", ["fp32", "fp64"])
@pytest.mark.parametrize("signed,threshold", [(False, 0.3), (True, 0.2), (True, -0.1)])
def test_threshold_matches_float64_reference(series, precision, signed, threshold):
    g = fastconn.graph(series, threshold=threshold, signed=signed, precision=precision)
    assert isinstance(g, scipy.sparse.csr_matrix)
    assert_well_formed(g, series.shape[0])
    r64 = reference(series)
    assert_threshold_graph(g, r64, threshold, signed, precision)
    if not signed:
        assert g.data.min() < 0, "|r| >= 0.3 should keep negative correlations too"


def test_weights_follow_the_flag(series):
    r = fastconn.graph(series, threshold=0.3)  # weights="r" is the default
    a = fastconn.graph(series, threshold=0.3, weights="abs")
    b = fastconn.graph(series, threshold=0.3, weights="binary")
    for other in (a, b):
        np.testing.assert_array_equal(other.indptr, r.indptr)
        np.testing.assert_array_equal(other.indices, r.indices)
    assert r.data.min() < 0
    np.testing.assert_array_equal(a.data, np.abs(r.data))
    np.testing.assert_array_equal(b.data, np.ones_like(r.data))


def test_csr_arrays_are_int32_when_they_fit_so_csgraph_takes_them(series):
    g = fastconn.graph(series, density=0.05)
    assert g.indptr.dtype == np.int32 and g.indices.dtype == np.int32 and g.data.dtype == np.float32
    assert g.has_sorted_indices and g.has_canonical_format
    g.check_format(full_check=True)
    # scipy.sparse.csgraph refuses int64 indices ("Buffer dtype mismatch"); these it takes as they are
    n_components, labels = scipy.sparse.csgraph.connected_components(g, directed=False)
    reference = scipy.sparse.csgraph.connected_components(scipy.sparse.csr_matrix(g.toarray()), directed=False)
    assert n_components == reference[0] and np.array_equal(labels, reference[1])
    distances = scipy.sparse.csgraph.shortest_path(abs(g), directed=False)
    assert distances.shape == (120, 120) and np.all(np.diag(distances) == 0)


def test_csr_index_dtype_is_int64_past_int32():
    from fastconn.network import index_dtype
    limit = np.iinfo(np.int32).max
    assert index_dtype(10, 20) == np.int32 and index_dtype(limit, limit) == np.int32
    assert index_dtype(10, limit + 1) == np.int64 and index_dtype(limit + 1, 0) == np.int64


def test_edges_are_the_upper_triangle_of_the_graph(series):
    net = fastconn.network(series, threshold=0.25, weights="r")
    assert isinstance(net, fastconn.Graph)
    g = net.tocsr()
    i, j, w = net.edges()
    assert i.dtype == np.int64 and j.dtype == np.int64 and w.dtype == np.float32
    assert net.n_nodes == 120 and net.n_edges == i.size == g.nnz // 2 > 0
    assert np.all(i < j)
    assert np.all(np.diff(i * 120 + j) > 0), "sorted by (i, j)"
    upper = scipy.sparse.triu(g, 1).tocoo()
    order = np.lexsort((upper.col, upper.row))
    np.testing.assert_array_equal(i, upper.row[order])
    np.testing.assert_array_equal(j, upper.col[order])
    np.testing.assert_array_equal(w, upper.data[order])
    # the module functions build the same graph
    i2, j2, w2 = fastconn.edges(series, threshold=0.25)
    np.testing.assert_array_equal(i2, i)
    np.testing.assert_array_equal(j2, j)
    np.testing.assert_array_equal(w2, w)
    assert (fastconn.graph(series, threshold=0.25) != g).nnz == 0


@pytest.mark.parametrize("precision", ["fp32", "fp64"])
def test_density_keeps_the_exact_count_with_ties_by_pair_index(precision):
    x = duplicated()
    n = x.shape[0]
    pairs = n * (n - 1) // 2
    triangle = fastconn.pcc_triu(x, precision=precision)  # the float32 values the rule ranks
    cuts = tie_cut_densities(triangle)
    assert cuts, "the duplicated series should give runs of exactly equal |r|"
    for density in [0.0, 0.01, 0.1, 0.37, 0.999, 1.0] + cuts:
        count = math.ceil(density * pairs)
        g = fastconn.graph(x, density=density, weights="abs", precision=precision)
        assert_well_formed(g, n)
        assert g.nnz == 2 * count, f"density {density}: ceil(d * N(N-1)/2) = {count} edges"
        np.testing.assert_array_equal(pair_indices(g), density_from_triangle(triangle, count),
                                      err_msg=f"density {density}")


def test_density_matches_float64_reference_outside_the_cut(series):
    n = series.shape[0]
    pairs = n * (n - 1) // 2
    count = math.ceil(0.05 * pairs)
    g = fastconn.graph(series, density=0.05)
    assert g.nnz == 2 * count
    value = np.abs(reference(series)[np.triu_indices(n, 1)])
    cutoff = np.sort(value)[::-1][count - 1]
    chosen = np.zeros(pairs, dtype=bool)
    chosen[pair_indices(g)] = True
    # every kept pair is at least the cutoff and every dropped one at most, up to FP32 error
    assert value[chosen].min() >= cutoff - TOL["fp32"]
    assert value[~chosen].max() <= cutoff + TOL["fp32"]


@pytest.mark.parametrize("k", [1, 3, 10, 59, 500])
def test_topk_is_the_symmetric_union_of_each_rows_best(k):
    x = duplicated()
    n = x.shape[0]
    triangle = fastconn.pcc_triu(x)
    g = fastconn.graph(x, topk=k)
    assert_well_formed(g, n)
    np.testing.assert_array_equal(pair_indices(g), top_k_from_triangle(triangle, n, k))
    degree = np.diff(g.indptr)
    assert degree.min() >= min(k, n - 1)
    if k >= n - 1:
        assert g.nnz == n * (n - 1)
    else:
        assert degree.max() > k, "the union should give some series more than k edges"
    # weights are r, to the float64 reference
    iu = np.triu_indices(n, 1)
    got = adjacency(g)[iu]
    assert np.max(np.abs(g.toarray()[iu][got] - reference(x)[iu][got])) <= TOL["fp32"]


RULES = [dict(threshold=0.0), dict(threshold=-1.0, signed=True), dict(density=0.5), dict(density=1.0), dict(topk=3)]


@pytest.mark.parametrize("rule", RULES, ids=lambda r: ",".join(f"{k}={v}" for k, v in r.items()))
def test_constant_series_get_no_edges(series, rule):
    x = series[:40].copy()
    x[4] = 7.5
    x[10] = 0.0
    g = fastconn.graph(x, **rule)
    assert_well_formed(g, 40)
    connected = adjacency(g)
    assert not connected[[4, 10]].any() and not connected[:, [4, 10]].any()
    others = np.setdiff1d(np.arange(40), [4, 10])
    if "topk" in rule:
        assert np.diff(g.indptr)[others].min() >= 3
    elif rule.get("density") != 0.5:  # every pair of non-constant series qualifies
        assert g.nnz == 38 * 37
    else:
        assert g.nnz == 2 * math.ceil(0.5 * 40 * 39 / 2)


def test_real_roi_data_at_realistic_settings(fmri):
    """nitime's 31 ROI series: |r| >= 0.5, a 10% density and 3 nearest neighbours."""
    r64 = reference(fmri, rowvar=False)
    g = fastconn.graph(fmri, threshold=0.5, rowvar=False)
    assert_well_formed(g, 31)
    assert_threshold_graph(g, r64, 0.5, False, "fp32")

    d = fastconn.graph(fmri, density=0.1, rowvar=False, weights="abs")
    assert d.nnz == 2 * math.ceil(0.1 * 465)  # 47 edges
    np.testing.assert_array_equal(pair_indices(d), density_from_triangle(fastconn.pcc_triu(fmri, rowvar=False), 47))
    assert np.abs(d.data - np.abs(r64[adjacency(d)])).max() <= TOL["fp32"]

    t = fastconn.graph(fmri, topk=3, rowvar=False)
    assert np.diff(t.indptr).min() >= 3

    # the same series in other layouts (read in place through their strides) give the same graph
    for layout in (np.asfortranarray(fmri), fmri.T.copy()):
        other = fastconn.graph(layout, threshold=0.5, rowvar=layout.shape[0] == 31)
        np.testing.assert_array_equal(other.indices, g.indices)
        np.testing.assert_array_equal(other.data, g.data)


def test_graph_runs_on_the_given_context_with_progress(series):
    reports = []
    ctx = fastconn.Context(backend="cpu", memory_limit=120 * 8 * 10, progress=lambda d, t: reports.append((d, t)))
    with ctx:
        g = fastconn.graph(series, threshold=0.3)
    assert reports and reports[-1][0] == reports[-1][1]
    ctx.progress = lambda d, t: d > 0  # a true return cancels
    with pytest.raises(fastconn.AbortedError):
        ctx.graph(series, threshold=0.3)
    with pytest.raises(fastconn.AbortedError):
        ctx.degree(series, threshold=0.3)
    ctx.progress = None
    assert (ctx.graph(series, threshold=0.3) != g).nnz == 0
