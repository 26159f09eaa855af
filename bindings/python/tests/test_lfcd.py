"""fastconn.lfcd against the plain region growing a numpy user would write (a queue per seed over
the mask's voxels, numpy's corrcoef for r), on masks with holes and several components, the three
neighbourhoods, both rules, odd N, T = 2 and constant series; argument errors; the doctests."""

import collections
import doctest
import itertools
import sys
import warnings

import numpy as np
import pytest

import fastconn
import fastconn.lfcd

from conftest import synthetic


def offsets(neighbourhood):
    """The (di, dj, dk) of a voxel's neighbours: faces (6), + edges (18), + corners (26)."""
    reach = {6: 1, 18: 2, 26: 3}[neighbourhood]
    return [d for d in itertools.product((-1, 0, 1), repeat=3) if 1 <= sum(map(abs, d)) <= reach]


def region_growing(x, coords, neighbourhood, threshold, signed):
    """For each seed, breadth-first over the neighbours of the cluster: a voxel joins when its r
    with the seed (numpy float64) passes; zero-variance series never join and score 0."""
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.corrcoef(x)
    at = {tuple(c): s for s, c in enumerate(coords.tolist())}
    constant = np.ptp(x, axis=1) == 0
    out = np.zeros(len(coords), dtype=np.int64)
    for seed in range(len(coords)):
        if constant[seed]:
            continue
        cluster, queue = {seed}, collections.deque([seed])
        while queue:
            i, j, k = coords[queue.popleft()]
            for di, dj, dk in offsets(neighbourhood):
                v = at.get((i + di, j + dj, k + dk))
                if v is None or v in cluster or constant[v]:
                    continue
                value = r[seed, v] if signed else abs(r[seed, v])
                if value >= threshold:
                    cluster.add(v)
                    queue.append(v)
        out[seed] = len(cluster)
    return out


def clear_of(r, want, margin):
    """A threshold near want, at least margin away from every r and |r| (no decision hangs on
    rounding)."""
    values = np.concatenate([r[np.isfinite(r)], np.abs(r[np.isfinite(r)])])
    t = want
    while np.any(np.abs(values - t) < margin):
        t += 2 * margin
    return t


def scattered_mask(shape, n, seed):
    """n distinct voxels of a box, chosen at random (holes, often several components), C order."""
    rng = np.random.default_rng(seed)
    cells = rng.choice(int(np.prod(shape)), size=n, replace=False)
    mask = np.zeros(shape, dtype=bool)
    mask.reshape(-1)[cells] = True
    return mask


@pytest.mark.parametrize("n, t, shape", [(1, 30, (3, 3, 3)), (2, 30, (2, 2, 2)), (3, 17, (3, 2, 2)),
                                         (37, 25, (6, 5, 4)), (101, 2, (7, 6, 5)), (163, 40, (8, 6, 5))])
@pytest.mark.parametrize("precision", ["fp32", "fp64"])
def test_matches_region_growing(n, t, shape, precision):
    mask = scattered_mask(shape, n, seed=n)
    coords = np.argwhere(mask)
    x = synthetic(n, t, seed=n + 1)
    x[5::11] = 4.0  # constant series
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.corrcoef(x)
    margin = 1e-4 if precision == "fp32" else 1e-9
    for signed, want in ((True, 0.3), (False, 0.45), (True, -0.1)):
        threshold = clear_of(r, want, margin)
        for neighbourhood in (6, 18, 26):
            expected = region_growing(x, coords, neighbourhood, threshold, signed)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", fastconn.ConstantSeriesWarning)
                got = fastconn.lfcd(x, coords, shape, threshold, signed=signed, neighbourhood=neighbourhood,
                                    rowvar=True, backend="cpu", precision=precision)
            assert got.dtype == np.int64
            np.testing.assert_array_equal(got, expected, err_msg=f"{neighbourhood}, {threshold}, {signed}")


def test_neighbourhoods_differ_on_edges_and_corners():
    # identical series on A (0,0,0), B (1,0,0): a face; C (2,1,0): an edge of B; D (3,2,1): a corner of C
    coords = np.array([[0, 0, 0], [1, 0, 0], [2, 1, 0], [3, 2, 1]])
    x = np.tile(np.array([0.0, 1.0, 4.0, 9.0]), (4, 1))
    counts = {h: fastconn.lfcd(x, coords, (4, 3, 2), 0.9, neighbourhood=h, rowvar=True).tolist() for h in (6, 18, 26)}
    assert counts == {6: [2, 2, 1, 1], 18: [3, 3, 3, 1], 26: [4, 4, 4, 4]}
    for h in (6, 18, 26):
        assert counts[h] == region_growing(x, coords, h, 0.9, False).tolist()


def test_constant_series_score_zero_under_both_policies():
    coords = np.array([[0, 0, 0], [1, 0, 0], [2, 0, 0]])
    x = np.array([[1.0, 2.0, 4.0], [3.0, 3.0, 3.0], [1.0, 2.0, 5.0]])
    for constant in ("nan", "zero"):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = fastconn.lfcd(x, coords, (3, 1, 1), -1.0, signed=True, neighbourhood=26, rowvar=True,
                                constant=constant)
        assert got.tolist() == [1, 0, 1]  # the constant middle voxel cuts the line
        noted = [str(w.message) for w in caught if issubclass(w.category, fastconn.ConstantSeriesWarning)]
        assert (noted == ["1 series of x have zero variance, so they have no correlation: their lFCD is 0 and they "
                          "join no cluster: 1 (constant='zero' silences this)"]) == (constant == "nan"), noted


def test_context_method_and_threads_agree():
    mask = scattered_mask((9, 8, 7), 301, seed=4)
    coords = np.argwhere(mask)
    x = synthetic(301, 60, seed=5)
    one = fastconn.Context(backend="cpu", threads=1).lfcd(x, coords, mask.shape, 0.2, rowvar=True)
    two = fastconn.Context(backend="cpu", threads=2).lfcd(x, coords, mask.shape, 0.2, rowvar=True)
    np.testing.assert_array_equal(one, two)
    # (T, N) input with rowvar=False and coords of any integer dtype
    three = fastconn.lfcd(np.ascontiguousarray(x.T), coords.astype(np.int16), mask.shape, 0.2, rowvar=False,
                          backend="cpu")
    np.testing.assert_array_equal(one, three)


def test_bad_arguments():
    coords = np.array([[0, 0, 0], [1, 0, 0], [2, 0, 0]])
    x = synthetic(3, 20)
    with pytest.raises(fastconn.InvalidArgumentError, match="off the grid"):
        fastconn.lfcd(x, coords + [0, 1, 0], (3, 1, 1), 0.5, rowvar=True)
    with pytest.raises(fastconn.InvalidArgumentError, match="same voxel"):
        fastconn.lfcd(x, [[0, 0, 0], [1, 0, 0], [1, 0, 0]], (3, 1, 1), 0.5, rowvar=True)
    with pytest.raises(fastconn.InvalidArgumentError, match="neighbourhood"):
        fastconn.lfcd(x, coords, (3, 1, 1), 0.5, neighbourhood=7, rowvar=True)
    with pytest.raises(fastconn.InvalidArgumentError, match="dims"):
        fastconn.lfcd(x, coords, (3, 0, 1), 0.5, rowvar=True)
    with pytest.raises(fastconn.InvalidArgumentError, match="threshold"):
        fastconn.lfcd(x, coords, (3, 1, 1), float("nan"), rowvar=True)
    with pytest.raises(ValueError, match="3 rows; x has"):
        fastconn.lfcd(synthetic(4, 20), coords, (3, 1, 1), 0.5, rowvar=True)
    with pytest.raises(ValueError, match=r"\(n, 3\)"):
        fastconn.lfcd(x, coords[:, :2], (3, 1, 1), 0.5, rowvar=True)
    with pytest.raises(TypeError, match="integers"):
        fastconn.lfcd(x, coords + 0.5, (3, 1, 1), 0.5, rowvar=True)
    with pytest.raises(ValueError, match="three integers"):
        fastconn.lfcd(x, coords, (3, 1), 0.5, rowvar=True)
    # the C call's own length checks (the SWIG layer), before fastconn reads anything
    ctx = fastconn.Context(backend="cpu")
    series = fastconn._fastconn.fc_series_create_f64(ctx._handle, np.ascontiguousarray(x))
    flat = coords.astype(np.int32).reshape(-1)
    with pytest.raises(ValueError, match="lfcd has 2 elements"):
        fastconn._fastconn.fc_pcc_lfcd(ctx._handle, series, flat, np.array([3, 1, 1]), 6, 1, 0.5,
                                       np.empty(2, dtype=np.int64))
    with pytest.raises(ValueError, match="coords has 6 elements"):
        fastconn._fastconn.fc_pcc_lfcd(ctx._handle, series, flat[:6], np.array([3, 1, 1]), 6, 1, 0.5,
                                       np.empty(3, dtype=np.int64))
    with pytest.raises(ValueError, match="dims has 2 elements"):
        fastconn._fastconn.fc_pcc_lfcd(ctx._handle, series, flat, np.array([3, 1]), 6, 1, 0.5,
                                       np.empty(3, dtype=np.int64))


def test_doctests():
    failures, _ = doctest.testmod(sys.modules["fastconn.lfcd"], optionflags=doctest.ELLIPSIS)
    assert failures == 0
