#!/usr/bin/env python3
"""lFCD benchmark (issue 34 item 2): fastconn's fc_pcc_lfcd against the plain Python region growing
a user would write (a queue per seed over a dict of voxel positions, r as the dot product of
numpy-normalized rows), in the same process, on the same data; then fastconn alone on larger
masks. Writes bench/RESULTS-lfcd.md.

  /usr/bin/python3 bench/lfcd_bench.py --lib build/libfastconn.so [--threads 2] [--t 120]
      [--python-voxels 4000] [--sizes 4000,100000,400000] [--out bench/RESULTS-lfcd.md]

On a CUDA context (issue 34's "lFCD of 1,000,000 voxels: <= 0.3 s on the GPU"; run by
scripts/gpu-steps/lfcd.sh):

  python bench/lfcd_bench.py --lib build/libfastconn.so --context cuda --threads 16 --sizes 1000000
      [--sample-seeds 1000] --out RESULTS-lfcd-gpu.md

times the lFCD call alone (the series already on the device; one call first as warm-up) and with
the series upload, median of --reps; runs the CPU context once on the same data (--threads
threads) and compares the counts (they must be equal: the header promises the same counts on
either backend); and grows --sample-seeds random seeds with the Python loop, whose products per
seed give the products/s (an estimate from the sample, said so) and whose counts are a check of
their own.

Data: a ball-shaped mask in a box (a brain-like mask), each voxel's series spatially smoothed white
noise (a Gaussian of 1.2 voxels over space, as scipy.ndimage.gaussian_filter makes it: radius 4
sigma, mirrored edges; written here with numpy, or torch on the GPU where there is one, so that
the device machine needs no scipy), so
neighbours correlate as in fMRI and clusters stay local; lFCD at r >= 0.6 (the threshold Tomasi
and Volkow use) with 26 neighbours. Both sides count the same clusters: their answers are compared
(voxels that differ, expected 0 but for pairs within float rounding of the threshold). fastconn is
timed from the raw (T, N) array: series upload (mean, norm) + the lFCD call, FP32 context (the
default). "products" is the number of seed-to-candidate r each computes (the same for both: every
voxel tested once per seed).
"""
import argparse
import collections
import ctypes
import datetime
import os
import resource
import sys
import time

ap = argparse.ArgumentParser()
ap.add_argument("--lib", required=True)
ap.add_argument("--threads", type=int, default=2)
ap.add_argument("--t", type=int, default=120)
ap.add_argument("--threshold", type=float, default=0.6)
ap.add_argument("--python-voxels", type=int, default=4000)
ap.add_argument("--sizes", default="4000,100000,400000")
ap.add_argument("--reps", type=int, default=3)
ap.add_argument("--out", default=None)
ap.add_argument("--context", choices=("cpu", "cuda"), default="cpu")
ap.add_argument("--sample-seeds", type=int, default=1000, help="--context cuda: seeds the Python loop grows")
args = ap.parse_args()

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from machine import cpu_model, fastconn_library, median_time, pin_threads  # noqa: E402 (bench/machine.py)
pin_threads(args.threads)
import numpy as np  # noqa: E402
try:  # the GPU machine's python has torch (data generation only)
    import torch  # noqa: E402
    if not torch.cuda.is_available():
        torch = None
except ImportError:
    torch = None

P = ctypes.c_void_p
lib = fastconn_library(args.lib)
lib.fc_pcc_lfcd.argtypes = [P, P, P, P, ctypes.c_int, ctypes.c_int, ctypes.c_double, P]
FC_EDGE_THRESHOLD = 1
FC_BACKEND = {"cpu": 1, "cuda": 2}


def gaussian_filter(vol, sigma):
    """scipy.ndimage.gaussian_filter(vol, sigma) for a numpy array or a torch tensor (on the GPU
    where the bench machine has torch: the numpy form takes seconds a volume): along each axis in
    turn, the normalized Gaussian of radius int(4 sigma + 0.5), edges mirrored (scipy's mode
    "reflect"). The same operations in the same order either way."""
    radius = int(4.0 * sigma + 0.5)
    x = np.arange(-radius, radius + 1)
    w = np.exp(-0.5 * x * x / (sigma * sigma))
    w /= w.sum()
    for axis in range(vol.ndim):
        n = vol.shape[axis]
        mirror = np.concatenate([np.arange(radius - 1, -1, -1), np.arange(n), np.arange(n - 1, n - 1 - radius, -1)])
        if isinstance(vol, np.ndarray):
            padded = np.take(vol, mirror, axis=axis)
        else:
            padded = vol.index_select(axis, torch.as_tensor(mirror, device=vol.device))
        out = padded[(slice(None),) * axis + (slice(0, n),)] * float(w[0])
        for i in range(1, len(w)):
            out += padded[(slice(None),) * axis + (slice(i, i + n),)] * float(w[i])
        vol = out
    return vol


def smoothed_volume(noise):
    """gaussian_filter(noise, 1.2), on the GPU through torch when there is one."""
    if torch is None:
        return gaussian_filter(noise, 1.2)
    return gaussian_filter(torch.from_numpy(noise).cuda(), 1.2).cpu().numpy()


def brain(n_voxels, t, seed=1):
    """(x (T, N) float32, coords (N, 3) int32, dims): the N voxels nearest the centre of a cube
    (a ball), series = spatially smoothed noise, in the mask's C order."""
    side = int(np.ceil((n_voxels * 6 / np.pi) ** (1 / 3))) + 4
    grid = np.indices((side,) * 3).reshape(3, -1).T
    d2 = ((grid - (side - 1) / 2) ** 2).sum(1)
    keep = np.sort(np.argsort(d2, kind="stable")[:n_voxels])
    coords = grid[keep].astype(np.int32)
    rng = np.random.default_rng(seed)
    x = np.empty((t, n_voxels), dtype=np.float32)
    for k in range(t):  # one volume at a time: (side^3) floats, not T x side^3
        vol = smoothed_volume(rng.standard_normal((side,) * 3))
        x[k] = vol.reshape(-1)[keep]
    return np.ascontiguousarray(x), coords, (side, side, side)


class Fastconn:
    """A context of --context's backend (or `backend`) and --threads threads."""

    def __init__(self, backend=None):
        self.ctx = P()
        if lib.fc_context_create(FC_BACKEND[backend or args.context], -1, ctypes.byref(self.ctx)) != 0:
            raise RuntimeError(lib.fc_last_error().decode())
        lib.fc_context_set_threads(self.ctx, args.threads)

    def close(self):
        lib.fc_context_destroy(self.ctx)

    def upload(self, x):
        t, n = x.shape
        s = P()
        if lib.fc_series_create_f32(self.ctx, x.ctypes.data, n, t, 1, n, ctypes.byref(s)) != 0:
            raise RuntimeError(lib.fc_last_error().decode())
        return s

    def lfcd(self, s, coords, dims, threshold):
        out = np.empty(len(coords), dtype=np.int64)
        dims64 = np.array(dims, dtype=np.int64)
        flat = np.ascontiguousarray(coords, dtype=np.int32)
        if lib.fc_pcc_lfcd(self.ctx, s, flat.ctypes.data, dims64.ctypes.data, 26, FC_EDGE_THRESHOLD, threshold,
                           out.ctypes.data) != 0:
            raise RuntimeError(lib.fc_last_error().decode())
        return out

    def upload_and_lfcd(self, x, coords, dims, threshold):
        s = self.upload(x)
        try:
            return self.lfcd(s, coords, dims, threshold)
        finally:
            lib.fc_series_destroy(s)


def timed_fastconn(x, coords, dims, threshold, backend=None, reps=None):
    """(median wall seconds, the CPU seconds (user + system, all threads) of the runs / reps, counts)
    of upload + lFCD: on a shared machine the wall time also holds the time other processes had
    the cores."""
    reps = reps or args.reps
    fc = Fastconn(backend)
    try:
        before = resource.getrusage(resource.RUSAGE_SELF)
        wall, counts = median_time(reps, lambda: fc.upload_and_lfcd(x, coords, dims, threshold))
        after = resource.getrusage(resource.RUSAGE_SELF)
    finally:
        fc.close()
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) / reps
    return wall, cpu, counts


def python_lfcd(x, coords, threshold, seeds=None):
    """The region growing a Python user writes: normalize with numpy, then per seed a queue over
    the 26 neighbours, each candidate's r a dot product with the seed. Returns (counts, products)
    of every seed, or of `seeds` (counts in their order)."""
    z = x - x.mean(axis=0)
    z = (z / np.linalg.norm(z, axis=0)).T.astype(np.float64)  # (N, T) rows of unit norm
    at = {tuple(c): v for v, c in enumerate(coords.tolist())}
    steps = [(i, j, k) for i in (-1, 0, 1) for j in (-1, 0, 1) for k in (-1, 0, 1) if (i, j, k) != (0, 0, 0)]
    seeds = range(len(coords)) if seeds is None else seeds
    counts = np.zeros(len(seeds), dtype=np.int64)
    products = 0
    for row, seed in enumerate(seeds):
        seen = {seed}
        queue = collections.deque([seed])
        size = 1
        zs = z[seed]
        while queue:
            i, j, k = coords[queue.popleft()]
            for di, dj, dk in steps:
                v = at.get((i + di, j + dj, k + dk))
                if v is None or v in seen:
                    continue
                seen.add(v)
                products += 1
                if zs @ z[v] >= threshold:
                    size += 1
                    queue.append(v)
        counts[row] = size
    return counts, products


def markdown_table(columns, rows):
    """A markdown table: columns by name, right-aligned unless the name ends in ":l"; rows of cells."""
    lines = ["| " + " | ".join(c[:-2] if c.endswith(":l") else c for c in columns) + " |",
             "|" + "|".join("---" if c.endswith(":l") else "---:" for c in columns) + "|"]
    lines += ["| " + " | ".join(str(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def write_out(*parts):
    """--out: the parts (paragraphs and tables), a blank line between them."""
    if args.out:
        with open(args.out, "w") as f:
            f.write("\n\n".join(parts) + "\n")


def gpu_name():
    """The GPU's name from nvidia-smi, or 'unknown'."""
    import subprocess
    try:
        return subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True,
                              text=True, check=True).stdout.strip().splitlines()[0]
    except (OSError, subprocess.CalledProcessError, IndexError):
        return "unknown"


def cuda_main():
    """--context cuda: per size, the lFCD call alone and with the upload on the CUDA context, the
    CPU context once on the same data (counts compared), and the Python loop on a sample of seeds.
    Returns the number of counts that differ from the CPU context's."""
    results = []
    for n in [int(v) for v in args.sizes.split(",") if v]:
        x, coords, dims = brain(n, args.t, seed=n)
        fc = Fastconn("cuda")
        try:
            s = fc.upload(x)
            try:
                fc.lfcd(s, coords, dims, args.threshold)  # warm-up: the first call's allocations
                call_s, counts = median_time(args.reps, lambda: fc.lfcd(s, coords, dims, args.threshold))
            finally:
                lib.fc_series_destroy(s)
            upload_s, _ = median_time(args.reps, lambda: fc.upload_and_lfcd(x, coords, dims, args.threshold))
        finally:
            fc.close()
        cpu_s, _, cpu_counts = timed_fastconn(x, coords, dims, args.threshold, backend="cpu", reps=1)
        differ = int((counts != cpu_counts).sum())
        rng = np.random.default_rng(n)
        sample = np.sort(rng.choice(n, size=min(n, args.sample_seeds), replace=False))
        ref, products = python_lfcd(x, coords, args.threshold, sample)
        sample_differ = int((counts[sample] != ref).sum())
        per_seed = products / len(sample)
        results.append((n, dims, float(counts.mean()), int(counts.max()), call_s, upload_s, cpu_s, differ, len(sample),
                        per_seed, sample_differ))
        print(f"N={n}: CUDA lFCD {call_s:.4f} s (upload + lFCD {upload_s:.4f} s), CPU context {cpu_s:.3f} s on "
              f"{args.threads} threads ({cpu_s / call_s:.1f}x), mean lFCD {counts.mean():.1f}, max {counts.max()}, "
              f"{differ} counts differ from the CPU context; {per_seed:.1f} products per seed over {len(sample)} "
              f"sampled seeds ({n * per_seed / call_s:.3g} products/s), {sample_differ} of them differ from Python",
              flush=True)
    write_out(
        "# lFCD on the GPU (issue 34: 1,000,000 voxels in <= 0.3 s)",
        f"Generated by `bench/lfcd_bench.py --context cuda` on {datetime.date.today()}; GPU: {gpu_name()}; "
        f"CPU: {cpu_model()} (lscpu model), {args.threads} threads for the CPU context. T = {args.t}, "
        f"r >= {args.threshold}, 26 neighbours, FP32 contexts. Data as bench/RESULTS-lfcd.md: a "
        "ball-shaped mask, spatially smoothed noise (Gaussian, 1.2 voxels).",
        f"CUDA lFCD: the fc_pcc_lfcd call alone, the series already on the device, median of {args.reps} "
        "after one warm-up call; with upload: fc_series_create_f32 from the raw (T, N) float32 array + the "
        "call. CPU context: upload + call, once. Products per seed: the Python region growing of "
        "bench/lfcd_bench.py on a random sample of seeds (an estimate from the sample; products/s = N x "
        "that / the CUDA call's time); its counts are compared on those seeds too.",
        markdown_table(["voxels", "grid:l", "mean lFCD", "max lFCD", "CUDA lFCD (s)", "CUDA upload + lFCD (s)",
                        "CPU context (s)", "CPU / CUDA", "products per seed (sample)", "products/s",
                        "counts that differ from the CPU context", "sampled seeds that differ from Python"],
                       [(n, f"{d[0]}x{d[1]}x{d[2]}", f"{mean:.1f}", top, f"{call:.4f}", f"{up:.4f}", f"{cpu:.3f}",
                         f"{cpu / call:.1f}x", f"{per:.1f} ({ns} seeds)", f"{n * per / call:.3g}", diff,
                         f"{sdiff} of {ns}")
                        for n, d, mean, top, call, up, cpu, diff, ns, per, sdiff in results]))
    for n, d, mean, top, call, up, cpu, diff, ns, per, sdiff in results:
        print(f"SUMMARY {n} voxels lFCD {call:.3f} s (upload + lFCD {up:.3f} s; CPU context {cpu:.2f} s on "
              f"{args.threads} threads); {diff} counts differ from the CPU context")
    return sum(r[7] for r in results)


def cpu_main():
    rows = []
    x, coords, dims = brain(args.python_voxels, args.t)
    a = time.perf_counter()
    ref, products = python_lfcd(x, coords, args.threshold)
    python_s = time.perf_counter() - a
    fc_s, fc_cpu, got = timed_fastconn(x, coords, dims, args.threshold)
    differ = int((got != ref).sum())
    rows.append((args.python_voxels, dims, products, float(ref.mean()), python_s, fc_s, fc_cpu, differ))
    print(f"N={args.python_voxels}: python {python_s:.2f} s, fastconn {fc_s:.4f} s ({python_s / fc_s:.0f}x), "
          f"{products} products, mean lFCD {ref.mean():.1f}, {differ} voxels differ", flush=True)

    large = []
    for n in [int(v) for v in args.sizes.split(",") if v]:
        x, coords, dims = brain(n, args.t, seed=n)
        fc_s, fc_cpu, got = timed_fastconn(x, coords, dims, args.threshold)
        large.append((n, dims, float(got.mean()), int(got.max()), fc_s, fc_cpu))
        print(f"N={n}: fastconn {fc_s:.3f} s ({fc_cpu:.3f} CPU s), mean lFCD {got.mean():.1f}, max {got.max()}", flush=True)

    write_out(
        "# lFCD: fastconn vs plain Python region growing (issue 34, item 2)",
        f"Generated by `bench/lfcd_bench.py` on {datetime.date.today()}; CPU: {cpu_model()} "
        f"(lscpu model), {args.threads} threads for fastconn (numpy's BLAS too; the Python loop is one "
        f"thread). T = {args.t}, r >= {args.threshold}, 26 neighbours, FP32 context. Data: a ball-shaped "
        "mask, spatially smoothed noise (Gaussian, 1.2 voxels), so clusters are local as in fMRI.",
        "fastconn's time includes the series upload (mean, norm) from the raw (T, N) float32 array; median "
        f"of {args.reps} runs, and beside it the CPU time (user + system, all threads) per run: on a shared "
        f"machine (load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores when written) the wall "
        "time also counts the time other processes held the cores. The Python peer is timed once (it is the "
        "slow side).",
        markdown_table(["voxels", "grid:l", "seed-candidate products", "mean lFCD", "plain Python (s)", "fastconn (s)",
                        "ratio", "fastconn CPU (s, all threads)", "voxels that differ"],
                       [(n, f"{d[0]}x{d[1]}x{d[2]}", prod, f"{mean:.1f}", f"{py:.2f}", f"{fc:.4f}", f"{py / fc:.0f}x",
                         f"{cpu:.4f}", diff) for n, d, prod, mean, py, fc, cpu, diff in rows]),
        "fastconn alone on larger masks (the Python loop would take hours):",
        markdown_table(["voxels", "grid:l", "mean lFCD", "max lFCD", "fastconn (s)", "fastconn CPU (s, all threads)"],
                       [(n, f"{d[0]}x{d[1]}x{d[2]}", f"{mean:.1f}", top, f"{fc:.3f}", f"{cpu:.3f}")
                        for n, d, mean, top, fc, cpu in large]),
        "The work is the seed-to-candidate products (each a dot product of T values) plus a hash or "
        "table lookup per neighbour, so the time grows with N x (mean cluster + its boundary), not N^2; a "
        "threshold low enough for clusters to span the mask makes it O(N^2 T) like any lFCD.\n"
        "The issue's GPU target (1,000,000 voxels in 0.3 s) is measured by `--context cuda` on the GPU "
        "machine (scripts/gpu-steps/lfcd.sh writes RESULTS-lfcd-gpu.md).")

if args.context == "cuda":
    sys.exit(1 if cuda_main() else 0)
cpu_main()
