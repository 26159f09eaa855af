"""The plain PyTorch loops a user would write for sliding-window connectivity (bench_gpu_dfc's peer).

For each window: normalize it on the GPU (float64 mean and norm, float32 rows), one matmul, then
  graphs:    threshold, to_sparse_csr, copy the CSR to the host            (N = 30,697, w = 150, s = 1)
  triangles: gather the upper triangle, copy it into a pinned host array   (N = 5,000 and 500, w = 50)
  degree:    threshold in row blocks, count and sum per row                (N = 90,112, T = 1,200, w = 100, s = 10)
and the GPU-DFC paper's randomized low rank: Omega Gaussian (N x l), Y = C Omega, Q = qr(Y),
B = Q^T C (rank 50). Same seeded data as bench_gpu_dfc (bench_gpu_dfc --write-data DIR).

    python3 torch_dfc_baseline.py DIR OUT.json [--reps 3]
"""
import argparse
import json
import time

import numpy as np
import torch

SHAPES = {  # name: (n, t, w, s)
    "graphs": (30697, 257, 150, 1),
    "triangles": (5000, 200, 50, 1),
    "triangles_small": (500, 200, 50, 1),
    "degree": (90112, 1200, 100, 10),
}
RANK = 50


def load(directory, name):
    n, t, _, _ = SHAPES[name]
    return torch.from_numpy(np.fromfile(f"{directory}/{name}.f32", dtype=np.float32).reshape(n, t)).cuda()


def normalized(xw):
    xd = xw.double()
    zc = xd - xd.mean(dim=1, keepdim=True)
    return (zc / zc.norm(dim=1, keepdim=True)).float()


def windows(name):
    n, t, w, s = SHAPES[name]
    return [(b, b + w) for b in range(0, t - w + 1, s)]


def timed(fn, reps):
    fn()
    out = []
    for _ in range(reps):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        out.append(time.perf_counter() - t0)
    return sorted(out)[len(out) // 2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("result")
    ap.add_argument("--reps", type=int, default=3)
    a = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False  # FP32 products, as fastconn's default
    result = {"device": torch.cuda.get_device_name(), "torch": torch.__version__}

    x = load(a.dir, "graphs")
    for key, absolute in (("graphs_signed", False), ("graphs_abs", True)):
        def graphs():
            for b, e in windows("graphs"):
                z = normalized(x[:, b:e])
                r = z @ z.T
                keep = (r.abs() if absolute else r) >= 0.7
                keep.fill_diagonal_(False)
                csr = (r * keep).to_sparse_csr()
                csr.crow_indices().cpu(), csr.col_indices().cpu(), csr.values().cpu()
        result[key + "_s"] = timed(graphs, a.reps)

    def lowrank():
        g = torch.Generator(device="cuda").manual_seed(1)
        for b, e in windows("graphs"):
            z = normalized(x[:, b:e])
            c = z @ z.T
            omega = torch.randn(c.shape[0], RANK, device="cuda", generator=g)
            q, _ = torch.linalg.qr(c @ omega)
            (q.T @ c).cpu(), q.cpu()
    result["lowrank_s"] = timed(lowrank, a.reps)
    del x

    for name in ("triangles", "triangles_small"):
        x = load(a.dir, name)
        n = SHAPES[name][0]
        iu = torch.triu_indices(n, n, 1, device="cuda")
        wins = windows(name)
        out = torch.empty((len(wins), iu.shape[1]), dtype=torch.float32, pin_memory=True)

        def triangles():
            for k, (b, e) in enumerate(wins):
                z = normalized(x[:, b:e])
                out[k].copy_((z @ z.T)[iu[0], iu[1]], non_blocking=True)
        result[name + "_s"] = timed(triangles, a.reps)
        del x, iu, out

    x = load(a.dir, "degree")

    def degree(rows=8192):
        n = x.shape[0]
        for b, e in windows("degree"):
            z = normalized(x[:, b:e])
            deg = torch.zeros(n, dtype=torch.int64, device="cuda")
            strength = torch.zeros(n, dtype=torch.float64, device="cuda")
            for r0 in range(0, n, rows):
                r = z[r0:r0 + rows] @ z.T
                keep = r.abs() >= 0.5
                idx = torch.arange(r0, min(n, r0 + rows), device="cuda")
                keep[idx - r0, idx] = False
                deg[r0:r0 + rows] = keep.sum(dim=1)
                strength[r0:r0 + rows] = (r.abs() * keep).sum(dim=1, dtype=torch.float64)
            deg.cpu(), strength.cpu()
    result["degree_s"] = timed(degree, 1)
    print(json.dumps(result))
    with open(a.result, "w") as f:
        json.dump(result, f)


if __name__ == "__main__":
    main()
