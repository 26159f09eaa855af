"""What fastconn does with its output files: a dfc map is 4D whatever the number of windows, an
existing output or sidecar is refused (and left untouched) unless --force, and a value below an
open-ended range says so as a person would write it."""
import os

import nibabel as nib
import numpy as np
import pytest

from conftest import SCAN, run, sidecar


def error_line(p):
    lines = [line for line in p.stderr.splitlines() if line.strip()]
    assert p.returncode == 1, p.stderr
    assert len(lines) == 1 and lines[0].startswith("fastconn: error: "), p.stderr
    return lines[0]


@pytest.mark.parametrize("window,step,volumes", [(40, 1, 1), (39, 5, 1), (20, 5, 5)])
def test_dfc_map_is_4d_for_any_window_count(tmp_path, window, step, volumes):
    out, weighted = tmp_path / "dfc.nii.gz", tmp_path / "w.nii"
    run("dfc", SCAN, "--window", window, "--step", step, "--threshold", "0.5", "-o", out,
        "--weighted-output", weighted, "-q")
    for path in (out, weighted):
        img = nib.load(path)
        assert img.ndim == 4 and img.shape == (10, 10, 18, volumes)
        # the 4th voxel size is the time between window starts (TR x step)
        assert img.header.get_zooms()[3] == pytest.approx(nib.load(SCAN).header.get_zooms()[3] * step)
    assert sidecar(tmp_path / "dfc.json")["results"]["n_windows"] == volumes
    one = np.asarray(nib.load(out).dataobj)[..., 0]
    # one window over the whole scan is the static degree map
    run("degree", SCAN, "--threshold", "0.5", "-o", tmp_path / "static.nii.gz", "-q")
    if window == 40:
        np.testing.assert_array_equal(one, np.asarray(nib.load(tmp_path / "static.nii.gz").dataobj))


def stamp(path, text):
    path.write_text(text)
    return path.stat().st_mtime_ns


@pytest.mark.parametrize("command,output,extra", [
    ("degree", "d.nii.gz", ["--threshold", "0.5"]),
    ("dfc", "d.nii.gz", ["--window", "20", "--step", "10", "--threshold", "0.5"]),
    ("graph", "net.fcg", ["--density", "0.01"]),
    ("triangle", "r.f32", []),
])
def test_existing_output_refused_without_force(tmp_path, command, output, extra):
    out = tmp_path / output
    base = [command, SCAN, "-o", out, "-q", *extra]
    # the map exists: refused before anything is computed, the file untouched, no temporary left
    stamp(out, "mine")
    line = error_line(run(*base, check=False))
    assert f"{out} exists: give --force to overwrite it" in line
    assert out.read_text() == "mine"
    assert sorted(os.listdir(tmp_path)) == [output]
    # only the sidecar exists: refused as well (a map without its sidecar is never written)
    out.unlink()
    side = tmp_path / (output.split(".")[0] + ".json")
    stamp(side, "{}")
    line = error_line(run(*base, check=False))
    assert f"{side} exists: give --force" in line
    assert side.read_text() == "{}" and sorted(os.listdir(tmp_path)) == [side.name]
    # --force overwrites both
    run(*base, "--force")
    assert sidecar(side)["command"] == command
    assert out.stat().st_size > 100


def test_existing_second_output_refused(tmp_path):
    out, weighted = tmp_path / "d.nii.gz", tmp_path / "w.nii.gz"
    stamp(weighted, "mine")
    line = error_line(run("degree", SCAN, "--threshold", "0.5", "-o", out, "--weighted-output", weighted,
                          check=False))
    assert f"{weighted} exists" in line
    assert sorted(os.listdir(tmp_path)) == ["w.nii.gz"] and weighted.read_text() == "mine"
    run("degree", SCAN, "--threshold", "0.5", "-o", out, "--weighted-output", weighted, "--force", "-q")
    assert nib.load(weighted).shape == (10, 10, 18)


def test_force_in_help():
    for command in ("degree", "seed", "graph", "dfc", "modules", "triangle"):
        assert "--force" in run(command, "--help").stdout
    assert "--force" in run("--help").stdout
    assert "4D even when there is one window" in run("dfc", "--help").stdout


@pytest.mark.parametrize("args,message", [
    (["dfc", "--threshold", "0.5", "--window", "1"], "--window must be at least 2 (got 1)"),
    (["dfc", "--threshold", "0.5", "--window", "10", "--step", "0"], "--step must be at least 1 (got 0)"),
    (["degree", "--top-k", "0"], "--top-k must be at least 1 (got 0)"),
])
def test_lower_bound_said_plainly(tmp_path, args, message):
    line = error_line(run(args[0], SCAN, "-o", tmp_path / "o.nii.gz", *args[1:], check=False))
    assert line == "fastconn: error: " + message
    assert os.listdir(tmp_path) == []
