"""Argument parsing shared by the friendly layer: names -> fastconn enum values, window specs."""

import numbers
import operator

import numpy as np

from . import _fastconn as _fc

ORDERS = {"row": _fc.FC_TRIU_ROW, "col": _fc.FC_TRIU_COL}


def invalid_argument(message):
    """fastconn's InvalidArgumentError (a ValueError, .status FC_ERR_INVALID_ARG) for an argument
    the Python layer refuses before any C call, as the C library would name it."""
    error = _fc.InvalidArgumentError(message)
    error.status = _fc.FC_ERR_INVALID_ARG
    return error


def result_dtype(dtype, precision, compact=False):
    """The dtype of a correlation result: `dtype` (float32 or float64; with compact=True also
    int16 or float16, the compact formats of compact_format) when given, else float64 for
    precision "fp64" and float32 otherwise (what fastconn computes in that precision)."""
    if dtype is None:
        return np.dtype(np.float64 if precision == "fp64" else np.float32)
    dtype = np.dtype(dtype)
    allowed = (np.dtype(np.float32), np.dtype(np.float64)) + (tuple(COMPACT_FORMATS) if compact else ())
    if dtype not in allowed:
        also = ", int16 or float16 (compact values)" if compact else ""
        raise ValueError(f"dtype must be float32 or float64{also}, got {dtype}")
    return dtype


# The compact value formats (fc_value_format) by the numpy dtype that holds them: int16 codes
# round(r * 32767) (NaN: -32768) and IEEE half values (numpy's float16 is binary16).
COMPACT_FORMATS = {np.dtype(np.int16): _fc.FC_VALUES_INT16, np.dtype(np.float16): _fc.FC_VALUES_HALF}


def compact_format(dtype):
    """The fc_value_format of a compact dtype (int16, float16), or None for float32 / float64."""
    return COMPACT_FORMATS.get(np.dtype(dtype))


def lookup(table, value, what):
    """table[value], or a ValueError listing the accepted names."""
    try:
        return table[value]
    except (KeyError, TypeError):
        raise ValueError(f"{what} must be one of {sorted(table)}, got {value!r}") from None


def integer(value, what):
    """value as a Python int (ints and numpy integers; not bool, not float). Its range is checked
    by fastconn, which names the value (InvalidArgumentError)."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{what} must be an integer, got {value!r}")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{what} must be an integer, got {value!r}") from None


def real(value, what):
    """value as a Python float (any real number but bool)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{what} must be a real number, got {value!r}")
    return float(value)


def taper_spec(taper):
    """(fc_taper, sigma) of taper=None / "rectangular" (every sample weighs 1) or
    ("gaussian", sigma): Allen et al. 2014's window, sigma in samples (> 0, checked by fastconn)."""
    if taper is None or (isinstance(taper, str) and taper == "rectangular"):
        return _fc.FC_TAPER_RECTANGULAR, 0.0
    if isinstance(taper, tuple) and len(taper) == 2 and isinstance(taper[0], str) and taper[0] == "gaussian":
        return _fc.FC_TAPER_GAUSSIAN, real(taper[1], "the Gaussian taper's sigma")
    raise ValueError(f'taper must be None, "rectangular" or ("gaussian", sigma), got {taper!r}')
