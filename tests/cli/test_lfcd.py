"""fastconn lfcd on the bundled real scan: the map against a numpy region growing over the mask's
voxels (their (i, j, k) on the scan's grid), its geometry and sidecar, and the option errors."""
import collections
import itertools
import re

import nibabel as nib
import numpy as np
import pytest

from conftest import SCAN, automask, check_geometry, flat, run, sidecar

SHAPE = (10, 10, 18)


def region_growing(x, coords, neighbourhood, t, signed):
    """For each seed (a row of x), breadth-first over the mask's neighbours of the cluster: a voxel
    joins when its float64 r with the seed is >= t (|r| unless signed)."""
    r = np.corrcoef(x)
    reach = {6: 1, 18: 2, 26: 3}[neighbourhood]
    steps = [d for d in itertools.product((-1, 0, 1), repeat=3) if 1 <= sum(map(abs, d)) <= reach]
    at = {c: s for s, c in enumerate(map(tuple, coords.tolist()))}
    out = np.zeros(len(x), dtype=np.int64)
    for seed in range(len(x)):
        cluster, queue = {seed}, collections.deque([seed])
        while queue:
            i, j, k = coords[queue.popleft()]
            for di, dj, dk in steps:
                v = at.get((i + di, j + dj, k + dk))
                if v is None or v in cluster:
                    continue
                if (r[seed, v] if signed else abs(r[seed, v])) >= t:
                    cluster.add(v)
                    queue.append(v)
        out[seed] = len(cluster)
    return out


@pytest.fixture(scope="module")
def holed_mask(tmp_path_factory, scan):
    """A box mask with random holes, in the scan's header."""
    m = np.zeros(SHAPE, np.uint8)
    m[1:9, 1:9, 2:16] = 1
    m[np.random.default_rng(2).random(SHAPE) < 0.3] = 0
    path = tmp_path_factory.mktemp("lfcd") / "mask.nii.gz"
    nib.Nifti1Image(m, scan.affine, scan.header).to_filename(path)
    return path, np.flatnonzero(m.reshape(-1, order="F"))


@pytest.mark.parametrize("neighbourhood, signed", [(6, True), (18, False), (26, True)])
def test_lfcd_matches_region_growing(tmp_path, scan, voxels, holed_mask, neighbourhood, signed):
    mask, idx = holed_mask
    out = tmp_path / "lfcd.nii.gz"
    args = ["lfcd", SCAN, "--mask", mask, "--threshold", "0.4", "--neighbourhood", neighbourhood, "--precision", "fp64",
            "-o", out]
    run(*args, *([] if signed else ["--abs"]))
    coords = np.stack(np.unravel_index(idx, SHAPE, order="F"), axis=1)
    expected = region_growing(voxels[idx], coords, neighbourhood, 0.4, signed)
    img = nib.load(out)
    check_geometry(img, scan, SHAPE)
    assert img.get_data_dtype() == np.float32
    d = flat(img)
    np.testing.assert_array_equal(d[idx], expected)
    outside = np.ones(d.size, bool)
    outside[idx] = False
    assert (d[outside] == 0).all()
    meta = sidecar(tmp_path / "lfcd.json")
    assert meta["command"] == "lfcd"
    assert meta["parameters"]["neighbourhood"] == neighbourhood
    assert meta["parameters"]["edge_rule"] == ("threshold" if signed else "abs_threshold")
    assert meta["parameters"]["edge_parameter"] == 0.4
    assert meta["parameters"]["seed_counts_itself"] is True
    assert meta["results"]["max_lfcd"] == expected.max()
    assert meta["results"]["mean_lfcd"] == pytest.approx(expected.mean())
    for step in ("read", "mask", "series", "compute", "write", "total"):
        assert meta["timing_s"][step] >= 0


def test_lfcd_automask_default_neighbourhood(tmp_path, voxels):
    # fp32 and the automatic mask: all 1800 voxels, 26 neighbours by default; against the float64
    # reference every voxel but those whose cluster hangs on a pair within FP32 rounding of t
    out = tmp_path / "auto.nii.gz"
    run("lfcd", SCAN, "--threshold", "0.6", "-o", out)
    idx = automask(voxels)
    coords = np.stack(np.unravel_index(idx, SHAPE, order="F"), axis=1)
    expected = region_growing(voxels[idx], coords, 26, 0.6, True)
    d = flat(nib.load(out))[idx]
    assert (d >= 1).all()
    assert (d == expected).mean() > 0.99
    assert sidecar(tmp_path / "auto.json")["parameters"]["neighbourhood"] == 26


@pytest.mark.parametrize("extra, pattern", [
    ([], "no threshold"),
    (["--threshold", "0.5", "--neighbourhood", "7"], "--neighbourhood: 7 is not 6"),
    (["--threshold", "0.5", "--neighbourhood", "x"], "--neighbourhood"),
    (["--threshold", "1.5"], "not in \\[-1, 1\\]"),
    (["--threshold", "-0.2", "--abs"], "not in \\[0, 1\\]"),
    (["--threshold", "0.5", "--density", "0.1"], "--density"),
])
def test_lfcd_option_errors(tmp_path, extra, pattern):
    out = tmp_path / "bad.nii.gz"
    p = run("lfcd", SCAN, "-o", out, *extra, check=False)
    assert p.returncode == 1
    assert re.search(pattern, p.stderr), p.stderr
    assert not out.exists()


def test_lfcd_help():
    p = run("lfcd", "--help")
    assert "--neighbourhood" in p.stdout and "3dLFCD" in p.stdout
    assert "lfcd" in run("--help").stdout
