"""`fastconn batch`: a pipeline over several scans with fastconn.cohort's files. Its arrays equal
the single-scan commands' maps and numpy's own .npy bytes, a rerun changes nothing, a run killed
mid-subject leaves no half-written file under a final name and its rerun completes, a bad scan
fails alone; and (when the Python binding is importable: PYTHONPATH) the Python runner writes the
same bytes and each runner resumes the other's folder without redoing anything."""
import io
import json
import os
import signal
import subprocess
import sys
import time

import nibabel as nib
import numpy as np
import pytest

from conftest import CLI, SCAN, flat, run

PIPELINE = ["--step", "degree:threshold=0.3", "--step", "window_degree:width=20,step=10,threshold=0.4",
            "--step", "triangle"]
MODULES = ["--step", "modules:density=0.1,weights=abs", "--step", "modules:topk=4,name=modules_topk,seed=3"]


def synthetic(path, seed, shape=(5, 4, 3), n_time=60):
    """A float32 scan with a zero voxel, a constant voxel and a NaN voxel (left out by the mask)."""
    rng = np.random.default_rng(seed)
    data = (rng.standard_normal((*shape, 2)) @ rng.standard_normal((2, n_time))
            + rng.standard_normal((*shape, n_time))).astype(np.float32)
    data[0, 0, 0] = 0
    data[1, 0, 0] = 7
    data[2, 0, 0, 5] = np.nan
    nib.Nifti1Image(data, np.diag([2.0, 2.0, 2.0, 1.0])).to_filename(path)
    return str(path)


@pytest.fixture
def scans(tmp_path):
    return [synthetic(tmp_path / f"sub-0{k}.nii.gz", k) for k in (1, 2, 3)]


def files(out):
    """{relative path: (mtime_ns, bytes)} of every file under out (temporary ones included)."""
    found = {}
    for root, _, names in os.walk(out):
        for name in names:
            path = os.path.join(root, name)
            found[os.path.relpath(path, out)] = (os.stat(path).st_mtime_ns, open(path, "rb").read())
    return found


def marker(out, subject):
    with open(os.path.join(out, subject, "subject.json")) as f:
        return json.load(f)


def manifest(out):
    with open(os.path.join(out, "manifest.json")) as f:
        return json.load(f)


def test_outputs_are_numpy_files_equal_to_the_single_scan_commands(tmp_path):
    out = tmp_path / "out"
    run("batch", SCAN, "-o", out, "--backend", "cpu", "-q", *PIPELINE)
    subject = "fmri1"
    m = marker(out, subject)
    assert sorted(m["outputs"]) == ["degree.degree.npy", "degree.strength.npy", "triangle.r.npy", "voxels.npy",
                                    "window_degree.degree.npy", "window_degree.strength.npy"]
    for name, record in m["outputs"].items():
        raw = open(out / subject / name, "rb").read()
        assert len(raw) == record["bytes"]
        again = io.BytesIO()
        np.save(again, np.load(io.BytesIO(raw)))  # numpy writes the very same bytes
        assert again.getvalue() == raw, name
    voxels = np.load(out / subject / "voxels.npy")
    degree = np.load(out / subject / "degree.degree.npy")
    strength = np.load(out / subject / "degree.strength.npy")
    assert degree.dtype == np.int64 and strength.dtype == np.float64 and voxels.dtype == np.int64

    run("degree", SCAN, "--backend", "cpu", "--threshold", "0.3", "-o", tmp_path / "d.nii",
        "--weighted-output", tmp_path / "w.nii", "-q")
    np.testing.assert_array_equal(np.flatnonzero(flat(nib.load(tmp_path / "d.nii")) > 0),
                                  voxels[degree > 0])
    np.testing.assert_array_equal(flat(nib.load(tmp_path / "d.nii"))[voxels], degree)
    np.testing.assert_array_equal(flat(nib.load(tmp_path / "w.nii"))[voxels], strength.astype(np.float32))

    run("dfc", SCAN, "--backend", "cpu", "--threshold", "0.4", "--window", "20", "--step", "10",
        "-o", tmp_path / "dfc.nii", "-q")
    windows = flat(nib.load(tmp_path / "dfc.nii"))[voxels].T  # (windows, N)
    np.testing.assert_array_equal(windows, np.load(out / subject / "window_degree.degree.npy"))

    # modules: the labels of `fastconn modules` on the same network (labels there 1.. inside the mask)
    run("batch", SCAN, "-o", out, "--backend", "cpu", "-q", "--force", *PIPELINE,
        "--step", "modules:density=0.1,weights=abs")
    run("modules", SCAN, "--backend", "cpu", "--density", "0.1", "--weights", "abs", "-o", tmp_path / "m.nii", "-q")
    labels = np.load(out / subject / "modules.labels.npy")
    q = np.load(out / subject / "modules.q.npy")
    assert labels.dtype == np.int64 and q.shape == () and 0 < q < 1
    np.testing.assert_array_equal(flat(nib.load(tmp_path / "m.nii"))[voxels], labels + 1)

    # the triangle, against float64 numpy on the series as read (r within fp32's 1e-5)
    x = np.asarray(nib.load(SCAN).get_fdata(), dtype=np.float64).reshape(-1, 40, order="F")[voxels]
    r = np.corrcoef(x)[np.triu_indices(len(voxels), 1)]
    np.testing.assert_allclose(np.load(out / subject / "triangle.r.npy"), r, atol=2e-5)


def test_rerun_changes_nothing_and_force_redoes(tmp_path, scans):
    out = tmp_path / "out"
    first = run("batch", *scans, "-o", out, "--backend", "cpu", *PIPELINE)
    assert "3 computed, 0 skipped, 0 failed" in first.stderr
    before = files(out)
    time.sleep(0.05)
    again = run("batch", *scans, "-o", out, "--backend", "cpu", *PIPELINE)
    assert "0 computed, 3 skipped, 0 failed" in again.stderr
    after = files(out)
    assert {k: v for k, v in after.items() if k != "manifest.json"} == \
        {k: v for k, v in before.items() if k != "manifest.json"}
    assert {s["status"] for s in manifest(out)["subjects"].values()} == {"done"}
    # the zero, the constant and the NaN voxel are left out (libnifti2 reads NaN as 0: not here)
    assert np.load(out / "sub-01" / "voxels.npy").tolist() == list(range(3, 60))
    # a changed pipeline or --force redoes every subject
    forced = run("batch", *scans, "-o", out, "--backend", "cpu", "--force", *PIPELINE)
    assert "3 computed" in forced.stderr
    redone = files(out)
    assert all(redone[k][0] != before[k][0] for k in before if k.endswith("subject.json"))
    assert all(redone[k][1] == before[k][1] for k in before if k.endswith(".npy"))  # same bits


def test_leftovers_of_a_killed_run_are_removed_and_the_subject_redone(tmp_path, scans):
    out = tmp_path / "out"
    run("batch", *scans, "-o", out, "--backend", "cpu", "-q", *PIPELINE)
    clean = files(out)
    # sub-02 as a killed run leaves it: no marker, a half-written temporary file, a truncated output
    os.unlink(out / "sub-02" / "subject.json")
    (out / "sub-02" / ".degree.degree.npy.tmp-host-1-0123abcd").write_bytes(b"\x93NUMPY half")
    (out / "sub-02" / "degree.strength.npy").write_bytes(b"x")
    (out / "sub-03" / ".triangle.r.npy.tmp-host-1-89abcdef").write_bytes(b"stale")
    p = run("batch", *scans, "-o", out, "--backend", "cpu", *PIPELINE)
    assert "1 computed, 2 skipped, 0 failed" in p.stderr
    now = files(out)
    assert not [k for k in now if ".tmp-" in k]
    assert {k: v[1] for k, v in now.items() if k.endswith(".npy")} == \
        {k: v[1] for k, v in clean.items() if k.endswith(".npy")}


def test_a_run_killed_mid_subject_leaves_no_half_file_and_the_rerun_completes(tmp_path):
    # 6 subjects of 2,400 voxels: a 23 MB matrix each, written and fsync'ed, so the run is still
    # busy with later subjects when the first one's marker appears
    scans = [synthetic(tmp_path / f"big-{k}.nii", k, shape=(20, 12, 10), n_time=50) for k in range(6)]
    pipeline = ["--step", "degree:topk=5", "--step", "matrix"]
    out = tmp_path / "out"
    p = subprocess.Popen([CLI, "batch", *scans, "-o", out, "--backend", "cpu", "--threads", "1", "-q", *pipeline],
                         stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while not (out / "big-0" / "subject.json").exists():
        assert p.poll() is None, p.stderr.read()
        assert time.monotonic() < deadline, "the first subject did not finish in 120 s"
        time.sleep(0.002)
    p.send_signal(signal.SIGKILL)
    p.wait(timeout=30)
    p.stderr.close()
    done = [s for s in os.listdir(out) if (out / s / "subject.json").exists()]
    assert len(done) < 6, "the run finished before it was killed: the test needs larger subjects"
    # every file under a final name is whole: a .npy loads with its header's size
    for subject in os.listdir(out):
        if not (out / subject).is_dir():
            continue
        for name in os.listdir(out / subject):
            if name.startswith("."):
                continue  # a temporary file, never mistaken for an output
            path = out / subject / name
            if name.endswith(".npy"):
                array = np.load(path)
                assert os.path.getsize(path) == len(npy_bytes(array)), path
            else:
                json.loads(path.read_text())
    rerun = run("batch", *scans, "-o", out, "--backend", "cpu", "-q", *pipeline)
    assert rerun.returncode == 0
    assert not [k for k in files(out) if ".tmp-" in k]
    reference = tmp_path / "reference"
    run("batch", *scans, "-o", reference, "--backend", "cpu", "-q", *pipeline)
    for k in range(6):
        assert {n: r["sha256"] for n, r in marker(out, f"big-{k}")["outputs"].items()} == \
            {n: r["sha256"] for n, r in marker(reference, f"big-{k}")["outputs"].items()}


def test_ctrl_c_stops_the_run_cleanly_and_the_rerun_completes(tmp_path):
    scans = [synthetic(tmp_path / f"big-{k}.nii", k, shape=(20, 12, 10), n_time=50) for k in range(6)]
    pipeline = ["--step", "degree:topk=5", "--step", "matrix"]
    out = tmp_path / "out"
    p = subprocess.Popen([CLI, "batch", *scans, "-o", out, "--backend", "cpu", "--threads", "1", "-q", *pipeline],
                         stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not (out / "big-0" / "subject.json").exists():
        assert p.poll() is None and time.monotonic() < deadline, "the first subject did not finish"
        time.sleep(0.002)
    p.send_signal(signal.SIGINT)
    err = p.communicate(timeout=60)[1]
    assert p.returncode == 130, err
    assert "cancelled" in err
    statuses = {k: v["status"] for k, v in manifest(out)["subjects"].items()}
    assert statuses["big-0"] == "done" and "pending" in statuses.values()
    assert not [k for k in files(out) if ".tmp-" in k]  # the interrupted write removed its file
    run("batch", *scans, "-o", out, "--backend", "cpu", "-q", *pipeline)
    assert {v["status"] for v in manifest(out)["subjects"].values()} == {"done"}


def npy_bytes(array):
    buffer = io.BytesIO()
    np.save(buffer, array)
    return buffer.getvalue()


def test_a_bad_scan_fails_alone(tmp_path, scans):
    (tmp_path / "broken.nii.gz").write_bytes(b"not a scan")
    listing = tmp_path / "list.tsv"
    listing.write_text("# id<tab>path\n" + "\n".join(
        [f"a\t{scans[0]}", f"broken\t{tmp_path / 'broken.nii.gz'}", f"missing\t{tmp_path / 'none.nii'}",
         f"c\t{scans[2]}"]) + "\n")
    out = tmp_path / "out"
    p = run("batch", "--list", listing, "-o", out, "--backend", "cpu", *PIPELINE, check=False)
    assert p.returncode == 1, p.stderr
    assert "2 computed, 0 skipped, 2 failed" in p.stderr
    assert f"subject 'broken' ({tmp_path / 'broken.nii.gz'})" in p.stderr
    assert f"subject 'missing' ({tmp_path / 'none.nii'})" in p.stderr
    m = manifest(out)
    assert {k: v["status"] for k, v in m["subjects"].items()} == \
        {"a": "done", "c": "done", "broken": "failed", "missing": "failed"}
    assert str(tmp_path / "none.nii") in m["subjects"]["missing"]["error"]
    assert m["subjects"]["missing"]["input"] == {"path": str(tmp_path / "none.nii"), "missing": True}
    assert (out / "a" / "subject.json").exists() and (out / "c" / "subject.json").exists()
    assert not (out / "broken" / "subject.json").exists()


def test_usage_errors(tmp_path, scans):
    for args, message in [
            ([*scans, "-o", tmp_path], "no pipeline"),
            ([*scans, "-o", tmp_path, "--step", "degree"], "needs one edge rule"),
            ([*scans, "-o", tmp_path, "--step", "degree:threshold=0.5,topk=3"], "needs one edge rule"),
            ([*scans, "-o", tmp_path, "--step", "degree:cutoff=0.5"], "has no parameter 'cutoff'"),
            ([*scans, "-o", tmp_path, "--step", "window_degree:width=9,topk=2,taper=gaussian"],
             "python3 -m fastconn.cohort"),
            ([*scans, "-o", tmp_path, "--step", "modules:density=0.1,weights=signed"], "weights must be one of"),
            ([*scans, "-o", tmp_path, "--step", "degree:threshold=1.5"], "threshold must be in"),
            ([*scans, "-o", tmp_path, "--step", "triangle", "--step", "triangle"], "used twice"),
            ([*scans, scans[0], "-o", tmp_path, "--step", "triangle"], "appears twice"),
            (["-o", tmp_path, "--step", "triangle"], "no scans given"),
            ([*scans, "--step", "triangle"], "no output folder")]:
        p = run("batch", *args, check=False)
        assert p.returncode == 1 and message in p.stderr, (args, p.stderr)
    assert "fastconn.cohort" in run("batch", "--help").stdout


def test_a_pipeline_file_is_the_same_pipeline_as_steps(tmp_path, scans):
    spec = tmp_path / "pipeline.json"
    spec.write_text(json.dumps([{"step": "degree", "threshold": 0.3}, {"step": "triangle", "name": "tri"}]))
    run("batch", *scans, "-o", tmp_path / "a", "--backend", "cpu", "-q", "--pipeline", spec,
        "--step", "window_degree:width=20,step=10,threshold=0.4")
    run("batch", *scans, "-o", tmp_path / "b", "--backend", "cpu", "-q", "--step", "degree:threshold=0.3",
        "--step", "triangle:name=tri", "--step", "window_degree:width=20,step=10,threshold=0.4")
    a, b = marker(tmp_path / "a", "sub-01"), marker(tmp_path / "b", "sub-01")
    assert a["pipeline"] == b["pipeline"] and a["outputs"] == b["outputs"]
    assert [s["name"] for s in a["pipeline"]] == ["degree", "tri", "window_degree"]
    # the same pipeline resumes: nothing redone
    assert "0 computed, 3 skipped" in run("batch", *scans, "-o", tmp_path / "b", "--backend", "cpu",
                                          "--pipeline", spec, "--step",
                                          "window_degree:width=20,step=10,threshold=0.4").stderr


def python_binding():
    """Whether `import fastconn` works in a child /usr/bin/python3 (PYTHONPATH from ctest)."""
    p = subprocess.run([sys.executable, "-c", "import fastconn.cohort"], capture_output=True)
    return p.returncode == 0


needs_binding = pytest.mark.skipif(not python_binding(), reason="the fastconn Python binding is not importable")


def cohort(*args):
    p = subprocess.run([sys.executable, "-m", "fastconn.cohort", *map(str, args)], capture_output=True, text=True,
                       timeout=240)
    assert p.returncode == 0, p.stdout + p.stderr
    return p.stdout


@needs_binding
def test_the_python_runner_writes_the_same_bytes_and_each_resumes_the_other(tmp_path, scans):
    scans = scans + [SCAN]
    cli_out, py_out = tmp_path / "cli", tmp_path / "py"
    steps = PIPELINE + MODULES
    run("batch", *scans, "-o", cli_out, "--backend", "cpu", "-q", *steps)
    cohort("-o", py_out, "--backend", "cpu", "--workers", "0", *steps, *scans)
    for subject in ("sub-01", "sub-02", "sub-03", "fmri1"):
        c, p = marker(cli_out, subject), marker(py_out, subject)
        assert c["outputs"] == p["outputs"]  # sizes and SHA-256 of every array
        for key in ("input", "pipeline", "settings", "fastconn", "subject"):
            assert c[key] == p[key], key
    assert set(manifest(cli_out)) == set(manifest(py_out))
    assert set(manifest(cli_out)["run"]) == set(manifest(py_out)["run"])
    assert set(manifest(cli_out)["subjects"]["sub-01"]) == set(manifest(py_out)["subjects"]["sub-01"])
    # the Python runner resumes the CLI's folder, and the CLI the Python runner's
    cli_files, py_files = files(cli_out), files(py_out)
    assert "0 computed, 4 skipped" in cohort("-o", cli_out, "--backend", "cpu", "--workers", "0", *steps, *scans)
    assert "0 computed, 4 skipped" in run("batch", *scans, "-o", py_out, "--backend", "cpu", *steps).stderr
    for before, after in ((cli_files, files(cli_out)), (py_files, files(py_out))):
        assert {k: v for k, v in after.items() if k != "manifest.json"} == \
            {k: v for k, v in before.items() if k != "manifest.json"}
