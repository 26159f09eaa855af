"""Context(backend="cuda", devices=...): a context over several GPUs (fc_context_create_cuda_devices).
Without a GPU only the argument checks and the unavailable backend can be seen; the GPU machine's
tests/gpu/test_cuda_multi.cpp checks the computations."""

import numpy as np
import pytest

import fastconn

from conftest import synthetic


def test_devices_need_the_cuda_backend():
    with pytest.raises(ValueError, match="needs backend='cuda'"):
        fastconn.Context(backend="cpu", devices=[0])


@pytest.mark.parametrize("bad", ["some", [], [[0, 1]], [0.5]])
def test_device_lists_are_checked_in_python(bad):
    with pytest.raises(ValueError, match="devices="):
        fastconn.Context(backend="cuda", devices=bad)


@pytest.mark.parametrize("ids, message", [([0, 0], r"devices\[1\] is 0, which devices lists twice"),
                                          ([1, -2], r"devices\[1\] is -2, a negative device id")])
def test_device_ids_are_checked_by_fastconn(ids, message):
    with pytest.raises(fastconn.InvalidArgumentError, match=message):
        fastconn.Context(backend="cuda", devices=ids)


def test_without_a_gpu_the_backend_is_unavailable():
    if fastconn.cuda_available():
        pytest.skip("a CUDA device is visible: tests/gpu/test_cuda_multi.cpp covers it")
    for devices in ([0], "all", np.array([0, 1])):
        with pytest.raises(fastconn.BackendUnavailableError):
            fastconn.Context(backend="cuda", devices=devices)


def test_a_cpu_context_has_no_devices():
    ctx = fastconn.Context(backend="cpu")
    expected = fastconn.InvalidArgumentError if fastconn.has_cuda() else fastconn.BackendUnavailableError
    with pytest.raises(expected):
        ctx.devices
    assert ctx.pcc_triu(synthetic(5, 30), rowvar=True).shape == (10,)


def test_all_devices_compute_as_one():
    if not fastconn.cuda_available():
        pytest.skip("no CUDA device")
    x = synthetic(300, 60)
    one = fastconn.Context(backend="cuda", device=0)
    every = fastconn.Context(backend="cuda", devices="all")
    assert every.devices[0] == 0
    assert np.array_equal(one.pcc_triu(x, rowvar=True), every.pcc_triu(x, rowvar=True), equal_nan=True)
