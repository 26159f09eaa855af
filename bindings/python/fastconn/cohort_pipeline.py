"""The per-subject side of fastconn.cohort: the pipeline spec (steps and their parameters), reading a
subject's scan and running the steps on one fastconn context. Runs in a Dask worker, or in the
calling process when run_cohort(..., workers=0).

A pipeline is a list of steps; each step is a step name, a (name, {params}) pair, a dict
{"step": name, "name": output name, **params}, or a callable (or (callable, {params})) for a step
of your own. Built-in steps and the arrays they write (<output name>.<array>.npy):

=================  ==========================================================  ====================
step               parameters                                                  arrays
=================  ==========================================================  ====================
"degree"           one rule: threshold / density / topk (signed=False)         degree, strength
"triangle"         order="row" | "col"                                         r (float32)
"matrix"           (none)                                                      r (N x N float32)
"window_degree"    width, step=1, taper=None, one rule as for "degree"         degree, strength (W x N)
"modules"          one rule as for "degree", weights="r", resolution=1.0,      labels, q
                   max_communities=0, min_size=1, seed=1, signed="gomez"
=================  ==========================================================  ====================

A callable step is called as fn(series, **params), series the subject's (N, T) float array (one
row per voxel / region), plus subject=<id> if it has a parameter named subject; it returns an
array or a dict {array name: array}. Dask sends it to the workers with cloudpickle: a function of
an importable module (installed on the workers) or a closure.

>>> from fastconn.cohort_pipeline import normalize_pipeline
>>> [s["name"] for s in normalize_pipeline(["degree", ("triangle", {"order": "col"})])]
Traceback (most recent call last):
...
ValueError: pipeline step 0 ('degree') needs one edge rule: threshold=, density= or topk=
>>> [(s["name"], s["step"]) for s in normalize_pipeline([("degree", {"threshold": 0.5}), "triangle"])]
[('degree', 'degree'), ('triangle', 'triangle')]
"""

import hashlib
import inspect
import os
import re
import threading

import numpy as np

__all__ = ["STEPS", "normalize_pipeline", "pipeline_json", "scan_fingerprint", "load_series", "compute_step",
           "SubjectError"]

_RULES = ("threshold", "density", "topk")
_RULE_PARAMS = _RULES + ("signed",)

#: the built-in steps: name -> (required parameters, optional parameters, whether it needs one edge rule)
STEPS = {
    "degree": ((), _RULE_PARAMS, True),
    "triangle": ((), ("order",), False),
    "matrix": ((), (), False),
    "window_degree": (("width",), ("step", "taper") + _RULE_PARAMS, True),
    "modules": ((), _RULE_PARAMS + ("weights", "resolution", "max_communities", "min_size", "seed", "eigen_threshold",
                                    "signed_mode"), True),
}

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*$")


class SubjectError(Exception):
    """A subject's failure, its message naming the subject (and step): raised in the worker,
    recorded in the manifest."""


def _callable_name(fn):
    module = getattr(fn, "__module__", None) or "?"
    return f"{module}:{getattr(fn, '__qualname__', repr(fn))}"


def normalize_pipeline(pipeline):
    """The pipeline as a list of dicts {"name", "step", "params", "function"} (function: the
    callable of a step of your own, else None), checked: known step names, known and required
    parameters, one edge rule where a step needs one, unique output names. Raises ValueError
    naming the step."""
    if isinstance(pipeline, (str, dict)) or callable(pipeline):
        pipeline = [pipeline]
    steps, names = [], set()
    for index, item in enumerate(pipeline):
        name = None
        if isinstance(item, dict):
            item = dict(item)
            kind = item.pop("step", None)
            name = item.pop("name", None)
            params = item
        elif isinstance(item, (tuple, list)) and len(item) == 2 and isinstance(item[1], dict):
            kind, params = item[0], dict(item[1])
            name = params.pop("name", None)
        else:
            kind, params = item, {}
        if callable(kind):
            function, step = kind, _callable_name(kind)
            name = name or getattr(kind, "__name__", f"step{index}")
        elif isinstance(kind, str) and kind in STEPS:
            function, step = None, kind
            required, optional, needs_rule = STEPS[kind]
            unknown = sorted(set(params) - set(required) - set(optional))
            if unknown:
                raise ValueError(f"pipeline step {index} ({kind!r}) has no parameter {unknown[0]!r}; it takes "
                                 f"{', '.join(required + optional) or 'none'}")
            missing = [p for p in required if p not in params]
            if missing:
                raise ValueError(f"pipeline step {index} ({kind!r}) needs {missing[0]}=")
            rules = [p for p in _RULES if params.get(p) is not None]
            if needs_rule and len(rules) != 1:
                raise ValueError(f"pipeline step {index} ({kind!r}) needs one edge rule: threshold=, density= or topk="
                                 + (f", not {' and '.join(rules)}" if rules else ""))
            name = name or kind
        else:
            raise ValueError(f"pipeline step {index} is {kind!r}: not a step name ({', '.join(STEPS)}) or a callable")
        if not _NAME.match(str(name)):
            raise ValueError(f"pipeline step {index}: output name {name!r} must be letters, digits, _ or -")
        if name in names:
            raise ValueError(f"pipeline step {index}: output name {name!r} is used twice; give one step name=...")
        names.add(name)
        steps.append({"name": name, "step": step, "params": params, "function": function})
    if not steps:
        raise ValueError("the pipeline has no step")
    return steps


def pipeline_json(steps):
    """The JSON-able record of a normalized pipeline (what the manifest stores and compares)."""
    return [{"name": s["name"], "step": s["step"], "params": _jsonable(s["params"])} for s in steps]


def _jsonable(value):
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in sorted(value.items())}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return repr(value)


def scan_fingerprint(scan):
    """What identifies a subject's input for resuming: a path's absolute name, size and mtime (as
    make compares files), or an in-memory array's shape, dtype and SHA-256."""
    if isinstance(scan, (str, os.PathLike)):
        path = os.path.abspath(os.fspath(scan))
        try:
            info = os.stat(path)
        except OSError:
            return {"path": path, "missing": True}
        return {"path": path, "bytes": info.st_size, "mtime_ns": info.st_mtime_ns}
    array = np.ascontiguousarray(scan)
    return {"array": list(array.shape), "dtype": str(array.dtype), "sha256": hashlib.sha256(array.data).hexdigest()}


def _nifti_series(path):
    try:
        import nibabel
    except ImportError as error:
        raise SubjectError("reading NIfTI needs nibabel (Debian: python3-nibabel); or pass (time, voxels) arrays "
                           "or .npy files") from error
    image = nibabel.load(path)
    if len(image.shape) != 4:
        raise ValueError(f"a NIfTI scan must be 4-D (x, y, z, time), not of shape {image.shape}")
    data = np.asarray(image.dataobj, dtype=np.float32)  # scaled by the header, as the command line reads it
    n_time = data.shape[3]
    # Voxels in NIfTI order (x fastest), kept when finite and not constant: the command line's
    # automatic mask. The kept voxels' indices are written as <subject>/voxels.npy.
    flat = data.reshape(-1, n_time, order="F")
    keep = np.isfinite(flat).all(axis=1) & (flat.max(axis=1) > flat.min(axis=1))
    voxels = np.flatnonzero(keep).astype(np.int64)
    return np.ascontiguousarray(flat[voxels]), voxels


def load_series(scan):
    """(series, voxels): the subject's (N, T) series and, for a NIfTI scan, the int64 indices of
    its kept voxels (else None). A scan is a NIfTI path (.nii, .nii.gz), a .npy path or an array,
    both (time, voxels / regions)."""
    if isinstance(scan, (str, os.PathLike)):
        path = os.fspath(scan)
        if not os.path.exists(path):
            raise FileNotFoundError(f"no such file: {path}")
        if path.endswith((".nii", ".nii.gz")):
            return _nifti_series(path)
        if path.endswith(".npy"):
            scan = np.load(path, mmap_mode="r")
        else:
            raise ValueError(f"{path}: not a .nii, .nii.gz or .npy file")
    array = np.asarray(scan)
    if array.ndim != 2 or array.shape[0] < 2 or array.shape[1] < 2:
        raise ValueError(f"a subject's array must be 2-D (time, voxels) with 2 or more of each, not of shape "
                         f"{array.shape}")
    if array.dtype.kind not in "fiu":
        raise ValueError(f"a subject's array must be numeric, not {array.dtype}")
    return array.T, None  # (N, T) view: fastconn reads the strides in place


_contexts = threading.local()


def context_for(settings):
    """This thread's fastconn.Context for `settings` (backend, precision, constant, threads),
    made once per worker thread and kept (a context is one thread's at a time)."""
    from . import Context
    cache = getattr(_contexts, "cache", None)
    if cache is None:
        cache = _contexts.cache = {}
    key = tuple(sorted(settings.items()))
    if key not in cache:
        cache[key] = Context(backend=settings["backend"], precision=settings["precision"],
                             constant=settings["constant"], threads=settings["threads"])
    return cache[key]


def _rule(params):
    return {p: params[p] for p in _RULE_PARAMS if p in params}


def compute_step(ctx, step, series, subject=None):
    """One step's arrays {array name: numpy array} for the (N, T) series on context ctx."""
    params = step["params"]
    kind = step["step"]
    if step["function"] is not None:
        try:
            takes_subject = "subject" in inspect.signature(step["function"]).parameters
        except (TypeError, ValueError):
            takes_subject = False
        result = step["function"](series, **params, **({"subject": subject} if takes_subject else {}))
        return dict(result) if isinstance(result, dict) else {"value": result}
    if kind == "degree":
        degree, strength = ctx.degree(series, rowvar=True, **_rule(params))
        return {"degree": degree, "strength": strength}
    if kind == "triangle":
        return {"r": ctx.pcc_triu(series, order=params.get("order", "row"), rowvar=True)}
    if kind == "matrix":
        return {"r": ctx.corrcoef(series, rowvar=True)}
    if kind == "window_degree":
        degree, strength = ctx.dfc_degree(series, params["width"], params.get("step", 1), params.get("taper"),
                                          rowvar=True, **_rule(params))
        return {"degree": degree, "strength": strength}
    if kind == "modules":
        graph = ctx.network(series, weights=params.get("weights", "r"), rowvar=True, **_rule(params))
        modules = ctx.modularity(graph, resolution=params.get("resolution", 1.0),
                                 eigen_threshold=params.get("eigen_threshold", 1e-8),
                                 max_communities=params.get("max_communities", 0), min_size=params.get("min_size", 1),
                                 seed=params.get("seed", 1), signed=params.get("signed_mode", "gomez"))
        return {"labels": modules.labels, "q": np.float64(modules.q)}
    raise ValueError(f"unknown step {kind!r}")
