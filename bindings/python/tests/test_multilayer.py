"""Multilayer modularity (fastconn.multilayer_modularity): Q against Mucha et al.'s formula computed
here with numpy from the returned labels (ordinal and categorical coupling, a resolution per
layer), flexibility and allegiance against a direct computation from the labels, odd sizes (1, 2, 3
nodes, one layer), determinism, and argument errors."""

import doctest

import numpy as np
import pytest

import fastconn
import fastconn.multilayer


def mucha_q(mats, labels, omega, gammas, categorical=False):
    """Q of Mucha et al. 2010 of labels[s, i] (layers without edges have no null term)."""
    n, layers = mats[0].shape[0], len(mats)
    total, two_mu = 0.0, 0.0
    for s, a in enumerate(mats):
        a = np.asarray(a, dtype=np.float64)
        k = a.sum(1)
        two_m = k.sum()
        two_mu += two_m
        same = labels[s][:, None] == labels[s][None, :]
        null = gammas[s] * np.outer(k, k) / two_m if two_m > 0 else 0.0
        total += (a - null)[same].sum()
    pairs = [(s, r) for s in range(layers) for r in range(layers) if s != r and (categorical or abs(s - r) == 1)]
    for s, r in pairs:
        total += omega * (labels[s] == labels[r]).sum()
        two_mu += omega * n
    return total / two_mu if two_mu > 0 else 0.0


def flexibility(labels):
    if labels.shape[0] < 2:
        return np.zeros(labels.shape[1])
    return (labels[1:] != labels[:-1]).mean(axis=0)


def allegiance(labels):
    return np.mean([row[:, None] == row[None, :] for row in labels], axis=0)


def window_mats(fmri, length=40, step=20, threshold=0.3):
    """The bundled region series' windows' graphs r >= threshold (float32-exact weights)."""
    mats = []
    for start in range(0, fmri.shape[0] - length + 1, step):
        r = np.corrcoef(fmri[start:start + length].T)
        np.fill_diagonal(r, 0)
        r[r < threshold] = 0
        mats.append(r.astype(np.float32).astype(np.float64))
    return mats


@pytest.mark.parametrize("omega,coupling", [(0.1, "ordinal"), (1.0, "ordinal"), (0.5, "categorical")])
def test_q_flexibility_allegiance_on_windows(fmri, omega, coupling):
    mats = window_mats(fmri)
    ml = fastconn.multilayer_modularity(mats, omega=omega, coupling=coupling)
    assert ml.labels.shape == (len(mats), 31) and ml.labels.dtype == np.int64
    assert ml.labels.flat[0] == 0 and ml.n_communities == np.unique(ml.labels).size == ml.labels.max() + 1
    q = mucha_q(mats, ml.labels, omega, [1.0] * len(mats), coupling == "categorical")
    assert abs(ml.q - q) <= 1e-9 and ml.q > 0
    assert np.array_equal(ml.flexibility, flexibility(ml.labels))
    dense = ml.allegiance()
    assert np.allclose(dense, allegiance(ml.labels), rtol=0, atol=1e-15)
    for floor in (1e-12, 0.3, 0.5, 1.0):
        i, j, v = ml.allegiance_pairs(floor)
        want_i, want_j = np.nonzero(np.triu(dense, 1) >= floor)
        assert np.array_equal(i, want_i) and np.array_equal(j, want_j) and np.array_equal(v, dense[i, j])


def test_per_layer_resolution_and_the_dfc_networks(fmri):
    nets = fastconn.dfc_networks(fmri, 40, step=20, threshold=0.3, signed=True, rowvar=False)
    gammas = np.linspace(0.5, 1.5, len(nets))
    ml = fastconn.multilayer_modularity(nets, resolution=gammas, omega=0.3)
    mats = [g.tocsr().toarray().astype(np.float64) for g in nets]
    assert abs(ml.q - mucha_q(mats, ml.labels, 0.3, gammas)) <= 1e-9
    same = fastconn.multilayer_modularity(nets, resolution=list(gammas), omega=0.3)
    assert np.array_equal(same.labels, ml.labels)


def test_odd_sizes():
    one = fastconn.multilayer_modularity([np.zeros((1, 1))] * 3)  # only coupling: Q = 1
    assert one.labels.shape == (3, 1) and one.q == mucha_q([np.zeros((1, 1))] * 3, one.labels, 1.0, [1] * 3) == 1.0
    assert one.flexibility.tolist() == [0.0]
    assert one.allegiance().tolist() == [[1.0]]
    pair = np.array([[0, 1], [1, 0]], dtype=float)
    two = fastconn.multilayer_modularity([pair, np.zeros((2, 2))], omega=0.2)
    assert abs(two.q - mucha_q([pair, np.zeros((2, 2))], two.labels, 0.2, [1, 1])) <= 1e-12
    path = np.array([[0, 1, 0], [1, 0, 2], [0, 2, 0]], dtype=float)
    single = fastconn.multilayer_modularity([path])
    assert single.flexibility.tolist() == [0.0, 0.0, 0.0]
    assert abs(single.q - fastconn.modularity_score(path, single.labels[0])) <= 1e-12


def test_determinism_across_threads(fmri):
    mats = window_mats(fmri)
    a = fastconn.multilayer_modularity(mats, seed=7)
    with fastconn.Context("cpu", threads=1):
        b = fastconn.multilayer_modularity(mats, seed=7)
    assert np.array_equal(a.labels, b.labels) and a.q == b.q


def test_argument_errors():
    ring = np.roll(np.eye(5), 1, axis=1)
    ring = ring + ring.T
    with pytest.raises(fastconn.InvalidArgumentError, match="n_layers 0"):
        fastconn.multilayer_modularity([])
    with pytest.raises(fastconn.InvalidArgumentError, match="layers\\[1\\]"):
        fastconn.multilayer_modularity([ring, np.zeros((4, 4))])
    with pytest.raises(fastconn.InvalidArgumentError, match="omega"):
        fastconn.multilayer_modularity([ring, ring], omega=-1)
    with pytest.raises(fastconn.InvalidArgumentError, match="resolution"):
        fastconn.multilayer_modularity([ring, ring], resolution=np.inf)
    with pytest.raises(fastconn.InvalidArgumentError, match="max_iterations"):
        fastconn.multilayer_modularity([ring, ring], max_iterations=-1)
    with pytest.raises(fastconn.InvalidArgumentError, match="negative"):
        fastconn.multilayer_modularity([ring, -ring])
    with pytest.raises(ValueError, match="layer_resolutions has 3 elements"):
        fastconn.multilayer_modularity([ring, ring], resolution=[1, 1, 1])
    with pytest.raises(ValueError, match="coupling"):
        fastconn.multilayer_modularity([ring, ring], coupling="multiplex")
    with pytest.raises(TypeError, match="resolution"):
        fastconn.multilayer_modularity([ring, ring], resolution=["a", "b"])
    ml = fastconn.multilayer_modularity([ring, ring])
    with pytest.raises(fastconn.InvalidArgumentError, match="floor 0 "):
        ml.allegiance_pairs(0)
    with pytest.raises(fastconn.InvalidArgumentError, match="floor 1.5"):
        ml.allegiance_pairs(1.5)
    with pytest.raises(ValueError, match="cols has 2 elements"):
        fastconn._fastconn.fc_multilayer_allegiance_pairs(ml._handle, 0.5, np.zeros(3, np.int64),
                                                          np.zeros(2, np.int64), np.zeros(3))


def test_doctests():
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for obj, name in ((fastconn.multilayer, "multilayer"), (fastconn.multilayer.multilayer_modularity, "mm")):
        for test in finder.find(obj, name, globs={}):
            runner.run(test)
    assert runner.failures == 0
