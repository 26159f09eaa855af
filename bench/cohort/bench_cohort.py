"""Cohort throughput (issue 33, part 2): 16 synthetic subjects through fastconn.cohort on a local
Dask cluster of 1 and of 2 CPU workers (1 thread each), with the floor measured in the same run:
one subject's pipeline in this process, without Dask and without writing (n workers can at best
run n / that many subjects a second), and the same in 2 plain processes at once (what 2 cores of
this machine give: two workers cannot beat it). "cores it got" is the workers' CPU time over the
wall time (for the floor, this process's): below n, other jobs took the rest.

    PYTHONPATH=build/python-binding/python /usr/bin/python3 bench/cohort/bench_cohort.py \
        [--subjects 16 --voxels 6000 --time 300] [--write bench/RESULTS-cohort.md]

With --gpus K (the GPU machine, scripts/gpu-steps/cohort.sh): GPU workers instead, one per device
(worker i with CUDA_VISIBLE_DEVICES=i, --threads host threads each), 1 worker on device 0 and
then K workers on devices 0..K-1 (issue 33: 60,000 voxels x 600 samples, >= 3.5x on 4 GPUs);
the floor is one subject in this process on device 0 (CUDA context, no Dask, no writes), and the
2-process floor is left out (the host has the cores; the devices are what is shared).

Pipeline per subject: degree map (|r| >= 0.5), sliding-window degree (width 60, step 30,
|r| >= 0.5) and modules of the 1%-density graph. The machine's load average is printed with each
phase: on a shared machine, rerun when another job competed for the cores.
"""

import argparse
import os
import platform
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from machine import cpu_model  # noqa: E402 (bench/machine.py)

import numpy as np

import fastconn
from fastconn.cohort import local_cluster, run_cohort
from fastconn.cohort_pipeline import compute_step, context_for, normalize_pipeline

PIPELINE = [("degree", {"threshold": 0.5}), ("window_degree", {"width": 60, "step": 30, "threshold": 0.5}),
            ("modules", {"density": 0.01, "weights": "abs"})]



def load():
    return "%.2f %.2f %.2f" % os.getloadavg()


def cpu_times():
    """(busy, total) jiffies of the whole machine (/proc/stat), to tell how much CPU a phase found."""
    try:
        with open("/proc/stat") as f:
            values = [int(v) for v in f.readline().split()[1:]]
    except OSError:
        return 0, 0
    idle = values[3] + values[4]  # idle + iowait
    return sum(values) - idle, sum(values)


def make_subjects(folder, count, n_voxels, n_time):
    """.npy files of (time, voxels) float32: 6 shared slow signals mixed per voxel, plus noise."""
    paths = {}
    t = np.arange(n_time) * 2.0
    for k in range(count):
        rng = np.random.default_rng(100 + k)
        latent = np.sin(2 * np.pi * rng.uniform(0.01, 0.1, (6, 1)) * t + rng.uniform(0, 2 * np.pi, (6, 1)))
        x = rng.standard_normal((n_voxels, 6)) @ latent + 0.8 * rng.standard_normal((n_voxels, n_time))
        path = os.path.join(folder, f"sub-{k:02d}.npy")
        np.save(path, np.ascontiguousarray(x.T, dtype=np.float32))
        paths[f"sub-{k:02d}"] = path
    return paths


last_step_means = {}  # the mean seconds of each step in the last phase measured (floor or cohort)


def floor_seconds(path, backend="cpu", threads=1):
    """One subject's pipeline in this process (CPU: one thread), no Dask, no files written."""
    global last_step_means
    ctx = context_for({"backend": backend, "precision": "fp32", "constant": "nan", "threads": threads})
    series = np.load(path).T
    begin, cpu = time.perf_counter(), time.process_time()
    last_step_means = {}
    for step in normalize_pipeline(PIPELINE):
        step_begin = time.perf_counter()
        compute_step(ctx, step, series)
        last_step_means[step["name"]] = time.perf_counter() - step_begin
    seconds = time.perf_counter() - begin
    return seconds, (time.process_time() - cpu) / seconds


def fsync_seconds(folder, files=20):
    """The mean time to write and fsync a 100 kB file in `folder` (what each output costs the
    runner beyond its bytes: the store fsyncs every file and the folder before renaming)."""
    payload = os.urandom(100_000)
    begin = time.perf_counter()
    for k in range(files):
        path = os.path.join(folder, f".fsync-probe-{k}")
        with open(path, "wb") as f:
            f.write(payload)
            f.flush()
            os.fsync(f.fileno())
        os.unlink(path)
    return (time.perf_counter() - begin) / files


def steps_text(means):
    return ", ".join(f"{name} {seconds:.2f} s" for name, seconds in means.items())


def floor_loop(paths):
    """floor_seconds of each path in turn, in a process of its own: [(seconds, cores)]."""
    return [floor_seconds(path) for path in paths]


def parallel_floor(paths):
    """The floor of 2 workers: 2 plain processes (no Dask, no writes) each running floor_loop on half
    the paths at once; (mean seconds per subject, cores both got)."""
    import multiprocessing
    half = len(paths) // 2
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        pool.map(floor_seconds, paths[:2])  # start both processes and import fastconn first
        runs = pool.map(floor_loop, [paths[:half], paths[half:2 * half]])
    times = [seconds for run in runs for seconds, _ in run]
    cores = [c for run in runs for _, c in run]
    return sum(times) / len(times), sum(cores) / len(cores) * 2


def warm_worker(backend, threads):
    """On a worker, before the clock starts: import fastconn and make its context (for CUDA, the
    device's context and cuBLAS handles), as a long cohort run has them after its first subject."""
    import fastconn  # noqa: F401
    context_for({"backend": backend, "precision": "fp32", "constant": "nan", "threads": threads})


def cohort_seconds(subjects, workers, folder, gpus=0, threads=1):
    """The wall time of run_cohort over every subject on a ready cluster of `workers` processes
    (gpus > 0: one GPU worker per device 0..workers-1, `threads` host threads each)."""
    from distributed import Client
    backend = "cuda" if gpus else "cpu"
    devices = list(range(workers)) if gpus else None
    with local_cluster(workers, gpus=devices, threads=threads) as cluster, Client(cluster) as client:
        client.wait_for_workers(workers, timeout=300)
        client.run(warm_worker, backend, threads)  # before the clock starts
        out = os.path.join(folder, f"out-{workers}")
        cpu_before = sum(client.run(time.process_time).values())
        begin = time.perf_counter()
        result = run_cohort(subjects, PIPELINE, out, client=client, backend=backend, threads=threads)
        seconds = time.perf_counter() - begin
        cpu = sum(client.run(time.process_time).values()) - cpu_before
    assert len(result.computed) == len(subjects) and not result.failed
    entries = list(result.manifest["subjects"].values())
    per_subject = [entry["seconds"] for entry in entries]
    global last_step_means
    last_step_means = {name: sum(e["step_seconds"][name] for e in entries) / len(entries) for name in entries[0]["step_seconds"]}
    return seconds, sum(per_subject) / len(per_subject), cpu / seconds


def gpu_main(args, threads, backend, counts):
    """--gpus K: the floor on device 0 in this process, then run_cohort on 1 and on K GPU workers."""
    import subprocess
    try:
        gpu_names = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True,
                                   text=True, timeout=60).stdout.strip().splitlines()
    except (OSError, subprocess.SubprocessError):
        gpu_names = ["?"]
    lines = [f"fastconn {fastconn.__version__}, {len(gpu_names)} x {gpu_names[0] if gpu_names else '?'}, host "
             f"{cpu_model()} ({os.cpu_count()} logical CPUs), Python {platform.python_version()}, "
             f"{time.strftime('%Y-%m-%d %H:%M')}",
             f"{args.subjects} subjects of {args.voxels} voxels x {args.time} samples; GPU workers of {threads} host "
             "threads; pipeline: " + ", ".join(f"{name} {params}" for name, params in PIPELINE), ""]
    with tempfile.TemporaryDirectory(prefix="fastconn-cohort-bench-", dir=args.folder) as folder:
        begin = time.perf_counter()
        subjects = make_subjects(folder, args.subjects, args.voxels, args.time)
        print(f"{args.subjects} subjects written in {time.perf_counter() - begin:.1f} s", flush=True)
        probe = fsync_seconds(folder)
        lines.insert(2, f"outputs under {folder}: a 100 kB file written and fsync'ed there in {1e3 * probe:.1f} ms")
        floor_seconds(subjects["sub-00"], backend, threads)  # the device's context made, kernels loaded
        floor, _ = min(floor_seconds(subjects["sub-00"], backend, threads) for _ in range(2))
        rows = [("floor: 1 subject in-process on device 0", floor, 1 / floor, floor, "", steps_text(last_step_means))]
        # Where the modules step's time goes (its phases on stderr: fastconn's FASTCONN_PROFILE),
        # on sub-00 and on the last subject, outside every timing above.
        os.environ["FASTCONN_PROFILE"] = "modularity"
        for name in ("sub-00", sorted(subjects)[-1]):
            print(f"modules profile of {name}:", flush=True)
            floor_seconds(subjects[name], backend, threads)
        del os.environ["FASTCONN_PROFILE"]
        if args.profile_only:
            print(f"floor {floor:.2f} s: {steps_text(last_step_means)}")
            return 0
        results = {}
        for workers in counts:
            seconds, mean_subject, _ = cohort_seconds(subjects, workers, folder, gpus=workers, threads=threads)
            results[workers] = args.subjects / seconds
            rows.append((f"run_cohort, {workers} GPU worker{'s' if workers > 1 else ''}", seconds, results[workers],
                         mean_subject, f"{results[workers] / (workers / floor):.2f} of {workers} / floor",
                         steps_text(last_step_means)))
            print(rows[-1], flush=True)
    lines.append("| case | seconds | subjects/s | s per subject (in its worker) | vs floor | mean step seconds (with writes) |")
    lines.append("|---|---|---|---|---|---|")
    for case, seconds, rate, mean_subject, note, steps in rows:
        lines.append(f"| {case} | {seconds:.2f} | {rate:.3f} | {mean_subject:.2f} | {note} | {steps} |")
    k = counts[-1]
    lines.append("")
    lines.append(f"throughput {k} GPU workers / 1: **{results[k] / results[1]:.2f}x** (target >= 3.5x on 4 GPUs)")
    text = "\n".join(lines)
    print(text, flush=True)
    print(f"cohort: {k} GPUs {results[k] / results[1]:.2f}x of 1 GPU ({results[1]:.3f} -> {results[k]:.3f} subjects/s, "
          f"{args.subjects} x {args.voxels} x {args.time})", flush=True)
    if args.write:
        with open(args.write, "a") as f:
            f.write("\n" + text + "\n")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--subjects", type=int, default=16)
    parser.add_argument("--voxels", type=int, default=6000)
    parser.add_argument("--time", type=int, default=300)
    parser.add_argument("--gpus", type=int, default=0, help="GPU workers: 1 and then this many (0: CPU workers)")
    parser.add_argument("--threads", type=int, default=None,
                        help="host threads per worker (default 1 for CPU workers, 4 for GPU workers)")
    parser.add_argument("--folder", default=None, help="where the subjects and outputs go (default: the temp folder)")
    parser.add_argument("--write", help="append the table to this Markdown file")
    parser.add_argument("--profile-only", action="store_true",
                        help="with --gpus: the floor and the modules profiles only, no cohort")
    args = parser.parse_args()
    threads = args.threads or (4 if args.gpus else 1)
    backend = "cuda" if args.gpus else "cpu"
    counts = (1, args.gpus) if args.gpus else (1, 2)
    if args.gpus:
        return gpu_main(args, threads, backend, counts)

    lines = [f"fastconn {fastconn.__version__}, {cpu_model()}, {os.cpu_count()} logical CPUs, "
             f"Python {platform.python_version()}, {time.strftime('%Y-%m-%d %H:%M')}",
             f"{args.subjects} subjects of {args.voxels} voxels x {args.time} samples; pipeline: "
             + ", ".join(f"{name} {params}" for name, params in PIPELINE), ""]
    with tempfile.TemporaryDirectory(prefix="fastconn-cohort-bench-") as folder:
        subjects = make_subjects(folder, args.subjects, args.voxels, args.time)
        rows = []
        floor_load, (busy0, total0) = load(), cpu_times()
        floor, floor_cores = min(floor_seconds(subjects["sub-00"]) for _ in range(2))
        busy1, total1 = cpu_times()
        rows.append(("floor: 1 subject in-process, 1 thread", floor_load, (busy1 - busy0) / max(1, total1 - total0),
                     floor, 1 / floor, floor, floor_cores, ""))
        before, (busy0, total0) = load(), cpu_times()
        pair, pair_cores = parallel_floor([subjects[s] for s in sorted(subjects)[:8]])
        busy1, total1 = cpu_times()
        rows.append(("floor: 2 processes at once, 1 thread each", before, (busy1 - busy0) / max(1, total1 - total0),
                     pair, 2 / pair, pair, pair_cores, f"{floor / pair * 2:.2f}x of 1 process"))
        results = {}
        for workers in (1, 2):
            before, (busy0, total0) = load(), cpu_times()
            seconds, mean_subject, cores = cohort_seconds(subjects, workers, folder)
            busy1, total1 = cpu_times()
            results[workers] = args.subjects / seconds
            rows.append((f"run_cohort, {workers} worker{'s' if workers > 1 else ''} x 1 thread", before,
                         (busy1 - busy0) / max(1, total1 - total0), seconds, results[workers], mean_subject, cores,
                         f"{results[workers] / (workers / floor):.2f} of {workers} / floor" + (
                             f", {results[workers] * pair / 2:.2f} of the 2-process floor" if workers == 2 else "")))
    lines.append("| case | load avg before (1/5/15 min) | machine busy | seconds | subjects/s | s per subject "
                 "(in its worker) | cores it got | vs floor |")
    lines.append("|---|---|---|---|---|---|---|---|")
    for case, before, busy, seconds, rate, mean_subject, cores, note in rows:
        lines.append(f"| {case} | {before} | {100 * busy:.0f}% | {seconds:.2f} | {rate:.3f} | {mean_subject:.2f} "
                     f"| {cores:.2f} | {note} |")
    lines.append("")
    lines.append(f"throughput 2 workers / 1 worker: **{results[2] / results[1]:.2f}x** (target >= 1.8x); "
                 f"per core the workers got: {results[2] / rows[3][6] / (results[1] / rows[2][6]):.2f}x of 1 worker's; "
                 f"2 plain processes (the machine's own scaling): {floor / pair * 2:.2f}x; "
                 f"load average after: {load()}")
    text = "\n".join(lines)
    print(text, flush=True)
    if args.write:
        with open(args.write, "a") as f:
            f.write("\n" + text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
