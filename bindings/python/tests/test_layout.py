"""numpy arrays reach fastconn without copies when their dtype and layout allow it."""

import tracemalloc

import numpy as np
import pytest

import fastconn
from fastconn.layout import element_strides, series_matrix

from conftest import TOL, synthetic

N, T = 300, 400


@pytest.fixture(scope="module")
def data():
    return synthetic(N, T, seed=11)  # (series, time) float64, C order


def layouts(data):
    """(name, array, rowvar, expected (series_stride, time_stride)) for every in-place layout."""
    c = np.ascontiguousarray(data)
    f = np.asfortranarray(data)
    ct = np.ascontiguousarray(data.T)  # (time, series)
    ft = np.asfortranarray(data.T)
    return [
        ("(N,T) C rowvar", c, True, (T, 1)),
        ("(T,N) C rowvar=False", ct, False, (1, N)),
        ("(N,T) F rowvar", f, True, (1, N)),
        ("(T,N) F rowvar=False", ft, False, (T, 1)),
        ("(T,N) C transposed view", ct.T, True, (1, N)),
        ("every other time point", c[:, ::2], True, (T, 2)),
        ("float32 (T,N) C", ct.astype(np.float32), False, (1, N)),
    ]


def test_in_place_layouts_are_views_with_numpy_strides(data):
    for name, array, rowvar, strides in layouts(data):
        matrix = series_matrix(array, rowvar)
        assert np.shares_memory(matrix, array), name
        assert element_strides(matrix) == strides, name
        assert matrix.shape[0] == N, name


def test_read_only_non_owning_views_are_accepted(data):
    base = np.asfortranarray(data.T)
    view = base[:, :]
    view.flags.writeable = False
    assert not view.flags.owndata and not view.flags.writeable
    assert np.shares_memory(series_matrix(view, rowvar=False), base)
    r = fastconn.corrcoef(view, rowvar=False)
    assert np.max(np.abs(r - np.corrcoef(data))) <= TOL["fp32"]


@pytest.mark.parametrize("case", ["int64", "big-endian", "reversed", "broadcast"])
def test_other_inputs_are_converted_once(data, case):
    array = {
        "int64": np.round(data).astype(np.int64),
        "big-endian": data.astype(">f8"),
        "reversed": data[:, ::-1],
        "broadcast": np.broadcast_to(data[0], (N, T)),
    }[case]
    matrix = series_matrix(array)
    assert not np.shares_memory(matrix, array)
    assert matrix.dtype == np.float64 and matrix.flags.c_contiguous
    np.testing.assert_array_equal(matrix, array)
    assert series_matrix(array.astype(np.float16)).dtype == np.float32


def traced_peak(fn):
    """Peak bytes numpy (and Python) allocated while fn ran; numpy reports its data buffers to
    tracemalloc, fastconn's own (C++) memory is not counted."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_no_copy_by_memory(data):
    out = np.empty(N * (N - 1) // 2, dtype=np.float32)
    for name, array, rowvar, _ in layouts(data):
        peak = traced_peak(lambda: fastconn.pcc_triu(array, rowvar=rowvar, out=out))
        assert peak < array.nbytes // 4, f"{name}: {peak} bytes allocated for a {array.nbytes}-byte input"
    # the check does see a conversion: int64 input costs one float64 copy
    ints = np.round(data).astype(np.int64)
    assert traced_peak(lambda: fastconn.pcc_triu(ints, out=out)) >= ints.nbytes


def test_results_do_not_depend_on_layout(data):
    expected = fastconn.pcc_triu(data)
    for name, array, rowvar, _ in layouts(data):
        if array.dtype == np.float64 and array.shape[1 if rowvar else 0] == T:
            np.testing.assert_array_equal(fastconn.pcc_triu(array, rowvar=rowvar), expected, err_msg=name)


@pytest.mark.parametrize("shape, rowvar", [((165, 0), True), ((0, 50), True), ((165, 0), False), ((0, 50), False),
                                           ((0,), True), ((0, 0), True)])
def test_empty_inputs_say_they_are_empty(shape, rowvar):
    # Not "pass a copy, e.g. numpy.ascontiguousarray(x)": the copy of an empty array is empty too.
    for x in (np.zeros(shape), np.ascontiguousarray(np.zeros(shape)), np.zeros(shape, dtype=np.float32)):
        with pytest.raises(ValueError, match="is empty") as raised:
            fastconn.corrcoef(x, rowvar=rowvar)
        assert "ascontiguousarray" not in str(raised.value)
        with pytest.raises(ValueError, match="is empty"):
            fastconn.pcc_triu(x, rowvar=rowvar)
    with pytest.raises(ValueError, match="at least 1 series of at least 2 time points"):
        series_matrix(np.zeros(shape), rowvar)
