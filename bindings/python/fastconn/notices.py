"""The warnings fastconn gives, issued against the caller's line (not a line of fastconn).

RowvarWarning (a UserWarning): a 2-D array has more rows than columns and rowvar was not given, so
    each of its many rows is taken as a series, as numpy.corrcoef does; a (time, regions) array
    almost always means rowvar=False. Passing rowvar (True or False) says which and silences it.
ConstantSeriesWarning (a RuntimeWarning, as numpy.corrcoef's for a constant row): series with zero
    variance whose correlations are NaN (constant="nan"); once per call, naming their indices.

Either can be turned into an error with warnings.simplefilter("error", fastconn.RowvarWarning).
"""

import os
import sys
import warnings

__all__ = ["RowvarWarning", "ConstantSeriesWarning", "warn", "shown_indices", "constant_message", "constant_windows_message"]

_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


class RowvarWarning(UserWarning):
    """A (rows > columns) array was read with the default rowvar, rows as series."""


class ConstantSeriesWarning(RuntimeWarning):
    """Series with zero variance: their correlations are NaN (constant="nan")."""


def warn(message, category):
    """warnings.warn at the first frame outside the fastconn package (the user's call)."""
    level, frame = 2, sys._getframe(1)  # stacklevel 2 is the frame that called warn()
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE):
        level, frame = level + 1, frame.f_back
    warnings.warn(message, category, stacklevel=level)


def shown_indices(indices, limit=5):
    """'3, 7, 12' (the first `limit`, then ', ...')."""
    shown = ", ".join(str(int(i)) for i in indices[:limit])
    return shown + (", ..." if len(indices) > limit else "")


def constant_message(parts):
    """The ConstantSeriesWarning text for [(name, indices), ...], the sets with constant series."""
    if len(parts) == 1:
        name, which = parts[0]
        verb = "has" if len(which) == 1 else "have"
        return (f"{len(which)} series of {name} {verb} zero variance, so their correlations are NaN: "
                f"{shown_indices(which)} (constant='zero' gives 0 instead)")
    total = sum(len(which) for _, which in parts)
    listed = "; ".join(f"{name}'s series {shown_indices(which)}" for name, which in parts)
    return f"{total} series have zero variance, so their correlations are NaN: {listed} (constant='zero' gives 0 instead)"


def constant_windows_message(name, n_windows, first_begin, which):
    """The ConstantSeriesWarning text for windows holding constant series (the first one's named)."""
    windows = "1 window holds" if n_windows == 1 else f"{n_windows} windows hold"
    return (f"{windows} series of {name} with zero variance, so their correlations there are NaN; the first "
            f"starts at time point {first_begin}: series {shown_indices(which)} (constant='zero' gives 0 instead)")
