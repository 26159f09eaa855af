"""Bad input: one clear line on stderr ("fastconn: error: ..."), a nonzero exit (1 bad input or
usage, 2 library failure), and nothing left in the output directory: no map, no sidecar, no
temporary file."""
import gzip
import os

import nibabel as nib
import numpy as np
import pytest

from conftest import NO_CUDA_DEVICE, SCAN, run


@pytest.fixture
def out_dir(tmp_path):
    d = tmp_path / "out"
    d.mkdir()
    return d


def expect_error(out_dir, args, code, pattern, env=None):
    p = run(*args, env=env, check=False)
    lines = [line for line in p.stderr.splitlines() if line.strip()]
    assert p.returncode == code, p.stderr
    assert len(lines) == 1, p.stderr  # exactly one line
    assert lines[0].startswith("fastconn: error: ")
    assert pattern in lines[0], lines[0]
    assert p.stdout == ""
    assert os.listdir(out_dir) == [], "partial output left behind"  # hidden temporaries included
    return lines[0]


def degree(out_dir, *args):
    return ["degree", *args, "--threshold", "0.5", "-o", out_dir / "d.nii.gz"]


@pytest.fixture(scope="module")
def scan():
    return nib.load(SCAN)


def save(img, path):
    img.to_filename(path)
    return path


def test_missing_file(out_dir, tmp_path):
    expect_error(out_dir, degree(out_dir, tmp_path / "nope.nii.gz"), 1, "No such file or directory")


def test_directory_as_input(out_dir, tmp_path):
    expect_error(out_dir, degree(out_dir, tmp_path), 1, "is a directory")


def test_not_nifti(out_dir, tmp_path):
    path = tmp_path / "text.nii"
    path.write_text("this is not a NIfTI file\n" * 40)
    expect_error(out_dir, degree(out_dir, path), 1, "not a readable NIfTI")


def test_truncated_gz(out_dir, tmp_path):
    raw = open(SCAN, "rb").read()
    path = tmp_path / "cut.nii.gz"
    path.write_bytes(raw[: len(raw) // 2])
    expect_error(out_dir, degree(out_dir, path), 1, "cannot read the image data")


def test_truncated_header(out_dir, tmp_path):
    path = tmp_path / "cut.nii"
    path.write_bytes(gzip.decompress(open(SCAN, "rb").read())[:200])
    expect_error(out_dir, degree(out_dir, path), 1, "header is truncated")


def test_truncated_uncompressed_data(out_dir, tmp_path):
    path = tmp_path / "cut.nii"
    raw = gzip.decompress(open(SCAN, "rb").read())
    path.write_bytes(raw[: len(raw) - 1000])
    expect_error(out_dir, degree(out_dir, path), 1, "truncated file")


def test_3d_scan(out_dir, tmp_path, scan):
    path = save(nib.Nifti1Image(np.asarray(scan.dataobj)[..., 0], scan.affine, scan.header), tmp_path / "vol.nii.gz")
    expect_error(out_dir, degree(out_dir, path), 1, "is 3D (10x10x18): a 4D scan")


def test_one_time_point(out_dir, tmp_path, scan):
    path = save(nib.Nifti1Image(np.asarray(scan.dataobj)[..., :1], scan.affine), tmp_path / "one.nii.gz")
    # nibabel drops a trailing 1 only if asked: this file really says 4D with 1 time point
    assert nib.load(path).shape == (10, 10, 18, 1)
    expect_error(out_dir, degree(out_dir, path), 1, "1 time point")


def test_five_dimensions(out_dir, tmp_path, scan):
    data = np.stack([np.asarray(scan.dataobj)] * 2, axis=4)
    path = save(nib.Nifti1Image(data, scan.affine), tmp_path / "five.nii.gz")
    expect_error(out_dir, degree(out_dir, path), 1, "a 4D scan (x, y, z, time) is needed")


def test_complex_datatype(out_dir, tmp_path, scan):
    data = np.asarray(scan.dataobj).astype(np.complex64)
    path = save(nib.Nifti1Image(data, scan.affine), tmp_path / "complex.nii")
    expect_error(out_dir, degree(out_dir, path), 1, "not supported")


def test_mask_other_dimensions(out_dir, tmp_path, scan):
    mask = save(nib.Nifti1Image(np.ones((10, 10, 17), np.uint8), scan.affine), tmp_path / "m.nii.gz")
    expect_error(out_dir, degree(out_dir, SCAN, "--mask", mask), 1, "must be on the scan's grid")


def test_mask_other_affine(out_dir, tmp_path, scan):
    affine = scan.affine.copy()
    affine[0, 3] += 5.0
    mask = save(nib.Nifti1Image(np.ones((10, 10, 18), np.uint8), affine), tmp_path / "m.nii.gz")
    expect_error(out_dir, degree(out_dir, SCAN, "--mask", mask), 1, "another voxel-to-world transform")


def test_mask_4d(out_dir, tmp_path, scan):
    mask = save(nib.Nifti1Image(np.ones((10, 10, 18, 2), np.uint8), scan.affine), tmp_path / "m.nii.gz")
    expect_error(out_dir, degree(out_dir, SCAN, "--mask", mask), 1, "a 3D mask is needed")


def test_empty_mask(out_dir, tmp_path, scan):
    mask = save(nib.Nifti1Image(np.zeros((10, 10, 18), np.uint8), scan.affine, scan.header), tmp_path / "m.nii.gz")
    expect_error(out_dir, degree(out_dir, SCAN, "--mask", mask), 1, "is empty")


@pytest.mark.parametrize("args,pattern", [
    (["--frobnicate"], "unknown option --frobnicate"),
    (["--threshold"], "needs a value"),
    (["--threads", "two"], "--threads: 'two' is not an integer"),
    (["--memory-limit", "4Q"], "unknown unit"),
    (["--backend", "gpu"], "'gpu' is not one of auto|cpu|cuda"),
    (["--precision", "fp16"], "is not one of fp32|fp64|tf32"),
    (["--mask", "m.nii", "--automask"], "exclude each other"),
])
def test_bad_common_options(out_dir, args, pattern):
    expect_error(out_dir, ["degree", SCAN, "-o", out_dir / "d.nii.gz", "--density", "0.1", *args], 1, pattern)


@pytest.mark.parametrize("args,pattern", [
    (["--density", "0.1", "--threshold", "0.5"], "more than one edge rule"),
    ([], "no edge rule"),
    (["--threshold", "1.5"], "is not in [0, 1]"),
    (["--threshold", "abc"], "'abc' is not a finite number"),
    (["--density", "2"], "is not a fraction in [0, 1]"),
    (["--density", "0.1", "--signed"], "--signed applies to --threshold only"),
    (["--top-k", "0"], "--top-k must be at least 1 (got 0)"),
])
def test_bad_edge_rule(out_dir, args, pattern):
    expect_error(out_dir, ["degree", SCAN, "-o", out_dir / "d.nii.gz", *args], 1, pattern)


def test_usage_errors(out_dir, tmp_path):
    expect_error(out_dir, ["degrees", SCAN], 1, "unknown command 'degrees'")
    expect_error(out_dir, ["degree", SCAN, "--threshold", "0.5"], 1, "no output: give -o FILE")
    expect_error(out_dir, ["degree", "--threshold", "0.5", "-o", out_dir / "d.nii"], 1, "no input scan")
    expect_error(out_dir, ["degree", SCAN, SCAN, "--threshold", "0.5", "-o", out_dir / "d.nii"], 1, "unexpected argument")
    expect_error(out_dir, ["degree", SCAN, "--threshold", "0.5", "-o", out_dir / "d.img"], 1, "must end in .nii or .nii.gz")
    expect_error(out_dir, ["degree", SCAN, "--threshold", "0.5", "-o", out_dir / "no" / "d.nii"], 1,
                 "No such file or directory")


def test_seed_errors(out_dir, tmp_path, scan):
    r = ["-o", out_dir / "r.nii.gz"]
    expect_error(out_dir, ["seed", SCAN, *r], 1, "give one seed")
    expect_error(out_dir, ["seed", SCAN, *r, "--seed-voxel", "10,0,0"], 1, "--seed-voxel I: 10 is out of range [0, 9]")
    expect_error(out_dir, ["seed", SCAN, *r, "--seed-voxel", "1,2"], 1, "is not I,J,K")
    short = tmp_path / "short.1D"
    np.savetxt(short, np.arange(39.0))
    expect_error(out_dir, ["seed", SCAN, *r, "--seed-ts", short], 1, "has 39 values; the scan has 40 time points")
    two = tmp_path / "two.1D"
    np.savetxt(two, np.ones((40, 2)))
    expect_error(out_dir, ["seed", SCAN, *r, "--seed-ts", two], 1, "has 2 columns")
    flat_ts = tmp_path / "flat.1D"
    np.savetxt(flat_ts, np.full(40, 3.0))
    expect_error(out_dir, ["seed", SCAN, *r, "--seed-ts", flat_ts], 1, "is constant over time")
    roi = save(nib.Nifti1Image(np.ones((5, 5, 5), np.uint8), scan.affine), tmp_path / "roi.nii.gz")
    expect_error(out_dir, ["seed", SCAN, *r, "--seed-mask", roi], 1, "the seed mask must be on the scan's grid")


def test_dfc_errors(out_dir):
    base = ["dfc", SCAN, "-o", out_dir / "w.nii.gz", "--threshold", "0.5"]
    expect_error(out_dir, base, 1, "give --window L")
    expect_error(out_dir, [*base, "--window", "41"], 1, "--window 41 is longer than the scan's 40 time points")
    expect_error(out_dir, [*base, "--window", "10", "--sigma", "2"], 1, "--sigma applies to --taper gaussian only")


def test_cuda_backend_unavailable(out_dir):
    # no CUDA device visible: the cuda backend fails in every build, on every machine
    expect_error(out_dir, degree(out_dir, SCAN, "--backend", "cuda"), 2, "cannot create a context on the cuda backend",
                 env=NO_CUDA_DEVICE)


def test_triangle_larger_than_free_disk(out_dir):
    args = ["triangle", SCAN, "-o", out_dir / "r.f32"]
    p = run(*args, env={"FASTCONN_FREE_DISK_BYTES": "1000000"}, check=False)
    assert p.returncode == 1
    lines = p.stderr.splitlines()
    assert "6476400 bytes" in lines[0]  # the size is said first
    assert lines[-1].startswith("fastconn: error: the triangle needs 6.2 MiB but") and "--force" in lines[-1]
    assert os.listdir(out_dir) == []
    run(*args, "--force", "-q", env={"FASTCONN_FREE_DISK_BYTES": "1000000"})
    assert sorted(os.listdir(out_dir)) == ["r.f32", "r.json"]
