"""fastconn.leiden(algorithm=...): the synchronous Leiden (fc_leiden_v2 with FC_LEIDEN_SYNCHRONOUS)
is deterministic, its .q is modularity_score of its labels, it recovers a planted partition; the
default "queue" is exactly the old fc_leiden; bad names raise ValueError. numpy and scipy only
(test_leiden.py compares Leiden's quality with igraph's and leidenalg's)."""

import numpy as np
import pytest
import scipy.sparse

import fastconn
from fastconn import _fastconn as _fc
from fastconn.network import as_graph


def planted(groups=4, size=30, p_in=0.4, p_out=0.01, seed=7):
    """A symmetric planted partition (scipy CSR, weights 1) and its true group of every node."""
    rng = np.random.default_rng(seed)
    truth = np.repeat(np.arange(groups), size)
    n = truth.size
    p = np.where(truth[:, None] == truth[None, :], p_in, p_out)
    upper = np.triu(rng.random((n, n)) < p, k=1)
    return scipy.sparse.csr_matrix((upper | upper.T).astype(np.float64)), truth


def same_partition(a, b):
    """a and b group the nodes alike (whatever the numbers): a one-to-one map between labels."""
    pairs = np.unique(np.stack([a, b]), axis=1)
    return pairs.shape[1] == np.unique(a).size == np.unique(b).size


def test_synchronous_deterministic_and_q():
    matrix, _ = planted()
    m = fastconn.leiden(matrix, algorithm="synchronous")
    assert m.labels.dtype == np.int64 and m.labels.shape == (matrix.shape[0],) and m.splits.size == 0
    for _ in range(2):
        assert np.array_equal(m.labels, fastconn.leiden(matrix, algorithm="synchronous").labels)
    with fastconn.Context("cpu", threads=1) as one_thread:  # the same labels on any thread count
        again = one_thread.leiden(matrix, algorithm="synchronous")
    assert np.array_equal(m.labels, again.labels) and again.q == m.q
    assert abs(fastconn.modularity_score(matrix, m.labels) - m.q) <= 1e-12
    for gamma in (0.5, 2.0):
        mg = fastconn.leiden(matrix, resolution=gamma, algorithm="synchronous")
        assert abs(fastconn.modularity_score(matrix, mg.labels, resolution=gamma) - mg.q) <= 1e-12


def test_synchronous_recovers_a_planted_partition():
    matrix, truth = planted()
    m = fastconn.leiden(matrix, algorithm="synchronous", seed=3)
    assert m.n_communities == 4 and same_partition(m.labels, truth)
    # from the queue's own partition, the synchronous passes keep it (nothing better nearby)
    queue = fastconn.leiden(matrix)
    assert same_partition(queue.labels, truth)
    assert same_partition(fastconn.leiden(matrix, algorithm="synchronous", initial=queue.labels).labels, truth)


def test_queue_is_the_old_call():
    matrix, _ = planted(groups=5, size=20, p_in=0.3, p_out=0.03, seed=2)
    options = _fc.fc_leiden_options()
    _fc.fc_leiden_options_default(options)
    options.seed = 9
    graph = as_graph(matrix)
    with fastconn.Context("cpu") as context:
        old = _fc.fc_leiden(context._live(), graph._handle, options, None)
        n_nodes, n_communities, q, _ = _fc.fc_modules_info(old)
        labels = np.empty(n_nodes, dtype=np.int64)
        _fc.fc_modules_labels(old, labels)
        for keywords in ({}, {"algorithm": "queue"}):
            new = context.leiden(graph, seed=9, **keywords)
            assert np.array_equal(new.labels, labels) and new.q == q and new.n_communities == n_communities
    assert np.array_equal(fastconn.leiden(graph, seed=9, algorithm="queue").labels, labels)


def test_algorithm_errors():
    matrix, _ = planted()
    with pytest.raises(ValueError, match="algorithm .*'louvain'"):
        fastconn.leiden(matrix, algorithm="louvain")
    with fastconn.Context("cpu") as context, pytest.raises(ValueError, match="algorithm .*None"):
        context.leiden(matrix, algorithm=None)
    # the other options are still checked by fastconn on the synchronous path
    with pytest.raises(fastconn.InvalidArgumentError, match="resolution"):
        fastconn.leiden(matrix, resolution=0, algorithm="synchronous")
    with pytest.raises(ValueError, match="initial_labels"):
        fastconn.leiden(matrix, initial=np.zeros(3, dtype=np.int64), algorithm="synchronous")
