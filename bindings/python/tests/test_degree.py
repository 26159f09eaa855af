"""fastconn.degree: degree and strength of every series, equal to the row sums of the graph
built under the same rule (binary for the degree, r / |r| for the strength)."""

import numpy as np
import pytest

import fastconn

from conftest import synthetic

RULES = [dict(threshold=0.3), dict(threshold=0.2, signed=True), dict(threshold=-0.1, signed=True), dict(density=0.05),
         dict(topk=4)]


@pytest.mark.parametrize("rule", RULES, ids=lambda r: ",".join(f"{k}={v}" for k, v in r.items()))
@pytest.mark.parametrize("precision", ["fp32", "fp64"])
def test_degree_and_strength_are_the_graphs_row_sums(series, rule, precision):
    degree, strength = fastconn.degree(series, precision=precision, **rule)
    assert degree.dtype == np.int64 and strength.dtype == np.float64
    assert degree.shape == strength.shape == (120,)
    binary = fastconn.graph(series, weights="binary", precision=precision, **rule)
    np.testing.assert_array_equal(degree, np.asarray(binary.sum(axis=1)).ravel().astype(np.int64))
    np.testing.assert_array_equal(degree, np.diff(binary.indptr))
    assert 0 < degree.sum() < 120 * 119
    # strength sums r under the signed threshold, |r| under every other rule
    weights = fastconn.graph(series, weights="r" if rule.get("signed") else "abs", precision=precision, **rule)
    sums = np.asarray(weights.astype(np.float64).sum(axis=1)).ravel()
    np.testing.assert_allclose(strength, sums, rtol=1e-6, atol=1e-6)
    if rule == dict(threshold=-0.1, signed=True):  # negative edges: r, not |r|, is summed
        abs_sums = np.asarray(abs(weights).astype(np.float64).sum(axis=1)).ravel()
        assert (weights.data < 0).any() and np.any(strength < abs_sums - 1e-3)


def test_degree_matches_float64_reference_on_real_data(fmri):
    degree, strength = fastconn.degree(fmri, threshold=0.5, rowvar=False)
    r = np.abs(np.corrcoef(fmri, rowvar=False))
    np.fill_diagonal(r, 0.0)
    kept = r >= 0.5
    near = np.abs(r - 0.5) <= 1e-6
    assert np.all(np.abs(degree - kept.sum(axis=1)) <= near.sum(axis=1))
    assert 0 < degree.sum() < 31 * 30
    np.testing.assert_allclose(strength, np.where(kept, r, 0.0).sum(axis=1), rtol=0, atol=1e-4)


def test_constant_series_have_zero_degree():
    x = synthetic(30, 80)
    x[[2, 17]] = 123.0
    for rule in (dict(threshold=0.0), dict(density=1.0), dict(topk=5)):
        degree, strength = fastconn.degree(x, **rule)
        assert degree[[2, 17]].tolist() == [0, 0] and strength[[2, 17]].tolist() == [0.0, 0.0]
        assert degree.min(initial=99, where=np.isin(np.arange(30), [2, 17], invert=True)) >= (5 if "topk" in rule else 27)
