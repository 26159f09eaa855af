#!/usr/bin/env python3
"""Fast ECM benchmark (issue 34): runs bench_cpu_ecm (fastconn and its floor) and, in the same
run on the same data, what a numpy user would write instead, then writes bench/RESULTS-ecm.md.

  /usr/bin/python3 bench/ecm_baseline.py --bench build/bench/bench_cpu_ecm [--n 20000] [--t 165]
      [--dense-n 4000] [--threads 2] [--reps 5] [--out bench/RESULTS-ecm.md]

Peers: (a) the plain dense recipe, np.corrcoef then np.linalg.eigh of (R + 1) / 2, on the first
--dense-n series (the N x N float64 matrix must fit; fastconn is timed on the same subset);
(b) the matrix-free recipe with scipy: eigsh (ARPACK Lanczos) of a LinearOperator doing
(Z (Z^T x) + sum(x)) / 2 in float64 on all N series, tol 1e-10.
"""
import argparse
import os
import subprocess
import tempfile
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from machine import cpu_model, median_time, openblas_core  # noqa: E402 (bench/machine.py)

import numpy as np
import scipy
import scipy.sparse.linalg as sla


def run_bench(bench, n, t, threads, reps, data_out=None):
    cmd = [bench, "--n", str(n), "--t", str(t), "--threads", str(threads), "--reps", str(reps)]
    if data_out:
        cmd += ["--data-out", data_out]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return {k: v for k, v in (line.split("=", 1) for line in out.split() if "=" in line)}


def normalized(x):
    z = x - x.mean(axis=1, keepdims=True)
    norm = np.sqrt((z * z).sum(axis=1, keepdims=True))
    return z / np.where(norm == 0, 1, norm)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", required=True)
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--t", type=int, default=165)
    ap.add_argument("--dense-n", type=int, default=4000)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "RESULTS-ecm.md"))
    a = ap.parse_args()
    load_before = open("/proc/loadavg").read().split()[:3]

    with tempfile.TemporaryDirectory() as tmp:
        data_path = os.path.join(tmp, "data.f32")
        big = run_bench(a.bench, a.n, a.t, a.threads, a.reps, data_path)
        x = np.fromfile(data_path, dtype=np.float32).reshape(a.n, a.t).astype(np.float64)
        ours = np.fromfile(data_path + ".ecm", dtype=np.float64)
        small_path = os.path.join(tmp, "small.f32")
        small = run_bench(a.bench, a.dense_n, a.t, a.threads, a.reps, small_path)
        small_x = np.fromfile(small_path, dtype=np.float32).reshape(a.dense_n, a.t).astype(np.float64)
        ours_small = np.fromfile(small_path + ".ecm", dtype=np.float64)

    # (a) dense: corrcoef + eigh of (R + 1) / 2 on the smaller set (its own seeded data, which
    # fastconn was timed on above).

    def dense():
        r = np.corrcoef(small_x)
        w, v = np.linalg.eigh((r + 1) / 2)
        e = v[:, -1]
        return np.abs(e) if e.sum() >= 0 else np.abs(-e)
    dense_s, dense_v = median_time(max(1, min(3, a.reps)), dense)
    dense_diff = np.max(np.abs(dense_v - ours_small)) / np.max(np.abs(dense_v))

    # (b) matrix-free with scipy's ARPACK on all N.
    z = normalized(x)
    op = sla.LinearOperator((a.n, a.n), matvec=lambda v: (z @ (z.T @ v.ravel()) + v.sum()) / 2, dtype=np.float64)

    def eigsh():
        w, v = sla.eigsh(op, k=1, which="LA", tol=1e-10, v0=np.ones(a.n))
        e = v[:, 0]
        return e if e.sum() >= 0 else -e
    eigsh_s, eigsh_v = median_time(a.reps, eigsh)
    eigsh_diff = np.max(np.abs(eigsh_v - ours)) / np.max(np.abs(eigsh_v))

    load_after = open("/proc/loadavg").read().split()[:3]
    f32 = float(big["fp32_ecm_s"]); f64 = float(big["fp64_ecm_s"])
    rows = [
        ("fastconn fc_pcc_ecm FP32", f"{a.n} x {a.t}", f32, f"{big['fp32_products']} products"),
        ("floor: read Z (float) twice per product", f"{a.n} x {a.t}", float(big["fp32_floor_s"]),
         f"{big['read_gbps']} GB/s measured"),
        ("fastconn fc_pcc_ecm FP64", f"{a.n} x {a.t}", f64, f"{big['fp64_products']} products"),
        ("floor: read Z (double) twice per product", f"{a.n} x {a.t}", float(big["fp64_floor_s"]), ""),
        ("scipy eigsh, LinearOperator Z (Z^T x) float64", f"{a.n} x {a.t}", eigsh_s,
         f"max rel diff to fastconn FP32 {eigsh_diff:.1e}"),
        ("fastconn fc_pcc_ecm FP32", f"{a.dense_n} x {a.t}", float(small["fp32_ecm_s"]), f"{small['fp32_products']} products"),
        ("numpy corrcoef + eigh((R + 1) / 2)", f"{a.dense_n} x {a.t}", dense_s,
         f"max rel diff to fastconn FP32 {dense_diff:.1e}"),
    ]
    lines = [
        "# Fast ECM on the CPU (issue 34)",
        "",
        "Written by `bench/ecm_baseline.py` (which runs `bench_cpu_ecm`): medians of "
        f"{a.reps} runs after a warm-up, {a.threads} threads (OMP_NUM_THREADS / OPENBLAS_NUM_THREADS), "
        "synthetic fMRI-like series (bench_common.hpp), default tolerance 1e-10.",
        "",
        f"CPU: {cpu_model()}, OpenBLAS core {openblas_core()}; numpy {np.__version__}, scipy {scipy.__version__}; "
        f"load average before {' '.join(load_before)}, after {' '.join(load_after)}.",
        "",
        "| what | size | seconds | note |",
        "| --- | --- | ---: | --- |",
    ] + [f"| {w} | {s} | {sec:.4f} | {note} |" for w, s, sec, note in rows] + [
        "",
        f"Ratios: fastconn FP32 / its floor = {f32 / float(big['fp32_floor_s']):.2f}; "
        f"FP64 / its floor = {f64 / float(big['fp64_floor_s']):.2f}; "
        f"scipy eigsh / fastconn FP32 = {eigsh_s / f32:.1f}x; "
        f"numpy dense ({a.dense_n}) / fastconn FP32 ({a.dense_n}) = {dense_s / float(small['fp32_ecm_s']):.0f}x.",
        "",
    ]
    text = "\n".join(lines)
    print(text)
    with open(a.out, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
