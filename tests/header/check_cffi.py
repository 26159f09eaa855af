#!/usr/bin/env python3
"""MATLAB readiness, with Python's cffi standing in for MATLAB's loadlibrary.

loadlibrary needs a header that a plain C parser reads after preprocessing: no compiler
extensions, attributes, bitfields, unions or structs by value. cffi's cdef() is such a parser.
The installed fastconn.h is preprocessed exactly as shipped; the only help is a pair of empty
<stddef.h>/<stdint.h> (cffi knows int64_t and size_t itself, while glibc's real headers are full
of extensions no such parser takes), and -nostdinc proves the header needs nothing else.
Then the library is loaded and called through that parse: version, triangle size, and the
correlation triangle of the bundled real fMRI data against numpy in float64.

Usage: check_cffi.py CC INCLUDE_DIR LIBRARY CSV
"""
import os
import re
import subprocess
import sys
import tempfile

import cffi
import numpy as np


def preprocess(cc, include_dir, extra):
    header = os.path.join(include_dir, "fastconn", "fastconn.h")
    with tempfile.TemporaryDirectory() as fake:
        for name in ("stddef.h", "stdint.h"):
            with open(os.path.join(fake, name), "w") as f:
                f.write("/* empty: cffi provides the standard integer types itself */\n")
        cmd = [cc, "-E", "-P", "-nostdinc", "-I", fake, "-I", include_dir] + extra + [header]
        return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def main():
    cc, include_dir, library, csv = sys.argv[1:5]
    declarations = preprocess(cc, include_dir, [])
    macros = dict(re.findall(r"#define (FASTCONN_VERSION_\w+) (.*)", preprocess(cc, include_dir, ["-dM"])))

    ffi = cffi.FFI()
    ffi.cdef(declarations)  # raises cffi.CDefError on anything loadlibrary-like parsers reject
    lib = ffi.dlopen(library)
    failures = []

    def check(ok, what):
        if not ok:
            failures.append(what)

    major, minor, patch = ffi.new("int*"), ffi.new("int*"), ffi.new("int*")
    lib.fc_version(major, minor, patch)
    check((major[0], minor[0], patch[0]) ==
          (int(macros["FASTCONN_VERSION_MAJOR"]), int(macros["FASTCONN_VERSION_MINOR"]),
           int(macros["FASTCONN_VERSION_PATCH"])), "fc_version matches the header's macros")
    check(lib.fc_triu_size(31) == 465, "fc_triu_size(31) == 465")
    check(lib.fc_triu_size(92683) == 92683 * 92682 // 2, "fc_triu_size is 64-bit through cffi")
    check(ffi.string(lib.fc_status_string(lib.FC_ERR_BUFFER_TOO_SMALL)).startswith(b"FC_ERR_BUFFER_TOO_SMALL"),
          "enum constants and status strings come through")

    # numpy (T, N) C order: series_stride = 1, time_stride = N
    x = np.ascontiguousarray(np.loadtxt(csv, delimiter=",", skiprows=1), dtype=np.float64)
    t, n = x.shape
    expected = np.corrcoef(x.T)[np.triu_indices(n, 1)]

    ctx_out = ffi.new("fc_context**")
    series_out = ffi.new("fc_series**")
    status = lib.fc_context_create(lib.FC_BACKEND_CPU, -1, ctx_out)
    assert status == lib.FC_OK, ffi.string(lib.fc_last_error())
    ctx = ctx_out[0]
    for precision, out_type, tolerance in ((lib.FC_PRECISION_FP32, np.float32, 1e-5),
                                           (lib.FC_PRECISION_FP64, np.float64, 1e-12)):
        assert lib.fc_context_set_precision(ctx, precision) == lib.FC_OK
        status = lib.fc_series_create_f64(ctx, ffi.cast("double*", x.ctypes.data), n, t, 1, n, series_out)
        assert status == lib.FC_OK, ffi.string(lib.fc_last_error())
        r = np.full(len(expected), np.nan, dtype=out_type)
        if out_type == np.float32:
            status = lib.fc_pcc_triu(ctx, series_out[0], lib.FC_TRIU_ROW, ffi.from_buffer("float[]", r), len(r))
        else:
            status = lib.fc_pcc_triu_f64(ctx, series_out[0], lib.FC_TRIU_ROW, ffi.from_buffer("double[]", r), len(r))
        check(status == lib.FC_OK, f"fc_pcc_triu ({out_type.__name__}) returns FC_OK")
        error = float(np.max(np.abs(r.astype(np.float64) - expected)))
        check(error <= tolerance, f"{out_type.__name__} triangle: max |r - numpy| = {error:.3g} <= {tolerance:g}")
        print(f"{out_type.__name__}: {n} series x {t} time points, max |r - numpy float64| = {error:.3g}")
        lib.fc_series_destroy(series_out[0])

    # an error path through cffi: a short buffer is refused and the message says why
    status = lib.fc_series_create_f64(ctx, ffi.cast("double*", x.ctypes.data), n, t, 1, n, series_out)
    assert status == lib.FC_OK, ffi.string(lib.fc_last_error())
    short = np.zeros(len(expected) - 1, dtype=np.float32)
    status = lib.fc_pcc_triu(ctx, series_out[0], lib.FC_TRIU_ROW, ffi.from_buffer("float[]", short), len(short))
    check(status == lib.FC_ERR_BUFFER_TOO_SMALL, "a short buffer gives FC_ERR_BUFFER_TOO_SMALL")
    check(b"465" in ffi.string(lib.fc_last_error()), "fc_last_error names the needed size")
    check(not short.any(), "the short buffer is left untouched")
    lib.fc_series_destroy(series_out[0])
    lib.fc_context_destroy(ctx)

    if failures:
        print("FAILED:\n  " + "\n  ".join(failures))
        return 1
    print("cffi parsed the installed header and every call agreed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
