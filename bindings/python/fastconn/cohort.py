"""Cohorts: one pipeline over many subjects' scans, on Dask distributed, resumable.

    from fastconn.cohort import run_cohort
    result = run_cohort({"sub-01": "sub-01_bold.nii.gz", "sub-02": "sub-02.npy"},
                        [("degree", {"threshold": 0.5}), ("window_degree", {"width": 50, "step": 10, "topk": 10}),
                         ("modules", {"density": 0.05})],
                        "out/", workers=4)

Each subject (a NIfTI path, a .npy path or a (time, voxels / regions) array) is one task: the
worker reads the scan, runs the steps (fastconn.cohort_pipeline: degree, triangle, matrix,
window_degree, modules, or callables of your own) on its fastconn context, and writes each array
atomically as OUT/<subject>/<step>.<array>.npy, then the done-marker OUT/<subject>/subject.json
(fastconn.cohort_store). OUT/manifest.json lists every subject, its outputs with their SHA-256,
the pipeline, settings and the fastconn version.

Where it runs:
- client=None, workers=n (default: one per GPU with backend "cuda" or "auto" on a GPU machine,
  else one per core): a Dask LocalCluster of n worker processes of one thread each, made and
  closed by run_cohort (local_cluster()). GPU workers each see one device: worker i runs with
  CUDA_VISIBLE_DEVICES=gpus[i], so its fastconn context's device 0 is that GPU.
- workers=0: in this process, one subject after the other, without Dask (debugging; the reference
  a distributed run must equal).
- client=a distributed.Client, or a scheduler address ("tcp://host:8786"): an existing cluster.
  On an HPC system make the cluster with dask-jobqueue (SLURMCluster, PBSCluster, ...) or start
  `dask scheduler` and `dask worker --nthreads 1 --nworkers 1` in your job scripts (one worker per
  GPU: `CUDA_VISIBLE_DEVICES=$i dask worker ...`), and pass its Client; fastconn does not depend on
  dask-jobqueue. Workers need fastconn installed and the scan paths and OUT on a shared filesystem.

Resume: a subject whose done-marker matches this run's input (path, size, mtime; or an array's
SHA-256), pipeline, settings and fastconn version, and whose outputs all exist with their
recorded size and SHA-256, is skipped (resume=False redoes everything). Anything else is redone
from the start: a run cut short, a deleted or changed output, a stale temporary file.

Failures: a worker killed mid-subject loses nothing: Dask runs the subject again on another
worker (up to distributed's allowed-failures, 3 by default), it starts over and no half-written
file remains (outputs appear by rename only; temporary files are swept). A subject's error (a
missing file, NaN in the data, a bad shape) does not stop the others: the run goes on, the
manifest records the subject as "failed" with the error naming it, and at the end run_cohort
raises CohortError listing the failed subjects (errors="return": returns the result instead).

The command line `fastconn batch` (tools/cli; `fastconn batch --help`) is the serial, Dask-free
equivalent for NIfTI scans: the built-in steps (window_degree without the Gaussian taper), and
the same files byte for byte, so either runner resumes (or verifies) the other's output folder.

One run_cohort at a time per output folder: two runs writing the same subjects would redo each
other's work (their files stay whole, as every write is a rename, but the manifest is the last
writer's).

>>> import numpy as np, tempfile, fastconn
>>> from fastconn.cohort import run_cohort, load_outputs
>>> x, regions = fastconn.data.timeseries()                      # (250, 31): time, regions
>>> subjects = {"sub-01": x, "sub-02": x[::-1].copy(), "sub-03": x[:200]}
>>> pipeline = [("degree", {"topk": 3}), ("window_degree", {"width": 100, "step": 50, "threshold": 0.5}),
...             ("modules", {"topk": 4, "weights": "abs"})]
>>> out = tempfile.mkdtemp()
>>> result = run_cohort(subjects, pipeline, out, workers=0, backend="cpu")   # workers=2: a LocalCluster
>>> result.computed, result.skipped, result.failed
(['sub-01', 'sub-02', 'sub-03'], [], {})
>>> outputs = load_outputs(out, "sub-01")
>>> sorted(outputs)[:3], outputs["window_degree.degree"].shape
(['degree.degree', 'degree.strength', 'modules.labels'], (4, 31))
>>> bool(np.array_equal(outputs["degree.degree"], fastconn.degree(x, topk=3, rowvar=False)[0]))
True
>>> run_cohort(subjects, pipeline, out, workers=0, backend="cpu").skipped    # a rerun resumes
['sub-01', 'sub-02', 'sub-03']
>>> subjects["sub-04"] = np.full((250, 31), np.nan)
>>> run_cohort(subjects, pipeline, out, workers=0, backend="cpu")
Traceback (most recent call last):
...
fastconn.cohort.CohortError: 1 of 4 subjects failed: subject 'sub-04' (array (250, 31) float64), step 'degree': ...
"""

import collections
import logging
import os
import re
import shutil
import subprocess
import sys
import time

from . import cohort_store as store
from .cohort_pipeline import (compute_step, context_for, load_series, normalize_pipeline, pipeline_json,
                              scan_fingerprint)

__all__ = ["run_cohort", "local_cluster", "load_outputs", "CohortResult", "CohortError", "CohortEvent", "main"]

_SUBJECT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")

CohortEvent = collections.namedtuple("CohortEvent", "subject status done failed total seconds message")
CohortEvent.__doc__ = """A progress event of run_cohort: `subject`'s status is "skipped" (complete from an
earlier run), "started" (message: host:pid, and the Dask worker's address), "step" (message: the step's output name,
seconds: its time), "done" (seconds: the subject's time) or "failed" (message: the error); done /
failed / total count the run's subjects so far, skipped ones included in done. Every event is
delivered in the thread that called run_cohort; "started" and "step" events of a subject that
finished in the meantime are dropped."""


class CohortError(RuntimeError):
    """Some subjects failed; the others' outputs are complete. .result is the CohortResult and
    .failed maps each failed subject to its error."""

    def __init__(self, message, result):
        super().__init__(message)
        self.result = result
        self.failed = result.failed


class CohortResult:
    """What run_cohort did: .computed (subjects computed in this run), .skipped (complete from an
    earlier run), .failed ({subject: error}), .manifest (the manifest's content), .out_dir and
    .seconds (the run's wall time)."""

    def __init__(self, out_dir, manifest, computed, skipped, failed, seconds):
        self.out_dir, self.manifest, self.seconds = out_dir, manifest, seconds
        self.computed, self.skipped, self.failed = sorted(computed), sorted(skipped), dict(sorted(failed.items()))

    def __repr__(self):
        return (f"CohortResult({len(self.computed)} computed, {len(self.skipped)} skipped, {len(self.failed)} failed, "
                f"{self.out_dir!r})")


def _describe(scan):
    if isinstance(scan, (str, os.PathLike)):
        return os.fspath(scan)
    shape = getattr(scan, "shape", None)
    return f"array {tuple(shape)} {getattr(scan, 'dtype', '')}" if shape is not None else type(scan).__name__


def _subject_items(subjects):
    """[(subject id, scan)]: a dict's keys, a path's file name without .nii / .nii.gz / .npy, or
    subject-0000, subject-0001... for arrays in a list. Ids must be file-name safe and unique."""
    if isinstance(subjects, dict):
        items = [(str(k), v) for k, v in subjects.items()]
    else:
        if isinstance(subjects, (str, os.PathLike)):
            subjects = [subjects]
        items = []
        for index, scan in enumerate(subjects):
            if isinstance(scan, (str, os.PathLike)):
                name = os.path.basename(os.fspath(scan))
                name = re.sub(r"(\.nii\.gz|\.nii|\.npy)$", "", name)
            else:
                name = f"subject-{index:04d}"
            items.append((name, scan))
    seen = set()
    for name, scan in items:
        if not _SUBJECT_ID.match(name):
            raise ValueError(f"subject id {name!r} ({_describe(scan)}) must be letters, digits, '.', '_' or '-' "
                             f"(pass a dict {{id: scan}} to name subjects)")
        if name in seen:
            raise ValueError(f"subject id {name!r} appears twice; pass a dict {{id: scan}} to name subjects")
        seen.add(name)
    if not items:
        raise ValueError("no subjects")
    return items


def _notify_worker(topic):
    """A function that sends a progress message from this Dask worker to the run's client (Dask's
    event log, to which run_cohort subscribes), or None outside a worker / without a topic."""
    if topic is None:
        return None
    try:
        from distributed import get_worker
        worker = get_worker()
    except (ImportError, ValueError):
        return None
    return lambda message: worker.log_event(topic, message)


def run_subject(subject, scan, steps, expected, out_dir, settings, verify="sha256", resume=True, notify=None):
    """One subject's task (in a Dask worker, or in the caller with workers=0): skip it if complete
    (a task Dask reruns after its worker died may find it so), else remove its temporary files and
    marker, compute and write each step's arrays atomically, then the done-marker. Returns a
    record {"status": "done" | "skipped" | "failed", ...}; never raises for the subject's errors.
    resume=False: never skip (a rerun after a killed worker then starts over too). notify: a
    callable(message) for "started" and "step" progress, or a Dask event topic (a string)."""
    if notify is None or isinstance(notify, str):
        notify = _notify_worker(notify) or (lambda message: None)
    folder = os.path.join(out_dir, subject)
    started = time.perf_counter()
    step_name = None
    try:
        os.makedirs(folder, exist_ok=True)
        complete, marker, _ = store.check_complete(folder, expected, verify) if resume else (False, None, "")
        if complete:
            return {"status": "skipped", "marker": marker}
        store.remove_temporary(folder)
        previous = store.read_json(os.path.join(folder, store.MARKER)) or {}
        try:
            os.unlink(os.path.join(folder, store.MARKER))  # from here on the subject is incomplete
        except FileNotFoundError:
            pass
        notify({"subject": subject, "status": "started", "process": f"{os.uname().nodename}:{os.getpid()}"})
        series, voxels = load_series(scan)
        ctx = context_for(settings)
        outputs, seconds = {}, {}
        if voxels is not None:
            outputs["voxels.npy"] = store.write_array(folder, "voxels.npy", voxels)
        for step in steps:
            step_name = step["name"]
            begin = time.perf_counter()
            arrays = compute_step(ctx, step, series, subject)
            for array_name, array in arrays.items():
                file_name = f"{step_name}.{array_name}.npy"
                outputs[file_name] = store.write_array(folder, file_name, array)
            seconds[step_name] = round(time.perf_counter() - begin, 6)
            notify({"subject": subject, "status": "step", "step": step_name, "seconds": seconds[step_name]})
        step_name = None
        marker = dict(expected, outputs=outputs, step_seconds=seconds, backend=ctx.backend,
                      seconds=round(time.perf_counter() - started, 6), worker=f"{os.uname().nodename}:{os.getpid()}",
                      finished=time.strftime("%Y-%m-%dT%H:%M:%S%z"))
        store.write_json(folder, store.MARKER, marker)
        store.sync_folder(folder)
        for name in set(previous.get("outputs", {})) - set(outputs):  # an earlier pipeline's outputs
            try:
                os.unlink(os.path.join(folder, name))
            except OSError:
                pass
        return {"status": "done", "marker": marker}
    except Exception as error:  # the subject's failure, reported, never the run's
        where = f", step {step_name!r}" if step_name else ""
        return {"status": "failed", "seconds": time.perf_counter() - started,
                "error": f"subject {subject!r} ({_describe(scan)}){where}: {type(error).__name__}: {error}"}


def _gpu_count():
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None:
        return [d for d in visible.split(",") if d.strip() and d.strip() != "-1"]
    nvidia_smi = shutil.which("nvidia-smi")
    if nvidia_smi:
        try:
            listed = subprocess.run([nvidia_smi, "-L"], capture_output=True, text=True, timeout=30).stdout
            return [str(i) for i, line in enumerate(listed.splitlines()) if line.startswith("GPU ")]
        except (OSError, subprocess.SubprocessError):
            pass
    return ["0"]


def local_cluster(workers=None, gpus=None, threads=1, silence_logs=logging.ERROR):
    """A Dask cluster on this machine for run_cohort: `workers` worker processes (a Nanny each,
    restarted if killed) of one Dask thread, with OMP_NUM_THREADS=threads. gpus: a list of device
    ids (or a count): one worker per GPU, worker i with CUDA_VISIBLE_DEVICES=gpus[i], so each
    worker's fastconn sees only its device. Returns a distributed.SpecCluster (close() it, or
    use it in a with block); distributed.Client(cluster) connects to it."""
    from distributed import Nanny, Scheduler, SpecCluster
    if isinstance(gpus, int):
        gpus = [str(i) for i in range(gpus)]
    if gpus is not None:
        gpus = [str(g) for g in gpus]
        workers = len(gpus) if workers is None else workers
        if workers != len(gpus):
            raise ValueError(f"workers={workers} but {len(gpus)} GPUs: one worker per GPU")
    if workers is None:
        workers = os.cpu_count() or 1
    if workers < 1:
        raise ValueError(f"workers must be >= 1 for a cluster, not {workers}")
    worker_specs = {}
    for i in range(workers):
        env = {"OMP_NUM_THREADS": str(threads or os.cpu_count() or 1)}
        if gpus is not None:
            env["CUDA_VISIBLE_DEVICES"] = gpus[i]
        worker_specs[f"fastconn-{i}"] = {"cls": Nanny, "options": {
            "nthreads": 1, "env": env, "host": "127.0.0.1", "dashboard_address": ":0", "silence_logs": silence_logs}}
    # on the loopback interface, without the dashboard (bokeh is optional in Debian's package)
    scheduler = {"cls": Scheduler, "options": {"dashboard": False, "dashboard_address": ":0", "host": "127.0.0.1"}}
    return SpecCluster(workers=worker_specs, scheduler=scheduler, silence_logs=silence_logs)


def load_outputs(out_dir, subject, mmap_mode=None):
    """A finished subject's arrays {"<step>.<array>": numpy array} as its done-marker lists them
    (mmap_mode="r" maps large ones instead of reading them). KeyError when it is not done."""
    import numpy as np
    folder = os.path.join(out_dir, subject)
    marker = store.read_json(os.path.join(folder, store.MARKER))
    if marker is None:
        raise KeyError(f"subject {subject!r} has no done-marker in {out_dir}")
    return {name[:-4]: np.load(os.path.join(folder, name), mmap_mode=mmap_mode) for name in sorted(marker["outputs"])}


def _printer(event, verbose=False):
    """progress=True: a line per finished subject (and with verbose, per start and step)."""
    if event.status == "started" and verbose:
        print(f"    {event.subject} started on {event.message}", flush=True)
    elif event.status == "step" and verbose:
        print(f"    {event.subject} {event.message} in {event.seconds:.2f} s", flush=True)
    elif event.status not in ("started", "step"):
        extra = f" in {event.seconds:.2f} s" if event.status == "done" else ""
        extra += f": {event.message}" if event.message else ""
        print(f"[{event.done + event.failed}/{event.total}] {event.subject} {event.status}{extra}", flush=True)


def run_cohort(subjects, pipeline, out_dir, client=None, workers=None, backend="auto", precision="fp32",
               constant="nan", threads=None, gpus=None, resume=True, verify="sha256", errors="raise", progress=None):
    """Run `pipeline` over every subject on Dask distributed, writing OUT/<subject>/ and
    OUT/manifest.json; returns a CohortResult (see the module's documentation).

    subjects: {id: scan} or a list of scans (NIfTI / .npy paths, ids from the file names; arrays:
        subject-0000, ...). A scan is (time, voxels / regions); of a NIfTI scan the finite,
        non-constant voxels are kept (their indices in NIfTI order: the output "voxels").
    pipeline: steps (fastconn.cohort_pipeline), e.g. [("degree", {"threshold": 0.5}), "triangle"].
    client: None (a LocalCluster of `workers` made here), a distributed.Client or a scheduler address.
    workers: worker processes of the local cluster (default: one per GPU for CUDA, else per core);
        0 runs here, serially, without Dask.
    backend / precision / constant: each worker's fastconn.Context. threads: its CPU threads
        (default: cores / workers locally, all cores with workers=0 or a given client).
    gpus: device ids for the local cluster's workers (default: CUDA_VISIBLE_DEVICES or nvidia-smi's).
    resume: skip subjects complete from an earlier run (verify="sha256" rereads their outputs to
        check them; "size" checks sizes only). errors: "raise" (CohortError at the end, after every
        other subject is done) or "return". progress: a callable(CohortEvent) called per subject
        in this process, or True to print a line per subject.
    """
    started = time.perf_counter()
    steps = normalize_pipeline(pipeline)
    items = _subject_items(subjects)
    if errors not in ("raise", "return"):
        raise ValueError(f"errors must be 'raise' or 'return', not {errors!r}")
    if verify not in ("sha256", "size"):
        raise ValueError(f"verify must be 'sha256' or 'size', not {verify!r}")
    from . import __version__, backend_name
    from .context import BACKENDS, CONSTANT_POLICIES, PRECISIONS
    for name, value, table in (("backend", backend, BACKENDS), ("precision", precision, PRECISIONS),
                               ("constant", constant, CONSTANT_POLICIES)):
        if value not in table:
            raise ValueError(f"{name} must be one of {', '.join(map(repr, table))}, not {value!r}")
    if progress is True:
        progress = _printer
    out_dir = os.path.abspath(os.fspath(out_dir))
    os.makedirs(out_dir, exist_ok=True)

    use_gpus = backend == "cuda" or (backend == "auto" and gpus is None and client is None and workers != 0
                                     and backend_name("auto") == "cuda")
    if client is None and workers is None:
        workers = len(gpus if gpus is not None else _gpu_count()) if use_gpus or gpus is not None else os.cpu_count()
    if threads is None:
        threads = max(1, (os.cpu_count() or 1) // workers) if client is None and workers else 0
    settings = {"backend": backend, "precision": precision, "constant": constant, "threads": int(threads)}
    compared = {k: settings[k] for k in ("backend", "precision", "constant")}  # threads do not change the bits
    recorded_pipeline = pipeline_json(steps)
    where = (client if isinstance(client, str) else getattr(getattr(client, "scheduler", None), "address", None)
             if client is not None else ("this process" if workers == 0 else f"local cluster of {workers} workers"))
    manifest = {"fastconn": __version__, "pipeline": recorded_pipeline, "settings": compared, "out_dir": out_dir,
                "run": {"where": where, "threads": settings["threads"], "resume": bool(resume), "verify": verify,
                        "started": time.strftime("%Y-%m-%dT%H:%M:%S%z")},
                "subjects": {}}
    expected, todo, skipped, computed, failed = {}, [], [], [], {}
    total, counts = len(items), {"done": 0, "failed": 0}

    finished_subjects = set()

    def report(subject, status, seconds=0.0, message=None):
        counts["failed" if status == "failed" else "done"] += 1
        finished_subjects.add(subject)
        if progress is not None:
            progress(CohortEvent(subject, status, counts["done"], counts["failed"], total, seconds, message))

    def note(message):  # a running subject's "started" / "step" message
        if progress is None or message.get("subject") in finished_subjects:
            return
        text = message.get("step") if message["status"] == "step" else message.get("process")
        if message["status"] == "started" and "worker" in message:  # Dask adds the worker's address
            text += f" ({message['worker']})"
        progress(CohortEvent(message["subject"], message["status"], counts["done"], counts["failed"], total,
                             message.get("seconds", 0.0), text))

    for subject, scan in items:
        expected[subject] = {"subject": subject, "input": scan_fingerprint(scan), "pipeline": recorded_pipeline,
                             "settings": compared, "fastconn": __version__}
        folder = os.path.join(out_dir, subject)
        complete, marker, reason = (store.check_complete(folder, expected[subject], verify) if resume
                                    else (False, None, "resume=False"))
        if complete:
            manifest["subjects"][subject] = _entry("done", marker)
            skipped.append(subject)
            report(subject, "skipped")
        else:
            manifest["subjects"][subject] = {"status": "pending", "input": expected[subject]["input"],
                                             "reason": reason}
            todo.append((subject, scan))
    store.write_json(out_dir, store.MANIFEST, manifest)

    last_write = [time.monotonic()]

    def finish(subject, record):
        if record["status"] == "failed":
            failed[subject] = record["error"]
            manifest["subjects"][subject] = {"status": "failed", "input": expected[subject]["input"],
                                             "error": record["error"]}
            report(subject, "failed", record.get("seconds", 0.0), record["error"])
        else:
            (computed if record["status"] == "done" else skipped).append(subject)
            manifest["subjects"][subject] = _entry("done", record["marker"])
            report(subject, record["status"], record["marker"].get("seconds", 0.0) if record["status"] == "done"
                   else 0.0)
        if time.monotonic() - last_write[0] > 1.0:  # the manifest at most once a second, and at the end
            store.write_json(out_dir, store.MANIFEST, manifest)
            last_write[0] = time.monotonic()

    try:
        if todo and client is None and workers == 0:
            for subject, scan in todo:
                finish(subject, run_subject(subject, scan, steps, expected[subject], out_dir, settings, verify, resume,
                                            note))
        elif todo:
            _run_distributed(todo, steps, expected, out_dir, settings, verify, resume, client, workers,
                             gpus if gpus is not None else (_gpu_count() if use_gpus else None), threads, finish,
                             note if progress is not None else None)
    finally:
        for subject, _ in items:
            store.remove_temporary(os.path.join(out_dir, subject))
        manifest["seconds"] = round(time.perf_counter() - started, 3)
        store.write_json(out_dir, store.MANIFEST, manifest)
    result = CohortResult(out_dir, manifest, computed, skipped, failed, time.perf_counter() - started)
    if failed and errors == "raise":
        first = "; ".join(list(result.failed.values())[:3])
        raise CohortError(f"{len(failed)} of {total} subjects failed: {first}"
                          + (" ..." if len(failed) > 3 else "") + f" (see {os.path.join(out_dir, store.MANIFEST)})",
                          result)
    return result


def _entry(status, marker):
    return {"status": status, "input": marker["input"], "outputs": marker["outputs"], "seconds": marker.get("seconds"),
            "step_seconds": marker.get("step_seconds"), "backend": marker.get("backend"),
            "worker": marker.get("worker"), "finished": marker.get("finished")}


def _run_distributed(todo, steps, expected, out_dir, settings, verify, resume, client, workers, gpus, threads, finish,
                     note):
    """Submit one task per subject to the client (made here from a LocalCluster or an address when
    not given) and finish() each as it completes; a task that fails in Dask itself (its workers
    died too often: KilledWorker) is a failed subject. The workers' progress messages come through
    Dask's event log (a topic of this run) into a queue that this thread hands to note()."""
    import queue
    from distributed import Client, as_completed
    own_cluster = own_client = None
    try:
        if client is None:
            own_cluster = local_cluster(workers, gpus, threads)
            client = own_client = Client(own_cluster)
        elif isinstance(client, str):
            client = own_client = Client(client)
        token = os.urandom(4).hex()
        topic = messages = None
        if note is not None:
            topic, messages = f"fastconn-cohort-{token}", queue.Queue()
            client.subscribe_topic(topic, lambda event: messages.put(event[1]))

        def drain():
            while messages is not None and not messages.empty():
                note(messages.get())

        futures = {}
        for subject, scan in todo:
            future = client.submit(run_subject, subject, scan, steps, expected[subject], out_dir, settings, verify,
                                   resume, topic, key=f"fastconn-cohort-{subject}-{token}", pure=False)
            futures[future] = subject
        pending = as_completed(futures)
        while True:
            drain()
            batch = pending.next_batch(block=False)
            for future in batch:
                subject = futures[future]
                try:
                    record = future.result()
                except Exception as error:  # KilledWorker, a lost connection...
                    record = {"status": "failed",
                              "error": f"subject {subject!r}: Dask: {type(error).__name__}: {error}"}
                finish(subject, record)
            if not batch:
                if pending.is_empty():
                    break
                time.sleep(0.05)
        if topic is not None:
            client.unsubscribe_topic(topic)
    finally:
        if own_client is not None:
            own_client.close()
        if own_cluster is not None:
            own_cluster.close()


def _parse_step(text):
    """'degree:threshold=0.5,signed=true' -> ("degree", {"threshold": 0.5, "signed": True})."""
    import json
    name, _, rest = text.partition(":")
    params = {}
    for part in filter(None, rest.split(",")):
        key, eq, value = part.partition("=")
        if not eq:
            raise ValueError(f"--step {text!r}: {part!r} is not key=value")
        try:
            params[key.strip()] = json.loads(value)
        except ValueError:
            params[key.strip()] = value
    return (name.strip(), params)


def main(argv=None):
    """The command line: python3 -m fastconn.cohort --help."""
    import argparse
    import json
    parser = argparse.ArgumentParser(
        prog="python3 -m fastconn.cohort",
        description="Run a fastconn pipeline over a cohort of scans on Dask distributed, resumably: outputs in "
                    "OUT/<subject>/<step>.<array>.npy, written atomically, and OUT/manifest.json.",
        epilog="example: python3 -m fastconn.cohort -o out --step degree:threshold=0.5 "
               "--step window_degree:width=50,step=10,topk=10 --step modules:density=0.05 --workers 2 sub-*.nii.gz")
    parser.add_argument("scans", nargs="*", help="NIfTI (.nii, .nii.gz) or .npy (time x voxels) files")
    parser.add_argument("-o", "--out", required=True, help="output folder")
    parser.add_argument("--subjects", help="a file of scans, one a line, or 'ID<tab>PATH' lines")
    parser.add_argument("--step", action="append", default=[], metavar="NAME[:KEY=VALUE,...]",
                        help="a pipeline step: degree, triangle, matrix, window_degree, modules (repeat)")
    parser.add_argument("--pipeline", help="a JSON file: the pipeline as a list of {\"step\": ..., params}")
    parser.add_argument("--scheduler", help="a Dask scheduler's address (default: a local cluster)")
    parser.add_argument("--workers", type=int, help="local worker processes (0: serial, in this process)")
    parser.add_argument("--gpus", help="comma-separated device ids, one local worker each")
    parser.add_argument("--threads", type=int, help="CPU threads per worker")
    parser.add_argument("--backend", default="auto", choices=("auto", "cpu", "cuda"))
    parser.add_argument("--precision", default="fp32", choices=("fp32", "fp64", "tf32"))
    parser.add_argument("--no-resume", action="store_true", help="redo every subject")
    parser.add_argument("--quiet", action="store_true", help="no line per subject")
    parser.add_argument("--verbose", action="store_true", help="a line per subject's start and step too")
    args = parser.parse_args(argv)
    scans = list(args.scans)
    subjects = None
    if args.subjects:
        with open(args.subjects) as f:
            lines = [line.rstrip("\n") for line in f if line.strip() and not line.startswith("#")]
        if all("\t" in line for line in lines):
            subjects = dict(line.split("\t", 1) for line in lines)
        else:
            scans += lines
    if subjects is None:
        subjects = scans
    elif scans:
        parser.error("give scans either on the command line or as ID<tab>PATH lines in --subjects, not both")
    if not subjects:
        parser.error("no scans given")
    pipeline = [_parse_step(s) for s in args.step]
    if args.pipeline:
        with open(args.pipeline) as f:
            pipeline = json.load(f) + pipeline
    if not pipeline:
        parser.error("no pipeline: give --step or --pipeline")
    try:
        result = run_cohort(subjects, pipeline, args.out, client=args.scheduler, workers=args.workers,
                            backend=args.backend, precision=args.precision, threads=args.threads,
                            gpus=args.gpus.split(",") if args.gpus else None, resume=not args.no_resume,
                            errors="return",
                            progress=None if args.quiet else lambda event: _printer(event, args.verbose))
    except (ValueError, OSError) as error:
        print(f"fastconn.cohort: {error}", file=sys.stderr)
        return 2
    print(f"{len(result.computed)} computed, {len(result.skipped)} skipped, {len(result.failed)} failed in "
          f"{result.seconds:.1f} s; manifest: {os.path.join(result.out_dir, store.MANIFEST)}", flush=True)
    for error in result.failed.values():
        print(f"failed: {error}", file=sys.stderr)
    return 1 if result.failed else 0


if __name__ == "__main__":
    # Through the imported module, not this __main__ copy, so that Dask's workers pickle
    # fastconn.cohort.run_subject by reference.
    from fastconn import cohort as _cohort
    sys.exit(_cohort.main())
