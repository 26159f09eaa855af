#!/usr/bin/python3
"""Overhead of the `fastconn` command line over the library call it makes (issue 13).

Times `fastconn degree` on a synthetic whole-brain scan (default: 230,000 voxels at 2 mm,
T = 200, a brain-shaped mask) and compares the program's wall time with the time of the library
work alone, from the JSON sidecar the program writes:

  library  = context + series + compute   (fc_context_create with the options, fc_series_create_*
             and fc_pcc_degree: what a program that already holds the masked T x N matrix spends)
  CLI      = the whole process, as this script measures it (reading and checking the NIfTI
             files, the mask, gathering the voxels, writing the map and the sidecar, starting
             and ending the process, included)

and prints CLI / library (target on the GPU machine: at most 1.10, i.e. file I/O and mask
handling add at most 10 %), with CLI / fc_pcc_degree alone beside it.

The ratio above also charges the CLI for starting and ending a process (loading the library and,
on CUDA, libcudart and libcublas; the CUDA teardown), which a program of the library's user pays
too. So the same run also times a second baseline, bench/cli/library_process.c (built with the
benchmarks, linking only the public C API like the CLI): a process that maps the same masked
data, already as a raw float32 T x N matrix (time-major, the layout the CLI's gather hands to
fc_series_create_f32; written here once, outside the timing), and makes the CLI's calls with its
settings (fc_context_create with the same backend, threads, FP32, constant series as r = 0,
fc_pcc_degree with |r| >= R, binary degrees only), then destroys everything and exits, writing
nothing. Its whole process is timed like the CLI's (the runs alternate, CLI then baseline, so
both see the same machine load; its first run, the warm-up, also writes its degrees, which must
equal the CLI's map at the mask's voxels), and the script prints

  CLI / library in its own process = wall(CLI) / wall(baseline)   (target <= 1.10)

fastconn creates the context on a thread of its own while it reads, masks and gathers the scan.
The sidecar's "context" is still the create's own duration (so the library's sum above is what
it would be without the overlap), "context_wait" is the part of it the main thread waited for,
and "timing_overlap" names the steps it overlapped: the table shows both. The steps' sum thus
exceeds the wall time by what overlapped.

Needs only the build tree and /usr/bin/python3 with numpy. The scan is written with nibabel when
it is installed, otherwise as a plain NIfTI-1 file written here (a benchmark data generator, not
part of fastconn). Examples:

  /usr/bin/python3 bench/cli/bench_cli.py --build-dir build                  # whole brain
  /usr/bin/python3 bench/cli/bench_cli.py --build-dir build-cli --voxels 20000 --time 200
"""
import argparse
import json
import os
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time

import numpy as np

MNI_2MM = (91, 109, 91)  # the MNI152 2 mm grid: about 230,000 voxels inside the brain


def brain_mask(n_voxels, rng):
    """Exactly n_voxels voxels inside a brain-like shape (an ellipsoid, flatter at the base, with
    a gently bumpy surface) on a grid scaled from the MNI 2 mm grid to hold it."""
    scale = (n_voxels / 230_000) ** (1 / 3)
    dims = tuple(max(8, int(round(d * scale))) for d in MNI_2MM)
    x, y, z = np.meshgrid(*[np.linspace(-1, 1, d) for d in dims], indexing="ij")
    zz = np.where(z < 0, z * 1.35, z)  # flatter underside
    radius = np.sqrt((x / 0.80) ** 2 + (y / 0.85) ** 2 + ((zz + 0.05) / 0.78) ** 2)
    radius += 0.03 * np.sin(7 * x + 1) * np.sin(5 * y) * np.cos(6 * z)  # gyri, roughly
    order = np.argsort(radius.ravel(order="F"), kind="stable")
    if n_voxels > order.size:
        sys.exit(f"bench_cli: {n_voxels} voxels do not fit in the {dims} grid")
    mask = np.zeros(order.size, np.uint8)
    mask[order[:n_voxels]] = 1
    return dims, mask.reshape(dims, order="F")


def smooth(a, width, axis):
    """Moving average along `axis` (a cheap low-pass)."""
    kernel = np.ones(width) / width
    return np.apply_along_axis(lambda v: np.convolve(v, kernel, mode="same"), axis, a)


def synthetic_scan(dims, mask, n_time, rng, dtype):
    """(x, y, z, t) data: a few smooth latent components (spatial blobs x low-pass time courses)
    plus noise inside the mask, zero outside; int16 like scanner output, or float32."""
    k = 6
    idx = np.flatnonzero(mask.ravel(order="F"))
    coords = np.stack(np.unravel_index(idx, dims, order="F"), axis=1).astype(np.float64)
    centers = coords[rng.choice(len(idx), size=(k, 3))]  # three blobs per component
    width = max(dims) / 6.0
    courses = smooth(rng.standard_normal((n_time, k)).cumsum(0), 5, 0)
    courses = (courses - courses.mean(0)) / courses.std(0)
    out = np.zeros((n_time,) + dims[::-1], dtype)  # (t, z, y, x), C order = NIfTI's x-fastest order
    flat_out = out.reshape(n_time, -1)
    for start in range(0, len(idx), 50_000):  # bounded memory at whole-brain size
        c = coords[start:start + 50_000]
        maps = np.zeros((len(c), k))
        for j in range(k):
            for b in range(3):
                d2 = ((c - centers[j, b]) ** 2).sum(1)
                maps[:, j] += np.exp(-d2 / (2 * width**2))
        signal = 1000.0 + 30.0 * maps @ courses.T + 10.0 * rng.standard_normal((len(c), n_time))
        flat_out[:, idx[start:start + 50_000]] = (np.rint(signal) if dtype == np.int16 else signal).T.astype(dtype)
    return out


def write_nifti(path, data_tzyx, zooms, dtype_code, bitpix):
    """A NIfTI file: through nibabel when present, else a minimal single-file NIfTI-1 (348-byte
    header, 4 bytes of extension flag, the voxels in x-fastest order)."""
    shape = data_tzyx.shape[::-1]
    affine = np.diag(list(zooms[:3]) + [1.0])
    affine[:3, 3] = [-(s - 1) * z / 2 for s, z in zip(shape[:3], zooms[:3])]
    try:
        import nibabel as nib
        img = nib.Nifti1Image(data_tzyx.T, affine)  # .T: (x, y, z, t), Fortran-contiguous view
        img.header.set_zooms(zooms[:len(shape)])
        img.header.set_xyzt_units("mm", "sec")
        img.to_filename(path)
        return "nibabel"
    except ImportError:
        pass
    if str(path).endswith(".gz"):
        sys.exit("bench_cli: writing .nii.gz needs nibabel; use --format nii")
    dim = [len(shape)] + list(shape) + [1] * (7 - len(shape))
    pixdim = [1.0] + list(zooms[:len(shape)]) + [0.0] * (7 - len(shape))
    hdr = bytearray(348)
    struct.pack_into("<i", hdr, 0, 348)
    struct.pack_into("<8h", hdr, 40, *dim)
    struct.pack_into("<hh", hdr, 70, dtype_code, bitpix)
    struct.pack_into("<8f", hdr, 76, *pixdim)
    struct.pack_into("<f", hdr, 108, 352.0)  # vox_offset
    struct.pack_into("<ff", hdr, 112, 1.0, 0.0)  # scl_slope, scl_inter
    struct.pack_into("<B", hdr, 123, 2 | 8)  # xyzt_units: mm, s
    struct.pack_into("<hh", hdr, 252, 0, 1)  # qform_code 0, sform_code 1 (scanner)
    for row in range(3):
        struct.pack_into("<4f", hdr, 280 + 16 * row, *affine[row])
    hdr[344:348] = b"n+1\0"
    with open(path, "wb") as f:
        f.write(hdr)
        f.write(b"\0\0\0\0")
        f.write(np.ascontiguousarray(data_tzyx).astype("<" + data_tzyx.dtype.str[1:], copy=False).tobytes())
    return "numpy (nibabel not installed)"


def read_nifti_volume(path):
    """The first volume of a NIfTI-1 or -2 file (.nii or .nii.gz) as a flat float64 array in the
    file's (x-fastest) order, scaled by scl_slope/scl_inter when set; no nibabel needed."""
    import gzip
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rb") as f:
        raw = f.read()
    if struct.unpack_from("<i", raw, 0)[0] == 348:
        dim = struct.unpack_from("<8h", raw, 40)
        code = struct.unpack_from("<h", raw, 70)[0]
        offset = int(struct.unpack_from("<f", raw, 108)[0])
        slope, inter = struct.unpack_from("<ff", raw, 112)
    elif struct.unpack_from("<i", raw, 0)[0] == 540:
        code = struct.unpack_from("<h", raw, 12)[0]
        dim = struct.unpack_from("<8q", raw, 16)
        offset = struct.unpack_from("<q", raw, 168)[0]
        slope, inter = struct.unpack_from("<dd", raw, 176)
    else:
        sys.exit(f"bench_cli: {path} is not a little-endian NIfTI-1 or NIfTI-2 file")
    types = {2: "u1", 4: "<i2", 8: "<i4", 16: "<f4", 64: "<f8", 256: "i1", 512: "<u2", 768: "<u4"}
    if code not in types:
        sys.exit(f"bench_cli: {path}: datatype {code} not read here")
    n = int(np.prod(dim[1:4]))
    values = np.frombuffer(raw, types[code], count=n, offset=offset).astype(np.float64)
    if slope and np.isfinite(slope) and (slope != 1.0 or inter != 0.0):
        values = values * slope + inter
    return values


def check_degrees(map_path, voxels, degrees_path):
    """'yes' when the baseline's degrees equal the CLI's degree map at the mask's voxels, else
    how many differ."""
    cli = read_nifti_volume(map_path)[voxels]
    base = np.fromfile(degrees_path, "<i8")
    if base.size != cli.size:
        return f"no ({base.size} degrees for {cli.size} voxels)"
    differ = int(np.count_nonzero(cli != base))
    return f"yes (mean degree {base.mean():.1f})" if differ == 0 else f"no ({differ} voxels differ, largest difference {np.abs(cli - base).max():g})"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build-dir", default="build", help="CMake build tree holding tools/cli/fastconn (default build)")
    ap.add_argument("--voxels", type=int, default=230_000, help="voxels in the mask (default 230000: whole brain, 2 mm)")
    ap.add_argument("--time", type=int, default=200, help="time points (default 200)")
    ap.add_argument("--threshold", default="0.5", help="edge rule |r| >= R of the degree map (default 0.5)")
    ap.add_argument("--backend", default="auto", choices=["auto", "cpu", "cuda"])
    ap.add_argument("--threads", default="0", help="CPU threads (default 0: all cores)")
    ap.add_argument("--repeat", type=int, default=3, help="timed runs after one warm-up run (default 3; medians)")
    ap.add_argument("--format", default="nii", choices=["nii", "nii.gz"],
                    help="scan file: nii (default; as scanners and most pipelines keep 4D data for speed) or nii.gz")
    ap.add_argument("--dtype", default="int16", choices=["int16", "float32"], help="voxel type of the scan (default int16)")
    ap.add_argument("--workdir", help="where to put the scan (default: a temporary directory, deleted after)")
    ap.add_argument("--seed", type=int, default=13, help="random seed of the synthetic data")
    args = ap.parse_args()

    cli = os.path.join(args.build_dir, "tools", "cli", "fastconn")
    if not os.access(cli, os.X_OK):
        sys.exit(f"bench_cli: {cli} not found: build the CLI (cmake --build {args.build_dir} --target fastconn_cli)")
    baseline = os.path.join(args.build_dir, "bench", "cli", "library_process")
    if not os.access(baseline, os.X_OK):
        sys.exit(f"bench_cli: {baseline} not found: build the benchmarks (FASTCONN_BUILD_BENCH=ON; "
                 f"cmake --build {args.build_dir} --target bench_cli_library_process)")
    work = args.workdir or tempfile.mkdtemp(prefix="fastconn-bench-cli-")
    os.makedirs(work, exist_ok=True)
    try:
        rng = np.random.default_rng(args.seed)
        t0 = time.perf_counter()
        dims, mask = brain_mask(args.voxels, rng)
        dtype = np.int16 if args.dtype == "int16" else np.float32
        data = synthetic_scan(dims, mask, args.time, rng, dtype)
        scan = os.path.join(work, f"scan.{args.format}")
        mask_path = os.path.join(work, "mask.nii")
        code, bitpix = (4, 16) if dtype == np.int16 else (16, 32)
        writer = write_nifti(scan, data, (2.0, 2.0, 2.0, 2.0), code, bitpix)
        write_nifti(mask_path, mask.T, (2.0, 2.0, 2.0), 2, 8)
        # The baseline's input: the masked voxels (x-fastest order, as the CLI takes them) as the
        # float32 T x N matrix the CLI's gather produces (value (t, s) at t * N + s).
        voxels = np.flatnonzero(mask.ravel(order="F"))
        matrix_path = os.path.join(work, "series_f32_TxN.raw")
        data.reshape(args.time, -1)[:, voxels].astype("<f4").tofile(matrix_path)
        del data
        print(f"data: {dims[0]}x{dims[1]}x{dims[2]} grid, {args.voxels} voxels in the mask, T = {args.time}, "
              f"{args.dtype} .{args.format} ({os.path.getsize(scan) / 2**20:.0f} MiB), written with {writer} "
              f"in {time.perf_counter() - t0:.1f} s")

        out = os.path.join(work, "degree.nii.gz")
        cmd = [cli, "degree", scan, "--mask", mask_path, "--threshold", args.threshold, "-o", out, "-q", "--force",
               "--backend", args.backend, "--threads", args.threads]
        base_cmd = [baseline, matrix_path, str(args.voxels), str(args.time), args.threshold, args.backend,
                    args.threads, "--times"]
        check_path = os.path.join(work, "baseline_degree.i64")
        print("command:", " ".join(cmd))
        print("baseline:", " ".join(base_cmd))
        runs, base_runs = [], []
        for k in range(args.repeat + 1):  # run 0 warms the page cache and the device
            t = time.perf_counter()
            p = subprocess.run(cmd, capture_output=True, text=True)
            wall = time.perf_counter() - t
            if p.returncode != 0:
                sys.exit(f"bench_cli: fastconn failed ({p.returncode}): {p.stderr.strip()}")
            with open(os.path.join(work, "degree.json")) as f:
                meta = json.load(f)
            if k > 0:
                runs.append(dict(meta["timing_s"], wall=wall))
            # The baseline right after (same machine load); its warm-up run also writes its degrees.
            extra = ["--check", check_path] if k == 0 else []
            t = time.perf_counter()
            p = subprocess.run(base_cmd + extra, capture_output=True, text=True)
            wall = time.perf_counter() - t
            if p.returncode != 0:
                sys.exit(f"bench_cli: library_process failed ({p.returncode}): {p.stderr.strip()}")
            if k > 0:
                base_runs.append(dict(json.loads(p.stdout.strip().splitlines()[-1]), wall=wall))
        same = check_degrees(out, voxels, check_path)
        backend = meta["backend"]
        med = {key: statistics.median(r[key] for r in runs) for key in runs[0]}
        library = med["context"] + med["series"] + med["compute"]
        overlap = meta.get("timing_overlap", {}).get("context", [])
        print(f"\nbackend {backend}, {meta['n_voxels']} voxels x {meta['n_time']} time points, "
              f"median of {args.repeat} runs (seconds):")
        labels = {
            "read": "read (scan + mask headers, voxels)",
            "gather": f"gather (T x N {meta.get('series_input', 'float64')})",
            "context": "context (fc_context_create" + (", own thread *)" if overlap else ")"),
            "context_wait": "context_wait (main thread waited for it)",
            "series": f"series (fc_series_create, {meta.get('series_input', 'float64')})",
            "compute": "compute (fc_pcc_degree)",
            "release": "release (destroy series, context **)",
            "wall": "wall (whole process)",
        }
        for key in ("read", "mask", "gather", "context", "context_wait", "series", "compute", "write", "release",
                    "total", "wall"):
            if key in med:  # context_wait, release: only where they ran on their own threads
                print(f"  {labels.get(key, key):44s} {med[key]:9.3f}")
        print(f"  {'process start and exit (wall - total)':44s} {med['wall'] - med['total']:9.3f}")
        if overlap:
            print(f"  *) overlapped with {', '.join(overlap)} (the main thread's steps meanwhile)")
        released = meta.get("timing_overlap", {}).get("release", [])
        if released:
            print(f"  **) overlapped with {', '.join(released)}")
        ratio = med["wall"] / library
        print(f"\nlibrary alone (context + series + fc_pcc_degree): {library:.3f} s")
        print(f"CLI overhead (wall - library alone): {med['wall'] - library:.3f} s")
        print(f"CLI / library alone      = {ratio:.3f}  (file I/O and mask handling add {100 * (ratio - 1):.1f} %; "
              f"target on the GPU machine: <= 1.10)")
        print(f"CLI / fc_pcc_degree alone = {med['wall'] / med['compute']:.3f}")

        bmed = {key: statistics.median(r[key] for r in base_runs) for key in base_runs[0]}
        bsteps = bmed["context"] + bmed["series"] + bmed["compute"] + bmed["release"]
        print(f"\nlibrary in its own process (bench/cli/library_process: the raw float32 T x N matrix mapped, "
              f"the same calls), median of {args.repeat} runs (seconds):")
        for key, label in (("context", "context (fc_context_create + settings)"),
                           ("series", "series (fc_series_create_f32)"),
                           ("compute", "compute (fc_pcc_degree)"),
                           ("release", "release (destroy series, context)"),
                           ("wall", "wall (whole process)")):
            print(f"  {label:44s} {bmed[key]:9.3f}")
        print(f"  {'process start, mapping, exit (wall - steps)':44s} {bmed['wall'] - bsteps:9.3f}")
        print(f"  degrees = the CLI's map at the {len(voxels)} mask voxels: {same}")
        own = med["wall"] / bmed["wall"]
        print(f"CLI overhead over it (wall - its wall): {med['wall'] - bmed['wall']:.3f} s")
        print(f"CLI / library in its own process = {own:.3f}  (the file I/O and mask handling add "
              f"{100 * (own - 1):.1f} %; target <= 1.10)")
        if not same.startswith("yes"):
            sys.exit("bench_cli: the baseline's degrees differ from the CLI's map")
    finally:
        if not args.workdir:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
