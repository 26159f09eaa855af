#!/usr/bin/env python3
"""Multilayer modularity (issue 31): fastconn.multilayer_modularity against leidenalg's temporal
multiplex (leidenalg.find_partition_temporal) on the same windows' networks, in the same run.

The series: 400 synthetic regions in 10 modules whose membership drifts over time (each region
follows its module's slow signal plus AR(1) noise; every 200 samples a seeded tenth of the regions
switches module), T = 40 + 99 x 10 = 1030 samples: 100 windows of 40 samples every 10. Each
window's network: fastconn.dfc_networks(density=0.1, weights="abs"), 7,980 edges per window. Both
methods get those graphs (leidenalg through igraph, weights as float64 of the float32 weights)
with ordinal coupling omega. Q of both is Mucha et al.'s formula computed here with numpy from
their labels (tests/python/multilayer_vs_leidenalg.py's mucha_q); times are wall seconds of the
call alone (graphs built before), the median of --reps runs for fastconn, one run per seed for
leidenalg (its best Q of the seeds is reported, with the mean time per seed). leidenalg runs on
one core (it is not parallel); fastconn on --threads. --algorithm picks fastconn's algorithm
(fc_multilayer_modularity_v2): queue (the default, fc_multilayer_modularity's result),
synchronous (rounds of simultaneous moves), or both (one table row each, against the same
leidenalg runs).
Usage: multilayer_bench.py [--regions 400] [--windows 100] [--omega 1.0] [--threads 2] [--seeds 3]
       [--algorithm queue|synchronous|both] [--max-iterations 0 [2 ...]]
"""
import argparse
import os
import sys
import time

import igraph as ig
import leidenalg as la
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "python"))
import fastconn  # noqa: E402
from machine import cpu_model, median_time  # noqa: E402
from multilayer_vs_leidenalg import mucha_q  # noqa: E402


def drifting_series(regions, n_time, modules=10, seed=31):
    """(n_time, regions) float64: module signals (smoothed noise) plus AR(1) noise; a tenth of the
    regions changes module every 200 samples."""
    rng = np.random.default_rng(seed)
    kernel = np.exp(-0.5 * (np.arange(-15, 16) / 5.0) ** 2)
    signals = np.stack([np.convolve(rng.standard_normal(n_time + 30), kernel, "valid")[:n_time]
                        for _ in range(modules)], axis=1)
    signals /= signals.std(0)
    member = rng.integers(0, modules, regions)
    noise = rng.standard_normal((n_time, regions))
    for t in range(1, n_time):
        noise[t] += 0.5 * noise[t - 1]
    x = np.empty((n_time, regions))
    for t0 in range(0, n_time, 200):
        movers = rng.choice(regions, regions // 10, replace=False)
        member[movers] = rng.integers(0, modules, movers.size)
        x[t0:t0 + 200] = signals[t0:t0 + 200, member] + 0.8 * noise[t0:t0 + 200]
    return x


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--regions", type=int, default=400)
    ap.add_argument("--windows", type=int, default=100)
    ap.add_argument("--omega", type=float, default=1.0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--algorithm", choices=["queue", "synchronous", "both"], default="queue",
                    help="fastconn's multilayer algorithm (default queue: fc_multilayer_modularity's result)")
    ap.add_argument("--max-iterations", type=int, nargs="+", default=[0],
                    help="fastconn's passes at most, one run per value (default 0: until a pass moves no node)")
    a = ap.parse_args()
    algorithms = [(alg, it) for alg in (["queue", "synchronous"] if a.algorithm == "both" else [a.algorithm])
                  for it in a.max_iterations]
    width, step = 40, 10
    x = drifting_series(a.regions, width + (a.windows - 1) * step)
    nets = fastconn.dfc_networks(x, width, step=step, density=0.1, weights="abs", rowvar=False)
    mats = [g.tocsr().toarray().astype(np.float64) for g in nets]
    n, L = a.regions, len(nets)
    edges = sum(g.n_edges for g in nets)
    print(f"CPU: {cpu_model()}; fastconn {fastconn.__version__}, {a.threads} threads; python-igraph {ig.__version__}")
    print(f"{n} regions x {L} windows ({width} samples every {step}), {edges} edges in all, omega {a.omega}")

    ours = {}  # (algorithm, max_iterations): (median seconds, Q from the labels)
    for algorithm, iterations in algorithms:
        with fastconn.Context("cpu", threads=a.threads) as ctx:
            t_fc, ml = median_time(a.reps, lambda: ctx.multilayer_modularity(nets, omega=a.omega, algorithm=algorithm,
                                                                              max_iterations=iterations))
        q_fc = mucha_q(mats, ml.labels, a.omega)
        ours[(algorithm, iterations)] = (t_fc, q_fc)
        name = ("fastconn" if algorithm == "queue" else f"fastconn {algorithm}") + (
            f", {iterations} passes" if iterations else "")
        print(f"{name}: median {t_fc:.4f} s of {a.reps}, Q {ml.q:.6f} (numpy {q_fc:.6f}), K {ml.n_communities}, "
              f"mean flexibility {ml.flexibility.mean():.4f}")

    graphs = []
    for m in mats:
        g = ig.Graph.Weighted_Adjacency(m.tolist(), mode="undirected")
        g.vs["id"] = list(range(n))
        graphs.append(g)
    best, times = -np.inf, []
    for seed in range(a.seeds):
        t0 = time.perf_counter()
        membership, _ = la.find_partition_temporal(graphs, la.ModularityVertexPartition, interslice_weight=a.omega,
                                                   weights="weight", seed=seed, n_iterations=-1)
        times.append(time.perf_counter() - t0)
        labels = np.array(membership).reshape(L, n)
        q = mucha_q(mats, labels, a.omega)
        print(f"leidenalg seed {seed}: {times[-1]:.3f} s, Q {q:.6f}, K {np.unique(labels).size}")
        best = max(best, q)
    t_la = float(np.mean(times))
    print(f"leidenalg: mean {t_la:.3f} s per seed, best Q {best:.6f}")
    for (algorithm, iterations), (t_fc, q_fc) in ours.items():
        # the default run's row as before; the synchronous algorithm's and a pass limit's rows name them
        label = (f"{n} x {L}, omega {a.omega}" + ("" if algorithm == "queue" else f", {algorithm}") +
                 (f", {iterations} passes" if iterations else ""))
        print(f"| {label} | {t_fc:.4f} | {q_fc:.6f} | {t_la:.3f} | {best:.6f} | "
              f"{t_la / t_fc:.1f} x | {q_fc / best:.4f} |")
    os.system("uptime")


if __name__ == "__main__":
    main()
