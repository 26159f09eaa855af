"""Arguments of the network functions: rule / weights errors naming the value, fastconn.Graph
from scipy matrices (validated by fastconn), and the low-level length checks that keep
fc_graph_csr / fc_graph_edges / fc_graph_create_csr / fc_pcc_degree within the arrays."""

import re

import numpy as np
import pytest
import scipy.sparse

import fastconn
from fastconn import _fastconn as _fc

from conftest import synthetic


@pytest.fixture
def x():
    return synthetic(12, 60)


BAD_RULES = [
    (dict(), "exactly one edge rule"),
    (dict(threshold=0.5, density=0.1), "threshold=0.5, density=0.1"),
    (dict(density=1.5), "density must be one number in [0, 1] (the fraction of all pairs kept), not 1.5"),
    (dict(density=-0.25), "density must be one number in [0, 1] (the fraction of all pairs kept), not -0.25"),
    (dict(topk=0), "topk must be one whole number >= 1 (partners kept per series), not 0"),
    (dict(topk=2.5), "topk must be one whole number >= 1 (partners kept per series), not 2.5"),
    (dict(threshold=float("nan")), "threshold must be one number in [-1, 1], not nan"),
    (dict(threshold=float("inf")), "threshold must be one number in [-1, 1], not inf"),
    (dict(threshold=-0.3), "threshold=-0.3 with signed=False keeps every pair"),
    (dict(density=0.1, signed=True), "density=0.1"),
]


@pytest.mark.parametrize("function", [fastconn.graph, fastconn.edges, fastconn.network, fastconn.degree])
@pytest.mark.parametrize("rule,message", BAD_RULES, ids=[m for _, m in BAD_RULES])
def test_bad_rule_raises_value_error_naming_the_value(x, function, rule, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        function(x, **rule)


@pytest.mark.parametrize("function", [fastconn.graph, fastconn.edges, fastconn.network])
def test_bad_weights_names_the_value(x, function):
    with pytest.raises(ValueError, match=re.escape("'signed'")):
        function(x, threshold=0.3, weights="signed")


@pytest.mark.parametrize("rule", [dict(topk="3"), dict(threshold=True), dict(density=[0.1])])
def test_non_numbers_raise_type_error(x, rule):
    with pytest.raises(TypeError, match="real number"):
        fastconn.graph(x, **rule)


def test_rule_rejection_carries_status(x):
    with pytest.raises(fastconn.InvalidArgumentError) as info:
        fastconn.graph(x, density=2.0, rowvar=True)
    assert info.value.status == _fc.FC_ERR_INVALID_ARG
    # The C library checks the ranges too, for callers of the low-level module, naming the call.
    ctx = _fc.fc_context_create(_fc.FC_BACKEND_CPU, -1)
    series = _fc.fc_series_create_f64(ctx, np.ascontiguousarray(x))
    with pytest.raises(fastconn.InvalidArgumentError) as info:
        _fc.fc_pcc_graph(ctx, series, _fc.FC_EDGE_DENSITY, 2.0, _fc.FC_GRAPH_WEIGHTED)
    assert info.value.status == _fc.FC_ERR_INVALID_ARG and "fc_pcc_graph" in str(info.value)


# --- fastconn.Graph from scipy ----------------------------------------------------------------


def test_round_trip_through_scipy(fmri):
    g = fastconn.graph(fmri, threshold=0.4, rowvar=False)
    copy = fastconn.Graph(g)
    assert (copy.n_nodes, copy.n_edges) == (31, g.nnz // 2)
    back = copy.tocsr()
    np.testing.assert_array_equal(back.indptr, g.indptr)
    np.testing.assert_array_equal(back.indices, g.indices)
    np.testing.assert_array_equal(back.data, g.data)
    net = fastconn.network(fmri, threshold=0.4, rowvar=False)
    for mine, theirs in zip(copy.edges(), net.edges()):
        np.testing.assert_array_equal(mine, theirs)
    assert repr(copy) == f"fastconn.Graph(n_nodes=31, n_edges={g.nnz // 2})"


def test_scipy_int32_unsorted_and_other_formats():
    # row 0 lists its columns out of order; scipy's int32 indices are converted once
    indptr = np.array([0, 2, 3, 4], dtype=np.int32)
    indices = np.array([2, 1, 0, 0], dtype=np.int32)
    data = np.array([0.25, 0.5, 0.5, 0.25])
    m = scipy.sparse.csr_matrix((data, indices, indptr), shape=(3, 3))
    m.has_sorted_indices = False
    g = fastconn.Graph(m)
    i, j, w = g.edges()
    assert i.tolist() == [0, 0] and j.tolist() == [1, 2] and w.tolist() == [0.5, 0.25]
    assert fastconn.Graph(m.tocoo()).n_edges == 2
    assert fastconn.Graph(m.toarray()).n_edges == 2  # dense: the non-zeros are the edges
    empty = fastconn.Graph(scipy.sparse.csr_matrix((5, 5)))
    assert (empty.n_nodes, empty.n_edges) == (5, 0) and empty.tocsr().shape == (5, 5)


@pytest.mark.parametrize("dense,message", [
    ([[0, 1, 0], [0, 0, 0], [0, 0, 0]], r"the entry \(0, 1\) has no mirror \(1, 0\)"),
    ([[0, 1, 0], [2, 0, 0], [0, 0, 0]], "mirror's weight is 2"),
    ([[0, 1, 0], [1, 3, 0], [0, 0, 0]], "self-loop"),
    ([[0, np.nan], [np.nan, 0]], "not finite"),
])
def test_graph_validation_by_fastconn(dense, message):
    with pytest.raises(fastconn.InvalidArgumentError, match=message):
        fastconn.Graph(scipy.sparse.csr_matrix(np.array(dense, dtype=np.float64)))


def test_non_square_matrix():
    with pytest.raises(ValueError, match=r"square, got shape \(2, 3\)"):
        fastconn.Graph(scipy.sparse.csr_matrix((2, 3)))


# --- low-level length checks ----------------------------------------------------------------


@pytest.fixture
def handle(x):
    ctx = _fc.fc_context_create(_fc.FC_BACKEND_CPU, -1)
    return _fc.fc_pcc_graph(ctx, _fc.fc_series_create_f64(ctx, x), _fc.FC_EDGE_ABS_THRESHOLD, 0.2,
                            _fc.FC_GRAPH_WEIGHTED)


def test_csr_output_lengths(handle):
    n, m = _fc.fc_graph_info(handle)
    assert n == 12 and m > 0
    offsets, columns, weights = np.empty(n + 1, np.int64), np.empty(2 * m, np.int64), np.empty(2 * m, np.float32)
    with pytest.raises(ValueError, match="row_offsets has 12 elements; the graph's n_nodes \\+ 1 is 13"):
        _fc.fc_graph_csr(handle, offsets[:-1], columns, weights)
    with pytest.raises(ValueError, match="weights has"):
        _fc.fc_graph_csr(handle, offsets, columns, weights[:-1])
    with pytest.raises(fastconn.InvalidArgumentError, match="capacity") as info:
        _fc.fc_graph_csr(handle, offsets, columns[:-1], None)
    assert info.value.status == _fc.FC_ERR_BUFFER_TOO_SMALL
    with pytest.raises(ValueError, match="read-only"):
        readonly = columns.copy()
        readonly.flags.writeable = False
        _fc.fc_graph_csr(handle, offsets, readonly, None)
    with pytest.raises(TypeError):
        _fc.fc_graph_csr(handle, offsets.astype(np.int32), columns, None)
    _fc.fc_graph_csr(handle, offsets, columns, None)  # weights are optional
    assert offsets[-1] == 2 * m


def test_edge_output_lengths(handle):
    m = _fc.fc_graph_info(handle)[1]
    i, j, w = np.empty(m, np.int64), np.empty(m, np.int64), np.empty(m, np.float32)
    with pytest.raises(ValueError, match="edge_j has"):
        _fc.fc_graph_edges(handle, i, j[:-1], w)
    with pytest.raises(ValueError, match="weights has"):
        _fc.fc_graph_edges(handle, i, j, w[:-1])
    with pytest.raises(fastconn.InvalidArgumentError, match="capacity"):
        _fc.fc_graph_edges(handle, i[:-1], j[:-1], None)
    _fc.fc_graph_edges(handle, i, j, None)
    assert np.all(i < j)


def test_create_csr_reads_within_the_arrays():
    offsets = np.array([0, 1, 2], np.int64)
    with pytest.raises(ValueError, match=r"row_offsets\[2\] is 2 but columns has only 1 elements"):
        _fc.fc_graph_create_csr(offsets, np.array([1], np.int64), None)
    with pytest.raises(ValueError, match="weights has 1 elements"):
        _fc.fc_graph_create_csr(offsets, np.array([1, 0], np.int64), np.ones(1, np.float32))
    with pytest.raises(ValueError, match="row_offsets is empty"):
        _fc.fc_graph_create_csr(np.empty(0, np.int64), np.empty(0, np.int64), None)
    assert _fc.fc_graph_info(_fc.fc_graph_create_csr(offsets, np.array([1, 0], np.int64), None)) == [2, 1]


def test_degree_output_lengths(x):
    ctx = _fc.fc_context_create(_fc.FC_BACKEND_CPU, -1)
    s = _fc.fc_series_create_f64(ctx, x)
    with pytest.raises(ValueError, match="degree has 11 elements; the series count is 12"):
        _fc.fc_pcc_degree(ctx, s, _fc.FC_EDGE_ABS_THRESHOLD, 0.2, np.empty(11, np.int64), None)
    with pytest.raises(ValueError, match="strength has 13 elements"):
        _fc.fc_pcc_degree(ctx, s, _fc.FC_EDGE_ABS_THRESHOLD, 0.2, None, np.empty(13))
    strength = np.empty(12)
    _fc.fc_pcc_degree(ctx, s, _fc.FC_EDGE_ABS_THRESHOLD, 0.2, None, strength)  # either output may be None
    assert strength.max() > 0
