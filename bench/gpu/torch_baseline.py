"""(e) of bench/gpu: the plain PyTorch code a user would write for the full PCC triangle.

Normalize on the GPU, one GEMM per block of rows, the block's upper-triangle entries gathered
with torch.triu_indices, each block copied into a pre-pinned host buffer (pinning is not timed).
Same seeded data as bench_gpu_pcc (read from the file it writes). Prints and writes JSON.

    python3 torch_baseline.py DATA.f32 OUT.json [--rows 512] [--reps 2]
"""
import argparse
import json
import time

import numpy as np
import torch

N, T = 90112, 165


def triangle(z, out, rows):
    """Row-ordered strict upper triangle of z z^T into out (pinned), `rows` rows per block."""
    n = z.shape[0]
    offset = 0
    for r0 in range(0, n - 1, rows):
        r1 = min(n - 1, r0 + rows)
        block = z[r0:r1] @ z[r0:].T                      # (r1-r0) x (n-r0)
        iu = torch.triu_indices(r1 - r0, n - r0, offset=1, device=z.device)
        values = block[iu[0], iu[1]]
        out[offset:offset + values.numel()].copy_(values, non_blocking=True)
        offset += values.numel()
    return offset


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("data")
    ap.add_argument("result")
    ap.add_argument("--rows", type=int, default=512)
    ap.add_argument("--reps", type=int, default=2)
    a = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False  # FP32 products, as fastconn's default
    x = torch.from_numpy(np.fromfile(a.data, dtype=np.float32).reshape(N, T)).cuda()
    pairs = N * (N - 1) // 2
    t0 = time.perf_counter()
    out = torch.empty(pairs, dtype=torch.float32, pin_memory=True)
    pin_s = time.perf_counter() - t0

    def run():
        torch.cuda.synchronize()
        t = time.perf_counter()
        xd = x.double()
        zc = xd - xd.mean(dim=1, keepdim=True)
        z = (zc / zc.norm(dim=1, keepdim=True)).float()
        written = triangle(z, out, a.rows)
        torch.cuda.synchronize()
        assert written == pairs
        return time.perf_counter() - t, z

    run()  # warm-up: cuBLAS, allocator, kernels
    times = []
    for _ in range(a.reps):
        s, z = run()
        times.append(s)
    # GEMMs alone over the same blocks, for reference
    torch.cuda.synchronize()
    t = time.perf_counter()
    for r0 in range(0, N - 1, a.rows):
        z[r0:min(N - 1, r0 + a.rows)] @ z[r0:].T
    torch.cuda.synchronize()
    gemm_s = time.perf_counter() - t
    # spot check against float64 at a few pairs
    zd = x.double().cpu().numpy()
    zd = zd - zd.mean(axis=1, keepdims=True)
    zd /= np.linalg.norm(zd, axis=1, keepdims=True)
    rng = np.random.default_rng(5)
    worst = 0.0
    for off in rng.integers(0, pairs, 500):
        # invert the row-order offset: row i starts at i*(2N-i-1)/2
        i = int(np.floor(((2 * N - 1) - np.sqrt((2 * N - 1) ** 2 - 8.0 * off)) / 2))
        while i > 0 and i * (2 * N - i - 1) // 2 > off:
            i -= 1
        while (i + 1) * (2 * N - i - 2) // 2 <= off:
            i += 1
        j = int(off - i * (2 * N - i - 1) // 2 + i + 1)
        worst = max(worst, abs(float(out[int(off)]) - float(zd[i] @ zd[j])))
    result = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "rows_per_block": a.rows,
              "total_s": sorted(times)[len(times) // 2], "all_s": times, "gemm_only_s": gemm_s,
              "pin_alloc_s": pin_s, "max_err_vs_f64": worst}
    print(json.dumps(result))
    with open(a.result, "w") as f:
        json.dump(result, f)


if __name__ == "__main__":
    main()
