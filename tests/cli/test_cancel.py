"""Ctrl-C in the middle of a computation: the progress callback returns non-zero, the library
stops with FC_ERR_ABORTED, fastconn deletes its temporary outputs and exits 130."""
import os
import signal
import subprocess

import nibabel as nib
import numpy as np

from conftest import CLI


def test_sigint_cancels_cleanly(tmp_path):
    # 16,250 voxels x 100 time points on one thread: seconds of work for the degree call
    rng = np.random.default_rng(7)
    latent = rng.standard_normal((100, 3))
    data = (rng.standard_normal((25, 25, 26, 3)) @ latent.T + rng.standard_normal((25, 25, 26, 100))).astype(np.float32)
    scan = tmp_path / "big.nii"
    nib.Nifti1Image(data, np.diag([2.0, 2.0, 2.0, 1.0])).to_filename(scan)
    out = tmp_path / "out"
    out.mkdir()
    p = subprocess.Popen([CLI, "degree", scan, "--threshold", "0.3", "--backend", "cpu", "--threads", "1", "-o", out / "d.nii.gz"],
                         stderr=subprocess.PIPE, text=True)
    seen = []
    for line in p.stderr:  # stderr is a pipe: plain progress lines
        seen.append(line)
        if line.startswith("fastconn: degree "):
            p.send_signal(signal.SIGINT)
            break
    rest = p.stderr.read()
    assert p.wait(timeout=120) == 130, "".join(seen) + rest
    assert any(line.startswith("fastconn: degree ") for line in seen), "".join(seen)
    assert rest.strip().splitlines()[-1] == "fastconn: error: cancelled (Ctrl-C): no output written"
    assert os.listdir(out) == []
