"""Modules over time: multilayer modularity (Mucha, Richardson, Macon, Porter and Onnela 2010) of
a sequence of graphs on the same nodes, e.g. the windows' networks of fastconn.dfc_networks, each
node coupled to itself across layers with weight omega (ordinal: consecutive layers; categorical:
every two layers). The result gives labels per layer and node with community ids shared across
layers, the multilayer Q, each node's flexibility (Bassett et al. 2011: the fraction of consecutive
layer pairs in which it changes community) and module allegiance (the fraction of layers in which
two nodes share a community).

Example, on the bundled data (fastconn.data):

>>> import numpy as np, fastconn
>>> x, regions = fastconn.data.timeseries()
>>> nets = fastconn.dfc_networks(x, 40, step=20, threshold=0.3, signed=True, rowvar=False)   # r >= 0.3
>>> ml = fastconn.multilayer_modularity(nets, omega=1.0)
>>> ml.labels.shape == (len(nets), 31), bool(ml.q > 0), ml.flexibility.shape
(True, True, (31,))
>>> a = ml.allegiance()
>>> a.shape, bool(np.all(np.diag(a) == 1))
((31, 31), True)
>>> i, j, v = ml.allegiance_pairs(0.5)          # sparse: the pairs i < j at 0.5 or above
>>> bool(np.array_equal(v, a[i, j])), int(((np.triu(a, 1) >= 0.5)).sum()) == len(v)
(True, True)
"""

import numpy as np

from . import _fastconn as _fc
from .modules import LEIDEN_ALGORITHMS
from .network import as_graph
from .options import integer, lookup, real

__all__ = ["Multilayer", "multilayer_modularity"]

COUPLINGS = {"ordinal": _fc.FC_COUPLING_ORDINAL, "categorical": _fc.FC_COUPLING_CATEGORICAL}


class Multilayer:
    """The result of multilayer_modularity().

    labels: int64 (n_layers, n_nodes): node i's community in layer s at labels[s, i]; ids
        0 .. n_communities - 1 shared across layers, numbered by first appearance.
    q: the multilayer modularity of labels (Mucha et al.'s Q).
    n_communities: the number of communities over all layers.
    flexibility: float64 (n_nodes,): the fraction of the n_layers - 1 consecutive layer pairs in
        which each node changes community (0 with one layer).
    allegiance(): the dense (n_nodes, n_nodes) float64 module allegiance matrix (computed on
        demand: n_nodes^2 values).
    allegiance_pairs(floor): the pairs i < j of allegiance >= floor as (i, j, values) arrays,
        without the dense matrix.
    """

    def __init__(self, handle):
        self._handle = handle
        n_nodes, n_layers, n_communities, q = _fc.fc_multilayer_info(handle)
        self.labels = np.empty(n_nodes * n_layers, dtype=np.int64)
        _fc.fc_multilayer_labels(handle, self.labels)
        self.labels = self.labels.reshape(n_layers, n_nodes)
        self.q = q
        self.n_communities = int(n_communities)
        self.flexibility = np.empty(n_nodes, dtype=np.float64)
        _fc.fc_multilayer_flexibility(handle, self.flexibility)

    @property
    def n_nodes(self):
        return self.labels.shape[1]

    @property
    def n_layers(self):
        return self.labels.shape[0]

    def allegiance(self):
        """The fraction of layers in which nodes i and j share a community, (n_nodes, n_nodes)
        float64 with 1 on the diagonal."""
        out = np.empty((self.n_nodes, self.n_nodes), dtype=np.float64)
        _fc.fc_multilayer_allegiance(self._handle, out)
        return out

    def allegiance_pairs(self, floor):
        """The pairs i < j whose allegiance is >= floor (0 < floor <= 1), without the dense matrix
        (fc_multilayer_allegiance_pairs; for voxel-level n): (i, j, values), int64, int64 and
        float64 arrays in row order, values equal to allegiance()'s."""
        floor = real(floor, "floor")
        count = _fc.fc_multilayer_allegiance_pairs(self._handle, floor, None, None, None)
        i, j = np.empty(count, dtype=np.int64), np.empty(count, dtype=np.int64)
        values = np.empty(count, dtype=np.float64)
        if count:
            _fc.fc_multilayer_allegiance_pairs(self._handle, floor, i, j, values)
        return i, j, values

    def __repr__(self):
        return (f"fastconn.Multilayer(n_nodes={self.n_nodes}, n_layers={self.n_layers}, "
                f"n_communities={self.n_communities}, q={self.q:.6g})")


class MultilayerMethods:
    """The multilayer modularity of fastconn.Context (see fastconn.multilayer)."""

    def multilayer_modularity(self, layers, resolution=1.0, omega=1.0, coupling="ordinal", seed=1, max_iterations=0,
                              algorithm="queue"):
        """The multilayer modules of `layers` (see fastconn.multilayer_modularity) on this context."""
        # Every algorithm goes through fc_multilayer_modularity_v2: with FC_LEIDEN_QUEUE it is
        # fc_multilayer_modularity bit for bit (fastconn.h), so one call serves both.
        versioned = _fc.fc_multilayer_options_v2()
        _fc.fc_multilayer_options_v2_default(versioned)
        versioned.algorithm = lookup(LEIDEN_ALGORITHMS, algorithm, "algorithm")
        graphs = [as_graph(g) for g in layers]
        options = _fc.fc_multilayer_options()
        _fc.fc_multilayer_options_default(options)
        per_layer = None
        if np.ndim(resolution) == 0:
            options.resolution = real(resolution, "resolution")
        else:
            per_layer = np.asarray(resolution)
            if per_layer.ndim != 1 or per_layer.dtype.kind not in "iuf":
                raise TypeError(f"resolution must be a real number or a 1-D array of them, got {per_layer.dtype} "
                                f"{per_layer.shape}")
            per_layer = np.ascontiguousarray(per_layer, dtype=np.float64)
        options.omega = real(omega, "omega")
        options.coupling = lookup(COUPLINGS, coupling, "coupling")
        options.max_iterations = integer(max_iterations, "max_iterations")
        seed = integer(seed, "seed")
        if not 0 <= seed < 2 ** 64:
            raise ValueError(f"seed must be in [0, 2**64), got {seed}")
        options.seed = seed
        versioned.base = options  # a copy into the version-2 struct (SWIG's setter of a struct member)
        with self._lock:
            handle = _fc.fc_multilayer_modularity_v2(self._live(), [g._handle for g in graphs], per_layer, versioned)
        return Multilayer(handle)


def multilayer_modularity(layers, resolution=1.0, omega=1.0, coupling="ordinal", seed=1, max_iterations=0,
                          backend=None, algorithm="queue"):
    """Multilayer modules (Mucha et al. 2010) of `layers`: a Multilayer with .labels
    (n_layers x n_nodes int64), .q, .n_communities, .flexibility and .allegiance().

    layers: a sequence of graphs on the same nodes (fastconn.Graph, symmetric scipy.sparse
        matrices or dense symmetric adjacencies; non-negative weights), e.g.
        fastconn.dfc_networks(...)'s windows.
    resolution: gamma >= 0 of every layer, or one value per layer.
    omega: the coupling >= 0 of each node to itself across layers; coupling: "ordinal" (layers s
        and s + 1: windows in time) or "categorical" (every two layers: unordered conditions).
    seed: the node orders (same input and seed: same labels, on every thread count and backend).
    max_iterations: passes at most (0: until a pass moves no node). Every community is connected
        in the supra-graph (Leiden's refinement).
    algorithm: how the nodes move (fc_multilayer_modularity_v2). "queue" (the default;
        fc_multilayer_modularity's result): a seeded queue of single moves, on the host.
        "synchronous": rounds in which many nodes move at once, judged against the same state;
        the same labels on any thread count and backend (they differ from "queue"'s). Another
        value raises ValueError naming it.
    Q = 1/(2 mu) sum_ijsr [(A_ijs - gamma_s k_is k_js / 2m_s) delta_sr + delta_ij C_jsr] delta(g_is, g_jr).
    Layers of different node counts, negative weights or options out of range raise
    InvalidArgumentError naming the value.

    >>> import numpy as np, fastconn
    >>> ring = np.roll(np.eye(6), 1, axis=1); ring = ring + ring.T       # a 6-cycle ...
    >>> two = np.zeros((6, 6)); two[:3, :3] = two[3:, 3:] = 1; np.fill_diagonal(two, 0)  # ... two triangles
    >>> ml = fastconn.multilayer_modularity([two, two, two], omega=0.5)
    >>> ml.labels[0].tolist(), bool(np.all(ml.labels == ml.labels[0])), ml.flexibility.tolist()
    ([0, 0, 0, 1, 1, 1], True, [0.0, 0.0, 0.0, 0.0, 0.0, 0.0])
    >>> sync = fastconn.multilayer_modularity([two, two, two], omega=0.5, algorithm="synchronous")
    >>> sync.labels[0].tolist(), bool(np.all(sync.labels == sync.labels[0])), bool(abs(sync.q - ml.q) < 1e-12)
    ([0, 0, 0, 1, 1, 1], True, True)
    """
    from . import _context_for  # the package's per-thread contexts; imported late (the package imports this module)
    return _context_for(backend=backend).multilayer_modularity(layers, resolution, omega, coupling, seed,
                                                               max_iterations, algorithm)
