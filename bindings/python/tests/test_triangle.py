"""fastconn.pcc_triu (scipy's condensed order) and fastconn.blocks (its slices)."""

import numpy as np
import pytest
import scipy.spatial.distance

import fastconn

from conftest import TOL, synthetic


@pytest.mark.parametrize("dtype,precision", [(np.float32, "fp32"), (np.float64, "fp64"), (np.float64, "fp32")])
def test_row_order_is_numpy_triu_indices(series, dtype, precision):
    r = fastconn.pcc_triu(series, dtype=dtype, precision=precision)
    expected = np.corrcoef(series)[np.triu_indices(120, k=1)]
    assert r.dtype == dtype and r.shape == (120 * 119 // 2,)
    assert np.max(np.abs(r - expected)) <= TOL[precision]


def test_scipy_squareform_consistency(fmri):
    r = fastconn.pcc_triu(fmri, rowvar=False, dtype=np.float64, precision="fp64")
    distance = scipy.spatial.distance.squareform(1 - r, checks=False)
    expected = scipy.spatial.distance.pdist(fmri.T, metric="correlation")
    np.testing.assert_allclose(scipy.spatial.distance.squareform(distance, checks=False), expected, rtol=0, atol=1e-12)
    np.testing.assert_allclose(1 - distance, np.corrcoef(fmri, rowvar=False), rtol=0, atol=1e-12)


def test_column_order(fmri):
    r = fastconn.pcc_triu(fmri, order="col", rowvar=False)
    full = np.corrcoef(fmri, rowvar=False)
    # column order lists (i, j), i < j, grouped by j: the lower triangle read row by row
    j, i = np.tril_indices(31, k=-1)
    expected = full[i, j]
    assert np.max(np.abs(r - expected)) <= TOL["fp32"]
    assert fastconn._fastconn.fc_triu_offset(31, fastconn._fastconn.FC_TRIU_COL, 1, 2) == 2


def test_out_array_and_memmap(tmp_path, series):
    out = np.memmap(tmp_path / "r.f32", dtype=np.float32, mode="w+", shape=(120 * 119 // 2,))
    assert fastconn.pcc_triu(series, out=out) is out
    np.testing.assert_array_equal(np.asarray(out), fastconn.pcc_triu(series))
    with pytest.raises(ValueError, match="needs"):
        fastconn.pcc_triu(series, out=np.empty(10, np.float32))


@pytest.mark.parametrize("rows", [0, 1, 7, 50, 119, 500])
def test_blocks_concatenate_to_the_triangle(series, rows):
    triangle = fastconn.pcc_triu(series)
    infos, parts = [], []
    for info, values in fastconn.blocks(series, rows=rows):
        assert isinstance(info, fastconn.BlockInfo)
        assert values.dtype == np.float32 and values.shape == (info.count,)
        assert values.base is None or values.base.size == info.count  # an array of its own size
        infos.append(info)
        parts.append(values)
    assert infos[0].row_begin == 0 and infos[0].triu_offset == 0
    for before, after in zip(infos, infos[1:]):
        assert after.row_begin == before.row_end
        assert after.triu_offset == before.triu_offset + before.count
    if rows:
        assert all(i.row_end - i.row_begin == rows for i in infos[:-1])
    values = np.concatenate(parts)
    if rows == 0:  # the same row tiles as pcc_triu: the same float32 roundings
        np.testing.assert_array_equal(values, triangle)
    else:  # other tiles sum the float32 products in another order
        assert np.max(np.abs(values - triangle)) <= 1e-6


def test_blocks_are_lazy_but_check_input_at_once(series):
    x = series.copy()
    x[5, 9] = np.inf
    with pytest.raises(ValueError, match="series 5"):
        fastconn.blocks(x, rows=10)  # before any iteration
    iterator = fastconn.blocks(series, rows=30)
    first_info, first = next(iterator)
    assert first_info.row_end == 30
    np.testing.assert_array_equal(first, fastconn.pcc_triu(series)[:first_info.count])


def test_blocks_with_fp64_precision_match_numpy():
    x = synthetic(60, 500)
    with fastconn.Context(precision="fp64"):
        values = np.concatenate([v for _, v in fastconn.blocks(x, rows=16)])
    expected = np.corrcoef(x)[np.triu_indices(60, 1)]
    # float32 output of float64 products: only the final rounding remains
    assert np.max(np.abs(values - expected)) <= 1e-7
