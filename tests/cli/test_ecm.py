"""`fastconn ecm` on the bundled real scan: the fast ECM map against numpy's float64 leading
eigenvector of (R + 1) / 2, the thresholded ECM (binarized and weighted) against numpy's dense
thresholded matrix and np.linalg.eigh, geometry, sidecar, and bad options."""
import os

import nibabel as nib
import numpy as np
import pytest

from conftest import SCAN, automask, check_geometry, corr, flat, run, series, sidecar

SHAPE = (10, 10, 18)


@pytest.fixture(scope="module")
def scan():
    return nib.load(SCAN)


@pytest.fixture(scope="module")
def voxels(scan):
    return series(scan)


def leading(a):
    """The leading eigenpair of the symmetric float64 matrix a (LAPACK's dsyevr through scipy
    asks for the top one only; numpy's eigh computes them all)."""
    try:
        import scipy.linalg
        w, v = scipy.linalg.eigh(a, subset_by_index=[a.shape[0] - 1, a.shape[0] - 1])
    except ImportError:
        w, v = np.linalg.eigh(a)
    return np.abs(v[:, -1]), w[-1]


def check_map(path, scan, idx, expected):
    """The map has the scan's geometry, 0 outside the mask, and the expected values (float32)."""
    img = nib.load(path)
    check_geometry(img, scan, SHAPE)
    assert img.get_data_dtype() == np.float32
    m = flat(img).astype(np.float64)
    outside = np.ones(m.size, bool)
    outside[idx] = False
    assert (m[outside] == 0).all()
    assert np.linalg.norm(m[idx] - expected) <= 1e-6 * np.linalg.norm(expected)
    return m[idx]


def test_fast_ecm(tmp_path, scan, voxels):
    out = tmp_path / "ecm.nii.gz"
    run("ecm", SCAN, "--precision", "fp64", "-o", out)
    idx = automask(voxels)
    r = corr(voxels[idx])
    np.fill_diagonal(r, 1.0)
    expected, lam = leading((r + 1) / 2)
    check_map(out, scan, idx, expected)
    meta = sidecar(tmp_path / "ecm.json")
    assert meta["command"] == "ecm" and meta["parameters"]["method"].startswith("fast ECM")
    assert abs(meta["results"]["eigenvalue"] - lam) <= 1e-6 * lam
    # the default FP32 mode: the same map to float rounding
    out32 = tmp_path / "ecm32.nii"
    run("ecm", SCAN, "-o", out32, "-q")
    assert np.abs(flat(nib.load(out32))[idx] - expected).max() < 1e-5


def test_thresholded_binary(tmp_path, scan, voxels):
    out = tmp_path / "ecm_t.nii.gz"
    run("ecm", SCAN, "--threshold", "0.5", "--precision", "fp64", "-o", out, "-q")
    idx = automask(voxels)
    r = corr(voxels[idx])
    a = np.abs(r)
    assert np.abs(a - 0.5).min() > 1e-9  # no pair at the threshold: float64 rounding cannot flip an edge
    expected, lam = leading((a >= 0.5).astype(float))
    check_map(out, scan, idx, expected)
    meta = sidecar(tmp_path / "ecm_t.json")
    assert meta["parameters"]["edge_rule"] == "abs_threshold" and meta["parameters"]["edge_weights"] == "binary"
    assert abs(meta["results"]["eigenvalue"] - lam) <= 1e-6 * lam


def test_thresholded_density_weighted(tmp_path, scan, voxels):
    out = tmp_path / "ecm_w.nii.gz"
    run("ecm", SCAN, "--density", "0.05", "--weighted", "--precision", "fp64", "-o", out, "-q")
    idx = automask(voxels)
    r = corr(voxels[idx])
    iu = np.triu_indices(len(idx), 1)
    strength = np.abs(r[iu])
    count = int(np.ceil(0.05 * strength.size))
    ranked = np.sort(strength)[::-1]
    assert ranked[count - 1] - ranked[count] > 1e-9  # the density's cut is not a tie
    keep = np.zeros_like(r, dtype=bool)
    keep[iu] = np.abs(r[iu]) >= ranked[count - 1]
    keep |= keep.T
    expected, _ = leading(np.where(keep, np.abs(r), 0.0))
    check_map(out, scan, idx, expected)
    assert sidecar(tmp_path / "ecm_w.json")["parameters"]["edge_weights"] == "|r|"


def test_mask_with_constant_voxel(tmp_path, scan):
    # the scan with voxel 7 made constant, and a mask of every voxel. The program correlates a
    # constant voxel as r = 0 (to itself too), so the fast ECM gives it the share of (R + 1) / 2's
    # constant row (AFNI's answer); the thresholded ECM gives it no edges, so 0.
    data = np.asfortranarray(np.asarray(scan.dataobj))
    flat_view = data.reshape(-1, data.shape[3], order="F")  # storage order, as fastconn numbers voxels
    assert np.shares_memory(flat_view, data)
    flat_view[7] = 100
    scan2 = tmp_path / "scan.nii.gz"
    nib.Nifti1Image(data, scan.affine, scan.header).to_filename(scan2)
    mask = tmp_path / "mask.nii.gz"
    nib.Nifti1Image(np.ones(SHAPE, np.uint8), scan.affine, scan.header).to_filename(mask)
    run("ecm", scan2, "--mask", mask, "--precision", "fp64", "-o", tmp_path / "f.nii", "-q")
    v = flat_view.astype(np.float64)
    moving = np.ones(len(v), bool)
    moving[7] = False
    r = np.zeros((len(v), len(v)))
    r[np.ix_(moving, moving)] = np.corrcoef(v[moving])
    expected, _ = leading((r + 1) / 2)
    f = flat(nib.load(tmp_path / "f.nii")).astype(np.float64)
    assert np.linalg.norm(f - expected) <= 1e-6 * np.linalg.norm(expected) and f[7] > 0
    run("ecm", scan2, "--mask", mask, "--threshold", "0.3", "-o", tmp_path / "t.nii", "-q")
    assert flat(nib.load(tmp_path / "t.nii"))[7] == 0


@pytest.mark.parametrize("args,code,pattern", [
    (["--weighted"], 1, "--weighted and --signed apply to the thresholded ECM"),
    (["--density", "1.5"], 1, "--density: 1.5"),
    (["--threshold", "0.3", "--density", "0.1"], 1, "more than one edge rule"),
    (["--tolerance", "0.5"], 1, "tolerance is 0.5"),
])
def test_bad_options(tmp_path, args, code, pattern):
    out = tmp_path / "out"
    out.mkdir()
    p = run("ecm", SCAN, *args, "-o", out / "e.nii.gz", check=False)
    assert p.returncode == code, p.stderr
    assert pattern in p.stderr, p.stderr
    assert os.listdir(out) == []
