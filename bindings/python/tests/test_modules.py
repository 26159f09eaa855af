"""Modules (fastconn.modularity): Q against python-igraph's independent computation, Q at least
igraph's leading eigenvector's on Zachary, LFR and planted-partition graphs, planted partitions
recovered exactly, the division tree, signed graphs, edge cases and argument errors."""

import doctest

import numpy as np
import pytest
import scipy.sparse

import fastconn
import fastconn.modules

from conftest import REPO, synthetic

ig = pytest.importorskip("igraph")
nx = pytest.importorskip("networkx")


def to_csr(graph, weights=None):
    """The symmetric adjacency of an igraph graph (no self-loops) as scipy CSR, float64."""
    n = graph.vcount()
    e = np.array(graph.get_edgelist(), dtype=np.int64).reshape(-1, 2)
    w = np.ones(len(e)) if weights is None else np.asarray(weights, dtype=np.float64)
    rows, cols = np.r_[e[:, 0], e[:, 1]], np.r_[e[:, 1], e[:, 0]]
    return scipy.sparse.coo_matrix((np.r_[w, w], (rows, cols)), shape=(n, n)).tocsr()


def from_networkx(g):
    """networkx -> igraph with nodes 0..n-1 (LFR and planted partitions are labelled so)."""
    g = g.copy()
    g.remove_edges_from(nx.selfloop_edges(g))
    return ig.Graph(n=g.number_of_nodes(), edges=sorted(tuple(sorted(e)) for e in g.edges()))


def igraph_of(matrix):
    """A weighted igraph graph of a symmetric scipy matrix: (graph, weights)."""
    upper = scipy.sparse.triu(matrix, 1).tocoo()
    g = ig.Graph(n=matrix.shape[0], edges=list(zip(upper.row.tolist(), upper.col.tolist())))
    return g, upper.data.astype(np.float64)


def modularity_reference(a, labels, gamma=1.0):
    """Newman's Q of a dense symmetric non-negative adjacency (float64)."""
    two_m = a.sum()
    if two_m == 0:
        return 0.0
    k = a.sum(axis=1)
    same = labels[:, None] == labels[None, :]
    return float(((a - gamma * np.outer(k, k) / two_m) * same).sum() / two_m)


def igraph_q(graph, labels, weights=None, resolution=1.0):
    """igraph's Q of a membership. Graph.modularity of python-igraph 0.10.2 drops its resolution
    argument, so the C-level GraphBase.modularity is called (positionally)."""
    return ig.GraphBase.modularity(graph, np.asarray(labels).tolist(),
                                   None if weights is None else np.asarray(weights, dtype=np.float64).tolist(),
                                   float(resolution))


def zachary():
    return ig.Graph.Famous("Zachary")


def lfr(n, tau1, tau2, mu, average_degree, min_community, seed):
    return from_networkx(nx.generators.community.LFR_benchmark_graph(
        n, tau1, tau2, mu, average_degree=average_degree, min_community=min_community, seed=seed))


# LFR parameters and seeds that generate in well under a second
LFR_CASES = [(250, 3, 1.5, 0.1, 5, 20, seed) for seed in (0, 4, 10, 11, 42)] + \
            [(500, 2.5, 1.5, 0.3, 8, 30, seed) for seed in (0, 1, 2)]
# planted partitions: (groups, size, p_in, p_out), clear enough to be recovered exactly
PLANTED_CASES = [(3, 11, 0.9, 0.02), (4, 32, 0.5, 0.01), (8, 50, 0.3, 0.005), (20, 40, 0.4, 0.004),
                 (10, 100, 0.2, 0.002)]


def float32_weights(count, seed):
    """Positive weights exactly representable in float32 (fastconn stores float32 weights), so
    that fastconn's and igraph's Q are of the same graph."""
    return np.random.default_rng(seed).integers(1, 64, count) / 8.0


def graphs_for_q_checks():
    z = zachary()
    yield "zachary", z, None
    yield "zachary-weighted", z, float32_weights(z.ecount(), 1)
    g = lfr(*LFR_CASES[0])
    yield "lfr", g, None
    yield "lfr-weighted", g, float32_weights(g.ecount(), 2)
    p = from_networkx(nx.planted_partition_graph(8, 50, 0.3, 0.005, seed=1))
    yield "planted-weighted", p, float32_weights(p.ecount(), 3)


@pytest.mark.parametrize("name,graph,weights", list(graphs_for_q_checks()), ids=lambda v: v if isinstance(v, str) else "")
def test_q_agrees_with_igraph(name, graph, weights):
    matrix = to_csr(graph, weights)
    m = fastconn.modularity(matrix)
    assert m.labels.dtype == np.int64 and m.labels.shape == (graph.vcount(),)
    want = igraph_q(graph, m.labels, weights)
    assert abs(m.q - want) <= 1e-9
    assert abs(fastconn.modularity_score(matrix, m.labels) - want) <= 1e-9
    rng = np.random.default_rng(5)
    for k in (1, 2, 7):  # any partition, not only fastconn's
        labels = rng.integers(0, k, graph.vcount())
        for gamma in (1.0, 0.5, 2.0):
            want = igraph_q(graph, labels, weights, gamma)
            assert abs(want - modularity_reference(matrix.toarray(), labels, gamma)) <= 1e-12  # the reference's gamma
            assert abs(fastconn.modularity_score(matrix, labels, resolution=gamma) - want) <= 1e-9


def test_q_of_a_correlation_network_agrees_with_igraph(fmri):
    g = fastconn.graph(fmri, density=0.2, weights="abs", rowvar=False)
    m = fastconn.modularity(g)
    graph, weights = igraph_of(g)
    assert abs(m.q - igraph_q(graph, m.labels, weights)) <= 1e-9
    assert m.q >= graph.community_leading_eigenvector(weights=weights.tolist()).modularity - 1e-12


def test_resolution_is_gamma():
    z = zachary()
    for gamma in (0.5, 1.5, 3.0):
        m = fastconn.modularity(to_csr(z), resolution=gamma)
        assert abs(m.q - igraph_q(z, m.labels, resolution=gamma)) <= 1e-9
    assert fastconn.modularity(to_csr(z), resolution=3.0).n_communities > fastconn.modularity(to_csr(z)).n_communities


def test_zachary_beats_igraph_leading_eigenvector():
    z = zachary()
    m = fastconn.modularity(to_csr(z))
    assert m.q >= z.community_leading_eigenvector().modularity
    assert m.q >= 0.4197  # the known optimum, 0.41979
    weights = float32_weights(z.ecount(), 7)
    mw = fastconn.modularity(to_csr(z, weights))
    assert mw.q >= z.community_leading_eigenvector(weights=weights.tolist()).modularity


@pytest.mark.parametrize("case", LFR_CASES, ids=lambda c: "n{}-mu{}-seed{}".format(c[0], c[3], c[-1]))
def test_lfr_beats_igraph_leading_eigenvector(case):
    g = lfr(*case)
    m = fastconn.modularity(to_csr(g))
    assert abs(m.q - igraph_q(g, m.labels)) <= 1e-9
    assert m.q >= g.community_leading_eigenvector().modularity


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("case", PLANTED_CASES, ids=lambda c: "{}x{}".format(*c[:2]))
def test_planted_partitions_are_recovered_exactly(case, seed):
    groups, size, p_in, p_out = case
    g = from_networkx(nx.planted_partition_graph(groups, size, p_in, p_out, seed=seed))
    m = fastconn.modularity(to_csr(g))
    assert m.q >= g.community_leading_eigenvector().modularity - 1e-12
    truth = np.repeat(np.arange(groups), size)
    assert ig.compare_communities(truth.tolist(), m.labels.tolist(), method="nmi") == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_array_equal(m.labels, truth)  # numbered by first appearance: the same numbers
    assert m.n_communities == groups


def test_labels_numbered_by_first_appearance_and_splits_form_a_tree():
    g = lfr(*LFR_CASES[1])
    m = fastconn.modularity(to_csr(g))
    first = [int(np.flatnonzero(m.labels == k)[0]) for k in range(m.n_communities)]
    assert m.labels[0] == 0 and first == sorted(first) and np.unique(m.labels).size == m.n_communities
    assert [c.size for c in m.communities()] == np.bincount(m.labels).tolist()
    s = m.splits
    assert s.dtype == fastconn.modules.SPLIT_DTYPE and s.size >= 1
    assert s.dtype.names == ("parent", "child_a", "child_b", "eigenvalue", "gain", "iterations", "residual")
    made = {0}
    for split in s:
        assert split["parent"] in made, "a split's parent is the whole graph or an earlier child"
        assert split["child_a"] not in made and split["child_b"] not in made
        made.update((int(split["child_a"]), int(split["child_b"])))
    assert (s["eigenvalue"] > 1e-8).all() and (s["gain"] > 0).all() and (s["iterations"] > 0).all()
    assert np.isfinite(s["residual"]).all() and (s["residual"] >= 0).all()


def test_input_forms_give_the_same_modules():
    matrix = to_csr(zachary(), float32_weights(78, 4))
    want = fastconn.modularity(matrix)
    for form in (fastconn.Graph(matrix), matrix.tocoo(), matrix.tocsc(), matrix.toarray(),
                 matrix.toarray().astype(np.float32)):
        got = fastconn.modularity(form)
        np.testing.assert_array_equal(got.labels, want.labels)
        assert got.q == want.q
    binary = fastconn.modularity(to_csr(zachary()).toarray() > 0)  # a bool adjacency: binary weights
    assert binary.q == fastconn.modularity(to_csr(zachary())).q


def test_same_seed_same_labels_and_context_methods():
    matrix = to_csr(lfr(*LFR_CASES[5]))
    a = fastconn.modularity(matrix, seed=11)
    b = fastconn.Context(backend="cpu").modularity(matrix, seed=11)
    np.testing.assert_array_equal(a.labels, b.labels)
    assert a.q == b.q
    np.testing.assert_array_equal(a.splits, b.splits)
    c = fastconn.modularity(matrix, seed=2 ** 64 - 1)
    assert abs(c.q - fastconn.modularity_score(matrix, c.labels)) <= 1e-12


def test_options_limit_the_division():
    g = from_networkx(nx.planted_partition_graph(8, 50, 0.3, 0.005, seed=1))
    matrix = to_csr(g)
    assert fastconn.modularity(matrix, max_communities=3).n_communities <= 3
    assert fastconn.modularity(matrix, max_communities=1).n_communities == 1
    sized = fastconn.modularity(matrix, min_size=120)
    assert np.bincount(sized.labels).min() >= 120
    coarse = fastconn.modularity(matrix, eigen_threshold=1e6)
    assert coarse.n_communities == 1 and coarse.q == pytest.approx(0.0, abs=1e-12) and coarse.splits.size == 0
    raw = fastconn.modularity(matrix, refine=False)
    assert abs(raw.q - igraph_q(g, raw.labels)) <= 1e-9
    assert fastconn.modularity(matrix).q >= raw.q - 1e-12


def test_defined_answers_on_degenerate_graphs():
    empty = fastconn.modularity(scipy.sparse.csr_matrix((5, 5)))
    assert empty.labels.tolist() == [0, 1, 2, 3, 4] and empty.q == 0.0 and empty.n_communities == 5
    one = fastconn.modularity(np.zeros((1, 1)))
    assert one.labels.tolist() == [0] and one.q == 0.0 and one.n_communities == 1
    # two triangles and two isolated nodes: each triangle a community, each isolated node its own
    a = np.zeros((8, 8))
    for i, j in [(0, 2), (0, 5), (2, 5), (1, 3), (3, 6), (1, 6)]:
        a[i, j] = a[j, i] = 1.0
    m = fastconn.modularity(a)
    assert np.isfinite(m.q) and m.q == pytest.approx(modularity_reference(a, m.labels), abs=1e-12)
    assert m.labels[0] == m.labels[2] == m.labels[5] != m.labels[1] == m.labels[3] == m.labels[6]
    assert len({m.labels[4], m.labels[7], m.labels[0], m.labels[1]}) == 4
    assert m.q == pytest.approx(0.5, abs=1e-12)


def signed_reference(a, labels, mode):
    """Gomez et al. 2009 / Rubinov and Sporns 2011 Q of a signed dense adjacency."""
    pos, neg = np.where(a > 0, a, 0.0), np.where(a < 0, -a, 0.0)
    w_pos, w_neg = pos.sum(), neg.sum()
    q_pos, q_neg = modularity_reference(pos, labels), modularity_reference(neg, labels)
    if mode == "gomez":
        return (w_pos * q_pos - w_neg * q_neg) / (w_pos + w_neg)
    return q_pos - w_neg / (w_pos + w_neg) * q_neg


def test_signed_graphs():
    g = fastconn.graph(synthetic(60, 200, seed=8), threshold=0.2, weights="r")
    assert (g.data < 0).any() and (g.data > 0).any()
    a = g.toarray().astype(np.float64)
    labels = np.random.default_rng(0).integers(0, 4, 60)
    assert fastconn.modularity_score(g, labels) == pytest.approx(signed_reference(a, labels, "gomez"), abs=1e-9)
    for mode in ("gomez", "rubinov"):
        m = fastconn.modularity(g, signed=mode)
        assert m.q == pytest.approx(signed_reference(a, m.labels, mode), abs=1e-9), mode
        assert m.q > 0 and m.n_communities >= 2
    # without negative edges both definitions are Newman's Q
    positive = abs(g)
    m = fastconn.modularity(positive, signed="rubinov")
    assert m.q == pytest.approx(modularity_reference(positive.toarray().astype(np.float64), m.labels), abs=1e-9)


@pytest.mark.parametrize("option,value,named", [
    ("resolution", 0.0, "0"), ("resolution", -1.5, "-1.5"), ("resolution", float("nan"), "nan"),
    ("eigen_threshold", float("nan"), "nan"), ("max_communities", -1, "-1"), ("min_size", 0, "0"),
    ("min_size", -3, "-3")])
def test_bad_options_raise_naming_the_value(option, value, named):
    with pytest.raises(fastconn.InvalidArgumentError, match=named) as info:
        fastconn.modularity(to_csr(zachary()), **{option: value})
    assert info.value.status == fastconn._fastconn.FC_ERR_INVALID_ARG


def test_bad_arguments():
    matrix = to_csr(zachary())
    with pytest.raises(ValueError, match="signed"):
        fastconn.modularity(matrix, signed="newman")
    with pytest.raises(ValueError, match="seed"):
        fastconn.modularity(matrix, seed=-1)
    with pytest.raises(TypeError, match="max_communities"):
        fastconn.modularity(matrix, max_communities=2.5)
    with pytest.raises(TypeError, match="resolution"):
        fastconn.modularity(matrix, resolution="1")
    with pytest.raises(TypeError, match="graph"):
        fastconn.modularity(np.zeros((3, 4)))
    asymmetric = matrix.tolil()
    asymmetric[0, 33] = 5.0
    with pytest.raises(fastconn.InvalidArgumentError):
        fastconn.modularity(asymmetric.tocsr())
    with pytest.raises(fastconn.InvalidArgumentError):
        fastconn.modularity(np.eye(3))  # a diagonal entry is not an edge fastconn takes
    labels = np.zeros(34, dtype=np.int64)
    labels[7] = -2
    with pytest.raises(fastconn.InvalidArgumentError, match="-2"):
        fastconn.modularity_score(matrix, labels)
    with pytest.raises(ValueError, match="labels has 33 elements; the graph's n_nodes is 34"):
        fastconn.modularity_score(matrix, np.zeros(33, dtype=np.int64))
    with pytest.raises(TypeError, match="labels"):
        fastconn.modularity_score(matrix, np.zeros(34))
    assert fastconn.modularity_score(matrix, [0] * 17 + [1] * 17) == pytest.approx(
        igraph_q(zachary(), [0] * 17 + [1] * 17), abs=1e-9)


def test_low_level_split_arrays_are_checked():
    fc = fastconn._fastconn
    ctx = fc.fc_context_create(fc.FC_BACKEND_CPU, -1)
    graph = fastconn.Graph(to_csr(zachary()))
    modules = fc.fc_modularity(ctx, graph._handle, None)  # NULL options: the defaults
    n_nodes, k, q, n_splits = fc.fc_modules_info(modules)
    assert n_nodes == 34 and n_splits >= 1
    with pytest.raises(ValueError, match="child_a has 2 elements; it must match parent"):
        fc.fc_modules_splits(modules, np.zeros(n_splits, np.int64), np.zeros(2, np.int64), None, None, None, None, None)
    with pytest.raises(fastconn.InvalidArgumentError):  # shorter than n_splits: fastconn refuses
        fc.fc_modules_splits(modules, np.zeros(n_splits - 1, np.int64), None, None, None, None, None, None)
    with pytest.raises(fastconn.InvalidArgumentError):
        fc.fc_modules_labels(modules, np.zeros(33, np.int64))
    gains = np.zeros(n_splits)
    fc.fc_modules_splits(modules, None, None, None, None, gains, None, None)
    assert (gains > 0).all()


def test_progress_cancels_modularity():
    matrix = to_csr(lfr(*LFR_CASES[5]))
    ctx = fastconn.Context(backend="cpu", progress=lambda done, total: True)
    with pytest.raises(fastconn.AbortedError):
        ctx.modularity(matrix)


def test_docstring_examples_run(monkeypatch):
    monkeypatch.chdir(REPO)  # they read examples/data/fmri_timeseries.csv
    result = doctest.testmod(fastconn.modules, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 10 and result.failed == 0
