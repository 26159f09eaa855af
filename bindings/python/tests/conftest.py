"""Shared data for the fastconn Python tests: the bundled real ROI time series and seeded,
structured synthetic series (shared slow signals plus noise, with fMRI-like offsets)."""

import pathlib

import numpy as np
import pytest

REPO = pathlib.Path(__file__).resolve().parents[3]
FMRI_CSV = REPO / "examples" / "data" / "fmri_timeseries.csv"

# Numerical contract (DESIGN.md): max |r - r_float64| in FP32 and FP64 modes.
TOL = {"fp32": 1e-5, "fp64": 1e-12}


@pytest.fixture(scope="session")
def fmri():
    """(time, ROI) = (250, 31) float64: nitime's fMRI ROI series, C order. The first columns
    (white matter, ventricles, brain) sit near 1e4, the rest near 0."""
    data = np.loadtxt(FMRI_CSV, delimiter=",", skiprows=1)
    assert data.shape == (250, 31)
    return data


def synthetic(n_series, n_time, seed=7):
    """(series, time) float64: each series mixes 4 shared slow oscillations and AR(1) noise,
    then gets its own offset (up to 1e4) and scale, so correlations span [-1, 1]."""
    rng = np.random.default_rng(seed)
    t = np.arange(n_time) * 2.0  # TR = 2 s
    freqs = rng.uniform(0.01, 0.1, size=4)
    latent = np.sin(2 * np.pi * freqs[:, None] * t + rng.uniform(0, 2 * np.pi, (4, 1)))
    noise = rng.standard_normal((n_series, n_time))
    for k in range(1, n_time):  # AR(1), as in BOLD noise
        noise[:, k] += 0.5 * noise[:, k - 1]
    mixed = rng.standard_normal((n_series, 4)) @ latent + 0.7 * noise
    return mixed * rng.uniform(0.5, 20.0, (n_series, 1)) + rng.uniform(-1e4, 1e4, (n_series, 1))


@pytest.fixture(scope="session")
def series():
    """(series, time) = (120, 300) float64 synthetic data."""
    return synthetic(120, 300)
