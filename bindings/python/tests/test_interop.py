"""The whole C API from Python (issue 29): graph files, igraph / networkx conversions, the sample
data, the triangle's index helpers, version and CUDA availability."""

import os
import pathlib

import numpy as np
import pytest
import scipy.sparse

import fastconn

from conftest import FMRI_CSV, REPO


@pytest.fixture
def net(fmri):
    return fastconn.network(fmri, density=0.15, weights="abs", rowvar=False)


def same_graph(a, b):
    ca, cb = a.tocsr(), b.tocsr()
    return (ca.shape == cb.shape and np.array_equal(ca.indptr, cb.indptr) and np.array_equal(ca.indices, cb.indices)
            and np.array_equal(ca.data, cb.data))


def test_graph_save_load_round_trip(net, tmp_path):
    path = tmp_path / "net.fcg"
    net.save(path)                                     # os.PathLike
    assert path.read_bytes()[:8] == b"FCGRAPH1"
    assert same_graph(fastconn.Graph.load(str(path)), net)
    assert same_graph(fastconn.load_graph(os.fsencode(path)), net)   # bytes too
    csr = net.tocsr()
    fastconn.save_graph(csr, tmp_path / "from_csr.fcg")             # a scipy matrix is converted first
    assert same_graph(fastconn.load_graph(tmp_path / "from_csr.fcg"), net)


def test_graph_load_errors_name_the_path(tmp_path):
    with pytest.raises(fastconn.FastconnError) as info:
        fastconn.load_graph(tmp_path / "missing.fcg")
    assert "missing.fcg" in str(info.value) and info.value.status == 103   # FC_ERR_IO
    bad = tmp_path / "bad.fcg"
    bad.write_bytes(b"not a graph at all")
    with pytest.raises(fastconn.FastconnError) as info:
        fastconn.load_graph(bad)
    assert "bad.fcg" in str(info.value)


def test_to_igraph_keeps_nodes_edges_weights_and_modularity(net):
    igraph = pytest.importorskip("igraph")
    g = net.to_igraph()
    i, j, w = net.edges()
    assert isinstance(g, igraph.Graph) and not g.is_directed()
    assert g.vcount() == 31 and g.ecount() == net.n_edges
    assert sorted(tuple(e.tuple) for e in g.es) == list(zip(i.tolist(), j.tolist()))
    np.testing.assert_array_equal(np.array(g.es["weight"], dtype=np.float32), w)
    m = fastconn.modularity(net)
    assert abs(g.modularity(m.labels.tolist(), weights="weight") - m.q) < 1e-6
    assert fastconn.to_igraph(net.tocsr()).ecount() == net.n_edges


def test_to_networkx_keeps_nodes_edges_and_weights(net):
    networkx = pytest.importorskip("networkx")
    g = net.to_networkx()
    i, j, w = net.edges()
    assert isinstance(g, networkx.Graph) and g.number_of_nodes() == 31 and g.number_of_edges() == net.n_edges
    assert all(g[a][b]["weight"] == np.float32(c) for a, b, c in zip(i.tolist(), j.tolist(), w.tolist()))
    isolated = fastconn.to_networkx(scipy.sparse.csr_matrix((5, 5)))   # nodes without edges are kept
    assert isolated.number_of_nodes() == 5 and isolated.number_of_edges() == 0


def test_sample_data_is_the_repository_data():
    x, regions = fastconn.data.timeseries()
    np.testing.assert_array_equal(x, np.loadtxt(FMRI_CSV, delimiter=",", skiprows=1))
    assert regions == FMRI_CSV.read_text().splitlines()[0].replace('"', "").split(",")
    assert pathlib.Path(fastconn.data.path("fmri1.nii.gz")).read_bytes() == (REPO / "tests/data/fmri1.nii.gz").read_bytes()
    with pytest.raises(ValueError, match="fmri_timeseries.csv"):
        fastconn.data.path("nope.csv")


def test_sample_scan_matches_nibabel():
    nibabel = pytest.importorskip("nibabel")
    image = nibabel.load(fastconn.data.path("fmri1.nii.gz"))
    scan = fastconn.data.scan()
    assert scan.dtype == image.get_data_dtype() and scan.shape == image.shape
    np.testing.assert_array_equal(scan, np.asanyarray(image.dataobj))


@pytest.mark.parametrize("n", [2, 3, 7, 31])
def test_triangle_helpers_match_numpy_in_both_orders(n):
    i, j = np.triu_indices(n, 1)
    assert fastconn.triu_size(n) == i.size
    for offset, (a, b) in enumerate(zip(i.tolist(), j.tolist())):
        assert fastconn.triu_offset(n, a, b) == offset == fastconn.triu_offset(n, b, a)
        assert fastconn.triu_pair(n, offset) == (a, b)
    col = sorted(zip(i.tolist(), j.tolist()), key=lambda pair: (pair[1], pair[0]))   # grouped by the larger index
    for offset, (a, b) in enumerate(col):
        assert fastconn.triu_offset(n, a, b, order="col") == offset
        assert fastconn.triu_pair(n, offset, order="col") == (a, b)


def test_triangle_helpers_refuse_what_is_not_a_pair():
    with pytest.raises(fastconn.InvalidArgumentError, match=r"no pair \(3, 3\) among 5 series"):
        fastconn.triu_offset(5, 3, 3)
    with pytest.raises(fastconn.InvalidArgumentError, match=r"no pair \(0, 5\)"):
        fastconn.triu_offset(5, 0, 5)
    with pytest.raises(fastconn.InvalidArgumentError):
        fastconn.triu_pair(5, 10)
    with pytest.raises(fastconn.InvalidArgumentError, match="n_series"):
        fastconn.triu_size(-1)
    assert fastconn.triu_size(92_683) > 2 ** 32


def test_version_and_cuda():
    version = fastconn.version()
    assert len(version) == 3 and all(isinstance(v, int) for v in version)
    assert fastconn.__version__ == "%d.%d.%d" % version
    assert isinstance(fastconn.has_cuda(), bool) and isinstance(fastconn.cuda_available(), bool)
    assert fastconn.cuda_available() <= fastconn.has_cuda()
    info = fastconn.cpu_info()
    assert info.startswith("pair kernels: ") and "BLAS: " in info and info == fastconn.cpu_info()
    assert fastconn.cuda_available() == (fastconn.backend_name() == "cuda")


def test_threads_and_memory_limit_do_not_change_results(fmri):
    reference = fastconn.pcc_triu(fmri, rowvar=False)
    ctx = fastconn.Context(threads=1, memory_limit=1 << 20)
    assert (ctx.threads, ctx.memory_limit) == (1, 1 << 20)
    np.testing.assert_array_equal(ctx.pcc_triu(fmri, rowvar=False), reference)
    ctx.threads, ctx.memory_limit = 2, 0
    np.testing.assert_array_equal(ctx.pcc_triu(fmri, rowvar=False), reference)
    with pytest.raises(fastconn.InvalidArgumentError):
        ctx.threads = -1


def test_fastconn_needs_scipy_only_for_sparse_matrices():
    """Without scipy (a worker image may lack it) fastconn imports and computes; a network's
    sparse matrix then names scipy as what is missing, and nothing else fails."""
    import subprocess
    import sys
    code = "\n".join([
        "import sys",
        "sys.modules['scipy'] = None  # every 'import scipy...' now raises ImportError",
        "import numpy as np, fastconn",
        "x = np.random.default_rng(3).standard_normal((40, 9))",
        "d, s = fastconn.Context(backend='cpu').degree(x, threshold=0.3, rowvar=True)",
        "assert d.shape == (40,) and d.sum() > 0",
        "g = fastconn.network(x, density=0.2, rowvar=True)",
        "try:",
        "    g.tocsr()",
        "except ImportError as e:",
        "    print('sparse needs', e.name)",
        "else:",
        "    raise SystemExit('tocsr() worked without scipy')",
    ])
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env=dict(os.environ))
    assert run.returncode == 0, run.stderr
    assert "sparse needs scipy" in run.stdout
