"""What the benchmarks record about the machine they ran on (imported by the bench scripts)."""
import ctypes
import platform
import time


def cpu_model():
    """The CPU's model name from /proc/cpuinfo (platform.processor() elsewhere, else 'unknown')."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


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
