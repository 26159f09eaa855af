"""`fastconn modules --method leiden` and `fastconn dfc --flexibility / --module-labels` on the
bundled real scan (nitime's fmri1, 10x10x18 voxels x 40 time points): label maps checked against
numpy networks computed here (Q, connected modules, Mucha et al.'s multilayer Q, flexibility from
the labels), geometry and sidecars, determinism, and bad options."""
import nibabel as nib
import numpy as np
import pytest
import scipy.sparse
import scipy.sparse.csgraph

from conftest import SCAN, check_geometry, corr, flat, run, sidecar

SHAPE = (10, 10, 18)
EPS = 1e-6  # fp64: pairs this close to the threshold are left out of the exact comparisons


def mask_file(tmp_path, scan):
    m = np.zeros(SHAPE, np.uint8)
    m[:, :, 3:15] = 1
    path = tmp_path / "mask.nii"
    nib.Nifti1Image(m, scan.affine, scan.header).to_filename(path)
    return path, np.flatnonzero(m.reshape(-1, order="F"))


def network(x, t):
    """The binary network |r| >= t of the rows of x, and whether any pair sits within EPS of t."""
    a = np.abs(corr(x))
    return (a >= t).astype(float), bool((np.abs(a - t) < EPS)[~np.eye(len(a), dtype=bool)].any())


def newman_q(a, labels):
    k = a.sum(1)
    two_m = k.sum()
    same = labels[:, None] == labels[None, :]
    return ((a - np.outer(k, k) / two_m) * same).sum() / two_m


def mask_labels(path, idx, scan, volumes=None):
    img = nib.load(path)
    check_geometry(img, scan, SHAPE if volumes is None else SHAPE + (volumes,))
    assert img.get_data_dtype() == np.int32 and int(img.header["intent_code"]) == 1002  # NIFTI_INTENT_LABEL
    values = flat(img)
    outside = np.ones(values.shape[0], bool)
    outside[idx] = False
    assert (values[outside] == 0).all()
    return values[idx]


def test_leiden_labels(tmp_path, scan, voxels):
    mask, idx = mask_file(tmp_path, scan)
    out, eigen = tmp_path / "leiden.nii.gz", tmp_path / "eigen.nii.gz"
    common = [SCAN, "-m", mask, "--threshold", "0.6", "--precision", "fp64", "-q"]
    run("modules", *common, "--method", "leiden", "--random-seed", "3", "-o", out)
    run("modules", *common, "-o", eigen)
    labels = mask_labels(out, idx, scan)
    meta = sidecar(tmp_path / "leiden.json")
    k = meta["results"]["n_modules"]
    assert meta["parameters"]["method"].startswith("leiden") and meta["parameters"]["random_seed"] == 3
    assert "n_splits" not in meta["results"]
    assert labels.min() == 1 and labels.max() == k
    firsts = [np.flatnonzero(labels == c)[0] for c in range(1, k + 1)]
    assert firsts == sorted(firsts)  # numbered by first voxel
    a, near = network(voxels[idx], 0.6)
    assert not near
    q = meta["results"]["modularity_q"]
    assert q == pytest.approx(newman_q(a, labels), abs=1e-9)
    for c in range(1, k + 1):  # every module is connected in the network
        members = np.flatnonzero(labels == c)
        n_parts, _ = scipy.sparse.csgraph.connected_components(scipy.sparse.csr_matrix(a[np.ix_(members, members)]))
        assert n_parts == 1, f"module {c} falls into {n_parts} pieces"
    assert q >= sidecar(tmp_path / "eigen.json")["results"]["modularity_q"] - 0.01
    # Same seed, same map, on one thread or two.
    again = tmp_path / "again.nii.gz"
    run("modules", *common, "--method", "leiden", "--random-seed", "3", "--threads", "1", "-o", again)
    assert np.array_equal(flat(nib.load(again)), flat(nib.load(out)))


def test_leiden_synchronous_labels(tmp_path, scan, voxels):
    # --leiden-algorithm synchronous (fc_leiden_v2, FC_LEIDEN_SYNCHRONOUS): Q of its own labels,
    # connected modules, the same map on one thread; the default is the queue, recorded as such,
    # and --leiden-algorithm queue gives the default's map.
    mask, idx = mask_file(tmp_path, scan)
    common = [SCAN, "-m", mask, "--threshold", "0.6", "--precision", "fp64", "-q", "--method", "leiden",
              "--random-seed", "3"]
    sync, queue, default = tmp_path / "sync.nii.gz", tmp_path / "queue.nii.gz", tmp_path / "default.nii.gz"
    run("modules", *common, "--leiden-algorithm", "synchronous", "-o", sync)
    run("modules", *common, "--leiden-algorithm", "queue", "-o", queue)
    run("modules", *common, "-o", default)
    meta = sidecar(tmp_path / "sync.json")
    assert meta["parameters"]["leiden_algorithm"] == "synchronous" and meta["parameters"]["random_seed"] == 3
    assert sidecar(tmp_path / "queue.json")["parameters"]["leiden_algorithm"] == "queue"
    assert sidecar(tmp_path / "default.json")["parameters"]["leiden_algorithm"] == "queue"
    assert np.array_equal(flat(nib.load(queue)), flat(nib.load(default)))
    labels = mask_labels(sync, idx, scan)
    k = meta["results"]["n_modules"]
    assert labels.min() == 1 and labels.max() == k
    a, near = network(voxels[idx], 0.6)
    assert not near
    assert meta["results"]["modularity_q"] == pytest.approx(newman_q(a, labels), abs=1e-9)
    for c in range(1, k + 1):
        members = np.flatnonzero(labels == c)
        n_parts, _ = scipy.sparse.csgraph.connected_components(scipy.sparse.csr_matrix(a[np.ix_(members, members)]))
        assert n_parts == 1, f"module {c} falls into {n_parts} pieces"
    again = tmp_path / "again.nii.gz"
    run("modules", *common, "--leiden-algorithm", "synchronous", "--threads", "1", "-o", again)
    assert np.array_equal(flat(nib.load(again)), flat(nib.load(sync)))


def test_leiden_cpm_gives_the_components(tmp_path, scan, voxels):
    mask, idx = mask_file(tmp_path, scan)
    out = tmp_path / "cpm.nii.gz"
    run("modules", SCAN, "-m", mask, "--threshold", "0.8", "--precision", "fp64", "--method", "leiden", "--quality",
        "cpm", "--resolution", "1e-9", "-o", out, "-q")
    labels = mask_labels(out, idx, scan)
    a, near = network(voxels[idx], 0.8)
    assert not near
    _, parts = scipy.sparse.csgraph.connected_components(scipy.sparse.csr_matrix(a))
    assert np.unique(np.stack([labels, parts]), axis=1).shape[1] == np.unique(parts).size == labels.max()
    assert sidecar(tmp_path / "cpm.json")["parameters"]["quality"] == "cpm"


def mucha_q(mats, labels, omega):
    """Mucha et al.'s Q of labels[s, i] with ordinal coupling omega (no null term without edges)."""
    total = two_mu = 0.0
    for s, a in enumerate(mats):
        k = a.sum(1)
        two_m = k.sum()
        two_mu += two_m
        same = labels[s][:, None] == labels[s][None, :]
        total += ((a - (np.outer(k, k) / two_m if two_m else 0)) * same).sum()
    for s in range(len(mats) - 1):
        total += 2 * omega * (labels[s] == labels[s + 1]).sum()
        two_mu += 2 * omega * labels.shape[1]
    return total / two_mu


def test_dfc_flexibility_and_window_modules(tmp_path, scan, voxels):
    mask, idx = mask_file(tmp_path, scan)
    out, flex, mods = tmp_path / "dfc.nii.gz", tmp_path / "flex.nii.gz", tmp_path / "mods.nii.gz"
    run("dfc", SCAN, "-m", mask, "--window", "20", "--step", "5", "--threshold", "0.6", "--precision", "fp64", "-o", out,
        "--flexibility", flex, "--module-labels", mods, "--omega", "0.5", "-q")
    windows = (40 - 20) // 5 + 1
    labels = mask_labels(mods, idx, scan, windows).T  # (windows, voxels)
    assert nib.load(mods).header.get_zooms()[3] == pytest.approx(5 * scan.header.get_zooms()[3], rel=1e-6)
    f_img = nib.load(flex)
    check_geometry(f_img, scan, SHAPE)
    f = flat(f_img)
    outside = np.ones(f.size, bool)
    outside[idx] = False
    assert (f[outside] == 0).all()
    np.testing.assert_allclose(f[idx], (labels[1:] != labels[:-1]).mean(0), rtol=0, atol=1e-7)
    assert labels.min() == 1 and labels.flat[0] == 1
    mats = []
    for k in range(windows):
        a, near = network(voxels[idx, 5 * k:5 * k + 20], 0.6)
        assert not near
        mats.append(a)
    meta = sidecar(tmp_path / "dfc.json")
    r = meta["results"]["window_modules"]
    assert r["n_modules"] == labels.max()
    assert r["multilayer_q"] == pytest.approx(mucha_q(mats, labels, 0.5), abs=1e-9)
    assert r["mean_flexibility"] == pytest.approx(f[idx].mean(), abs=1e-7)
    assert meta["parameters"]["window_modules"]["omega"] == 0.5
    assert meta["parameters"]["window_modules"]["multilayer_algorithm"] == "queue"


def test_dfc_window_modules_synchronous(tmp_path, scan, voxels):
    # --multilayer-algorithm synchronous (fc_multilayer_modularity_v2, FC_LEIDEN_SYNCHRONOUS): Mucha's
    # Q of its own labels, flexibility from them, the same maps on one thread, recorded in the
    # sidecar; --multilayer-algorithm queue gives the default's maps.
    mask, idx = mask_file(tmp_path, scan)
    common = [SCAN, "-m", mask, "--window", "20", "--step", "5", "--threshold", "0.6", "--precision", "fp64",
              "--omega", "0.5", "--random-seed", "3", "-q"]

    def window_modules(name, *extra):
        out, flex, mods = (tmp_path / f"{name}{suffix}.nii.gz" for suffix in ("", "_flex", "_mods"))
        run("dfc", *common, *extra, "-o", out, "--flexibility", flex, "--module-labels", mods)
        return flat(nib.load(flex)), flat(nib.load(mods)), sidecar(tmp_path / f"{name}.json")

    windows = (40 - 20) // 5 + 1
    f, mods, meta = window_modules("sync", "--multilayer-algorithm", "synchronous")
    assert meta["parameters"]["window_modules"]["multilayer_algorithm"] == "synchronous"
    assert meta["parameters"]["window_modules"]["random_seed"] == 3
    labels = mask_labels(tmp_path / "sync_mods.nii.gz", idx, scan, windows).T  # (windows, voxels)
    assert labels.min() == 1
    np.testing.assert_allclose(f[idx], (labels[1:] != labels[:-1]).mean(0), rtol=0, atol=1e-7)
    mats = []
    for k in range(windows):
        a, near = network(voxels[idx, 5 * k:5 * k + 20], 0.6)
        assert not near
        mats.append(a)
    r = meta["results"]["window_modules"]
    assert r["n_modules"] == labels.max()
    assert r["multilayer_q"] == pytest.approx(mucha_q(mats, labels, 0.5), abs=1e-9)
    f1, mods1, _ = window_modules("one", "--multilayer-algorithm", "synchronous", "--threads", "1")
    assert np.array_equal(mods1, mods) and np.array_equal(f1, f)
    fq, modsq, metaq = window_modules("queue", "--multilayer-algorithm", "queue")
    fd, modsd, metad = window_modules("default")
    assert metaq["parameters"]["window_modules"]["multilayer_algorithm"] == "queue"
    assert np.array_equal(modsq, modsd) and np.array_equal(fq, fd)
    assert metaq["results"]["window_modules"]["multilayer_q"] == metad["results"]["window_modules"]["multilayer_q"]


def test_bad_options(tmp_path):
    out = tmp_path / "m.nii.gz"
    cases = [
        (["modules", SCAN, "--density", "0.05", "--method", "louvain", "-o", out], "--method"),
        (["modules", SCAN, "--density", "0.05", "--method", "leiden", "--max-modules", "3", "-o", out],
         "--max-modules applies to --method eigen only"),
        (["modules", SCAN, "--density", "0.05", "--quality", "cpm", "-o", out], "--quality applies to --method leiden only"),
        (["modules", SCAN, "--density", "0.05", "--method", "leiden", "--resolution", "0", "-o", out], "--resolution"),
        (["modules", SCAN, "--density", "0.05", "--leiden-algorithm", "synchronous", "-o", out],
         "--leiden-algorithm applies to --method leiden only"),
        (["modules", SCAN, "--density", "0.05", "--method", "leiden", "--leiden-algorithm", "louvain", "-o", out],
         "--leiden-algorithm: 'louvain' is not one of queue|synchronous"),
        (["dfc", SCAN, "--window", "20", "--density", "0.05", "--omega", "1", "-o", out],
         "--omega applies to --flexibility and --module-labels only"),
        (["dfc", SCAN, "--window", "20", "--density", "0.05", "--flexibility", tmp_path / "f.nii.gz", "--omega", "-1",
          "-o", out], "--omega"),
        (["dfc", SCAN, "--window", "20", "--density", "0.05", "--flexibility", tmp_path / "f.nii.gz", "--weights",
          "signed", "-o", out], "--weights"),
        (["dfc", SCAN, "--window", "20", "--density", "0.05", "--multilayer-algorithm", "synchronous", "-o", out],
         "--multilayer-algorithm applies to --flexibility and --module-labels only"),
        (["dfc", SCAN, "--window", "20", "--density", "0.05", "--flexibility", tmp_path / "f.nii.gz",
          "--multilayer-algorithm", "louvain", "-o", out],
         "--multilayer-algorithm: 'louvain' is not one of queue|synchronous"),
    ]
    for args, text in cases:
        p = run(*args, check=False)
        assert p.returncode == 1 and text in p.stderr, (args, p.stderr)
        assert not out.exists()


def label_table(path):
    """`modules --graph`'s text labels: (nodes, modules) after the '#' comment lines."""
    lines = path.read_text().splitlines()
    assert lines[0].startswith("# fastconn modules (") and lines[1].startswith("# nodes")
    rows = np.array([[int(x) for x in line.split("\t")] for line in lines[2:]], dtype=np.int64)
    return rows[:, 0], rows[:, 1]


@pytest.mark.parametrize("method", ["leiden", "eigen"])
def test_graph_file_input(tmp_path, scan, voxels, method):
    # The network `fastconn graph` wrote (weights |r|) gives, through --graph, the labels that the
    # scan's own run gives (same network, same node order), and the Q of its edge list computed here.
    mask, idx = mask_file(tmp_path, scan)
    net, edges = tmp_path / "net.fcg", tmp_path / "net.txt"
    rule = ["--threshold", "0.6", "--weights", "abs"]
    run("graph", SCAN, "-m", mask, *rule, "--precision", "fp64", "-q", "-o", net, "--edge-list", edges)
    own = ["--method", method, "--random-seed", "5"]
    out = tmp_path / "labels.tsv"
    run("modules", "--graph", net, *own, "-q", "-o", out)
    nodes, labels = label_table(out)
    assert np.array_equal(nodes, np.arange(len(idx)))
    meta = sidecar(tmp_path / "labels.json")
    k = meta["results"]["n_modules"]
    assert meta["parameters"]["graph"] == str(net) and meta["outputs"]["labels"] == str(out)
    assert labels.min() == 1 and labels.max() == k
    firsts = [np.flatnonzero(labels == c)[0] for c in range(1, k + 1)]
    assert firsts == sorted(firsts)
    e = np.loadtxt(edges, comments="#", ndmin=2)
    a = np.zeros((len(idx), len(idx)))
    a[e[:, 0].astype(int), e[:, 1].astype(int)] = e[:, 2]
    a += a.T
    assert meta["results"]["n_edges"] == len(e)
    assert meta["results"]["modularity_q"] == pytest.approx(newman_q(a, labels), abs=1e-6)  # edge list: 9 digits
    # The scan's run on the same network: the same labels inside the mask.
    from_scan = tmp_path / "scan.nii.gz"
    run("modules", SCAN, "-m", mask, *rule, "--precision", "fp64", *own, "-q", "-o", from_scan)
    assert np.array_equal(mask_labels(from_scan, idx, scan), labels)
    assert sidecar(tmp_path / "scan.json")["results"]["modularity_q"] == meta["results"]["modularity_q"]


def test_graph_file_bad_input(tmp_path):
    net = tmp_path / "net.fcg"
    run("graph", SCAN, "--density", "0.05", "-q", "-o", net)
    out = tmp_path / "labels.tsv"
    cases = [
        (["modules", SCAN, "--graph", net, "-o", out], "--graph replaces the input scan"),
        (["modules", "--graph", net, "--density", "0.05", "-o", out], "--density builds a network from a scan"),
        (["modules", "--graph", net, "--weights", "abs", "-o", out], "--weights builds a network from a scan"),
        (["modules", "--graph", net, "--automask", "-o", out], "--automask applies to a scan, not to --graph"),
        (["modules", "--graph", net, "-o", tmp_path / "labels.nii.gz"], "a graph's labels are a text table"),
    ]
    for args, text in cases:
        p = run(*args, check=False)
        assert p.returncode == 1 and text in p.stderr, (args, p.stderr)
        assert not out.exists() and not (tmp_path / "labels.nii.gz").exists()
    # A file that is not a graph: the library's error names it; nothing is written.
    bad = tmp_path / "bad.fcg"
    bad.write_bytes(b"not a graph file")
    for path in (bad, tmp_path / "missing.fcg"):
        p = run("modules", "--graph", path, "-o", out, check=False)
        assert p.returncode == 2 and str(path) in p.stderr, p.stderr
        assert not out.exists() and not (tmp_path / "labels.json").exists()
