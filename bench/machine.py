"""What the benchmarks record about the machine they ran on (imported by the bench scripts)."""
import ctypes
import platform
import time


def cpu_model():
    """The CPU's model name from /proc/cpuinfo with its family, model and stepping (cloud guests
    often name only "Intel(R) Xeon(R) Processor": the numbers tell which one, and which kernel an
    old OpenBLAS picks), platform.processor() elsewhere, else 'unknown'."""
    fields = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if not line.strip():
                    break  # the first CPU's block is enough
                key, _, value = line.partition(":")
                fields.setdefault(key.strip(), value.strip())
    except OSError:
        pass
    name = fields.get("model name")
    if not name:
        return platform.processor() or "unknown"
    numbers = [f"{k} {fields[k]}" for k in ("cpu family", "model", "stepping") if fields.get(k)]
    return f"{name} ({', '.join(numbers)})" if numbers else name


def openblas_core():
    """The kernel OpenBLAS picked at load time (openblas_get_corename), or 'unknown'."""
    for name in ("libopenblas.so.0", "libopenblasp-r0.3.21.so"):
        try:
            lib = ctypes.CDLL(name)
            lib.openblas_get_corename.restype = ctypes.c_char_p
            return lib.openblas_get_corename().decode()
        except (OSError, AttributeError):
            continue
    return "unknown"


def median_time(reps, f):
    """The median seconds of `reps` calls of f, and f's last result."""
    times, result = [], None
    for _ in range(reps):
        a = time.perf_counter()
        result = f()
        times.append(time.perf_counter() - a)
    return sorted(times)[len(times) // 2], result


def fastconn_library(path):
    """libfastconn through ctypes, with the argument types of the context and series calls every
    bench script makes declared (each script adds those of the call it measures)."""
    pointer = ctypes.c_void_p
    lib = ctypes.CDLL(path)
    lib.fc_context_create.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.POINTER(pointer)]
    lib.fc_context_set_precision.argtypes = [pointer, ctypes.c_int]
    lib.fc_context_set_threads.argtypes = [pointer, ctypes.c_int]
    lib.fc_context_destroy.argtypes = [pointer]
    for create in (lib.fc_series_create_f32, lib.fc_series_create_f64):
        create.argtypes = [pointer, pointer, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64,
                           ctypes.POINTER(pointer)]
    lib.fc_series_destroy.argtypes = [pointer]
    lib.fc_last_error.restype = ctypes.c_char_p
    return lib


def pin_threads(threads):
    """Runs the script again with OMP_NUM_THREADS = OPENBLAS_NUM_THREADS = threads unless they are
    set so already: numpy's OpenBLAS reads its thread count when it loads, so call this first."""
    import os
    import sys
    if os.environ.get("OMP_NUM_THREADS") != str(threads):
        os.environ["OMP_NUM_THREADS"] = os.environ["OPENBLAS_NUM_THREADS"] = str(threads)
        os.execv(sys.executable, [sys.executable] + sys.argv)


def write_results(path, title, intro, table, machine):
    """Prints `table` (lines) and `machine`, and when `path` is set writes them as a results file:
    '# title', the intro paragraph, '## Results (today)', the table, the machine line."""
    import datetime
    print("\n".join(table))
    print(machine)
    if path:
        with open(path, "w") as f:
            f.write(f"# {title}\n\n{intro}\n\n## Results ({datetime.date.today().isoformat()})\n\n")
            f.write("\n".join(table) + "\n\n" + machine + "\n")
