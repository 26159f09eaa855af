"""fastconn.Graph: an undirected network held by fastconn (fc_graph), from correlations
(Context.network), from a symmetric scipy sparse matrix or from a .fcg file; its copy-out as a
scipy.sparse.csr_matrix, an edge list, a python-igraph or a networkx graph; plus the parsing of
the edge-rule arguments.

>>> import numpy as np, scipy.sparse.csgraph, fastconn
>>> x, regions = fastconn.data.timeseries()
>>> g = fastconn.network(x, threshold=0.5, rowvar=False)
>>> g
fastconn.Graph(n_nodes=31, n_edges=27)
>>> csr = g.tocsr()                       # int32 indices: scipy.sparse.csgraph takes it as it is
>>> csr.indices.dtype, scipy.sparse.csgraph.connected_components(csr)[0]
(dtype('int32'), 9)
>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "rois.fcg")
>>> g.save(path)                          # the command line's graph file format
>>> fastconn.load_graph(path).n_edges
27
"""

import math
import numbers
import os

import numpy as np

from . import _fastconn as _fc
from .options import invalid_argument


def _sparse():
    """scipy.sparse, imported where a sparse matrix is made: fastconn itself needs only numpy, so
    that its calls without sparse outputs (and fastconn.cohort's workers) run where scipy is not
    installed."""
    import scipy.sparse
    return scipy.sparse


def _is_sparse(value):
    """Whether value is a scipy sparse matrix or array, without importing scipy for anything else."""
    return type(value).__module__.startswith("scipy.sparse") and _sparse().issparse(value)

#: weights= of graph / edges / network: the weight each edge carries
GRAPH_WEIGHTS = {"r": _fc.FC_GRAPH_WEIGHTED, "abs": _fc.FC_GRAPH_WEIGHTED_ABS, "binary": _fc.FC_GRAPH_BINARY}


def _shown(value):
    """A rule's value as a message shows it: 3, 1.5, nan."""
    return str(int(value)) if isinstance(value, numbers.Integral) else repr(float(value))


def edge_rule(threshold=None, density=None, topk=None, signed=False):
    """(fc_edge_rule, param) for exactly one of threshold= / density= / topk=.

    threshold=t: |r| >= t, or r >= t with signed=True; density=d: the ceil(d * N(N-1)/2) pairs
    of largest |r|; topk=k: each series' k largest |r|, symmetrized by union. The values are
    checked as the R package checks them (InvalidArgumentError, a ValueError, naming the argument
    and value): t in [-1, 1], and t >= 0 unless signed=True (|r| >= a negative t keeps every
    pair); d in [0, 1]; k a whole number >= 1."""
    given = [(name, value) for name, value in (("threshold", threshold), ("density", density), ("topk", topk))
             if value is not None]
    if len(given) != 1:
        got = ", ".join(f"{name}={value!r}" for name, value in given) or "none"
        raise ValueError(f"give exactly one edge rule, threshold=, density= or topk= (got {got})")
    name, value = given[0]
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {value!r}")
    if not isinstance(signed, (bool, np.bool_)):
        raise TypeError(f"signed must be True or False, got {signed!r}")
    if signed and name != "threshold":
        raise ValueError(f"signed=True applies to threshold= only, not to {name}={value!r}: {name} ranks pairs by |r|")
    param = float(value)
    if name == "threshold":
        if not -1.0 <= param <= 1.0:
            raise invalid_argument(f"threshold must be one number in [-1, 1], not {_shown(value)}")
        if not signed and param < 0:
            raise invalid_argument(f"threshold={_shown(value)} with signed=False keeps every pair (|r| >= "
                                   f"{_shown(value)}); use signed=True for the edges with r >= {_shown(value)}")
        return (_fc.FC_EDGE_THRESHOLD if signed else _fc.FC_EDGE_ABS_THRESHOLD), param
    if name == "density":
        if not 0.0 <= param <= 1.0:
            raise invalid_argument(f"density must be one number in [0, 1] (the fraction of all pairs kept), not "
                                   f"{_shown(value)}")
        return _fc.FC_EDGE_DENSITY, param
    if not (math.isfinite(param) and param >= 1 and param == round(param)):
        raise invalid_argument(f"topk must be one whole number >= 1 (partners kept per series), not {_shown(value)}")
    return _fc.FC_EDGE_TOP_K, param


def index_dtype(n_nodes, n_entries):
    """The dtype of a CSR matrix's indptr / indices: int32 when every offset and index fits (as
    scipy.sparse chooses; scipy.sparse.csgraph needs it), else int64."""
    return np.dtype(np.int32 if max(n_nodes, n_entries) <= np.iinfo(np.int32).max else np.int64)


def as_graph(graph):
    """A fastconn.Graph of `graph`: itself, or a copy of a scipy sparse matrix or a dense 2-D
    numpy adjacency (checked by fastconn: symmetric, no diagonal, finite weights)."""
    if isinstance(graph, Graph):
        return graph
    if _is_sparse(graph):
        return Graph(graph)
    array = np.asarray(graph)
    if array.ndim != 2 or array.shape[0] != array.shape[1] or array.dtype.kind not in "biuf":
        raise TypeError("graph must be a fastconn.Graph, a scipy.sparse matrix or a square real numpy array, got "
                        f"{type(graph).__name__} {getattr(array, 'shape', '')}")
    return Graph(_sparse().csr_matrix(array))


def _file_name(path):
    """A path argument (str, bytes or os.PathLike) as the str fastconn's C calls take."""
    return os.fsdecode(os.fspath(path))


def save_graph(graph, path):
    """Save a graph (a fastconn.Graph, a symmetric scipy.sparse matrix or a dense adjacency) to
    `path` in fastconn's .fcg format, the command line's graph files (see Graph.save)."""
    as_graph(graph).save(path)


def load_graph(path):
    """The fastconn.Graph saved in the .fcg file `path` (by Graph.save, any binding or the
    command line's `fastconn graph`); see Graph.load."""
    return Graph.load(path)


def to_igraph(graph):
    """`graph` (a fastconn.Graph, a symmetric scipy.sparse matrix or a dense adjacency) as an
    undirected python-igraph Graph with edge attribute "weight" (see Graph.to_igraph)."""
    return as_graph(graph).to_igraph()


def to_networkx(graph):
    """`graph` (a fastconn.Graph, a symmetric scipy.sparse matrix or a dense adjacency) as a
    networkx.Graph with edge attribute "weight" (see Graph.to_networkx)."""
    return as_graph(graph).to_networkx()


class Graph:
    """An undirected network without self-loops, held (copied) by fastconn.

    Graph(matrix) takes a square, symmetric scipy sparse matrix (or anything
    scipy.sparse.csr_matrix accepts): every stored entry is an edge weighing its value (as
    float32). fastconn validates it and names the first entry without a mirror, with a mirror of
    another weight, on the diagonal or not finite (InvalidArgumentError). Graphs built from
    correlations come from Context.network / fastconn.network, saved ones from Graph.load.
    Copies out: tocsr(), edges(), to_igraph(), to_networkx(); save(path) writes a .fcg file.
    """

    def __init__(self, matrix):
        csr = _sparse().csr_matrix(matrix)
        if csr.shape[0] != csr.shape[1]:
            raise ValueError(f"a graph's matrix must be square, got shape {csr.shape}")
        if not csr.has_sorted_indices:
            csr = csr.sorted_indices()  # fastconn needs ascending columns; duplicates it rejects
        nnz = csr.nnz
        self._handle = _fc.fc_graph_create_csr(np.ascontiguousarray(csr.indptr, dtype=np.int64),
                                               np.ascontiguousarray(csr.indices[:nnz], dtype=np.int64),
                                               np.ascontiguousarray(csr.data[:nnz], dtype=np.float32))

    @classmethod
    def _adopt(cls, handle):
        """The Graph of an fc_graph handle from fc_pcc_graph."""
        graph = cls.__new__(cls)
        graph._handle = handle
        return graph

    @property
    def n_nodes(self):
        """Nodes (series), isolated ones included."""
        return int(_fc.fc_graph_info(self._handle)[0])

    @property
    def n_edges(self):
        """Undirected edges (each appears twice in tocsr(), once in edges())."""
        return int(_fc.fc_graph_info(self._handle)[1])

    def tocsr(self):
        """The symmetric n_nodes x n_nodes scipy.sparse.csr_matrix: float32 data, sorted columns,
        no diagonal. indptr / indices are int32 when the graph fits (n_nodes and 2 n_edges below
        2^31, as scipy itself would choose, and as scipy.sparse.csgraph needs), else int64."""
        n, m = _fc.fc_graph_info(self._handle)
        indptr = np.empty(n + 1, dtype=np.int64)
        indices = np.empty(2 * m, dtype=np.int64)
        data = np.empty(2 * m, dtype=np.float32)
        _fc.fc_graph_csr(self._handle, indptr, indices, data)
        narrow = index_dtype(n, 2 * m)
        if narrow != np.int64:
            indptr, indices = indptr.astype(narrow), indices.astype(narrow)
        # Assigned rather than passed to the constructor, which would check and copy the arrays
        # again; they already are canonical CSR.
        matrix = _sparse().csr_matrix((n, n), dtype=np.float32)
        matrix.data, matrix.indices, matrix.indptr = data, indices, indptr
        matrix.has_sorted_indices = True
        return matrix

    def save(self, path):
        """Write the graph to `path` in fastconn's .fcg format (little-endian, magic "FCGRAPH1",
        the counts, the CSR arrays; the command line's `fastconn graph` writes the same). The file
        is written beside `path` and renamed into place, so an existing file is never left
        half-written; a failure raises FastconnError (FC_ERR_IO) naming the path and reason."""
        _fc.fc_graph_save(self._handle, _file_name(path))

    @classmethod
    def load(cls, path):
        """The graph saved in the .fcg file `path` (checked as Graph(matrix) checks a matrix).

        >>> import fastconn
        >>> fastconn.Graph.load("/nonexistent/g.fcg")
        Traceback (most recent call last):
        ...
        fastconn.FastconnError: fc_graph_load: cannot open '/nonexistent/g.fcg': No such file or directory
        """
        return cls._adopt(_fc.fc_graph_load(_file_name(path)))

    def to_igraph(self):
        """An undirected python-igraph Graph with n_nodes vertices, the edges in edges() order and
        their weights as the edge attribute "weight" (needs python-igraph: Debian python3-igraph).

        >>> import fastconn
        >>> x, regions = fastconn.data.timeseries()
        >>> g = fastconn.network(x, topk=3, weights="abs", rowvar=False).to_igraph()
        >>> g.vcount(), g.is_directed(), round(g.modularity(g.community_leading_eigenvector(weights="weight"), weights="weight"), 2) > 0
        (31, False, True)
        """
        try:
            import igraph
        except ImportError:
            raise ImportError("to_igraph needs python-igraph (Debian: apt-get install python3-igraph; "
                              "otherwise pip install igraph)") from None
        i, j, w = self.edges()
        graph = igraph.Graph(n=self.n_nodes, edges=list(zip(i.tolist(), j.tolist())), directed=False)
        graph.es["weight"] = w.tolist()
        return graph

    def to_networkx(self):
        """A networkx.Graph with nodes 0 .. n_nodes - 1 and the edges with their weights as the
        edge attribute "weight" (needs networkx: Debian python3-networkx).

        >>> import networkx, fastconn
        >>> x, regions = fastconn.data.timeseries()
        >>> g = fastconn.network(x, density=0.1, rowvar=False).to_networkx()
        >>> g.number_of_nodes(), g.number_of_edges()
        (31, 47)
        """
        try:
            import networkx
        except ImportError:
            raise ImportError("to_networkx needs networkx (Debian: apt-get install python3-networkx; "
                              "otherwise pip install networkx)") from None
        i, j, w = self.edges()
        graph = networkx.Graph()
        graph.add_nodes_from(range(self.n_nodes))
        graph.add_weighted_edges_from(zip(i.tolist(), j.tolist(), w.tolist()))
        return graph

    def eigenvector_centrality(self, weighted=True, tolerance=None, eigenvalue=False):
        """The eigenvector centrality of this graph, largest entry 1 (igraph's scale=True): see
        fastconn.eigenvector_centrality.

        >>> import fastconn
        >>> x, regions = fastconn.data.timeseries()
        >>> g = fastconn.network(x, topk=3, weights="abs", rowvar=False)
        >>> c, lam = g.eigenvector_centrality(weighted=False, eigenvalue=True)
        >>> float(c.max()), bool(lam > 0)
        (1.0, True)
        """
        from .centrality import eigenvector_centrality
        return eigenvector_centrality(self, weighted, tolerance, eigenvalue)

    def edges(self):
        """The edge list (i, j, w): int64, int64, float32 arrays with every edge once, i < j,
        sorted by (i, j).

        >>> import numpy as np, scipy.sparse, fastconn
        >>> g = fastconn.Graph(scipy.sparse.csr_matrix(np.array([[0, 2, 0], [2, 0, 1], [0, 1, 0]])))
        >>> g.edges()
        (array([0, 1]), array([1, 2]), array([2., 1.], dtype=float32))
        >>> g.tocsr().toarray()
        array([[0., 2., 0.],
               [2., 0., 1.],
               [0., 1., 0.]], dtype=float32)
        """
        m = self.n_edges
        i = np.empty(m, dtype=np.int64)
        j = np.empty(m, dtype=np.int64)
        w = np.empty(m, dtype=np.float32)
        _fc.fc_graph_edges(self._handle, i, j, w)
        return i, j, w

    def __repr__(self):
        n, m = _fc.fc_graph_info(self._handle)
        return f"fastconn.Graph(n_nodes={n}, n_edges={m})"
