"""How fastconn reads a scan: the uncompressed file read by several threads agrees bit for bit
with libnifti2's own loader (the .nii.gz path), byte order and float repair included; the series
go to the library as float32 only when every scaled value is exact in float32, and then give the
very maps a float64 input gives; the header's scaling is applied; non-finite values are named by
voxel; and the context, started on its own thread while the scan is read, still fails with one
line and no output."""
import os
import struct

import nibabel as nib
import numpy as np
import pytest

from conftest import NO_CUDA_DEVICE, SCAN, flat, run, series, sidecar

SHAPE = (10, 10, 18)


def save(data, path, affine=None, endianness="<", slope=None, inter=None):
    """A NIfTI-1 file of `data` in the given byte order. A scaling is written into the header of
    a .nii afterwards (nibabel would choose its own when saving)."""
    header = nib.Nifti1Header(endianness=endianness)
    header.set_data_dtype(data.dtype)
    nib.Nifti1Image(data, np.diag([2.0, 2.0, 2.0, 1.0]) if affine is None else affine, header).to_filename(path)
    if slope is not None:
        assert str(path).endswith(".nii")
        with open(path, "r+b") as f:
            f.seek(112)  # scl_slope, scl_inter: float32
            f.write(struct.pack(endianness + "ff", slope, inter))
    return path


def seed_map(path, out, *args):
    run("seed", path, "--seed-voxel", "5,6,7", "-o", out, "-q", *args)
    return flat(nib.load(out)), sidecar(str(out).replace(".nii.gz", ".json"))


def seed_reference(v, index):
    """r of every voxel with voxel `index`, in float64 (constant voxels: 0, as fastconn maps them)."""
    z = v - v.mean(1, keepdims=True)
    norm = np.sqrt((z * z).sum(1))
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (z @ z[index]) / (norm * norm[index])
    return np.where(norm > 0, r, 0.0)


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    """A scan of 5.5 MB (float32, 24^3 voxels, T = 100): large enough that two threads read it."""
    rng = np.random.default_rng(11)
    latent = rng.standard_normal((100, 4))
    data = rng.standard_normal((24, 24, 24, 4)) @ latent.T + rng.standard_normal((24, 24, 24, 100))
    return (1000 + 20 * data).astype(np.float32)


@pytest.mark.parametrize("endianness", ["<", ">"])
def test_threaded_read_matches_libnifti(tmp_path, big, endianness):
    # NaN and Inf are set to 0 by libnifti2's reader (nifti_read_buffer) on both paths; the .nii
    # is read by two threads, the .nii.gz by nifti_image_load alone: same maps, bit for bit
    data = big.copy()
    data[3, 4, 5, 17] = np.nan
    data[20, 1, 2, 90] = np.inf
    nii = save(data, tmp_path / "scan.nii", endianness=endianness)
    gz = save(data, tmp_path / "scan.nii.gz", endianness=endianness)
    a, meta = seed_map(nii, tmp_path / "a.nii.gz", "--threads", "2")
    b, _ = seed_map(gz, tmp_path / "b.nii.gz", "--threads", "2")
    np.testing.assert_array_equal(a, b)
    assert meta["series_input"] == "float32"
    fixed = np.nan_to_num(data.astype(np.float64), nan=0.0, posinf=0.0).reshape(-1, 100, order="F")
    index = 5 + 24 * (6 + 24 * 7)
    np.testing.assert_allclose(a, seed_reference(fixed, index), atol=1e-5)


def test_float32_input_gives_the_float64_maps(tmp_path, scan):
    # int16 values are exact in float32: the scan as int16 (float32 series) and as int32 (float64
    # series) give identical degree maps, since the library normalizes in float64 either way
    raw = np.asarray(scan.dataobj)
    assert raw.dtype == np.int16
    maps = {}
    for dtype in (np.int16, np.int32):
        path = save(raw.astype(dtype), tmp_path / f"scan_{np.dtype(dtype).name}.nii.gz", affine=scan.affine)
        out = tmp_path / f"d_{np.dtype(dtype).name}.nii.gz"
        weighted = tmp_path / f"w_{np.dtype(dtype).name}.nii.gz"
        run("degree", path, "--threshold", "0.5", "-o", out, "--weighted-output", weighted, "-q")
        meta = sidecar(str(out).replace(".nii.gz", ".json"))
        maps[meta["series_input"]] = (flat(nib.load(out)), flat(nib.load(weighted)))
    assert sorted(maps) == ["float32", "float64"]
    for a, b in zip(maps["float32"], maps["float64"]):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("slope, inter, expected", [
    (2.0, -3.0, "float32"),      # every 2x - 3 of int16 is exact in float32
    (0.37, 100.0, "float64"),    # not exact: float64
    (1.0, 2.0**24, "float64"),   # x + 2^24 is odd for odd x: float32 would round it (and r with it)
])
def test_scaling_and_series_type(tmp_path, scan, voxels, slope, inter, expected):
    raw = np.asarray(scan.dataobj)
    path = tmp_path / "scaled.nii"
    save(raw, path, affine=scan.affine, slope=slope, inter=inter)
    img = nib.load(path)
    assert (img.dataobj.slope, img.dataobj.inter) == pytest.approx((slope, inter), rel=1e-7)
    scaled = series(img)  # nibabel applies the scaling in float64
    r, meta = seed_map(path, tmp_path / "r.nii.gz")
    assert meta["series_input"] == expected
    index = 5 + 10 * (6 + 10 * 7)
    np.testing.assert_allclose(r, seed_reference(scaled, index), atol=1e-5)


def test_float64_scan_and_fp64_precision_use_float64(tmp_path, scan):
    f64 = save(np.asarray(scan.get_fdata()), tmp_path / "f64.nii.gz", affine=scan.affine)
    assert seed_map(f64, tmp_path / "a.nii.gz")[1]["series_input"] == "float64"
    assert seed_map(SCAN, tmp_path / "b.nii.gz", "--precision", "fp64")[1]["series_input"] == "float64"
    assert seed_map(SCAN, tmp_path / "c.nii.gz")[1]["series_input"] == "float32"


def test_nonfinite_after_scaling_names_the_first_voxel(tmp_path, scan):
    # float64 1e308 times a slope of 10 is infinite: the threaded gather reports the first such
    # voxel in mask order, at its first bad time point, whichever thread met it
    data = np.asarray(scan.get_fdata())
    data[7, 0, 0, 30] = 1e308   # voxel 7
    data[3, 2, 0, 25] = 1e308   # voxel 23
    data[3, 2, 0, 5] = -1e308   # voxel 23 again, earlier: -inf
    path = save(data, tmp_path / "inf.nii", affine=scan.affine, slope=10.0, inter=0.0)
    mask = tmp_path / "mask.nii.gz"
    m = np.zeros(SHAPE, np.uint8)
    m[3, 2, 0] = m[7, 0, 0] = m[5, 5, 5] = 1
    save(m, mask, affine=scan.affine)
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    p = run("degree", path, "--mask", mask, "--threshold", "0.5", "-o", out_dir / "d.nii.gz", "--threads", "2",
            check=False)
    assert p.returncode == 1, p.stderr
    assert p.stderr.strip().splitlines() == [
        f"fastconn: error: scan {path}: voxel (7, 0, 0) of the mask is infinite at time point 30: "
        "leave it out of the mask (or use --automask)"]
    assert os.listdir(out_dir) == []


@pytest.mark.parametrize("command", [["degree", "--threshold", "0.5"], ["seed", "--seed-voxel", "1,2,3"]])
def test_context_failure_while_reading(tmp_path, big, command):
    # the context fails on its thread while two threads read the scan: still one line, exit 2,
    # no output, and no note of what was read (no CUDA device is visible: it fails in any build)
    scan = save(big, tmp_path / "big.nii")
    mask = save(np.ones(big.shape[:3], np.uint8), tmp_path / "mask.nii")
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    p = run(command[0], scan, *command[1:], "--mask", mask, "--backend", "cuda", "--threads", "2",
            "-o", out_dir / "m.nii.gz", env=NO_CUDA_DEVICE, check=False)
    assert p.returncode == 2, p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("fastconn: error: cannot create a context on the cuda backend"), p.stderr
    assert p.stdout == ""
    assert os.listdir(out_dir) == []


@pytest.mark.parametrize("backend", ["cuda", "cpu"])
def test_bad_input_reported_before_the_context(tmp_path, backend):
    # a scan that fails its checks never waits for (or reports) the backend: not the cuda backend,
    # which fails here too (no CUDA device visible), nor the cpu one, which would work
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    p = run("degree", tmp_path / "missing.nii", "--threshold", "0.5", "--backend", backend, "-o", out_dir / "d.nii.gz",
            env=NO_CUDA_DEVICE, check=False)
    assert p.returncode == 1, p.stderr
    assert "No such file or directory" in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr
    assert os.listdir(out_dir) == []


def test_sidecar_timings_say_what_overlapped(tmp_path):
    out = tmp_path / "d.nii.gz"
    run("degree", SCAN, "--threshold", "0.5", "-o", out, "-q")
    meta = sidecar(tmp_path / "d.json")
    timing = meta["timing_s"]
    for step in ("read", "mask", "gather", "context", "context_wait", "series", "compute", "write", "release", "total"):
        assert timing[step] >= 0, step
    assert timing["context_wait"] <= timing["total"]
    # the context started during the input's steps; the series and context were destroyed
    # (release) while the map was written
    assert meta["timing_overlap"] == {"context": ["read", "mask", "gather"], "release": ["write"]}
