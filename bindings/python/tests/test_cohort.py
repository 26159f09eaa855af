"""fastconn.cohort (issue 33, part 2): a cohort on a local Dask cluster of 2 worker processes
equals a serial run bit for bit; a worker killed mid-subject loses nothing and leaves no
temporary file; a rerun resumes (computes nothing) and redoes only incomplete subjects; bad
input fails its own subject, named, and not the others."""

import json
import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import fastconn
from fastconn import cohort_store
from fastconn.cohort import CohortError, load_outputs, run_cohort

from conftest import synthetic

PIPELINE = [("degree", {"threshold": 0.5}),
            ("window_degree", {"width": 40, "step": 20, "threshold": 0.5}),
            ("modules", {"density": 0.02, "weights": "abs"})]
SETTINGS = dict(backend="cpu", threads=1)


@pytest.fixture(scope="module")
def subjects(tmp_path_factory):
    """6 subjects: 4 voxel-level (120 x 2000, as .npy files) and 2 region-level (120 x 90 arrays)."""
    folder = tmp_path_factory.mktemp("scans")
    scans = {}
    for k in range(4):
        path = folder / f"sub-{k:02d}.npy"
        np.save(path, synthetic(2000, 120, seed=10 + k).T.astype(np.float32))
        scans[f"sub-{k:02d}"] = str(path)
    for k in (4, 5):
        scans[f"sub-{k:02d}"] = synthetic(90, 120, seed=10 + k).T.copy()
    return scans


@pytest.fixture(scope="module")
def serial(subjects, tmp_path_factory):
    """The reference: the same cohort in this process, one subject after the other."""
    out = tmp_path_factory.mktemp("serial")
    result = run_cohort(subjects, PIPELINE, out, workers=0, **SETTINGS)
    assert result.computed == sorted(subjects) and not result.failed
    return out, {s: load_outputs(out, s) for s in subjects}


@pytest.fixture(scope="module")
def client():
    """A local cluster of 2 worker processes (1 thread each), shared by the distributed tests."""
    distributed = pytest.importorskip("distributed")
    with fastconn.cohort.local_cluster(2, threads=1) as cluster, distributed.Client(cluster) as c:
        c.wait_for_workers(2, timeout=120)
        yield c


def files_of(out):
    """{relative path: mtime_ns} of every file under out but the manifest."""
    found = {}
    for root, _, names in os.walk(out):
        for name in names:
            path = os.path.join(root, name)
            if name != cohort_store.MANIFEST:
                found[os.path.relpath(path, out)] = os.stat(path).st_mtime_ns
    return found


def assert_equal_outputs(out, reference, subjects, extra=()):
    for subject in subjects:
        got = load_outputs(out, subject)
        want = reference[subject]
        assert sorted(got) == sorted(list(want) + list(extra)), subject
        for name in want:
            assert np.array_equal(got[name], want[name]), f"{subject} {name}"
            assert got[name].dtype == want[name].dtype


def assert_clean(out, subjects):
    """Every subject folder holds exactly its marker and the outputs it lists, nothing else."""
    for subject in subjects:
        folder = os.path.join(out, subject)
        marker = json.load(open(os.path.join(folder, cohort_store.MARKER)))
        assert sorted(os.listdir(folder)) == sorted(list(marker["outputs"]) + [cohort_store.MARKER]), subject
        for name, record in marker["outputs"].items():
            assert cohort_store.file_sha256(os.path.join(folder, name)) == record["sha256"]


def test_cluster_equals_serial(subjects, serial, client, tmp_path):
    reference_out, reference = serial
    events = []
    result = run_cohort(subjects, PIPELINE, tmp_path, client=client, progress=events.append, **SETTINGS)
    assert result.computed == sorted(subjects) and result.skipped == [] and result.failed == {}
    assert_equal_outputs(tmp_path, reference, subjects)
    assert_clean(tmp_path, subjects)
    manifest = json.load(open(tmp_path / cohort_store.MANIFEST))
    serial_manifest = json.load(open(reference_out / cohort_store.MANIFEST))
    assert manifest["fastconn"] == fastconn.__version__
    assert manifest["settings"] == {"backend": "cpu", "precision": "fp32", "constant": "nan"}
    assert manifest["run"]["where"] == client.scheduler.address and manifest["run"]["threads"] == 1
    assert [s["step"] for s in manifest["pipeline"]] == ["degree", "window_degree", "modules"]
    assert manifest["pipeline"][1]["params"] == {"width": 40, "step": 20, "threshold": 0.5}
    assert sorted(manifest["subjects"]) == sorted(subjects)
    for subject, entry in manifest["subjects"].items():
        assert entry["status"] == "done"
        # .npy files are byte-for-byte the same: the same checksums as the serial run's
        assert entry["outputs"] == serial_manifest["subjects"][subject]["outputs"]
        assert "window_degree.degree.npy" in entry["outputs"] and "modules.labels.npy" in entry["outputs"]
    # one "done" event per subject, counted up to the total; "started" and "step" events from the
    # workers (Dask's event log) come before their subject's "done" or not at all
    done = [e for e in events if e.status == "done"]
    assert sorted(e.subject for e in done) == sorted(subjects) and done[-1].done == len(subjects) == done[-1].total
    assert {e.status for e in events} <= {"started", "step", "done"}
    for e in events:
        if e.status == "step":
            assert e.message in ("degree", "window_degree", "modules") and e.seconds >= 0
        if e.status in ("started", "step"):
            assert events.index(e) < events.index(next(d for d in done if d.subject == e.subject))
    # a scheduler's address in place of a Client: the same outputs
    two = {s: subjects[s] for s in ("sub-00", "sub-05")}
    again = run_cohort(two, PIPELINE, tmp_path / "by-address", client=client.scheduler.address, **SETTINGS)
    assert again.computed == sorted(two)
    assert_equal_outputs(tmp_path / "by-address", reference, two)


def test_worker_killed_mid_subject(subjects, serial, client, tmp_path):
    """A step that sleeps on one subject; that subject's worker gets SIGKILL mid-subject (after its
    degree outputs are written and with a half-written temporary file); Dask reruns the subject on a
    worker and every output comes out once, complete, equal to the serial run's."""
    _, reference = serial
    victim = "sub-01"
    calls, flag = tmp_path / "calls.log", tmp_path / "victim.pid"
    out = tmp_path / "out"

    def make_hook(calls_path, flag_path, out_dir, victim_id):
        def hook(series, subject):
            import os as os_, time as time_
            with open(calls_path, "a") as f:
                f.write(subject + "\n")
            if subject == victim_id and not os_.path.exists(flag_path):
                # what a worker killed while writing leaves: a temporary file, half written
                half = os_.path.join(out_dir, subject, ".degree.strength.npy.tmp-killed-%d" % os_.getpid())
                with open(half, "wb") as f:
                    f.write(b"\x93NUMPY half")
                with open(str(flag_path) + ".part", "w") as f:
                    f.write(str(os_.getpid()))
                os_.replace(str(flag_path) + ".part", flag_path)
                time_.sleep(120)  # killed long before
            return {"n": np.array(series.shape, dtype=np.int64)}
        return hook

    pipeline = PIPELINE[:1] + [make_hook(str(calls), str(flag), str(out), victim)] + PIPELINE[1:]
    killed = {}

    def killer():
        deadline = time.monotonic() + 100
        while time.monotonic() < deadline and "pid" not in killed:
            if flag.exists():
                pid = int(flag.read_text())
                time.sleep(1.0)  # the worker's earlier results have reached the scheduler
                # the victim's degree outputs are on disk, its marker is not: killed mid-subject
                killed["degree_written"] = (out / victim / "degree.degree.npy").exists()
                killed["marker"] = (out / victim / cohort_store.MARKER).exists()
                os.kill(pid, signal.SIGKILL)
                killed["pid"] = pid
            time.sleep(0.05)

    thread = threading.Thread(target=killer, daemon=True)
    thread.start()
    result = run_cohort(subjects, pipeline, out, client=client, **SETTINGS)
    thread.join(timeout=10)
    assert "pid" in killed, "the victim's step never started"
    assert killed["degree_written"] and not killed["marker"]
    # (a subject whose result was still on its way from the killed worker is rerun and finds
    # itself complete: skipped, not computed twice)
    assert result.failed == {} and sorted(result.computed + result.skipped) == sorted(subjects)
    assert victim in result.computed
    log = calls.read_text().split()
    assert log.count(victim) == 2  # started, killed, redone
    assert all(log.count(s) >= 1 for s in subjects)
    assert_equal_outputs(out, reference, subjects, extra=["hook.n"])
    assert_clean(out, subjects)  # no temporary file, no extra file
    manifest = json.load(open(out / cohort_store.MANIFEST))
    assert {e["status"] for e in manifest["subjects"].values()} == {"done"}

    # a rerun computes nothing: no step called, no file rewritten
    before, calls_before = files_of(out), calls.read_text()
    again = run_cohort(subjects, pipeline, out, client=client, **SETTINGS)
    assert again.computed == [] and again.skipped == sorted(subjects)
    assert files_of(out) == before and calls.read_text() == calls_before


def test_subject_that_kills_every_worker_fails_alone(subjects, tmp_path):
    """A subject whose step kills its worker each time (once the other subjects are done, so that
    no other task shares the dying worker) is a failed subject after Dask's allowed-failures; the
    others are complete and the manifest names the failure."""
    dask = pytest.importorskip("dask")
    distributed = pytest.importorskip("distributed")
    few = {s: subjects[s] for s in ("sub-03", "sub-04", "sub-05")}
    victim, others = "sub-05", ["sub-03", "sub-04"]

    def make_poison(out_dir, victim_id, other_ids):
        def poison(series, subject):
            import os as os_, signal as signal_, time as time_
            if subject == victim_id:
                deadline = time_.monotonic() + 60
                while time_.monotonic() < deadline and not all(
                        os_.path.exists(os_.path.join(out_dir, o, "subject.json")) for o in other_ids):
                    time_.sleep(0.05)
                time_.sleep(1.0)  # and their results have reached the scheduler
                os_.kill(os_.getpid(), signal_.SIGKILL)
            return {"n": np.array(series.shape)}
        return poison

    with dask.config.set({"distributed.scheduler.allowed-failures": 1}):
        cluster = fastconn.cohort.local_cluster(2, threads=1)
    with cluster, distributed.Client(cluster) as c:
        result = run_cohort(few, PIPELINE[:1] + [make_poison(str(tmp_path), victim, others)], tmp_path, client=c,
                            errors="return", **SETTINGS)
    # (an other subject's task still reporting on the dying worker is rerun and finds itself complete)
    assert sorted(result.computed + result.skipped) == others and list(result.failed) == [victim]
    assert result.failed[victim].startswith(f"subject {victim!r}: Dask: KilledWorker")
    manifest = json.load(open(tmp_path / cohort_store.MANIFEST))
    assert manifest["subjects"][victim]["status"] == "failed"
    assert [manifest["subjects"][o]["status"] for o in others] == ["done", "done"]
    assert not os.path.exists(tmp_path / victim / cohort_store.MARKER)
    assert cohort_store.temporary_files(tmp_path / victim) == []


def test_resume_redoes_only_incomplete(subjects, tmp_path):
    small = {s: subjects[s] for s in ("sub-04", "sub-05")}
    small["sub-06"] = synthetic(60, 120, seed=3).T.copy()
    small["sub-07"] = synthetic(70, 120, seed=4).T.copy()
    first = run_cohort(small, PIPELINE, tmp_path, workers=0, **SETTINGS)
    reference = {s: load_outputs(tmp_path, s) for s in small}
    before = files_of(tmp_path)
    os.unlink(tmp_path / "sub-04" / "window_degree.strength.npy")             # an output deleted
    stale = tmp_path / "sub-05" / ".modules.labels.npy.tmp-host-1-deadbeef"   # a killed writer's file
    stale.write_bytes(b"partial")
    changed = tmp_path / "sub-06" / "degree.degree.npy"                       # an output changed, same size
    data = bytearray(changed.read_bytes())
    data[-1] ^= 1
    changed.write_bytes(bytes(data))
    os.unlink(tmp_path / "sub-07" / cohort_store.MARKER)                      # cut short before its marker
    events = []
    second = run_cohort(small, PIPELINE, tmp_path, workers=0, progress=events.append, **SETTINGS)
    assert first.computed == sorted(small)
    assert second.computed == ["sub-04", "sub-06", "sub-07"] and second.skipped == ["sub-05"]
    assert not stale.exists()
    assert_equal_outputs(tmp_path, reference, small)
    assert_clean(tmp_path, small)
    after = files_of(tmp_path)
    assert all(after[f] == before[f] for f in before if f.startswith("sub-05"))  # sub-05 untouched
    assert [(e.subject, e.status) for e in events if e.status not in ("started", "step")] == [
        ("sub-05", "skipped"), ("sub-04", "done"), ("sub-06", "done"), ("sub-07", "done")]
    assert [(e.status, e.message) for e in events if e.subject == "sub-04"][:4] == [
        ("started", f"{os.uname().nodename}:{os.getpid()}"), ("step", "degree"), ("step", "window_degree"),
        ("step", "modules")]
    # a changed parameter redoes every subject; resume=False too
    assert run_cohort(small, PIPELINE[:1], tmp_path, workers=0, **SETTINGS).computed == sorted(small)
    assert_clean(tmp_path, small)  # the earlier pipeline's outputs are gone
    assert run_cohort(small, PIPELINE[:1], tmp_path, workers=0, resume=False, **SETTINGS).computed == sorted(small)
    manifest = json.load(open(tmp_path / cohort_store.MANIFEST))
    assert [s["step"] for s in manifest["pipeline"]] == ["degree"]


def test_every_step_as_the_library_computes_it(tmp_path):
    x = synthetic(40, 150, seed=5).T.copy()  # (time, regions)

    def mean_series(series, subject, scale=1.0):
        return {"mean": series.mean(axis=1) * scale, "subject_length": np.array(len(subject))}

    pipeline = [{"step": "degree", "topk": 3}, {"step": "degree", "name": "degree_t", "threshold": 0.4, "signed": True},
                "triangle", ("triangle", {"order": "col", "name": "triangle_col"}), "matrix",
                ("window_degree", {"width": 50, "step": 25, "density": 0.1}),
                ("modules", {"topk": 4, "weights": "abs", "max_communities": 3}), (mean_series, {"scale": 2.0})]
    run_cohort({"s1": x}, pipeline, tmp_path, workers=0, **SETTINGS)
    got = load_outputs(tmp_path, "s1")
    with fastconn.Context(**SETTINGS) as ctx:
        want = {"degree.degree": ctx.degree(x, topk=3, rowvar=False)[0],
                "degree_t.strength": ctx.degree(x, threshold=0.4, signed=True, rowvar=False)[1],
                "triangle.r": ctx.pcc_triu(x, rowvar=False),
                "triangle_col.r": ctx.pcc_triu(x, order="col", rowvar=False),
                "matrix.r": ctx.corrcoef(x, rowvar=False),
                "window_degree.strength": ctx.dfc_degree(x, 50, 25, density=0.1, rowvar=False)[1],
                "modules.labels": ctx.modularity(ctx.network(x, topk=4, weights="abs", rowvar=False),
                                                 max_communities=3).labels,
                "mean_series.mean": x.mean(axis=0) * 2.0, "mean_series.subject_length": np.array(2)}
    for name, value in want.items():
        assert np.array_equal(got[name], value), name
    assert got["modules.q"].shape == () and 0 < float(got["modules.q"]) < 1
    manifest = json.load(open(tmp_path / cohort_store.MANIFEST))
    assert manifest["pipeline"][-1]["step"].endswith("mean_series") and manifest["pipeline"][-1]["params"] == {
        "scale": 2.0}


def test_bad_input_names_the_subject(subjects, tmp_path):
    nan = synthetic(50, 100, seed=2).T.copy()
    nan[7, 3] = np.nan
    bad = {"good": subjects["sub-04"], "missing": str(tmp_path / "nope.npy"), "has-nan": nan,
           "three-d": np.zeros((10, 5, 5)), "text": str(tmp_path / "scan.txt")}
    (tmp_path / "scan.txt").write_text("1 2 3")
    result = run_cohort(bad, PIPELINE[:1], tmp_path / "out", workers=0, errors="return", **SETTINGS)
    assert result.computed == ["good"] and sorted(result.failed) == ["has-nan", "missing", "text", "three-d"]
    for subject, error in result.failed.items():
        assert error.startswith(f"subject {subject!r}"), error
    assert "nope.npy" in result.failed["missing"]
    assert "step 'degree'" in result.failed["has-nan"] and "series 3" in result.failed["has-nan"]
    assert "(10, 5, 5)" in result.failed["three-d"]
    manifest = json.load(open(tmp_path / "out" / cohort_store.MANIFEST))
    assert manifest["subjects"]["good"]["status"] == "done"
    assert manifest["subjects"]["has-nan"] == {"status": "failed", "input": manifest["subjects"]["has-nan"]["input"],
                                               "error": result.failed["has-nan"]}
    with pytest.raises(CohortError, match="4 of 5 subjects failed: subject 'has-nan'") as raised:
        run_cohort(bad, PIPELINE[:1], tmp_path / "out", workers=0, **SETTINGS)
    assert raised.value.result.skipped == ["good"] and len(raised.value.failed) == 4
    with pytest.raises(ValueError, match=r"pipeline step 1 \('window_degree'\) needs width="):
        run_cohort(bad, ["triangle", ("window_degree", {"threshold": 0.5})], tmp_path / "x", workers=0)
    with pytest.raises(ValueError, match="precision must be one of 'fp32', 'fp64', 'tf32', not 'fp16'"):
        run_cohort(bad, PIPELINE, tmp_path / "x", workers=0, precision="fp16")
    with pytest.raises(ValueError, match="has no parameter 'treshold'"):
        run_cohort(bad, [("degree", {"treshold": 0.5})], tmp_path / "x", workers=0)
    with pytest.raises(ValueError, match="subject id 'a/b'"):
        run_cohort({"a/b": nan}, PIPELINE, tmp_path / "x", workers=0)
    with pytest.raises(ValueError, match="appears twice"):
        run_cohort([str(tmp_path / "a" / "s.npy"), str(tmp_path / "b" / "s.npy")], PIPELINE, tmp_path / "x",
                   workers=0)


def test_write_is_atomic(tmp_path):
    """A write that fails half way (np.save has written the header when it refuses an object array)
    leaves the previous file whole and no temporary file."""
    first = cohort_store.write_array(tmp_path, "a.npy", np.arange(10))
    with pytest.raises(ValueError):
        cohort_store.write_array(tmp_path, "a.npy", np.array([{}, None], dtype=object))
    assert sorted(os.listdir(tmp_path)) == ["a.npy"]
    assert np.array_equal(np.load(tmp_path / "a.npy"), np.arange(10))
    assert cohort_store.file_sha256(tmp_path / "a.npy") == first["sha256"]
    cohort_store.write_json(tmp_path, "m.json", {"x": 1})
    assert cohort_store.read_json(tmp_path / "m.json") == {"x": 1} and cohort_store.temporary_files(tmp_path) == []


def test_nifti_subject(tmp_path):
    pytest.importorskip("nibabel")
    path = fastconn.data.path("fmri1.nii.gz")
    result = run_cohort([path], [("degree", {"threshold": 0.5}), "triangle"], tmp_path, workers=0, **SETTINGS)
    assert result.computed == ["fmri1"]
    outputs = load_outputs(tmp_path, "fmri1")
    voxels = outputs["voxels"]
    flat = fastconn.data.scan().reshape(-1, 40, order="F")
    assert np.array_equal(voxels, np.flatnonzero(flat.std(axis=1) > 0))
    k, s = fastconn.degree(flat[voxels], threshold=0.5, rowvar=True)
    assert np.array_equal(outputs["degree.degree"], k)
    assert outputs["triangle.r"].size == voxels.size * (voxels.size - 1) // 2


def test_local_cluster_pins_one_gpu_per_worker():
    distributed = pytest.importorskip("distributed")
    with fastconn.cohort.local_cluster(gpus=["3", "5"], threads=1) as cluster, distributed.Client(cluster) as c:
        c.wait_for_workers(2, timeout=120)
        seen = c.run(lambda: (os.environ.get("CUDA_VISIBLE_DEVICES"), os.environ.get("OMP_NUM_THREADS")))
    assert sorted(seen.values()) == [("3", "1"), ("5", "1")]


def test_command_line(subjects, tmp_path):
    python = [sys.executable, "-m", "fastconn.cohort"]
    shown = subprocess.run(python + ["--help"], capture_output=True, text=True, timeout=120)
    assert shown.returncode == 0 and "--scheduler" in shown.stdout and "--step" in shown.stdout
    scans = [subjects["sub-00"], subjects["sub-02"]]
    run = subprocess.run(python + ["-o", str(tmp_path), "--workers", "0", "--backend", "cpu", "--step",
                                   "degree:threshold=0.5", "--step", "window_degree:width=40,step=20,topk=5"] + scans,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "[2/2] sub-02 done" in run.stdout and "2 computed, 0 skipped, 0 failed" in run.stdout
    k, _ = fastconn.dfc_degree(np.load(scans[1]), 40, 20, topk=5, rowvar=False, backend="cpu")
    assert np.array_equal(load_outputs(tmp_path, "sub-02")["window_degree.degree"], k)
    again = subprocess.run(python + ["-o", str(tmp_path), "--workers", "0", "--backend", "cpu", "--step",
                                     "degree:threshold=0.5", "--step", "window_degree:width=40,step=20,topk=5"] + scans,
                           capture_output=True, text=True, timeout=300)
    assert again.returncode == 0 and "0 computed, 2 skipped" in again.stdout
    failing = subprocess.run(python + ["-o", str(tmp_path / "f"), "--workers", "0", "--step", "degree:topk=3",
                                       str(tmp_path / "absent.npy")], capture_output=True, text=True, timeout=300)
    assert failing.returncode == 1 and "subject 'absent'" in failing.stderr
