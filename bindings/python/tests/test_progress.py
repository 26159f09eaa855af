"""Progress callbacks, cancellation and Ctrl-C (signals checked from the C trampoline)."""

import signal
import threading

import numpy as np
import pytest

import fastconn

from conftest import synthetic


def test_progress_reports_then_result(series):
    reports = []
    ctx = fastconn.Context(backend="cpu", memory_limit=120 * 8 * 10, progress=lambda d, t: reports.append((d, t)))
    r = ctx.pcc_triu(series)
    total = 120 * 119 // 2
    assert len(reports) > 1
    assert all(t == total for _, t in reports)
    assert [d for d, _ in reports] == sorted(d for d, _ in reports) and reports[-1][0] == total
    ctx.progress = None
    np.testing.assert_array_equal(r, ctx.pcc_triu(series))  # the callback changes nothing


def test_true_return_cancels(series):
    ctx = fastconn.Context(backend="cpu", memory_limit=120 * 8 * 10, progress=lambda d, t: d > 0)
    with pytest.raises(fastconn.AbortedError, match="cancel") as info:
        ctx.pcc_triu(series)
    assert info.value.status == fastconn._fastconn.FC_ERR_ABORTED


def test_callback_exception_propagates(series):
    def progress(done, total):
        raise KeyboardInterrupt

    ctx = fastconn.Context(backend="cpu", memory_limit=120 * 8 * 10, progress=progress)
    with pytest.raises(KeyboardInterrupt):
        ctx.corrcoef(series)
    ctx.progress = None  # the context is usable again
    assert ctx.corrcoef(series).shape == (120, 120)


class Interrupted(Exception):
    pass


def test_signal_during_computation_cancels_it():
    """A signal arriving while C code runs (no Python callback installed) is noticed by the
    progress trampoline's PyErr_CheckSignals: the computation stops early and the handler's
    exception comes out. SIGUSR1 stands in for SIGINT so that a late signal cannot abort the
    whole pytest session."""
    n = 2000
    x = synthetic(n, 300, seed=5)
    ctx = fastconn.Context(backend="cpu", threads=1, memory_limit=n * 8)  # one row per tile
    sentinel = np.float32(7.0)
    out = np.full(n * (n - 1) // 2, sentinel, dtype=np.float32)
    main = threading.get_ident()

    def interrupt_once_started():
        while out[0] == sentinel:  # the first tile writes the first row
            pass
        signal.pthread_kill(main, signal.SIGUSR1)

    def handler(signum, frame):
        raise Interrupted

    previous = signal.signal(signal.SIGUSR1, handler)
    try:
        helper = threading.Thread(target=interrupt_once_started)
        helper.start()
        with pytest.raises(Interrupted):
            ctx.pcc_triu(x, rowvar=True, out=out)
        helper.join()
    finally:
        signal.signal(signal.SIGUSR1, previous)
    assert out[-1] == sentinel, "the computation ran to the end instead of stopping"
