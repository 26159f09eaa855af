"""fastconn on the bundled real scan (nitime's fmri1: 10x10x18 voxels, 40 time points, int16):
every map checked against a numpy reference computed here, and its header geometry (affine,
zooms, shape) against the scan's, read back with nibabel."""
import math
import os
import re
import struct

import nibabel as nib
import numpy as np
import pytest

from conftest import CLI, SCAN, automask, check_geometry, corr, flat, run, series, sidecar

SHAPE = (10, 10, 18)
EPS = 2e-5  # FP32 products: |r - r64| <= 1e-5; pairs this close to a threshold may go either way


def degree_reference(r, t, signed=False):
    """Degree bounds and strength of the network |r| >= t (or r >= t), robust to FP32 rounding."""
    a = r if signed else np.abs(r)
    lo = (a >= t + EPS).sum(1)
    hi = (a >= t - EPS).sum(1)
    exact = a >= t
    return lo, hi, exact.sum(1), np.where(exact, a, 0.0).sum(1)


def test_degree_automask_threshold(tmp_path, scan, voxels):
    out, weighted = tmp_path / "degree.nii.gz", tmp_path / "weighted.nii.gz"
    run("degree", SCAN, "--automask", "--threshold", "0.5", "-o", out, "--weighted-output", weighted)
    idx = automask(voxels)
    assert len(idx) == 1800
    lo, hi, deg, strength = degree_reference(corr(voxels[idx]), 0.5)
    for path in (out, weighted):
        img = nib.load(path)
        check_geometry(img, scan, SHAPE)
        assert img.get_data_dtype() == np.float32
    d = flat(nib.load(out))[idx]
    assert ((d >= lo) & (d <= hi)).all()
    same = d == deg
    assert same.mean() > 0.99
    w = flat(nib.load(weighted))[idx]
    np.testing.assert_allclose(w[same], strength[same], atol=1e-4 * (1 + deg[same].max()))
    meta = sidecar(tmp_path / "degree.json")
    assert meta["command"] == "degree"
    assert meta["command_line"][1:] == ["degree", SCAN, "--automask", "--threshold", "0.5", "-o", str(out),
                                        "--weighted-output", str(weighted)]
    version = run("--version").stdout.split()[1]
    assert meta["fastconn_version"] == version
    assert meta["cpu_kernels"].startswith("pair kernels: ")
    assert meta["backend"] == "cpu"
    assert meta["n_voxels"] == 1800 and meta["n_time"] == 40
    assert meta["mask"]["source"] == "automatic"
    assert meta["parameters"]["edge_rule"] == "abs_threshold" and meta["parameters"]["edge_parameter"] == 0.5
    for step in ("read", "mask", "context", "series", "compute", "write", "total"):
        assert meta["timing_s"][step] >= 0
    assert meta["results"]["n_edges"] == int(d.sum()) // 2


def test_degree_mask_file_signed(tmp_path, scan, voxels):
    # a box mask in the scan's header: the outside of the mask must be 0 in the map
    m = np.zeros(SHAPE, np.uint8)
    m[2:8, 1:9, 3:15] = 1
    mask = tmp_path / "mask.nii.gz"
    nib.Nifti1Image(m, scan.affine, scan.header).to_filename(mask)
    out = tmp_path / "signed.nii"
    p = run("degree", SCAN, "--mask", mask, "--threshold", "0.3", "--signed", "-o", out)
    assert "mask" in p.stderr
    idx = np.flatnonzero(m.reshape(-1, order="F"))
    lo, hi, _, _ = degree_reference(corr(voxels[idx]), 0.3, signed=True)
    img = nib.load(out)
    check_geometry(img, scan, SHAPE)
    d = flat(img)
    assert ((d[idx] >= lo) & (d[idx] <= hi)).all()
    outside = np.ones(d.size, bool)
    outside[idx] = False
    assert (d[outside] == 0).all()
    meta = sidecar(tmp_path / "signed.json")
    assert meta["mask"] == {"source": "file", "path": str(mask), "rule": "voxels where the mask is nonzero",
                            "n_voxels": len(idx)}


def test_degree_density(tmp_path, scan, voxels):
    out = tmp_path / "density.nii.gz"
    run("degree", SCAN, "--density", "0.05", "-o", out, "-q")
    r = np.abs(corr(voxels))
    n = r.shape[0]
    pairs = n * (n - 1) // 2
    k = math.ceil(0.05 * pairs)
    iu = np.triu_indices(n, 1)
    cut = np.sort(r[iu])[::-1][k - 1]
    d = flat(nib.load(out))
    assert d.sum() == 2 * k  # exactly ceil(D * pairs) edges
    lo, hi, _, _ = degree_reference(r, cut)
    assert ((d >= lo) & (d <= hi)).all()


@pytest.mark.parametrize("options", [["--threads", "1", "--memory-limit", "1M"], ["--precision", "fp64"],
                                     ["--backend", "cpu", "--precision", "tf32"]])
def test_degree_settings_agree(tmp_path, voxels, options):
    out = tmp_path / "d.nii.gz"
    run("degree", SCAN, "--threshold", "0.5", "-o", out, "-q", *options)
    lo, hi, _, _ = degree_reference(corr(voxels), 0.5)
    d = flat(nib.load(out))
    assert ((d >= lo) & (d <= hi)).all()
    meta = sidecar(tmp_path / "d.json")
    if "--memory-limit" in options:
        assert meta["memory_limit_bytes"] == 1 << 20 and meta["threads"] == 1
    if "--precision" in options:
        assert meta["precision"] == options[options.index("--precision") + 1]


def fisher(r):
    return np.arctanh(np.clip(r, -(1 - 1e-7), 1 - 1e-7))


def check_seed_maps(tmp_path, scan, voxels, seed, extra):
    r_path, z_path = tmp_path / "r.nii.gz", tmp_path / "z.nii.gz"
    run("seed", SCAN, "-o", r_path, "--z-output", z_path, "-q", *extra)
    expected = np.array([np.corrcoef(seed, v)[0, 1] for v in voxels])
    for path in (r_path, z_path):
        check_geometry(nib.load(path), scan, SHAPE)
    r = flat(nib.load(r_path))
    np.testing.assert_allclose(r, expected, atol=1e-5)
    z = flat(nib.load(z_path))
    ok = np.abs(expected) < 0.99  # near |r| = 1, atanh magnifies FP32 rounding
    np.testing.assert_allclose(z[ok], fisher(expected[ok]), atol=1e-4)
    assert np.isfinite(z).all()
    return sidecar(tmp_path / "r.json")


def test_seed_voxel(tmp_path, scan, voxels):
    i, j, k = 5, 4, 9
    v = i + 10 * (j + 10 * k)
    meta = check_seed_maps(tmp_path, scan, voxels, voxels[v], ["--seed-voxel", f"{i},{j},{k}"])
    assert meta["parameters"]["seed_kind"] == "voxel"
    assert flat(nib.load(tmp_path / "r.nii.gz"))[v] == pytest.approx(1.0, abs=1e-6)


def test_seed_roi_mask(tmp_path, scan, voxels):
    roi = np.zeros(SHAPE, np.int16)
    roi[3:6, 3:6, 8:11] = 7
    path = tmp_path / "roi.nii.gz"
    nib.Nifti1Image(roi, scan.affine, scan.header).to_filename(path)
    idx = np.flatnonzero(roi.reshape(-1, order="F"))
    meta = check_seed_maps(tmp_path, scan, voxels, voxels[idx].mean(0), ["--seed-mask", path])
    assert meta["parameters"]["seed_voxels"] == len(idx)


def test_seed_time_series_file(tmp_path, scan, voxels):
    ts = voxels.mean(0) + 0.1 * np.sin(np.arange(40))
    path = tmp_path / "seed.1D"
    np.savetxt(path, ts, header="global signal plus a sine")
    check_seed_maps(tmp_path, scan, voxels, ts, ["--seed-ts", path])


def test_graph_file_and_edge_list(tmp_path, voxels):
    g, edges, nodes = tmp_path / "net.fcg", tmp_path / "edges.txt", tmp_path / "nodes.txt"
    run("graph", SCAN, "--threshold", "0.6", "--weights", "signed", "-o", g, "--edge-list", edges, "--nodes", nodes, "-q")
    r = corr(voxels)
    n = r.shape[0]
    e = np.loadtxt(edges, ndmin=2)
    i, j, w = e[:, 0].astype(int), e[:, 1].astype(int), e[:, 2]
    assert (i < j).all()
    np.testing.assert_allclose(w, r[i, j], atol=1e-5)  # weights are r
    assert (np.abs(r[i, j]) >= 0.6 - EPS).all()
    iu = np.triu_indices(n, 1)
    must = set(zip(*[a[np.abs(r[iu]) >= 0.6 + EPS] for a in iu]))
    got = set(zip(i.tolist(), j.tolist()))
    assert must <= got
    # fastconn's graph file (src/graph/graph_file.hpp): magic, version, counts, CSR arrays
    raw = g.read_bytes()
    assert raw[:8] == b"FCGRAPH1"
    version, _, n_nodes, n_edges = struct.unpack("<IIqq", raw[8:32])
    assert (version, n_nodes, n_edges) == (1, n, len(e))
    assert len(raw) == 32 + 8 * (n + 1) + 8 * 2 * n_edges + 4 * 2 * n_edges
    offsets = np.frombuffer(raw, np.int64, n + 1, 32)
    degree = np.bincount(np.concatenate([i, j]), minlength=n)
    np.testing.assert_array_equal(np.diff(offsets), degree)
    # the node table maps nodes to voxel indices (x fastest)
    t = np.loadtxt(nodes, dtype=int)
    np.testing.assert_array_equal(t[:, 0], np.arange(n))
    np.testing.assert_array_equal(t[:, 1] + 10 * (t[:, 2] + 10 * t[:, 3]), np.arange(n))
    meta = sidecar(tmp_path / "net.json")
    assert meta["results"] == {"n_nodes": n, "n_edges": len(e)}


def tapered_corr(x, sigma):
    """Allen et al.'s Gaussian-tapered window correlation, as fastconn.h defines it."""
    L = x.shape[1]
    k = np.arange(L)
    w = np.exp(-((k[:, None] - k[None, :]) ** 2) / (2 * sigma**2)).sum(1)
    w /= w.max()
    c = (x - (x * w).sum(1, keepdims=True) / w.sum()) * np.sqrt(w)
    c /= np.linalg.norm(c, axis=1, keepdims=True)
    r = c @ c.T
    np.fill_diagonal(r, 0.0)
    return r


@pytest.mark.parametrize("taper", ["rectangular", "gaussian"])
def test_dfc_degree_per_window(tmp_path, scan, voxels, taper):
    out, mean = tmp_path / "dfc.nii.gz", tmp_path / "mean.nii.gz"
    extra = ["--taper", "gaussian", "--sigma", "4"] if taper == "gaussian" else []
    run("dfc", SCAN, "--window", "20", "--step", "5", "--threshold", "0.5", "-o", out, "--mean-degree", mean, "-q", *extra)
    img = nib.load(out)
    windows = (40 - 20) // 5 + 1
    check_geometry(img, scan, SHAPE + (windows,))
    assert img.header.get_zooms()[3] == pytest.approx(5 * scan.header.get_zooms()[3], rel=1e-6)
    d = flat(img)
    for k in range(windows):
        x = voxels[:, 5 * k:5 * k + 20]
        r = tapered_corr(x, 4.0) if taper == "gaussian" else corr(x)
        lo, hi, _, _ = degree_reference(r, 0.5)
        assert ((d[:, k] >= lo) & (d[:, k] <= hi)).all(), f"window {k}"
    m = nib.load(mean)
    check_geometry(m, scan, SHAPE)
    np.testing.assert_allclose(flat(m), d.mean(1), rtol=1e-6)
    meta = sidecar(tmp_path / "dfc.json")
    assert meta["results"]["n_windows"] == windows
    assert meta["results"]["window_starts"] == [5 * k for k in range(windows)]


def test_modules_labels(tmp_path, scan, voxels):
    out = tmp_path / "modules.nii.gz"
    m = np.zeros(SHAPE, np.uint8)
    m[:, :, 2:16] = 1
    mask = tmp_path / "mask.nii"
    nib.Nifti1Image(m, scan.affine, scan.header).to_filename(mask)
    run("modules", SCAN, "-m", mask, "--threshold", "0.6", "-o", out, "-q")
    img = nib.load(out)
    check_geometry(img, scan, SHAPE)
    assert img.get_data_dtype() == np.int32
    assert int(img.header["intent_code"]) == 1002  # NIFTI_INTENT_LABEL
    idx = np.flatnonzero(m.reshape(-1, order="F"))
    labels = flat(img)
    outside = np.ones(labels.size, bool)
    outside[idx] = False
    assert (labels[outside] == 0).all()
    inside = labels[idx]
    meta = sidecar(tmp_path / "modules.json")
    k = meta["results"]["n_modules"]
    assert inside.min() == 1 and inside.max() == k
    # numbered by first appearance: module 1 holds the first voxel, then 2, ...
    firsts = [np.flatnonzero(inside == c)[0] for c in range(1, k + 1)]
    assert firsts == sorted(firsts)
    # Q of these labels on the numpy network equals the Q fastconn reports
    a = (np.abs(corr(voxels[idx])) >= 0.6).astype(float)
    two_m = a.sum()
    deg = a.sum(1)
    same = inside[:, None] == inside[None, :]
    q = ((a - np.outer(deg, deg) / two_m) * same).sum() / two_m
    assert meta["results"]["modularity_q"] == pytest.approx(q, abs=1e-3)
    assert meta["results"]["modularity_q"] > 0.1


@pytest.mark.parametrize("precision,atol", [("fp32", 1e-5), ("fp64", 1e-6)])
def test_triangle_raw_float32(tmp_path, voxels, precision, atol):
    out = tmp_path / "tri.f32"
    p = run("triangle", SCAN, "-o", out, "--precision", precision)
    n = voxels.shape[0]
    pairs = n * (n - 1) // 2
    said = re.search(r"triangle of (\d+) voxels: (\d+) pairs, (\d+) bytes", p.stderr)
    assert said and tuple(map(int, said.groups())) == (n, pairs, 4 * pairs)
    assert p.stderr.index("bytes") < p.stderr.index("wrote")  # said before written
    got = np.fromfile(out, np.float32)
    assert got.size == pairs
    np.testing.assert_allclose(got, np.corrcoef(voxels)[np.triu_indices(n, 1)], atol=atol)
    assert sidecar(tmp_path / "tri.json")["results"] == {"n_pairs": pairs, "bytes": 4 * pairs}


def test_nifti2_and_uncompressed_input(tmp_path, scan, voxels):
    # the same scan as NIfTI-2 (.nii) gives the same map (written as NIfTI-1, the version
    # every reader takes)
    n2 = tmp_path / "scan2.nii"
    nib.Nifti2Image(np.asarray(scan.dataobj), scan.affine).to_filename(n2)
    out = tmp_path / "d2.nii.gz"
    run("degree", n2, "--threshold", "0.5", "-o", out, "-q")
    img = nib.load(out)
    assert isinstance(img, nib.Nifti1Image)
    assert sidecar(tmp_path / "d2.json")["input"]["nifti_version"] == 2
    check_geometry(img, nib.load(n2), SHAPE)
    lo, hi, _, _ = degree_reference(corr(voxels), 0.5)
    d = flat(img)
    assert ((d >= lo) & (d <= hi)).all()


def test_scaled_float_input_automask(tmp_path, scan, voxels):
    # float32 data with scl_slope/inter, an all-NaN voxel (outside the brain in many preprocessed
    # scans) and a constant one: the automatic mask leaves both out and says so
    data = np.asarray(scan.get_fdata(), np.float32)
    data[0, 0, 0, :] = np.nan
    data[1, 0, 0, :] = 5.0
    img = nib.Nifti1Image(data, scan.affine, scan.header)
    img.header.set_data_dtype(np.float32)
    img.header.set_slope_inter(2.0, -3.0)
    path = tmp_path / "scaled.nii.gz"
    img.to_filename(path)
    out = tmp_path / "d.nii.gz"
    p = run("degree", path, "--threshold", "0.5", "-o", out)
    assert "automatic mask of nonzero, non-constant voxels: 1798 of 1800 voxels" in p.stderr
    idx = np.arange(2, 1800)
    lo, hi, _, _ = degree_reference(corr(voxels[idx]), 0.5)
    d = flat(nib.load(out))
    assert ((d[idx] >= lo) & (d[idx] <= hi)).all()
    assert d[0] == 0 and d[1] == 0
    assert sidecar(tmp_path / "d.json")["mask"]["n_voxels"] == 1798


def test_float_nan_reads_as_zero(tmp_path, scan, voxels):
    # libnifti2 sets NaN and Inf of float data to 0 while reading (as AFNI does): a voxel with a
    # NaN at one time point correlates as if that value were 0
    data = np.asarray(scan.get_fdata(), np.float32)
    data[2, 3, 4, 7] = np.nan
    img = nib.Nifti1Image(data, scan.affine)
    img.header.set_data_dtype(np.float32)
    path = tmp_path / "nan.nii"
    img.to_filename(path)
    v = 2 + 10 * (3 + 10 * 4)
    out = tmp_path / "r.nii.gz"
    run("seed", path, "--seed-voxel", "2,3,4", "-o", out, "-q")
    seed = voxels[v].copy()
    seed[7] = 0.0
    expected = np.array([np.corrcoef(seed, x)[0, 1] for x in voxels])
    expected[v] = 1.0
    np.testing.assert_allclose(flat(nib.load(out)), expected, atol=1e-5)


def test_help_and_version():
    p = run("--help")
    assert p.stdout.startswith("Usage: fastconn")
    for sub in ("degree", "seed", "graph", "dfc", "modules", "triangle"):
        h = run(sub, "--help")
        assert h.stdout.startswith(f"Usage: fastconn {sub}") and "--backend" in h.stdout
    v = run("--version")
    assert re.match(r"fastconn \d+\.\d+\.\d+ ", v.stdout)
    bare = run(check=False)
    assert bare.returncode == 1 and bare.stderr.startswith("Usage: fastconn")


def gzip_members(path):
    """How many gzip members a file holds (each a complete gzip stream)."""
    import zlib
    data, count = open(path, "rb").read(), 0
    while data:
        d = zlib.decompressobj(31)
        d.decompress(data)
        assert d.eof, "a truncated gzip member"
        data, count = d.unused_data, count + 1
    return count


def test_large_gz_map_in_members(tmp_path):
    """A map of 786 KB is compressed on 4 threads as several gzip members: nibabel (Python's gzip)
    and libnifti2 (the program's own reader, through --mask) read all of them."""
    shape, t = (64, 64, 48), 12
    rng = np.random.default_rng(7)
    base = rng.standard_normal((1, t))
    data = (1000 + 400 * base * rng.uniform(-1, 1, shape + (1,)) + 100 * rng.standard_normal(shape + (t,)))
    data[:8] = 5  # constant voxels: r = 0 there, outside the second run's mask
    scan_path, r_path = tmp_path / "big.nii.gz", tmp_path / "r.nii.gz"
    img = nib.Nifti1Image(data.astype(np.int16), np.diag([2.0, 2.0, 2.0, 1.0]))
    img.to_filename(scan_path)
    i, j, k = 40, 30, 20
    run("seed", scan_path, "--seed-voxel", f"{i},{j},{k}", "-o", r_path, "--threads", "4", "-q")
    assert gzip_members(r_path) > 2  # the header's member and the voxels' members
    v = series(nib.load(scan_path))
    c = v - v.mean(1, keepdims=True)
    norm = np.sqrt((c * c).sum(1))
    seed = c[i + 64 * (j + 64 * k)]
    expected = np.divide(c @ seed, norm * norm[i + 64 * (j + 64 * k)], out=np.zeros(len(v)), where=norm > 0)
    r = flat(nib.load(r_path))
    check_geometry(nib.load(r_path), img, shape)
    np.testing.assert_allclose(r, expected, atol=1e-5)
    run("seed", scan_path, "--seed-voxel", f"{i},{j},{k}", "--mask", r_path, "-o", tmp_path / "r2.nii", "-q")
    assert sidecar(tmp_path / "r2.json")["n_voxels"] == np.count_nonzero(r)
