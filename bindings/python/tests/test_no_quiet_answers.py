"""Issue 29's "no quiet wrong answers" in Python: edge rules checked as R checks them, every precision
returned in its own dtype, one warning per call for constant series, and a loud rowvar mistake."""

import warnings

import numpy as np
import pytest

import fastconn

from conftest import TOL


def rule_calls(x):
    """Every function that takes an edge rule, on x (time, series)."""
    return {
        "graph": lambda **rule: fastconn.graph(x, rowvar=False, **rule),
        "edges": lambda **rule: fastconn.edges(x, rowvar=False, **rule),
        "network": lambda **rule: fastconn.network(x, rowvar=False, **rule),
        "degree": lambda **rule: fastconn.degree(x, rowvar=False, **rule),
        "dfc_degree": lambda **rule: fastconn.dfc_degree(x, 100, 50, rowvar=False, **rule),
        "dfc_graphs": lambda **rule: fastconn.dfc_graphs(x, 100, 50, rowvar=False, **rule),
    }


# The R package's messages (bindings/r/R/edge_rule.R), in Python's spelling of the arguments.
REFUSED = [
    (dict(threshold=-0.2), "threshold=-0.2 with signed=False keeps every pair (|r| >= -0.2); use signed=True for "
                           "the edges with r >= -0.2"),
    (dict(threshold=1.5), "threshold must be one number in [-1, 1], not 1.5"),
    (dict(threshold=-1.5, signed=True), "threshold must be one number in [-1, 1], not -1.5"),
    (dict(threshold=float("nan")), "threshold must be one number in [-1, 1], not nan"),
    (dict(density=1.5), "density must be one number in [0, 1] (the fraction of all pairs kept), not 1.5"),
    (dict(density=-0.1), "density must be one number in [0, 1] (the fraction of all pairs kept), not -0.1"),
    (dict(topk=0), "topk must be one whole number >= 1 (partners kept per series), not 0"),
    (dict(topk=2.5), "topk must be one whole number >= 1 (partners kept per series), not 2.5"),
    (dict(topk=float("inf")), "topk must be one whole number >= 1 (partners kept per series), not inf"),
    (dict(topk=np.int64(-3)), "topk must be one whole number >= 1 (partners kept per series), not -3"),
]


@pytest.mark.parametrize("rule, message", REFUSED, ids=[repr(rule) for rule, _ in REFUSED])
def test_out_of_range_rules_are_refused_naming_argument_and_value(fmri, rule, message):
    for name, call in rule_calls(fmri).items():
        with pytest.raises(fastconn.InvalidArgumentError) as caught:
            call(**rule)
        assert str(caught.value) == message, name
        assert isinstance(caught.value, ValueError) and caught.value.status == 201


@pytest.mark.parametrize("rule", [dict(threshold=0.0), dict(threshold=1.0), dict(threshold=-1.0, signed=True),
                                  dict(threshold=-0.2, signed=True), dict(density=0.0), dict(density=1.0),
                                  dict(topk=1), dict(topk=3.0), dict(topk=np.int32(2))])
def test_rules_at_the_bounds_are_accepted(fmri, rule):
    degree, strength = fastconn.degree(fmri, rowvar=False, **rule)
    assert degree.shape == (31,)


def test_signed_negative_threshold_keeps_only_r_above_it(fmri):
    g = fastconn.graph(fmri, threshold=-0.2, signed=True, rowvar=False)
    r = np.corrcoef(fmri, rowvar=False)
    assert g.nnz == int(((r >= -0.2) & ~np.eye(31, dtype=bool)).sum()) < 31 * 30


# --- precisions ------------------------------------------------------------------------------------

def test_cross_fp64_is_float64_to_fp64_accuracy(fmri):
    seeds, targets = fmri[:, :4], fmri[:, 4:]
    reference = np.corrcoef(seeds, targets, rowvar=False)[:4, 4:]
    r64 = fastconn.cross(seeds, targets, rowvar=False, precision="fp64")
    assert r64.dtype == np.float64 and np.abs(r64 - reference).max() <= TOL["fp64"]
    r32 = fastconn.cross(seeds, targets, rowvar=False)
    assert r32.dtype == np.float32 and np.abs(r32 - reference).max() <= TOL["fp32"]
    # dtype overrides the precision's default either way
    assert fastconn.cross(seeds, targets, rowvar=False, dtype=np.float64).dtype == np.float64
    assert fastconn.cross(seeds, targets, rowvar=False, precision="fp64", dtype=np.float32).dtype == np.float32


def test_corrcoef_with_y_fp64_is_float64(fmri):
    x, y = fmri[:, :10], fmri[:, 10:]
    r = fastconn.corrcoef(x, y, rowvar=False, precision="fp64")
    assert r.dtype == np.float64
    assert np.abs(r - np.corrcoef(x, y, rowvar=False)).max() <= TOL["fp64"]


def test_blocks_fp64_are_float64_and_the_fp64_triangle(fmri):
    triangle = fastconn.pcc_triu(fmri, rowvar=False, precision="fp64")
    assert triangle.dtype == np.float64
    parts = [values for _, values in fastconn.blocks(fmri, rows=7, rowvar=False, precision="fp64")]
    assert all(part.dtype == np.float64 for part in parts)
    np.testing.assert_array_equal(np.concatenate(parts), triangle)
    reference = np.corrcoef(fmri, rowvar=False)[np.triu_indices(31, 1)]
    assert np.abs(np.concatenate(parts) - reference).max() <= TOL["fp64"]
    parts32 = [values for _, values in fastconn.blocks(fmri, rows=7, rowvar=False)]
    assert all(part.dtype == np.float32 for part in parts32)
    assert all(v.dtype == np.float64 for _, v in fastconn.blocks(fmri, rows=7, rowvar=False, dtype=np.float64))


def test_window_dtype_follows_the_precision(fmri):
    assert fastconn.window(fmri, 10, 100, rowvar=False).dtype == np.float32
    r = fastconn.window(fmri, 10, 100, rowvar=False, precision="fp64")
    assert r.dtype == np.float64
    reference = np.corrcoef(fmri[10:110], rowvar=False)[np.triu_indices(31, 1)]
    assert np.abs(r - reference).max() <= TOL["fp64"]


# --- constant series -----------------------------------------------------------------------------

def with_constants(fmri, columns=(4, 17)):
    x = fmri.copy()
    x[:, list(columns)] = 3.25
    return x


def caught_warnings(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = call()
    return result, [w for w in caught if issubclass(w.category, fastconn.ConstantSeriesWarning)]


@pytest.mark.parametrize("name, call", [
    ("corrcoef", lambda x: fastconn.corrcoef(x, rowvar=False)),
    ("corrcoef fp64", lambda x: fastconn.corrcoef(x, rowvar=False, precision="fp64")),
    ("pcc_triu", lambda x: fastconn.pcc_triu(x, rowvar=False)),
    ("blocks", lambda x: list(fastconn.blocks(x, rows=5, rowvar=False))),
    ("cross", lambda x: fastconn.cross(x[:, :10], x[:, 10:20], rowvar=False)),
    ("context", lambda x: fastconn.Context().corrcoef(x, rowvar=False)),
])
def test_constant_series_warn_once_per_call_naming_them(fmri, name, call):
    x = with_constants(fmri)
    result, caught = caught_warnings(lambda: call(x))
    assert len(caught) == 1, name
    warning = caught[0]
    assert issubclass(warning.category, RuntimeWarning)
    if name == "cross":  # x's series 4 and y's series 7 (column 17)
        assert str(warning.message) == ("2 series have zero variance, so their correlations are NaN: x's series 4; "
                                        "y's series 7 (constant='zero' gives 0 instead)")
    else:
        assert str(warning.message) == ("2 series of x have zero variance, so their correlations are NaN: 4, 17 "
                                        "(constant='zero' gives 0 instead)")
    assert warning.filename == __file__  # issued against the caller's line, not fastconn's


def test_constant_series_are_not_warned_about_with_constant_zero_or_in_graphs(fmri):
    x = with_constants(fmri)
    for call in (lambda: fastconn.corrcoef(x, rowvar=False, constant="zero"),
                 lambda: fastconn.pcc_triu(x, rowvar=False, constant="zero"),
                 lambda: fastconn.graph(x, threshold=0.5, rowvar=False),   # no NaN: constant series get no edges
                 lambda: fastconn.corrcoef(fmri, rowvar=False)):
        assert caught_warnings(call)[1] == []


def test_many_constant_series_are_listed_up_to_five(fmri):
    x = with_constants(fmri, columns=range(3, 10))
    _, caught = caught_warnings(lambda: fastconn.corrcoef(x, rowvar=False))
    assert str(caught[0].message).startswith("7 series of x have zero variance, so their correlations are NaN: "
                                             "3, 4, 5, 6, 7, ...")


def test_series_constant_in_windows_warn_once_per_call(fmri):
    x = fmri.copy()
    x[60:170, 5] = 1.0   # constant in the windows that lie inside [60, 170)
    x[100:200, 9] = 2.0
    for name, call in [("dfc_triu", lambda: fastconn.dfc_triu(x, 50, step=10, rowvar=False)),
                       ("dfc_summary", lambda: fastconn.dfc_summary(x, 50, step=10, rowvar=False))]:
        _, caught = caught_warnings(call)
        assert len(caught) == 1, name
        # windows of 50 every 10: inside [60, 170) begin at 60 .. 120 (7), inside [100, 200) at 100 .. 150 (6);
        # 60 .. 150 in all: 10 windows
        assert str(caught[0].message) == ("10 windows hold series of x with zero variance, so their correlations "
                                          "there are NaN; the first starts at time point 60: series 5 "
                                          "(constant='zero' gives 0 instead)"), name
        assert caught[0].filename == __file__
    _, caught = caught_warnings(lambda: list(fastconn.sliding_windows(x, 50, step=10, rowvar=False)))
    assert len(caught) == 1 and str(caught[0].message).startswith("window 6 (from time point 60) is the first")
    _, caught = caught_warnings(lambda: fastconn.window(x, 100, 50, rowvar=False))
    assert len(caught) == 1 and "starts at time point 100: series 5, 9" in str(caught[0].message)
    _, caught = caught_warnings(lambda: fastconn.dfc_triu(x, 50, step=10, rowvar=False, constant="zero"))
    assert caught == []


# --- rowvar ----------------------------------------------------------------------------------------

def rowvar_warnings(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = call()
    return result, [w for w in caught if issubclass(w.category, fastconn.RowvarWarning)]


def test_time_by_region_without_rowvar_is_loud(fmri):
    r, caught = rowvar_warnings(lambda: fastconn.corrcoef(fmri))   # (250, 31): the classic mistake
    assert r.shape == (250, 250) and len(caught) == 1
    assert str(caught[0].message).startswith("x has 250 rows and 31 columns and rowvar was not given, so each row is "
                                             "a series (numpy.corrcoef's convention): 250 series of 31 time points. "
                                             "For a (time, series) array such as nilearn's signals pass rowvar=False")
    assert caught[0].filename == __file__
    for call in (lambda: fastconn.pcc_triu(fmri), lambda: fastconn.degree(fmri, topk=2),
                 lambda: fastconn.dfc_triu(fmri, 10, 5), lambda: fastconn.cross(fmri, fmri)):
        assert len(rowvar_warnings(call)[1]) >= 1
    with warnings.catch_warnings():
        warnings.simplefilter("error", fastconn.RowvarWarning)   # as strict as a user wants
        with pytest.raises(fastconn.RowvarWarning):
            fastconn.corrcoef(fmri)


def test_explicit_rowvar_and_wide_arrays_are_quiet(fmri):
    for call in (lambda: fastconn.corrcoef(fmri, rowvar=False), lambda: fastconn.corrcoef(fmri, rowvar=True),
                 lambda: fastconn.corrcoef(fmri.T), lambda: fastconn.corrcoef(fmri[:, 0]),
                 lambda: fastconn.corrcoef(fmri[:31, :31])):
        assert rowvar_warnings(call)[1] == []
    r, _ = rowvar_warnings(lambda: fastconn.corrcoef(fmri.T))
    assert r.shape == (31, 31)
