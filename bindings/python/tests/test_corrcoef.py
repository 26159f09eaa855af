"""fastconn.corrcoef and fastconn.cross against numpy.corrcoef in float64."""

import warnings

import numpy as np
import pytest

import fastconn

from conftest import TOL, synthetic


def reference(x, y=None, rowvar=True):
    return np.corrcoef(np.asarray(x, dtype=np.float64), None if y is None else np.asarray(y, np.float64), rowvar)


def max_error(r, expected):
    return float(np.max(np.abs(r.astype(np.float64) - expected)))


@pytest.mark.parametrize("precision", ["fp32", "fp64"])
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_real_roi_data_time_by_roi(fmri, precision, order, dtype):
    x = np.asarray(fmri, dtype=dtype, order=order)  # (time, ROI): rowvar=False
    r = fastconn.corrcoef(x, rowvar=False, precision=precision)
    assert r.shape == (31, 31)
    assert r.dtype == (np.float64 if precision == "fp64" else np.float32)
    assert max_error(r, reference(x, rowvar=False)) <= TOL[precision]


@pytest.mark.parametrize("precision", ["fp32", "fp64"])
@pytest.mark.parametrize("order", ["C", "F"])
def test_real_roi_data_roi_by_time(fmri, precision, order):
    x = np.asarray(fmri.T, order=order)  # (ROI, time): rowvar=True
    r = fastconn.corrcoef(x, precision=precision)
    assert max_error(r, reference(fmri, rowvar=False)) <= TOL[precision]
    assert np.array_equal(np.diag(r), np.ones(31))


@pytest.mark.parametrize("precision", ["fp32", "fp64"])
@pytest.mark.parametrize("rowvar", [True, False])
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_synthetic(series, precision, rowvar, order, dtype):
    x = np.asarray(series if rowvar else series.T, dtype=dtype, order=order)
    r = fastconn.corrcoef(x, rowvar=rowvar, precision=precision)
    expected = reference(x, rowvar=rowvar)
    assert r.shape == (120, 120)
    assert max_error(r, expected) <= TOL[precision]
    # the data is structured: strong correlations of both signs are present
    assert expected.min() < -0.5 and np.max(expected - np.eye(120)) > 0.5


def test_long_series_fp32_bound():
    x = synthetic(40, 2000, seed=3)
    assert max_error(fastconn.corrcoef(x), reference(x)) <= TOL["fp32"]


@pytest.mark.parametrize("precision", ["fp32", "fp64"])
@pytest.mark.parametrize("rowvar", [True, False])
def test_with_y_is_the_full_matrix_of_both_sets(fmri, precision, rowvar):
    x, y = fmri[:, :20], fmri[:, 20:]  # (time, ROI)
    if rowvar:
        x, y = x.T, y.T
    r = fastconn.corrcoef(x, y, rowvar=rowvar, precision=precision)
    assert r.shape == (31, 31)
    assert max_error(r, reference(x, y, rowvar)) <= TOL[precision]


def test_cross_is_the_off_diagonal_block(fmri):
    seeds, voxels = fmri[:, 3:6].T, fmri[:, 6:].T
    r = fastconn.cross(seeds, voxels)
    assert r.shape == (3, 25) and r.dtype == np.float32
    assert max_error(r, reference(seeds, voxels)[:3, 3:]) <= TOL["fp32"]
    assert max_error(fastconn.cross(fmri[:, 3:6], fmri[:, 6:], rowvar=False), reference(seeds, voxels)[:3, 3:]) <= TOL["fp32"]


def test_one_dimensional_inputs_follow_numpy():
    x = synthetic(2, 50)
    assert fastconn.corrcoef(x[0]) == pytest.approx(np.corrcoef(x[0]))  # a scalar 1.0, as numpy
    assert np.ndim(fastconn.corrcoef(x[0])) == 0
    assert max_error(fastconn.corrcoef(x[0], x[1]), np.corrcoef(x[0], x[1])) <= TOL["fp32"]


def test_integer_input_is_converted():
    x = np.round(synthetic(10, 80) * 100).astype(np.int64)
    assert max_error(fastconn.corrcoef(x), reference(x)) <= TOL["fp32"]


@pytest.mark.parametrize("precision", ["fp32", "fp64"])
@pytest.mark.parametrize("rowvar", [True, False])
def test_constant_series_give_nan_or_zero(series, precision, rowvar):
    x = series[:30].copy()
    x[[4, 17]] = 42.0  # constant series (e.g. voxels outside the brain)
    if not rowvar:
        x = x.T
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # numpy warns dividing by zero variance
        expected = reference(x, rowvar=rowvar)
    r = fastconn.corrcoef(x, rowvar=rowvar, precision=precision)
    assert np.isnan(r[[4, 17], :]).all() and np.isnan(r[:, [4, 17]]).all()
    np.testing.assert_allclose(r, expected, rtol=0, atol=TOL[precision], equal_nan=True)

    zero = fastconn.corrcoef(x, rowvar=rowvar, precision=precision, constant="zero")
    assert not np.isnan(zero).any()
    assert (zero[[4, 17], :] == 0).all() and (zero[:, [4, 17]] == 0).all()
    others = np.setdiff1d(np.arange(30), [4, 17])
    assert max_error(zero[np.ix_(others, others)], expected[np.ix_(others, others)]) <= TOL[precision]


def test_context_settings_apply_to_module_functions(fmri):
    with fastconn.Context(precision="fp64", constant="zero") as ctx:
        assert fastconn.default_context() is ctx
        r = fastconn.corrcoef(fmri, rowvar=False)
        assert r.dtype == np.float64
        assert max_error(r, reference(fmri, rowvar=False)) <= TOL["fp64"]
    assert fastconn.default_context() is not ctx
    assert fastconn.corrcoef(fmri, rowvar=False).dtype == np.float32
    assert max_error(ctx.corrcoef(fmri, rowvar=False), reference(fmri, rowvar=False)) <= TOL["fp64"]


def test_backend_and_version():
    assert fastconn.backend_name() in ("cpu", "cuda")
    assert fastconn.backend_name("cpu") == "cpu"
    assert fastconn.Context(backend="cpu").backend == "cpu"
    major, minor, patch = (int(p) for p in fastconn.__version__.split("."))
    assert (major, minor, patch) == tuple(fastconn._fastconn.fc_version())
    assert (major, minor, patch) >= (0, 1, 0)
