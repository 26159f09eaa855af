#!/usr/bin/env python3
"""Small calls on a busy machine (issue 29, item 10): bench_small_calls (the bundled 31 x 250
series: triangle, dense, dfc_triu over 45 windows, graph, degree) with a background CPU load
beside the same calls on one thread without the load, for one or two builds of libfastconn, run
interleaved so that both see the same machine.

  /usr/bin/python3 bench/small_calls.py --bench build/bench/bench_small_calls \
      [--lib before=DIR] [--lib after=DIR] [--rounds 3] [--reps 150] [--load-procs P] [--out FILE]

Each --lib NAME=DIR runs the benchmark with LD_LIBRARY_PATH=DIR (the benchmark prints the
libfastconn it loaded, checked here); without --lib, the library the benchmark was linked with.
NAME=DIR@VAR=VALUE[,VAR=VALUE] also sets those variables for that library's runs (for instance
OMP_WAIT_POLICY=passive, the process-wide remedy the library does not impose). Every run's
outputs must have the same checksum (bench_small_calls hashes them): the same bits everywhere.
Steps: (1) no load, one thread (fc_context_set_threads 1) and the default team, each library;
(2) P busy-loop processes (default: one per core), then `rounds` rounds of every library with
the default team and with one thread. The ratio is the loaded default-team median over the
unloaded one-thread median of the same library (target: at most 2). The process's OpenMP
environment is left as the user's (OMP_WAIT_POLICY, GOMP_SPINCOUNT, OMP_NUM_THREADS are reported).
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from machine import cpu_model  # noqa: E402 (bench/machine.py)

CASES = ["triu", "dense", "dfc_triu", "graph", "degree"]
CHECKSUMS = set()  # of every run's outputs



def run(bench, lib, threads, reps, csv):
    env = dict(os.environ)
    lib, _, extra = lib.partition("@")  # DIR@VAR=VALUE,VAR=VALUE: environment of this library's runs only
    for kv in filter(None, extra.split(",")):
        k, v = kv.split("=", 1)
        env[k] = v
    if lib:
        env["LD_LIBRARY_PATH"] = lib + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    out = subprocess.run([bench, "--threads", str(threads), "--reps", str(reps), "--csv", csv], env=env,
                         check=True, capture_output=True, text=True).stdout
    info, cases = {}, {}
    for line in out.splitlines():
        parts = line.split()
        if parts[0] == "case":
            cases[parts[1]] = {parts[k]: float(parts[k + 1]) for k in range(2, len(parts), 2)}
        else:
            info[parts[0]] = " ".join(parts[1:])
    CHECKSUMS.add(info["checksum"])
    if lib and os.path.dirname(os.path.realpath(info["library"])) != os.path.realpath(lib):
        sys.exit("small_calls.py: %s loaded %s, not the library in %s" % (bench, info["library"], lib))
    return info, cases


def start_load(procs):
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(procs)]


def stop_load(load):
    for p in load:
        p.terminate()
    for p in load:
        p.wait()


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bench", required=True)
    ap.add_argument("--lib", action="append", default=[], help="NAME=DIR (repeatable)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--reps", type=int, default=150)
    ap.add_argument("--load-procs", type=int, default=os.cpu_count())
    ap.add_argument("--csv", default=os.path.join(os.path.dirname(here), "examples", "data", "fmri_timeseries.csv"))
    ap.add_argument("--out", default=None, help="append the markdown table to FILE")
    a = ap.parse_args()
    libs = [tuple(x.split("=", 1)) for x in a.lib] or [("linked", "")]

    info = {}
    idle1, idle0 = {}, {}
    load1, load0 = {name: [] for name, _ in libs}, {name: [] for name, _ in libs}
    load_before = os.getloadavg()
    for name, lib in libs:  # (1) without our load
        info[name], idle1[name] = run(a.bench, lib, 1, a.reps, a.csv)
        _, idle0[name] = run(a.bench, lib, 0, a.reps, a.csv)
    load = start_load(a.load_procs)
    try:
        time.sleep(1.0)
        for _ in range(a.rounds):  # (2) with it, interleaved
            for name, lib in libs:
                load0[name].append(run(a.bench, lib, 0, a.reps, a.csv)[1])
                load1[name].append(run(a.bench, lib, 1, a.reps, a.csv)[1])
        load_during = os.getloadavg()
    finally:
        stop_load(load)

    if len(CHECKSUMS) != 1:
        sys.exit("small_calls.py: the outputs differ between runs: checksums %s" % sorted(CHECKSUMS))

    def med(rounds, case, key="median_ms"):
        return statistics.median(r[case][key] for r in rounds)

    first = info[libs[0][0]]
    env = {k: os.environ.get(k, "unset") for k in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS")}
    lines = [
        "CPU: %s, %d logical cores; OpenBLAS core: %s; OpenMP default team: %s threads" %
        (cpu_model(), os.cpu_count(), first["openblas_core"], first["omp_max_threads"]),
        "Environment: " + ", ".join("%s=%s" % kv for kv in env.items()),
        "Load average before: %.2f; during the loaded runs (with %d busy-loop processes): %.2f" %
        (load_before[0], a.load_procs, load_during[0]),
        "Outputs: checksum %s in every library and thread count" % first["checksum"],
        "Data: %s series x %s samples, dfc_triu over %s windows; %d calls per measurement (median of %d loaded rounds)" %
        (first["data"].split()[0], first["data"].split()[2], first["windows"], a.reps, a.rounds),
        "",
    ]
    head = "| case | library | 1 thread, no load (ms) | default team, no load (ms) | 1 thread, loaded (ms) | " \
           "default team, loaded: median / mean (ms) | ratio loaded / 1-thread unloaded (median, mean) |"
    lines += [head, "|" + " --- |" * 7]
    for case in CASES:
        for name, _ in libs:
            base = idle1[name][case]["median_ms"]
            m, mean = med(load0[name], case), med(load0[name], case, "mean_ms")
            lines.append("| %s | %s | %.3f | %.3f | %.3f | %.3f / %.3f | %.1fx, %.1fx |" %
                         (case, name, base, idle0[name][case]["median_ms"], med(load1[name], case), m, mean, m / base,
                          mean / base))
    text = "\n".join(lines)
    print(text)
    if a.out:
        with open(a.out, "a") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
