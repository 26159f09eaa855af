"""Every failure raises: FastconnError and its ValueError / MemoryError subclasses, with
fastconn's message."""

import numpy as np
import pytest

import fastconn
from fastconn import _fastconn

from conftest import synthetic


@pytest.fixture
def x():
    return synthetic(12, 60)


def test_hierarchy():
    assert issubclass(fastconn.FastconnError, RuntimeError)
    assert issubclass(fastconn.InvalidArgumentError, fastconn.FastconnError)
    assert issubclass(fastconn.InvalidArgumentError, ValueError)
    assert issubclass(fastconn.OutOfMemoryError, MemoryError)
    assert issubclass(fastconn.OutOfMemoryError, fastconn.FastconnError)
    assert issubclass(fastconn.AbortedError, fastconn.FastconnError)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_input_names_the_series(x, bad):
    x = x.copy()
    x[7, 33] = bad
    with pytest.raises(fastconn.InvalidArgumentError, match=r"series 7 .* time point 33") as info:
        fastconn.corrcoef(x)
    assert info.value.status == _fastconn.FC_ERR_NONFINITE_INPUT
    assert "fc_series_create" in str(info.value)
    with pytest.raises(ValueError, match=r"series 7 .* time point 33"):  # columns are series here
        fastconn.pcc_triu(np.asfortranarray(x.T), rowvar=False)


@pytest.mark.parametrize("call", [
    lambda x: fastconn.corrcoef(x, backend="gpu"),
    lambda x: fastconn.corrcoef(x, precision="fp16"),
    lambda x: fastconn.corrcoef(x, constant="drop"),
    lambda x: fastconn.pcc_triu(x, order="diagonal"),
    lambda x: fastconn.pcc_triu(x, dtype=np.int32),
    lambda x: fastconn.corrcoef(x[:, :1], rowvar=True),  # one time point
    lambda x: fastconn.corrcoef(x, x[:, :30]),        # different lengths
    lambda x: fastconn.cross(x, x[:, :30]),
    lambda x: fastconn.corrcoef(x[None]),             # 3-D
    lambda x: fastconn.blocks(x, rows=-1),
    lambda x: fastconn.Context(memory_limit=-1),
    lambda x: fastconn.Context(threads=-2),
])
def test_invalid_arguments_raise_value_error(x, call):
    with pytest.raises(ValueError):
        call(x)


def test_library_rejection_carries_status_and_message(x):
    with pytest.raises(fastconn.InvalidArgumentError, match="n_time is 1") as info:
        fastconn.corrcoef(x[:, :1], rowvar=True)
    assert info.value.status == _fastconn.FC_ERR_INVALID_ARG


def test_memory_limit_too_small_raises_memory_error(x):
    ctx = fastconn.Context(backend="cpu", memory_limit=16)
    with pytest.raises(MemoryError, match="memory limit") as info:
        ctx.pcc_triu(x)
    assert isinstance(info.value, fastconn.FastconnError)
    assert info.value.status == _fastconn.FC_ERR_OUT_OF_MEMORY


def test_unavailable_backend_or_working_cuda():
    try:
        ctx = fastconn.Context(backend="cuda")
    except fastconn.BackendUnavailableError as error:
        assert "CUDA" in str(error) or "cuda" in str(error)
    else:
        assert ctx.backend == "cuda"


def test_closed_context(x):
    ctx = fastconn.Context()
    ctx.close()
    assert ctx.closed
    with pytest.raises(ValueError, match="closed"):
        ctx.corrcoef(x)


def test_low_level_outputs_are_checked(x):
    ctx = _fastconn.fc_context_create(_fastconn.FC_BACKEND_CPU, -1)
    series = _fastconn.fc_series_create_f64(ctx, x)
    assert _fastconn.fc_series_info(series) == [12, 60, 0]
    with pytest.raises(ValueError, match="12 x 12"):
        _fastconn.fc_pcc_dense(ctx, series, np.empty((12, 11), np.float32))
    read_only = np.empty((12, 12), np.float32)
    read_only.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        _fastconn.fc_pcc_dense(ctx, series, read_only)
    with pytest.raises(TypeError):
        _fastconn.fc_pcc_dense(ctx, series, np.empty((12, 12), np.float64))
    with pytest.raises(fastconn.InvalidArgumentError, match="capacity"):
        _fastconn.fc_pcc_triu(ctx, series, _fastconn.FC_TRIU_ROW, np.empty(65, np.float32))
    out = np.empty((12, 12), np.float32)
    assert _fastconn.fc_pcc_dense(ctx, series, out) is None
    np.testing.assert_allclose(out, np.corrcoef(x), atol=1e-5)
