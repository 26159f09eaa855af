"""Compact values (dtype=np.int16 / np.float16 on pcc_triu, corrcoef, blocks and dfc_triu): the
int16 codes are numpy's own rounding of r * 32767 (half to even) of the float32 call's r, the
float16 values numpy's astype(np.float16) of it, NaN pairs (constant series) carry the NaN code,
and decode() gives r back within the documented error of numpy.corrcoef."""

import numpy as np
import pytest

import fastconn

from conftest import TOL, synthetic


def int16_codes(r):
    """The documented FC_VALUES_INT16 rule written with numpy: round half to even of r * 32767
    in float64, NaN -> -32768."""
    codes = np.rint(r.astype(np.float64) * 32767.0)
    codes[np.isnan(r)] = -32768
    return codes.astype(np.int16)


@pytest.fixture(scope="module")
def with_constant():
    x = synthetic(67, 90, seed=3)
    x[5] = 4.0  # a constant series: its pairs are NaN under the default policy
    return x


@pytest.mark.parametrize("precision", ["fp32", "fp64"])
def test_triangle_codes_are_numpys_rounding(with_constant, precision):
    r = fastconn.pcc_triu(with_constant, precision=precision, dtype=np.float64)  # the call's r, widened
    codes = fastconn.pcc_triu(with_constant, precision=precision, dtype=np.int16)
    halves = fastconn.pcc_triu(with_constant, precision=precision, dtype=np.float16)
    assert codes.dtype == np.int16 and halves.dtype == np.float16 and codes.shape == r.shape
    np.testing.assert_array_equal(codes, int16_codes(r))
    # float16 of the r each precision computes (fp64: one rounding from the double r)
    np.testing.assert_array_equal(halves.view(np.uint16), r.astype(np.float16).view(np.uint16))
    assert np.isnan(r).sum() == 66 and (codes == -32768).sum() == 66 and np.isnan(halves).sum() == 66


def test_decoded_values_within_the_documented_error(series):
    expected = np.corrcoef(series)[np.triu_indices(len(series), 1)]
    for dtype, bound in ((np.int16, 0.5 / 32767), (np.float16, 2.0 ** -12)):
        decoded = fastconn.decode(fastconn.pcc_triu(series, dtype=dtype), dtype=np.float64)
        error = np.abs(decoded - expected).max()
        assert error <= bound + TOL["fp32"], (dtype, error)


def test_decode_fixed_points():
    values = fastconn.decode(np.array([32767, -32767, 0, -32768, 1], dtype=np.int16), dtype=np.float64)
    assert values[0] == 1.0 and values[1] == -1.0 and values[2] == 0.0 and np.isnan(values[3])
    assert values[4] == 1 / 32767
    assert fastconn.decode(np.array([1, -1, 0, np.nan], dtype=np.float16)).dtype == np.float32
    with pytest.raises(TypeError, match="int16"):
        fastconn.decode(np.zeros(3, dtype=np.int32))


def test_dense_blocks_and_windows_agree_with_the_triangle(with_constant):
    n = len(with_constant)
    iu = np.triu_indices(n, 1)
    for dtype in (np.int16, np.float16):
        tri = fastconn.pcc_triu(with_constant, dtype=dtype).view(np.uint16)
        dense = fastconn.corrcoef(with_constant, dtype=dtype)
        assert dense.dtype == dtype
        np.testing.assert_array_equal(dense.view(np.uint16)[iu], tri)
        np.testing.assert_array_equal(dense.view(np.uint16), dense.view(np.uint16).T)
        diagonal = np.diag(dense).view(np.uint16)
        one = np.array(32767 if dtype == np.int16 else 1.0, dtype=dtype).view(np.uint16)
        assert (np.delete(diagonal, 5) == one).all()
        parts = list(fastconn.blocks(with_constant, rows=9, dtype=dtype))
        assert all(values.dtype == dtype for _, values in parts)
        np.testing.assert_array_equal(np.concatenate([v for _, v in parts]).view(np.uint16), tri)
        codes = fastconn.dfc_triu(with_constant, 40, step=25, rowvar=True, dtype=dtype)
        r = fastconn.dfc_triu(with_constant, 40, step=25, rowvar=True)
        assert codes.dtype == dtype and codes.shape == r.shape
        if dtype == np.int16:
            np.testing.assert_array_equal(codes, int16_codes(r))
        else:
            np.testing.assert_array_equal(codes.view(np.uint16), r.astype(np.float16).view(np.uint16))


def test_out_arrays_and_refusals(series):
    size = fastconn.triu_size(len(series))
    out = np.full(size, 7, dtype=np.int16)
    assert fastconn.pcc_triu(series, out=out) is out
    np.testing.assert_array_equal(out, fastconn.pcc_triu(series, dtype=np.int16))
    with pytest.raises(ValueError, match="int16 or float16"):
        fastconn.pcc_triu(series, dtype=np.int32)
    with pytest.raises(ValueError, match="float32 or float64"):
        fastconn.corrcoef(series, series, dtype=np.int16)  # cross blocks have no compact form
    short = np.full(size - 1, 7, dtype=np.float16)
    with pytest.raises(ValueError):
        fastconn.pcc_triu(series, out=short)
    assert (short == 7).all()
    # the low-level call refuses a bad format by name and leaves the buffer alone
    ctx = fastconn.Context(backend="cpu")
    series_handle = ctx._upload(np.ascontiguousarray(series))
    codes = np.full(size, 7, dtype=np.int16)
    with pytest.raises(fastconn.InvalidArgumentError, match="format 9"):
        fastconn._fastconn.fc_pcc_triu_compact(ctx._live(), series_handle, 0, 9, codes)
    with pytest.raises(fastconn.InvalidArgumentError, match="capacity"):
        fastconn._fastconn.fc_pcc_triu_compact(ctx._live(), series_handle, 0, 1, codes[:-1])
    assert (codes == 7).all()


def test_odd_sizes():
    for n in (1, 2, 3, 5):
        x = synthetic(n, 30, seed=n)
        r = fastconn.pcc_triu(x, dtype=np.float64)
        np.testing.assert_array_equal(fastconn.pcc_triu(x, dtype=np.int16), int16_codes(r))
        dense = fastconn.corrcoef(x, dtype=np.float16)
        assert (dense.shape == (n, n)) if n > 1 else dense == 1.0
