"""What the benchmarks record about the machine they ran on (imported by the bench scripts)."""
import platform


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
