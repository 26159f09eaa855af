"""fastconn.multilayer_modularity(algorithm=...): the synchronous multilayer modularity
(fc_multilayer_modularity_v2 with FC_LEIDEN_SYNCHRONOUS) gives labels whose Q is Mucha et al.'s
formula in numpy (test_multilayer.py's mucha_q) and the same labels on 1 and 2 threads; the default
"queue" is exactly the old fc_multilayer_modularity; bad names raise ValueError."""

import numpy as np
import pytest

import fastconn
from fastconn import _fastconn as _fc
from fastconn.network import as_graph
from test_multilayer import flexibility, mucha_q, window_mats


@pytest.mark.parametrize("omega,coupling", [(0.1, "ordinal"), (1.0, "ordinal"), (0.5, "categorical")])
def test_synchronous_q_is_mucha(fmri, omega, coupling):
    mats = window_mats(fmri)
    ml = fastconn.multilayer_modularity(mats, omega=omega, coupling=coupling, algorithm="synchronous")
    assert ml.labels.shape == (len(mats), 31) and ml.labels.dtype == np.int64
    assert ml.n_communities == np.unique(ml.labels).size == ml.labels.max() + 1
    q = mucha_q(mats, ml.labels, omega, [1.0] * len(mats), coupling == "categorical")
    assert abs(ml.q - q) <= 1e-9 and ml.q > 0
    assert np.array_equal(ml.flexibility, flexibility(ml.labels))


def test_synchronous_per_layer_resolution(fmri):
    mats = window_mats(fmri)
    gammas = np.linspace(0.5, 1.5, len(mats))
    ml = fastconn.multilayer_modularity(mats, resolution=gammas, omega=0.3, algorithm="synchronous")
    assert abs(ml.q - mucha_q(mats, ml.labels, 0.3, gammas)) <= 1e-9


def test_synchronous_same_labels_on_1_and_2_threads(fmri):
    mats = window_mats(fmri)
    with fastconn.Context("cpu", threads=1) as one, fastconn.Context("cpu", threads=2) as two:
        a = one.multilayer_modularity(mats, seed=7, algorithm="synchronous")
        b = two.multilayer_modularity(mats, seed=7, algorithm="synchronous")
    assert np.array_equal(a.labels, b.labels) and a.q == b.q
    again = fastconn.multilayer_modularity(mats, seed=7, algorithm="synchronous")
    assert np.array_equal(again.labels, a.labels) and again.q == a.q


def test_queue_is_the_old_call(fmri):
    mats = window_mats(fmri)
    graphs = [as_graph(m) for m in mats]
    options = _fc.fc_multilayer_options()
    _fc.fc_multilayer_options_default(options)
    options.seed, options.omega = 9, 0.5
    with fastconn.Context("cpu") as context:
        old = fastconn.Multilayer(_fc.fc_multilayer_modularity(context._live(), [g._handle for g in graphs], None,
                                                               options))
        for keywords in ({}, {"algorithm": "queue"}):
            new = context.multilayer_modularity(graphs, omega=0.5, seed=9, **keywords)
            assert np.array_equal(new.labels, old.labels) and new.q == old.q
            assert new.n_communities == old.n_communities and np.array_equal(new.flexibility, old.flexibility)
    assert np.array_equal(fastconn.multilayer_modularity(graphs, omega=0.5, seed=9, algorithm="queue").labels,
                          old.labels)


def test_algorithm_errors():
    ring = np.roll(np.eye(5), 1, axis=1)
    ring = ring + ring.T
    with pytest.raises(ValueError, match="algorithm .*'louvain'"):
        fastconn.multilayer_modularity([ring, ring], algorithm="louvain")
    with fastconn.Context("cpu") as context, pytest.raises(ValueError, match="algorithm .*None"):
        context.multilayer_modularity([ring, ring], algorithm=None)
    # the other options are still checked by fastconn on the synchronous path
    with pytest.raises(fastconn.InvalidArgumentError, match="omega"):
        fastconn.multilayer_modularity([ring, ring], omega=-1, algorithm="synchronous")
    with pytest.raises(ValueError, match="layer_resolutions has 3 elements"):
        fastconn.multilayer_modularity([ring, ring], resolution=[1, 1, 1], algorithm="synchronous")
