"""The plain PyTorch code a user would write for a thresholded network (bench_gpu_graph's baseline).

Normalize on the GPU, one GEMM per block of rows against the rows after it, mask |r| >= t above
the diagonal, torch.nonzero, gather the values, copy the edges (i, j, r) to the host. Same seeded
data as bench_gpu_graph (the file bench_gpu_pcc --write-data writes), same threshold.

    python3 torch_graph_baseline.py DATA.f32 THRESHOLD OUT.json [--rows 2048] [--reps 3]
"""
import argparse
import json
import time

import numpy as np
import torch

N, T = 90112, 165


def graph(z, t, rows):
    n = z.shape[0]
    parts = []
    for r0 in range(0, n - 1, rows):
        r1 = min(n - 1, r0 + rows)
        block = z[r0:r1] @ z[r0:].T                      # (r1-r0) x (n-r0), column c is series r0+c
        keep = block.abs() >= t
        keep &= torch.ones_like(keep).triu(1)             # j > i
        ij = torch.nonzero(keep)
        values = block[ij[:, 0], ij[:, 1]]
        parts.append((ij[:, 0] + r0, ij[:, 1] + r0, values))
    i = torch.cat([p[0] for p in parts]).cpu()
    j = torch.cat([p[1] for p in parts]).cpu()
    v = torch.cat([p[2] for p in parts]).cpu()
    return i, j, v


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("data")
    ap.add_argument("threshold", type=float)
    ap.add_argument("result")
    ap.add_argument("--rows", type=int, default=2048)
    ap.add_argument("--reps", type=int, default=3)
    a = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False  # FP32 products, as fastconn's default
    x = torch.from_numpy(np.fromfile(a.data, dtype=np.float32).reshape(N, T)).cuda()

    def run():
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        xd = x.double()
        zc = xd - xd.mean(dim=1, keepdim=True)
        z = (zc / zc.norm(dim=1, keepdim=True)).float()
        i, j, v = graph(z, a.threshold, a.rows)
        torch.cuda.synchronize()
        return time.perf_counter() - t0, z, i.numel()

    run()  # warm-up
    times = []
    for _ in range(a.reps):
        s, z, edges = run()
        times.append(s)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for r0 in range(0, N - 1, a.rows):
        z[r0:min(N - 1, r0 + a.rows)] @ z[r0:].T
    torch.cuda.synchronize()
    gemm_s = time.perf_counter() - t0
    result = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "rows_per_block": a.rows,
              "threshold": a.threshold, "edges": edges, "total_s": sorted(times)[len(times) // 2], "all_s": times,
              "gemm_only_s": gemm_s}
    print(json.dumps(result))
    with open(a.result, "w") as f:
        json.dump(result, f)


if __name__ == "__main__":
    main()
