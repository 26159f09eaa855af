"""Shared helpers of the CLI tests: where the program and the scan are, how to run it, and the
numpy/nibabel references (voxel series in NIfTI storage order, x fastest, as fastconn numbers
its nodes)."""
import json
import os
import subprocess

import nibabel as nib
import numpy as np
import pytest

CLI = os.environ.get("FASTCONN_CLI", "build/tools/cli/fastconn")
DATA = os.environ.get("FASTCONN_TEST_DATA", "tests/data")
SCAN = os.path.join(DATA, "fmri1.nii.gz")
# CUDA's own switch: a process started with CUDA_VISIBLE_DEVICES=-1 sees no device, so a context on
# the cuda backend fails in every build on every machine (a build without CUDA, one with the
# toolkit and no GPU, the GPU machine). The tests of that failure run everywhere with it.
NO_CUDA_DEVICE = {"CUDA_VISIBLE_DEVICES": "-1"}


def run(*args, env=None, check=True):
    """Runs `fastconn ARGS`; returns the CompletedProcess (text output)."""
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    p = subprocess.run([CLI, *map(str, args)], capture_output=True, text=True, env=full_env, timeout=240)
    if check and p.returncode != 0:
        raise AssertionError(f"fastconn {' '.join(map(str, args))} exited {p.returncode}:\n{p.stderr}")
    return p


def series(img):
    """(N_all, T) float64 voxel series of a 4D image, voxel v = x + nx * (y + ny * z)."""
    d = np.asarray(img.get_fdata(), dtype=np.float64)
    return d.reshape(-1, d.shape[3], order="F")


def flat(img):
    """A 3D map as a vector in storage order, or a 4D map as (N_all, volumes)."""
    d = np.asarray(img.dataobj)
    return d.reshape(-1, order="F") if d.ndim == 3 else d.reshape(-1, d.shape[3], order="F")


def automask(v):
    """fastconn's automatic mask: finite, non-constant (so nonzero) series."""
    finite = np.isfinite(v).all(axis=1)
    return np.flatnonzero(finite & (np.nanmax(v, axis=1) != np.nanmin(v, axis=1)))


def corr(x):
    """Pearson r of the rows of x in float64 (np.corrcoef), diagonal zeroed."""
    r = np.corrcoef(x)
    np.fill_diagonal(r, 0.0)
    return r


def check_geometry(out, ref, shape):
    """A map has the scan's geometry: shape, affine (sform and qform), zooms, codes."""
    assert out.shape == shape
    np.testing.assert_allclose(out.affine, ref.affine, atol=1e-5)
    for kind in ("qform", "sform"):  # each transform that the scan sets (code > 0) is kept
        code = int(ref.header[f"{kind}_code"])
        assert int(out.header[f"{kind}_code"]) == code
        if code > 0:
            np.testing.assert_allclose(getattr(out, f"get_{kind}")(), getattr(ref, f"get_{kind}")(), atol=1e-5)
    np.testing.assert_allclose(out.header.get_zooms()[:3], ref.header.get_zooms()[:3], rtol=1e-6)


def sidecar(path):
    with open(path) as f:
        return json.load(f)


@pytest.fixture(scope="session")
def scan():
    return nib.load(SCAN)


@pytest.fixture(scope="session")
def voxels(scan):
    return series(scan)
