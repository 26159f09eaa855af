"""Modules of a network: Newman's leading-eigenvector modularity (Newman 2006, PNAS 103:8577),
and Leiden (Traag, Waltman and van Eck 2019) with modularity or the Constant Potts Model.

modularity(graph) splits the graph recursively by the sign pattern of the leading eigenvector of
each community's generalized modularity matrix (never formed: one sparse product per solver
iteration), keeps a split while the leading eigenvalue exceeds eigen_threshold and it raises Q,
refines each split with Kernighan-Lin vertex moves and the final partition with single-vertex
moves that never lower Q. The graph is a fastconn.Graph, a symmetric scipy.sparse matrix or a
dense symmetric numpy adjacency (no diagonal; weights taken as float32, the zeros of a dense
matrix are not edges). Negative weights: the positive and negative parts are handled separately,
signed="gomez" (Gomez et al. 2009) or "rubinov" (Rubinov and Sporns 2011).

Example, on the bundled data (fastconn.data):

>>> import numpy as np, fastconn
>>> x, regions = fastconn.data.timeseries()
>>> g = fastconn.network(x, density=0.2, weights="abs", rowvar=False)
>>> m = fastconn.modularity(g)
>>> m.labels.shape, int(m.labels[0]), bool(m.q > 0), bool(m.n_communities == m.labels.max() + 1)
((31,), 0, True, True)
>>> bool(abs(fastconn.modularity_score(g, m.labels) - m.q) < 1e-9)
True
>>> m.splits.dtype.names
('parent', 'child_a', 'child_b', 'eigenvalue', 'gain', 'iterations', 'residual')
"""

import numpy as np

from . import _fastconn as _fc
from .network import Graph, as_graph
from .options import integer, lookup, real

__all__ = ["Modules", "SPLIT_DTYPE", "modularity", "modularity_score", "leiden"]

SIGNED_MODES = {"gomez": _fc.FC_SIGNED_GOMEZ, "rubinov": _fc.FC_SIGNED_RUBINOV}
LEIDEN_QUALITIES = {"modularity": _fc.FC_LEIDEN_MODULARITY, "cpm": _fc.FC_LEIDEN_CPM}
LEIDEN_ALGORITHMS = {"queue": _fc.FC_LEIDEN_QUEUE, "synchronous": _fc.FC_LEIDEN_SYNCHRONOUS}

#: the division tree: one record per kept split, in the order made
SPLIT_DTYPE = np.dtype([("parent", np.int64), ("child_a", np.int64), ("child_b", np.int64), ("eigenvalue", np.float64),
                        ("gain", np.float64), ("iterations", np.int64), ("residual", np.float64)])


class Modules:
    """The result of modularity().

    labels: int64 community of every node, 0 .. n_communities - 1 numbered by first appearance
        (node 0 has label 0); igraph's membership / networkx's communities in array form.
    q: the modularity of labels (at the resolution asked for).
    n_communities: K.
    splits: the division tree, a structured array (SPLIT_DTYPE) with one record per kept split in
        the order made: community `parent` (tree ids: the whole graph is 0, each split creates
        child_a and child_b) split with leading eigenvalue `eigenvalue`, raising Q by `gain`;
        `iterations` and `residual` of its eigensolve.
    """

    def __init__(self, labels, q, n_communities, splits):
        self.labels = labels
        self.q = q
        self.n_communities = n_communities
        self.splits = splits

    def communities(self):
        """The node indices of each community, a list of K int64 arrays."""
        order = np.argsort(self.labels, kind="stable")
        bounds = np.cumsum(np.bincount(self.labels, minlength=self.n_communities))[:-1]
        return np.split(order, bounds)

    def __repr__(self):
        return (f"fastconn.Modules(n_nodes={self.labels.size}, n_communities={self.n_communities}, q={self.q:.6g}, "
                f"n_splits={self.splits.size})")


class ModuleMethods:
    """The modularity computations of fastconn.Context (see fastconn.modules)."""

    def modularity(self, graph, resolution=1.0, eigen_threshold=1e-8, max_communities=0, min_size=1, seed=1,
                   signed="gomez", refine=True):
        """The modules of `graph` (see fastconn.modularity) on this context's backend."""
        options = _fc.fc_modularity_options()
        _fc.fc_modularity_options_default(options)
        options.resolution = real(resolution, "resolution")
        options.eigen_threshold = real(eigen_threshold, "eigen_threshold")
        options.max_communities = integer(max_communities, "max_communities")
        options.min_community_size = integer(min_size, "min_size")
        seed = integer(seed, "seed")
        if not 0 <= seed < 2 ** 64:
            raise ValueError(f"seed must be in [0, 2**64), got {seed}")
        options.seed = seed
        options.signed_mode = lookup(SIGNED_MODES, signed, "signed")
        options.refine = 1 if refine else 0
        handle = as_graph(graph)._handle
        with self._lock:
            modules = _fc.fc_modularity(self._live(), handle, options)
        n_nodes, n_communities, q, n_splits = _fc.fc_modules_info(modules)
        labels = np.empty(n_nodes, dtype=np.int64)
        _fc.fc_modules_labels(modules, labels)
        columns = {name: np.empty(n_splits, dtype=SPLIT_DTYPE[name]) for name in SPLIT_DTYPE.names}
        _fc.fc_modules_splits(modules, *(columns[name] for name in SPLIT_DTYPE.names))
        splits = np.empty(n_splits, dtype=SPLIT_DTYPE)
        for name, column in columns.items():
            splits[name] = column
        return Modules(labels, q, int(n_communities), splits)

    def leiden(self, graph, resolution=1.0, quality="modularity", initial=None, seed=1, max_iterations=0,
               randomness=1e-4, signed="gomez", algorithm="queue"):
        """The Leiden modules of `graph` (see fastconn.leiden) on this context."""
        # Every algorithm goes through fc_leiden_v2: with FC_LEIDEN_QUEUE it is fc_leiden bit for
        # bit (fastconn.h), so one call serves both.
        versioned = _fc.fc_leiden_options_v2()
        _fc.fc_leiden_options_v2_default(versioned)
        versioned.algorithm = lookup(LEIDEN_ALGORITHMS, algorithm, "algorithm")
        options = _fc.fc_leiden_options()
        _fc.fc_leiden_options_default(options)
        options.resolution = real(resolution, "resolution")
        options.randomness = real(randomness, "randomness")
        options.max_iterations = integer(max_iterations, "max_iterations")
        seed = integer(seed, "seed")
        if not 0 <= seed < 2 ** 64:
            raise ValueError(f"seed must be in [0, 2**64), got {seed}")
        options.seed = seed
        options.quality = lookup(LEIDEN_QUALITIES, quality, "quality")
        options.signed_mode = lookup(SIGNED_MODES, signed, "signed")
        handle = as_graph(graph)._handle
        if initial is not None:
            initial = _labels_array(initial, "initial")
        versioned.base = options  # a copy into the version-2 struct (SWIG's setter of a struct member)
        with self._lock:
            modules = _fc.fc_leiden_v2(self._live(), handle, versioned, initial)
        n_nodes, n_communities, q, _ = _fc.fc_modules_info(modules)
        labels = np.empty(n_nodes, dtype=np.int64)
        _fc.fc_modules_labels(modules, labels)
        return Modules(labels, q, int(n_communities), np.empty(0, dtype=SPLIT_DTYPE))


def _labels_array(labels, name):
    """labels as a contiguous int64 array (a 1-D integer array that fits)."""
    array = np.asarray(labels)
    if array.ndim != 1 or array.dtype.kind not in "iub":
        raise TypeError(f"{name} must be a 1-D integer array, got {array.dtype} {array.shape}")
    if array.dtype.kind == "u" and array.size and array.max() > np.iinfo(np.int64).max:
        raise ValueError(f"{name} holds {array.max()}, which does not fit in int64")
    return np.ascontiguousarray(array, dtype=np.int64)


def modularity(graph, resolution=1.0, eigen_threshold=1e-8, max_communities=0, min_size=1, seed=1, signed="gomez",
               refine=True, backend=None):
    """Newman's leading-eigenvector modules of `graph`: a Modules with .labels (int64), .q,
    .n_communities and .splits (the division tree).

    graph: a fastconn.Graph, a symmetric scipy.sparse matrix or a dense symmetric numpy
        adjacency without diagonal (weights as float32; binary or weighted).
    resolution: gamma > 0 in Q = 1/2m sum_ij (A_ij - gamma k_i k_j / 2m) delta(c_i, c_j).
    eigen_threshold: split a community only while its leading eigenvalue (in units of the
        weights) exceeds this (Wu et al. 2010's r_e; larger: fewer, coarser modules).
    max_communities: stop splitting at this many (0: no limit). min_size: never make a community
        smaller than this. seed: the eigensolver's start vectors (same seed, same labels, on
        either backend). signed: "gomez" or "rubinov" for graphs with negative weights.
    refine: vertex-move refinement (True) or the spectral splits alone.
    Options out of range raise InvalidArgumentError naming the value. An isolated node is a
    community of its own; a graph without edges gives every node its own label and Q = 0.

    >>> import numpy as np, fastconn
    >>> x, regions = fastconn.data.timeseries()
    >>> m = fastconn.modularity(fastconn.graph(x, topk=4, weights="abs", rowvar=False), max_communities=3)
    >>> m.n_communities <= 3, np.unique(m.labels).size == m.n_communities
    (True, True)
    """
    from . import _context_for  # the package's per-thread contexts; imported late (the package imports this module)
    return _context_for(backend=backend).modularity(graph, resolution, eigen_threshold, max_communities, min_size,
                                                    seed, signed, refine)


def leiden(graph, resolution=1.0, quality="modularity", initial=None, seed=1, max_iterations=0, randomness=1e-4,
           signed="gomez", backend=None, algorithm="queue"):
    """Leiden modules of `graph` (Traag, Waltman and van Eck 2019): a Modules with .labels, .q,
    .n_communities (and an empty .splits). Every community is connected.

    graph: as for modularity(). resolution: gamma > 0. quality: "modularity" (Q with resolution
        gamma; signed graphs as `signed`: "gomez" or "rubinov") or "cpm" (the Constant Potts Model,
        sum over communities of the weight inside minus gamma n_c^2 / 2: gamma is a density).
    initial: start from these labels (one non-negative integer per node; e.g. modularity()'s).
    seed: the random node orders and merges (same seed, same labels on every thread count and
        backend). max_iterations: passes at most (0: until a pass moves no node).
    randomness: theta of the refinement's random merges (in units of the weights; the default
        1e-4 merges about greedily, as leidenalg does; igraph's beta is 0.01).
    algorithm: how the nodes move (fc_leiden_v2). "queue" (the default; fc_leiden's result): a
        seeded queue of single moves, on the host. "synchronous": rounds in which many nodes move
        at once, judged against the same state, with a greedy refinement (`randomness` is not
        used); on the GPU with backend="cuda", on the host's threads otherwise, the same labels
        either way (they differ from "queue"'s). Another value raises ValueError naming it.
    .q is modularity: at `resolution` for quality="modularity", at 1 for "cpm".
    A node without edges is a community of its own.

    >>> import numpy as np, fastconn
    >>> x, regions = fastconn.data.timeseries()
    >>> g = fastconn.network(x, density=0.2, weights="abs", rowvar=False)
    >>> m = fastconn.leiden(g)
    >>> bool(m.q >= fastconn.modularity(g).q - 0.02), bool(abs(fastconn.modularity_score(g, m.labels) - m.q) < 1e-12)
    (True, True)
    >>> again = fastconn.leiden(g, initial=m.labels)
    >>> bool(again.q >= m.q - 1e-12), m.splits.size
    (True, 0)
    >>> cpm = fastconn.leiden(g, quality="cpm", resolution=1e-6)   # below every density: the connected pieces
    >>> bool(cpm.n_communities <= m.n_communities)
    True
    >>> sync = fastconn.leiden(g, algorithm="synchronous")   # the GPU's algorithm (here on the host)
    >>> bool(np.array_equal(sync.labels, fastconn.leiden(g, algorithm="synchronous").labels))
    True
    >>> bool(abs(fastconn.modularity_score(g, sync.labels) - sync.q) < 1e-12), bool(sync.q >= m.q - 0.05)
    (True, True)
    """
    from . import _context_for  # the package's per-thread contexts; imported late (the package imports this module)
    return _context_for(backend=backend).leiden(graph, resolution, quality, initial, seed, max_iterations, randomness,
                                                signed, algorithm)


def modularity_score(graph, labels, resolution=1.0):
    """Q of any partition of `graph` (a fastconn.Graph, scipy.sparse matrix or dense adjacency):
    labels holds a non-negative integer per node (e.g. Louvain's, or another subject's labels).
    Signed graphs are scored as signed="gomez".

    >>> import numpy as np, fastconn
    >>> x, regions = fastconn.data.timeseries()
    >>> g = fastconn.graph(x, threshold=0.3, weights="abs", rowvar=False)
    >>> abs(fastconn.modularity_score(g, np.zeros(31, dtype=np.int64))) < 1e-12   # one community: Q = 0
    True
    """
    array = np.asarray(labels)
    if array.ndim != 1 or array.dtype.kind not in "iub":
        raise TypeError(f"labels must be a 1-D integer array, got {array.dtype} {array.shape}")
    if array.dtype.kind == "u" and array.size and array.max() > np.iinfo(np.int64).max:
        raise ValueError(f"labels holds {array.max()}, which does not fit in int64")
    return _fc.fc_modularity_score(as_graph(graph)._handle, np.ascontiguousarray(array, dtype=np.int64),
                                   real(resolution, "resolution"))
