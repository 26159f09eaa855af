"""Sliding-window (dynamic) connectivity and low rank (fastconn.dynamic) against float64 numpy
references computed per window from the raw data: triangles, the generator, graphs, degree,
summaries, low-rank factors and their errors; window specs, tapers, constant windows, errors."""

import doctest
import math

import numpy as np
import pytest

import fastconn
import fastconn.dynamic

from conftest import REPO, TOL, synthetic
from graph_reference import assert_well_formed, density_from_triangle, pair_indices

# (N, T, width, step): odd sizes, width = 2, width = T, step > width, step not dividing T - width
SPECS = [(37, 101, 17, 3), (37, 41, 2, 1), (37, 61, 61, 1), (37, 101, 10, 13), (36, 90, 21, 8), (2, 9, 3, 2)]
SPEC_IDS = [f"n{n}-t{t}-w{w}-s{s}" for n, t, w, s in SPECS]


def taper_weights(length, sigma):
    """The header's Gaussian taper: w_k = sum_{j<L} exp(-(k - j)^2 / (2 sigma^2)), scaled to max 1."""
    k = np.arange(length, dtype=np.float64)
    w = np.exp(-(k[:, None] - k[None, :]) ** 2 / (2.0 * sigma ** 2)).sum(axis=1)
    return w / w.max()


def reference_matrix(x, begin, length, taper=None):
    """float64 (weighted) correlation matrix of the window [begin, begin + length) of the
    (series, time) array x; NaN rows and columns for series constant in the window."""
    seg = np.asarray(x, dtype=np.float64)[:, begin:begin + length]
    w = np.ones(length) if taper is None else taper_weights(length, taper[1])
    centered = (seg - (seg @ w / w.sum())[:, None]) * np.sqrt(w)
    norm = np.linalg.norm(centered, axis=1)
    constant = np.all(seg == seg[:, :1], axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (centered @ centered.T) / np.outer(norm, norm)
    r[constant, :] = np.nan
    r[:, constant] = np.nan
    return np.clip(r, -1.0, 1.0)


def reference_windows(x, width, step, taper=None):
    """(W, N(N-1)/2) float64 row-ordered triangles of every window."""
    n, t = x.shape
    iu = np.triu_indices(n, 1)
    return np.array([reference_matrix(x, b, width, taper)[iu] for b in range(0, t - width + 1, step)])


@pytest.mark.parametrize("precision", ["fp32", "fp64"])
@pytest.mark.parametrize("taper", [None, ("gaussian", 3.0), ("gaussian", 0.7)], ids=["rect", "gauss3", "gauss0.7"])
@pytest.mark.parametrize("n,t,width,step", SPECS, ids=SPEC_IDS)
def test_dfc_triu_matches_float64_reference_per_window(n, t, width, step, taper, precision):
    x = synthetic(n, t, seed=n + t + width)
    got = fastconn.dfc_triu(x, width, step, taper=taper, precision=precision)
    want = reference_windows(x, width, step, taper)
    assert got.dtype == np.float32 and got.shape == ((t - width) // step + 1, n * (n - 1) // 2) == want.shape
    # the output is float32 in every precision; fp64 adds only that rounding
    np.testing.assert_allclose(got, want, rtol=0, atol=TOL["fp32"] if precision == "fp32" else 1e-6)


def test_column_order_is_a_permutation_of_row_order():
    x = synthetic(23, 70)
    row = fastconn.dfc_triu(x, 30, 9)
    col = fastconn.dfc_triu(x, 30, 9, order="col")
    n = 23
    position = [fastconn._fastconn.fc_triu_offset(n, fastconn._fastconn.FC_TRIU_ROW, i, j)
                for j in range(1, n) for i in range(j)]  # column order: pairs grouped by the larger index
    np.testing.assert_array_equal(col, row[:, position])


def test_generator_and_window_agree_with_the_full_array():
    x = synthetic(29, 97, seed=3)
    full = fastconn.dfc_triu(x, 25, 6, taper=("gaussian", 2.0))
    windows = list(fastconn.sliding_windows(x, 25, 6, taper=("gaussian", 2.0)))
    starts = fastconn.window_starts(97, 25, 6)
    assert [w.index for w in windows] == list(range(full.shape[0]))
    assert [w.begin for w in windows] == starts.tolist() == [6 * k for k in range(13)]
    for k, begin, values in windows:
        assert values.dtype == np.float32
        np.testing.assert_array_equal(values, full[k])
        single = fastconn.window(x, begin, 25, taper=("gaussian", 2.0))
        np.testing.assert_allclose(single, full[k], rtol=0, atol=1e-6)
    # each window gets its own array
    assert len({id(w.values) for w in windows}) == len(windows)


def test_generator_checks_now_and_computes_lazily():
    x = synthetic(9, 40)
    with pytest.raises(fastconn.InvalidArgumentError, match="41"):
        fastconn.sliding_windows(x, 41)  # raises at the call, before any iteration
    ctx = fastconn.Context(backend="cpu")
    windows = ctx.sliding_windows(x, 10, 10)
    ctx.close()  # the iterator keeps what it needs alive
    assert [k for k, _, _ in windows] == [0, 1, 2, 3]


def test_one_series_has_empty_windows():
    x = synthetic(1, 30)
    assert fastconn.dfc_triu(x, 10, 5).shape == (5, 0)
    assert [(k, b, v.size) for k, b, v in fastconn.sliding_windows(x, 10, 5)] == [(k, 5 * k, 0) for k in range(5)]


def test_window_matches_numpy_on_real_data(fmri):
    for begin, length in [(0, 250), (17, 2), (100, 51), (249 - 30, 31)]:
        got = fastconn.window(fmri, begin, length, rowvar=False, dtype=np.float64, precision="fp64")
        want = np.corrcoef(fmri[begin:begin + length], rowvar=False)[np.triu_indices(31, 1)]
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    # rowvar=False on the (time, ROI) array reads the same data as rowvar=True on its transpose
    np.testing.assert_array_equal(fastconn.dfc_triu(fmri, 60, 20, rowvar=False),
                                  fastconn.dfc_triu(np.asfortranarray(fmri.T), 60, 20))
    np.testing.assert_array_equal(fastconn.dfc_triu(fmri, 60, 20, rowvar=False),
                                  fastconn.dfc_triu(fmri.T.copy(), 60, 20))


@pytest.mark.parametrize("constant", ["nan", "zero"])
def test_series_constant_in_one_window_only(constant):
    x = synthetic(9, 60, seed=11)
    x[3, 0:20] = 42.0  # constant in window 0 only (windows of 20 every 10)
    got = fastconn.dfc_triu(x, 20, 10, constant=constant)
    want = reference_windows(x, 20, 10)
    iu = np.triu_indices(9, 1)
    with_three = (iu[0] == 3) | (iu[1] == 3)
    fill = np.nan if constant == "nan" else 0.0
    np.testing.assert_array_equal(got[0, with_three], np.full(with_three.sum(), fill, dtype=np.float32))
    np.testing.assert_allclose(got[0, ~with_three], want[0, ~with_three], rtol=0, atol=TOL["fp32"])
    np.testing.assert_allclose(got[1:], want[1:], rtol=0, atol=TOL["fp32"])
    assert np.isfinite(got[1:]).all()
    # no edges and no degree in that window; summaries follow the policy
    degree, strength = fastconn.dfc_degree(x, 20, 10, threshold=0.0, constant=constant)
    assert degree[0, 3] == 0 and strength[0, 3] == 0.0 and (degree[1:, 3] == 8).all()
    mean, sd = fastconn.dfc_summary(x, 20, 10, constant=constant)
    if constant == "nan":
        assert np.isnan(mean[with_three]).all() and np.isnan(sd[with_three]).all()
    else:
        counted = np.where(np.isnan(want), 0.0, want)
        np.testing.assert_allclose(mean, counted.mean(axis=0), rtol=0, atol=TOL["fp32"])
        np.testing.assert_allclose(sd, counted.std(axis=0, ddof=1), rtol=0, atol=TOL["fp32"])


BAD_SPECS = [(dict(width=1), "1"), (dict(width=41), "41"), (dict(width=10, step=0), "step 0"),
             (dict(width=10, step=-3), "-3"), (dict(width=10, taper=("gaussian", 0.0)), "sigma 0"),
             (dict(width=10, taper=("gaussian", -2.5)), "-2.5"), (dict(width=10, taper=("gaussian", math.inf)), "inf")]
CALLS = {
    "dfc_triu": lambda x, **kw: fastconn.dfc_triu(x, **kw),
    "sliding_windows": lambda x, **kw: fastconn.sliding_windows(x, **kw),
    "dfc_graphs": lambda x, **kw: fastconn.dfc_graphs(x, threshold=0.3, **kw),
    "dfc_degree": lambda x, **kw: fastconn.dfc_degree(x, density=0.1, **kw),
    "dfc_summary": lambda x, **kw: fastconn.dfc_summary(x, **kw),
    "dfc_lowrank": lambda x, width, step=1, taper=None: fastconn.dfc_lowrank(x, width, step, 2, taper=taper),
}


@pytest.mark.parametrize("call", CALLS, ids=list(CALLS))
@pytest.mark.parametrize("spec,named", BAD_SPECS, ids=[str(s) for s, _ in BAD_SPECS])
def test_bad_window_specs_raise_naming_the_value(call, spec, named):
    x = synthetic(7, 40)
    with pytest.raises(fastconn.InvalidArgumentError, match=named.replace("(", r"\(")) as info:
        CALLS[call](x, **spec)
    assert info.value.status == fastconn._fastconn.FC_ERR_INVALID_ARG
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("begin,length,named", [(0, 1, "length 1"), (35, 6, "35"), (-1, 5, "-1"), (0, 41, "41")])
def test_bad_window_raises_naming_the_value(begin, length, named):
    with pytest.raises(fastconn.InvalidArgumentError, match=named):
        fastconn.window(synthetic(7, 40), begin, length)


def test_argument_types_are_checked_in_python():
    x = synthetic(7, 40)
    with pytest.raises(TypeError, match="width"):
        fastconn.dfc_triu(x, 10.5)
    with pytest.raises(TypeError, match="step"):
        fastconn.dfc_triu(x, 10, True)
    with pytest.raises(ValueError, match="taper"):
        fastconn.dfc_triu(x, 10, taper="gaussian")
    with pytest.raises(TypeError, match="sigma"):
        fastconn.dfc_triu(x, 10, taper=("gaussian", "3"))
    with pytest.raises(ValueError, match="order"):
        fastconn.dfc_summary(x, 10, order="diagonal")
    with pytest.raises(ValueError, match="exactly one edge rule"):
        fastconn.dfc_graphs(x, 10)
    with pytest.raises(ValueError, match="out"):
        fastconn.dfc_triu(x, 10, 10, out=np.empty((4, 20), dtype=np.float32))
    out = np.full((4, 21), 7.0, dtype=np.float32)
    assert fastconn.dfc_triu(x, 10, 10, out=out) is out and (out != 7.0).all()
    assert fastconn.window_starts(40, 10, 10).tolist() == [0, 10, 20, 30]
    with pytest.raises(ValueError, match="width 41"):
        fastconn.window_starts(40, 41)


@pytest.mark.parametrize("threshold,signed", [(0.4, False), (0.3, True), (-0.2, True)])
def test_graphs_match_the_reference_threshold_per_window(threshold, signed):
    x = synthetic(41, 120, seed=5)
    graphs = fastconn.dfc_graphs(x, 40, 16, threshold=threshold, signed=signed)
    want = reference_windows(x, 40, 16)
    assert len(graphs) == want.shape[0] == 6
    for k, g in enumerate(graphs):
        assert_well_formed(g, 41)
        value = want[k] if signed else np.abs(want[k])
        kept = np.zeros(want.shape[1], dtype=bool)
        kept[pair_indices(g)] = True
        near = np.abs(value - threshold) <= TOL["fp32"]
        np.testing.assert_array_equal(kept[~near], (value >= threshold)[~near], err_msg=f"window {k}")
        iu = np.triu_indices(41, 1)
        np.testing.assert_allclose(g.toarray()[iu][kept], want[k][kept], rtol=0, atol=TOL["fp32"])


@pytest.mark.parametrize("rule", [dict(density=0.07), dict(topk=3)], ids=["density", "topk"])
def test_graphs_follow_the_ranking_rules_per_window(rule):
    x = synthetic(33, 90, seed=9)
    graphs = fastconn.dfc_graphs(x, 30, 12, weights="binary", **rule)
    triangles = fastconn.dfc_triu(x, 30, 12)
    pairs = 33 * 32 // 2
    for k, g in enumerate(graphs):
        assert_well_formed(g, 33)
        assert set(g.data.tolist()) <= {1.0}
        if "density" in rule:
            count = math.ceil(0.07 * pairs)
            np.testing.assert_array_equal(pair_indices(g), density_from_triangle(triangles[k], count))
        else:
            np.testing.assert_array_equal(g.toarray() > 0, fastconn.graph(
                x[:, 12 * k:12 * k + 30], topk=3, weights="binary", rowvar=True).toarray() > 0)


@pytest.mark.parametrize("rule", [dict(threshold=0.35), dict(threshold=-0.1, signed=True), dict(density=0.1),
                                  dict(topk=4)], ids=["abs", "signed", "density", "topk"])
@pytest.mark.parametrize("taper", [None, ("gaussian", 4.0)], ids=["rect", "gauss"])
def test_degree_is_the_graphs_row_sums(rule, taper):
    x = synthetic(45, 110, seed=2)
    degree, strength = fastconn.dfc_degree(x, 35, 15, taper=taper, **rule)
    assert degree.dtype == np.int64 and strength.dtype == np.float64 and degree.shape == strength.shape == (6, 45)
    binary = fastconn.dfc_graphs(x, 35, 15, taper=taper, weights="binary", **rule)
    weighted = fastconn.dfc_graphs(x, 35, 15, taper=taper, weights="r" if rule.get("signed") else "abs", **rule)
    for k in range(6):
        np.testing.assert_array_equal(degree[k], np.diff(binary[k].indptr), err_msg=f"window {k}")
        sums = np.asarray(weighted[k].astype(np.float64).sum(axis=1)).ravel()
        np.testing.assert_allclose(strength[k], sums, rtol=1e-6, atol=1e-6)
    assert 0 < degree.sum() < 6 * 45 * 44


def test_degree_matches_float64_reference_on_real_data(fmri):
    degree, strength = fastconn.dfc_degree(fmri, 100, 30, threshold=0.5, rowvar=False)
    for k, begin in enumerate(range(0, 151, 30)):
        r = np.abs(np.corrcoef(fmri[begin:begin + 100], rowvar=False))
        np.fill_diagonal(r, 0.0)
        kept = r >= 0.5
        near = np.abs(r - 0.5) <= 1e-5
        assert np.all(np.abs(degree[k] - kept.sum(axis=1)) <= near.sum(axis=1))
        np.testing.assert_allclose(strength[k], np.where(kept, r, 0.0).sum(axis=1), rtol=0, atol=1e-4)


@pytest.mark.parametrize("taper", [None, ("gaussian", 2.5)], ids=["rect", "gauss"])
@pytest.mark.parametrize("n,t,width,step", SPECS, ids=SPEC_IDS)
def test_summary_matches_numpy_mean_and_sd(n, t, width, step, taper):
    x = synthetic(n, t, seed=n * t)
    mean, sd = fastconn.dfc_summary(x, width, step, taper=taper)
    want = reference_windows(x, width, step, taper)
    assert mean.dtype == sd.dtype == np.float64 and mean.shape == sd.shape == (want.shape[1],)
    np.testing.assert_allclose(mean, want.mean(axis=0), rtol=0, atol=TOL["fp32"])
    if want.shape[0] == 1:
        assert np.isnan(sd).all()  # divisor W - 1
    else:
        np.testing.assert_allclose(sd, want.std(axis=0, ddof=1), rtol=0, atol=TOL["fp32"])
    mean_col, sd_col = fastconn.dfc_summary(x, width, step, taper=taper, order="col")
    position = [fastconn._fastconn.fc_triu_offset(n, fastconn._fastconn.FC_TRIU_ROW, i, j)
                for j in range(1, n) for i in range(j)]
    np.testing.assert_array_equal(mean_col, mean[position])
    np.testing.assert_array_equal(sd_col, sd[position])


def lowrank_error(r, rank):
    """Eckart-Young: ||R - R_l||_F / ||R||_F from the eigenvalues of the symmetric PSD R."""
    eig = np.sort(np.linalg.eigvalsh(r))[::-1]
    return math.sqrt(max(0.0, (eig[rank:] ** 2).sum()) / (eig ** 2).sum())


@pytest.mark.parametrize("n,t", [(31, 250), (53, 21), (20, 20)])
def test_lowrank_error_is_eckart_young(n, t):
    x = synthetic(n, t, seed=n)
    r = np.corrcoef(x)
    for rank in sorted({1, 3, min(n, t) // 2, t - 1, t}):
        factor, error = fastconn.lowrank(x, rank, rowvar=True)
        assert factor.dtype == np.float32 and factor.shape == (n, rank)
        assert error == pytest.approx(lowrank_error(r, rank), abs=1e-5)
        achieved = np.linalg.norm(r - factor.astype(np.float64) @ factor.T) / np.linalg.norm(r)
        assert achieved == pytest.approx(error, abs=1e-5)
        if rank >= min(n, t - 1):  # the rank of the centered data: exact
            assert error <= 1e-6
            np.testing.assert_allclose(factor.astype(np.float64) @ factor.T, r, rtol=0, atol=TOL["fp32"])


def test_lowrank_of_real_data_and_constant_series(fmri):
    factor, error = fastconn.lowrank(fmri, 5, rowvar=False)
    assert error == pytest.approx(lowrank_error(np.corrcoef(fmri, rowvar=False), 5), abs=1e-5)
    x = synthetic(12, 30)
    x[4] = 3.0
    factor, error = fastconn.lowrank(x, 29)
    assert (factor[4] == 0).all() and error <= 1e-6
    keep = np.arange(12) != 4
    np.testing.assert_allclose((factor @ factor.T)[np.ix_(keep, keep)], np.corrcoef(x[keep]), rtol=0, atol=TOL["fp32"])
    again, _ = fastconn.lowrank(x, 29)
    np.testing.assert_array_equal(factor, again)  # signs are fixed: results repeat


@pytest.mark.parametrize("taper", [None, ("gaussian", 3.0)], ids=["rect", "gauss"])
def test_dfc_lowrank_per_window(taper):
    x = synthetic(27, 95, seed=4)
    width, step = 24, 10
    factors, errors = fastconn.dfc_lowrank(x, width, step, 6, taper=taper)
    full, full_errors = fastconn.dfc_lowrank(x, width, step, width - 1, taper=taper)
    assert factors.shape == (8, 27, 6) and errors.shape == (8,) and factors.dtype == np.float32
    for k, begin in enumerate(range(0, 95 - width + 1, step)):
        r = reference_matrix(x, begin, width, taper)
        assert errors[k] == pytest.approx(lowrank_error(r, 6), abs=1e-5)
        achieved = np.linalg.norm(r - factors[k].astype(np.float64) @ factors[k].T) / np.linalg.norm(r)
        assert achieved == pytest.approx(errors[k], abs=1e-5)
        # rank w - 1 reproduces every r of the window
        assert full_errors[k] <= 1e-6
        np.testing.assert_allclose(full[k].astype(np.float64) @ full[k].T, r, rtol=0, atol=TOL["fp32"])


def test_low_level_outputs_are_checked_before_the_call():
    fc = fastconn._fastconn
    ctx = fc.fc_context_create(fc.FC_BACKEND_CPU, -1)
    x = synthetic(7, 40)
    series = fc.fc_series_create_f64(ctx, x)
    short = np.full(4 * 7 - 1, -5, dtype=np.int64)
    with pytest.raises(ValueError, match="degree has 27 elements; windows x series is 28"):
        fc.fc_dfc_degree(ctx, series, 10, 10, 0, 0.0, fc.FC_EDGE_ABS_THRESHOLD, 0.3, short, None)
    assert (short == -5).all()
    with pytest.raises(ValueError, match="strength has 29 elements"):
        fc.fc_dfc_degree(ctx, series, 10, 10, 0, 0.0, fc.FC_EDGE_ABS_THRESHOLD, 0.3, None, np.zeros(29))
    with pytest.raises(ValueError, match="sd has 20 elements; it must match mean"):
        fc.fc_dfc_summary(ctx, series, 10, 10, 0, 0.0, fc.FC_TRIU_ROW, np.zeros(21), np.zeros(20))
    with pytest.raises(fastconn.InvalidArgumentError):  # too small for the triangle: fastconn says so
        fc.fc_dfc_summary(ctx, series, 10, 10, 0, 0.0, fc.FC_TRIU_ROW, np.zeros(20), None)
    with pytest.raises(ValueError, match="rel_errors has 3 elements; the window count is 4"):
        fc.fc_dfc_lowrank(ctx, series, 10, 10, 0, 0.0, 2, np.zeros(4 * 7 * 2, dtype=np.float32), np.zeros(3))
    with pytest.raises(fastconn.InvalidArgumentError):
        fc.fc_dfc_triu(ctx, series, 10, 10, 0, 0.0, fc.FC_TRIU_ROW, np.zeros(4 * 21 - 1, dtype=np.float32))
    with pytest.raises(fastconn.InvalidArgumentError):
        fc.fc_pcc_lowrank(ctx, series, 3, np.zeros(7 * 3 - 1, dtype=np.float32))
    with pytest.raises(TypeError):
        fc.fc_dfc_degree(ctx, series, 10, 10, 0, 0.0, fc.FC_EDGE_ABS_THRESHOLD, 0.3, np.zeros(28), None)  # float64
    # the iterator: a buffer smaller than one row is refused without advancing
    iterator = fc.fc_dfc_begin(ctx, series, 10, 10, 0, 0.0)
    assert fc.fc_dfc_info(iterator) == [4, 7, 10]
    with pytest.raises(fastconn.InvalidArgumentError):
        fc.fc_dfc_next_triu(iterator, np.zeros(5, dtype=np.float32))
    status, info = fc.fc_dfc_next_triu(iterator, np.zeros(21, dtype=np.float32))
    assert status == fc.FC_OK and info[:3] == (0, 0, 0) and info[4:6] == (0, 21)


def test_progress_reports_and_cancels():
    x = synthetic(60, 200)
    reports = []
    ctx = fastconn.Context(backend="cpu", progress=lambda done, total: reports.append((done, total)))
    ctx.dfc_triu(x, 50, 5)
    assert reports, "fc_dfc_triu reports progress"
    ctx.progress = lambda done, total: True
    for run in (lambda: ctx.dfc_triu(x, 50, 5), lambda: ctx.dfc_degree(x, 50, 5, threshold=0.3),
                lambda: ctx.dfc_summary(x, 50, 5), lambda: ctx.dfc_lowrank(x, 50, 5, 3)):
        with pytest.raises(fastconn.AbortedError):
            run()


def test_context_methods_and_settings(fmri):
    with fastconn.Context(backend="cpu", precision="fp64", constant="zero") as ctx:
        inside = fastconn.dfc_triu(fmri, 50, 50, rowvar=False)
        np.testing.assert_array_equal(inside, ctx.dfc_triu(fmri, 50, 50, rowvar=False))
    np.testing.assert_array_equal(inside, fastconn.dfc_triu(fmri, 50, 50, rowvar=False, backend="cpu",
                                                            precision="fp64", constant="zero"))


def test_docstring_examples_run(monkeypatch):
    monkeypatch.chdir(REPO)  # they read examples/data/fmri_timeseries.csv
    result = doctest.testmod(fastconn.dynamic, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 20 and result.failed == 0
