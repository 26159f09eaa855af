"""The check lines of check_runtime.py and check_sklearn.py (the carried Debian Python's checks):
one line per check, a non-zero exit at the end naming the failed ones."""
import sys

failures = []


def check(what, ok, detail=""):
    print("%-44s %s%s" % (what, "ok" if ok else "FAILED", (": " + detail) if detail else ""))
    if not ok:
        failures.append(what)


def finish(name):
    """Exits non-zero naming the failed checks, else prints that all passed."""
    if failures:
        sys.exit("%s: %d check(s) failed: %s" % (name, len(failures), ", ".join(failures)))
    print("%s: all checks passed" % name)
