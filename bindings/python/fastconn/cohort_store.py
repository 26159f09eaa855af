"""The files of a cohort run (fastconn.cohort): each subject's outputs in OUT/<subject>/, written
atomically, its done-marker, and the run's manifest.

- An output array is OUT/<subject>/<step>.<array>.npy. It is written to a temporary file in the
  same folder, named .<file>.tmp-<host>-<pid>-<random> (so never mistaken for an output), flushed
  and fsync'ed, then renamed over the final name with os.replace (atomic on POSIX): a reader
  sees the old file or the whole new one, never half of one.
- OUT/<subject>/subject.json, the done-marker, is written the same way after every output:
  the subject, its input's fingerprint, the pipeline and settings, the fastconn version and
  each output's size and SHA-256. A subject is complete when its marker exists, matches the
  run's input, pipeline, settings and version, and every output it lists has that size and
  SHA-256; otherwise a run redoes it.
- OUT/manifest.json lists every subject (done, failed or pending, with outputs, checksums, times
  and errors), the pipeline, settings and version; the process that runs run_cohort rewrites it
  atomically after each subject.
- Temporary files are left only by a process killed mid-write; a subject's task removes its
  folder's before it starts, and run_cohort sweeps the rest when the run ends.

>>> import os, tempfile, numpy as np
>>> from fastconn.cohort_store import write_array, temporary_files
>>> folder = tempfile.mkdtemp()
>>> record = write_array(folder, "degree.degree.npy", np.arange(5))
>>> sorted(record), record["bytes"], temporary_files(folder)
(['bytes', 'sha256'], 168, [])
"""

import hashlib
import json
import os
import socket
import uuid

import numpy as np

__all__ = ["MARKER", "MANIFEST", "write_array", "write_json", "read_json", "temporary_files", "remove_temporary",
           "check_complete", "file_sha256"]

MARKER = "subject.json"
MANIFEST = "manifest.json"
_TMP = ".tmp-"


def _temporary_name(folder, name):
    token = f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    return os.path.join(folder, f".{name}{_TMP}{token}")


class _HashingFile:
    """A write-only file object that hashes what passes through it (np.save writes in chunks)."""

    def __init__(self, f):
        self.f, self.sha256, self.bytes = f, hashlib.sha256(), 0

    def write(self, data):
        data = memoryview(data).cast("B")
        self.sha256.update(data)
        self.bytes += data.nbytes
        return self.f.write(data)


def _replace_atomically(folder, name, fill):
    """Write the file `name` in `folder` through fill(file object) into a temporary name, fsync
    it and rename it over `name`; the temporary file is removed if anything fails."""
    temporary = _temporary_name(folder, name)
    try:
        with open(temporary, "wb") as f:
            result = fill(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, os.path.join(folder, name))
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise
    return result


def write_array(folder, name, array):
    """Save `array` as the .npy file `name` in `folder` atomically; returns {"bytes", "sha256"}."""
    def fill(f):
        hashing = _HashingFile(f)
        np.save(hashing, np.asanyarray(array), allow_pickle=False)
        return {"bytes": hashing.bytes, "sha256": hashing.sha256.hexdigest()}
    return _replace_atomically(folder, name, fill)


def write_json(folder, name, value):
    """Write `value` as the JSON file `name` in `folder` atomically."""
    text = (json.dumps(value, indent=1, sort_keys=True) + "\n").encode()
    _replace_atomically(folder, name, lambda f: f.write(text))


def sync_folder(folder):
    """fsync a folder, so that the renames in it survive a crash of the machine."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def read_json(path):
    """The JSON value in `path`, or None when it is missing or unreadable (then it is redone)."""
    try:
        with open(path, "rb") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def temporary_files(folder):
    """The temporary files (.<name>.tmp-*) in `folder`, sorted."""
    try:
        return sorted(n for n in os.listdir(folder) if n.startswith(".") and _TMP in n)
    except FileNotFoundError:
        return []


def remove_temporary(folder):
    """Remove the temporary files a killed writer left in `folder`; returns their names."""
    removed = []
    for name in temporary_files(folder):
        try:
            os.unlink(os.path.join(folder, name))
            removed.append(name)
        except FileNotFoundError:
            pass
    return removed


def file_sha256(path):
    sha256 = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 22), b""):
            sha256.update(chunk)
    return sha256.hexdigest()


def check_complete(folder, expected, verify="sha256"):
    """(complete, marker, reason): whether the subject in `folder` has a done-marker whose input,
    pipeline, settings and version equal `expected`'s and whose outputs all exist with their
    recorded size (and SHA-256 with verify="sha256"). reason says what is missing or different."""
    marker = read_json(os.path.join(folder, MARKER))
    if marker is None:
        return False, None, "no done-marker"
    for key in ("input", "pipeline", "settings", "fastconn"):
        if marker.get(key) != expected[key]:
            return False, marker, f"its {key} changed"
    for name, record in marker.get("outputs", {}).items():
        path = os.path.join(folder, name)
        try:
            size = os.path.getsize(path)
        except OSError:
            return False, marker, f"{name} is missing"
        if size != record["bytes"]:
            return False, marker, f"{name} has {size} bytes, not {record['bytes']}"
        if verify == "sha256" and file_sha256(path) != record["sha256"]:
            return False, marker, f"{name} does not match its SHA-256"
    if not marker.get("outputs"):
        return False, marker, "the done-marker lists no output"
    return True, marker, "complete"
