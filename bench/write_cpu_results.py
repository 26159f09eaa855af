#!/usr/bin/python3
"""Writes bench/RESULTS.md from one run of bench/run_cpu_bench.sh: the key=value results of
bench_cpu_pcc (fastconn and its GEMM and memory floors) and of numpy_baseline.py, plus the
machine they ran on. Every number in the table comes from that one run."""
import argparse
import datetime
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from machine import cpu_model  # noqa: E402 (bench/machine.py)


def read_kv(path):
    out = {}
    with open(path) as f:
        for line in f:
            if "=" in line:
                k, v = line.rstrip("\n").split("=", 1)
                out[k] = v
    return out



def mem_total_gib():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) / 2**20
    return float("nan")


def git_revision(root):
    try:
        rev = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                             check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", root, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, check=True).stdout.strip()
        return rev + (" + uncommitted changes" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--fastconn", required=True, help="key=value results of bench_cpu_pcc")
    p.add_argument("--numpy", required=True, help="key=value results of numpy_baseline.py")
    p.add_argument("--load-before", required=True, help="/proc/loadavg before the run")
    p.add_argument("--load-after", required=True, help="/proc/loadavg after the run")
    p.add_argument("--forced", help="key=value floors of bench_cpu_pcc --floors-only under OPENBLAS_CORETYPE")
    p.add_argument("--forced-core", default="", help="the OPENBLAS_CORETYPE of --forced")
    p.add_argument("--floors", action="append", default=[], metavar="FILE=LABEL",
                   help="more key=value floors of the same run (another BLAS library), listed as LABEL")
    p.add_argument("--graph", help="bench_cpu_graph's markdown section of the same run")
    p.add_argument("--out", required=True)
    a = p.parse_args()
    f = read_kv(a.fastconn)
    np_ = read_kv(a.numpy)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

    n, t = int(f["n"]), int(f["t"])
    flops = n * (n - 1) * t  # N(N-1)/2 pairs, 2T flops each
    forced = read_kv(a.forced) if a.forced else {}
    extra = [(read_kv(x.split("=", 1)[0]), x.split("=", 1)[1]) for x in a.floors]
    # The fastest GEMM of the run: OpenBLAS as it detected the CPU, with its kernel forced, or any
    # other library's floors.
    sgemm = max(float(x["sgemm_reference_gflops"]) for x in [f, forced] + [e for e, _ in extra] if x)
    dgemm = max(float(x["dgemm_reference_gflops"]) for x in [f, forced] + [e for e, _ in extra] if x)
    numpy_s = float(np_["numpy_corrcoef_s"])
    end_to_end = float(f["series_create_f32_s"]) + float(f["pcc_f32_row_s"])

    def row(what, seconds, gflops=None, ref=None, vs_numpy=True):
        g = "%.1f" % gflops if gflops is not None else ""
        r = "%.0f %%" % (100 * gflops / ref) if gflops is not None and ref else ""
        x = "%.1fx" % (numpy_s / seconds) if vs_numpy else ""
        return "| %s | %.4f | %s | %s | %s |" % (what, seconds, g, r, x)

    def pcc(key):
        return float(f[key + "_s"]), float(f[key + "_gflops"])

    lines = []
    w = lines.append
    w("# CPU benchmark: all-pairs PCC, N = %d series x T = %d samples" % (n, t))
    w("")
    w("Written by `bench/run_cpu_bench.sh` (do not edit by hand; rerun it). Every number below comes")
    w("from one run on one machine: fastconn, the GEMM rate of the very BLAS it links, the memory floors")
    w("and `np.corrcoef` on the same data. Times are medians of %s rounds (`bench_cpu_pcc` runs one of" % f["reps"])
    w("each measurement per round, so load changes on a shared machine hit all of them alike) after a")
    w("warm-up; numpy: median of its runs (%s s)." % np_["numpy_corrcoef_runs"])
    w("")
    w("| | |")
    w("|---|---|")
    w("| date (UTC) | %s |" % datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M"))
    w("| machine | %s, %d logical CPUs (`nproc`), %.1f GiB RAM |" % (cpu_model(), os.cpu_count(), mem_total_gib()))
    w("| threads | %s (fastconn, BLAS floors and numpy alike) |" % f["threads"])
    w("| load average (1, 5, 15 min) | before %s; after %s |" % (" ".join(a.load_before.split()[:3]),
                                                               " ".join(a.load_after.split()[:3])))
    w("| fastconn | %s |" % git_revision(root))
    w("| CPU kernels (`fc_cpu_info`) | %s |" % f["cpu_kernels"])
    w("| BLAS (fastconn; GEMM floors) | %s |" % f["blas"])
    if forced:
        w("| BLAS forced | the same library with `OPENBLAS_CORETYPE=%s` (the CPU's ISA), floors measured again |"
          % a.forced_core)
    for floors, name in extra:
        w("| floors also of | %s: %s |" % (name, floors.get("blas", "?")))
    w("| numpy | %s on %s |" % (np_["numpy_version"], np_["numpy_blas"]))
    if "numpy_blas_core" in np_:
        w("| numpy's OpenBLAS core (`openblas_get_corename`) | %s |" % np_["numpy_blas_core"])
        w("| numpy's Python | %s |" % np_["numpy_python"])
    w("")
    w("GFLOP/s count the useful work of the triangle, N(N-1)·T flops (2T per pair), for every PCC row,")
    w("np.corrcoef included (it computes the full N x N float64 matrix, twice that work); GEMM rows")
    w("count 2·M·N·K. The PCC ratio is to the fastest SGEMM (DGEMM for FP64) measured in the run.")
    w("")
    w("| measured | median time [s] | GFLOP/s | of fastest GEMM | speed-up vs np.corrcoef |")
    w("|---|---:|---:|---:|---:|")
    s, g = pcc("pcc_f32_row")
    w(row("**fastconn `fc_pcc_triu` FP32, row order** (pre-touched output)", s, g, sgemm))
    s, g = pcc("pcc_f32_col")
    w(row("fastconn `fc_pcc_triu` FP32, column order", s, g, sgemm))
    w(row("fastconn `fc_series_create_f32` + `fc_pcc_triu` row order (end to end)", end_to_end, flops / end_to_end / 1e9,
          sgemm))
    s, g = pcc("pcc_f64_row")
    w(row("fastconn `fc_pcc_triu_f64`, FP64 mode (float64 products and output)", s, g, dgemm))
    s, g = pcc("pcc_f64_col")
    w(row("fastconn `fc_pcc_triu_f64`, FP64 mode, column order", s, g, dgemm))
    # The triangle's ways of writing its values (FASTCONN_CPU_TRIU_WRITE), same rounds.
    for mode, how in (("tile", "after each tile"), ("rows", "after each 8 rows"),
                      ("parts", "streamed as the products' blocks finish")):
        for key, label, ref in (("pcc_f64_row_" + mode, "`fc_pcc_triu_f64` FP64 row order", dgemm),
                                ("pcc_f32_row_" + mode, "`fc_pcc_triu` FP32 row order", sgemm)):
            if key + "_s" in f:
                s, g = pcc(key)
                w(row("fastconn %s, values written %s (`FASTCONN_CPU_TRIU_WRITE=%s`)" % (label, how, mode), s, g, ref))
    w(row("`np.corrcoef` (float64, full N x N matrix)", numpy_s, flops / numpy_s / 1e9))
    for key, label in (("sgemm_panel", "SGEMM %s, one call (BLAS's own threads)" % f["sgemm_panel_shape"]),
                       ("sgemm_square", "SGEMM %s, full square into pre-touched scratch" % f["sgemm_square_shape"]),
                       ("sgemm_tiles", "SGEMM %s as 256 x 512 tiles, one single-threaded call per thread"
                        % f["sgemm_panel_shape"]),
                       ("dgemm_panel", "DGEMM %s, one call (BLAS's own threads)" % f["sgemm_panel_shape"]),
                       ("dgemm_tiles", "DGEMM %s as 256 x 512 tiles, one per thread" % f["sgemm_panel_shape"])):
        ref = sgemm if key.startswith("s") else dgemm
        w(row(label + " [OpenBLAS as detected]", float(f[key + "_s"]), float(f[key + "_gflops"]), ref, vs_numpy=False))
        if forced:
            w(row(label + " [OPENBLAS_CORETYPE=%s]" % a.forced_core, float(forced[key + "_s"]),
                  float(forced[key + "_gflops"]), ref, vs_numpy=False))
        for floors, name in extra:
            w(row(label + " [%s]" % name, float(floors[key + "_s"]), float(floors[key + "_gflops"]), ref, vs_numpy=False))
    tri_gb = int(f["triangle_bytes"]) / 1e9
    w("| write floor: memset of the pre-touched %.2f GB FP32 triangle (%.1f GB/s) | %.4f | | | |"
      % (tri_gb, tri_gb / float(f["write_floor_s"]), float(f["write_floor_s"])))
    w("| first touch of the same buffer (page faults; once) (%.1f GB/s) | %.4f | | | |"
      % (tri_gb / float(f["first_touch_s"]), float(f["first_touch_s"])))
    w("")
    speedup = numpy_s / float(f["pcc_f32_row_s"])
    w("## Checks in the same run")
    w("")
    w("- FP32 row-order triangle vs FP64 mode, all %d pairs: max |r32 - r64| = %s (contract: <= 1e-5)."
      % (n * (n - 1) // 2, f["max_abs_f32_vs_f64"]))
    w("- FP32 triangle vs `np.corrcoef` on %s sampled pairs: max |difference| = %s (%s)."
      % (np_["numpy_check_pairs"], np_["numpy_check_max_abs"],
         "within 1e-5" if np_["numpy_check_ok"] == "yes" else "**beyond 1e-5**"))
    w("- FP32 reruns bit-identical over %s runs: %s." % (f["pcc_f32_runs_compared"], f["pcc_f32_bit_identical_reruns"]))
    frac = float(f["pcc_f32_row_gflops"]) / sgemm
    w("- Issue 2's bar: PCC at %.0f %% of the fastest SGEMM (needs >= 70 %%): %s; %.1fx faster than np.corrcoef: %s."
      % (100 * frac, "met" if frac >= 0.70 else "**not met**", speedup, "met" if speedup > 1 else "**not met**"))
    col = float(f["pcc_f32_col_gflops"]) / sgemm
    f64 = min(float(f["pcc_f64_row_gflops"]), float(f["pcc_f64_col_gflops"])) / dgemm
    ok = frac >= 0.85 and col >= 0.85 and f64 >= 0.85 and speedup >= 15
    w("- Issue 30's bar (own pair kernels, `%s`): FP32 row order %.0f %%, column order %.0f %% of the fastest SGEMM, "
      "FP64 (slower order) %.0f %% of the fastest DGEMM (each needs >= 85 %%); %.1fx np.corrcoef (needs >= 15x): %s."
      % (f["cpu_kernels"].split(" (")[0], 100 * frac, 100 * col, 100 * f64, speedup, "met" if ok else "**not met**"))
    w("")
    w("Data: %d seeded synthetic series (6 smooth latent signals mixed by 100 contiguous parcels, AR(1) noise," % n)
    w("BOLD-like baselines), the same bytes for fastconn and numpy. Reproduce: `bash bench/run_cpu_bench.sh`.")
    # Sections other benchmarks append (e.g. "## Networks ..." from bench_cpu_graph) are kept:
    # this script owns only the PCC part, which ends where the next such section starts.
    kept = ""
    if a.graph:
        with open(a.graph) as g:
            kept = "\n" + g.read()
    elif os.path.exists(a.out):
        with open(a.out) as f:
            old = f.read()
        start = old.find("\n## Networks")
        if start >= 0:
            kept = old[start:]
    with open(a.out, "w") as out:
        out.write("\n".join(lines) + "\n" + kept)


if __name__ == "__main__":
    main()
