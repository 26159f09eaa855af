"""Floors of issue 32's degree, measured through PyTorch on the same GPU in the same run as
bench_tc_degree (scripts/gpu-steps/tc.sh):

- the triangle's GEMMs alone in cuBLAS, FP32 (SIMT), TF32 and BF16 (tensor cores): one product
  per block of rows against the rows from its first on (the upper triangle's tiles, as fastconn
  bands them), nothing read back;
- the matmul-and-threshold degree a PyTorch user would write: the same blocks, |r| >= t above the
  diagonal, row and column sums into the degrees, in FP32, TF32 and BF16. TF32 and BF16 are fast
  but inexact: the table counts the degrees that differ from the FP32 ones.

- issue 32 item 3's floor: dense values with FP32-level error from tensor cores as split products
  (z = hi + lo; r ~ hi.hi' + hi.lo' + lo.hi', three GEMMs a block: 3xTF32 with hi the TF32 part of
  z, and split BF16 with hi = bf16(z), lo = bf16(z - hi)), the three GEMMs alone, with the largest
  error of each against float64 on the first block of rows (the FP32 GEMM's too). If the three
  GEMMs alone take longer than the FP32 GEMM, no split-product kernel can beat the FP32 one.

Data: seeded structured series (40 latent networks plus noise), centred and scaled to unit norm in
FP32 on the GPU (the same kind of data as bench_data.hpp, not the same numbers).

    python3 torch_tc_floor.py N T THRESHOLD [--rows R] [--reps K] [--markdown FILE] [--gemm-only]
"""
import argparse
import time

import torch


def series(n, t, seed=20261128):
    g = torch.Generator(device="cuda").manual_seed(seed)
    base = torch.randn(40, t, device="cuda", generator=g)
    z = base[torch.arange(n, device="cuda") % 40] + 1.5 * torch.randn(n, t, device="cuda", generator=g)
    z -= z.mean(dim=1, keepdim=True)
    z /= z.norm(dim=1, keepdim=True)
    return z.contiguous()


def blocks(n, rows):
    for r0 in range(0, n - 1, rows):
        yield r0, min(n - 1, r0 + rows)


def gemms(z, rows):
    n = z.shape[0]
    for r0, r1 in blocks(n, rows):
        z[r0:r1] @ z[r0:].T
    torch.cuda.synchronize()


def split_tf32(z):
    hi = (z.view(torch.int32) & ~0x1FFF).view(torch.float32)  # 10 mantissa bits: exact in TF32
    return hi, z - hi


def split_bf16(z):
    hi = z.bfloat16()
    return hi, (z - hi.float()).bfloat16()


def split_gemms(hi, lo, rows):
    n = hi.shape[0]
    for r0, r1 in blocks(n, rows):
        hi[r0:r1] @ hi[r0:].T
        hi[r0:r1] @ lo[r0:].T
        lo[r0:r1] @ hi[r0:].T
    torch.cuda.synchronize()


def first_block_error(z, product, rows):
    """Largest |r - r64| over the first block's products (at most 1024 rows)."""
    r1 = min(rows, 1024, z.shape[0])
    exact = z[:r1].double() @ z.double().T
    return float((product(r1).double() - exact).abs().max())


def degree(z, rows, t):
    n = z.shape[0]
    deg = torch.zeros(n, dtype=torch.int64, device="cuda")
    cols = torch.arange(n, device="cuda")
    for r0, r1 in blocks(n, rows):
        c = (z[r0:r1] @ z[r0:].T).float()
        keep = (c.abs() >= t) & (cols[None, r0:] > cols[r0:r1, None])
        deg[r0:r1] += keep.sum(dim=1)
        deg[r0:] += keep.sum(dim=0)
    torch.cuda.synchronize()
    return deg


def timed(fn, reps):
    fn()  # warm-up
    runs = []
    for _ in range(reps):
        t0 = time.perf_counter()
        out = fn()
        runs.append(time.perf_counter() - t0)
    runs.sort()
    return runs[len(runs) // 2], out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("n", type=int)
    ap.add_argument("t", type=int)
    ap.add_argument("threshold", type=float)
    ap.add_argument("--rows", type=int, default=0, help="rows a block (default: 2^31 values a block, at most 8192)")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--markdown", default="")
    ap.add_argument("--gemm-only", action="store_true", help="skip the matmul-and-threshold degree (1M: minutes)")
    ap.add_argument("--no-split", action="store_true", help="skip the split products (3xTF32, split BF16)")
    a = ap.parse_args()
    n, t = a.n, a.t
    rows = a.rows or max(128, min(8192, (1 << 31) // n))
    z32 = series(n, t)
    z16 = z32.bfloat16()
    pairs = n * (n - 1) // 2
    flops = 2.0 * t * sum((r1 - r0) * (n - r0) for r0, r1 in blocks(n, rows))
    results = []
    for name, z, tf32 in (("FP32", z32, False), ("TF32", z32, True), ("BF16", z16, False)):
        torch.backends.cuda.matmul.allow_tf32 = tf32
        g, _ = timed(lambda: gemms(z, rows), a.reps)
        d, deg = (float("nan"), None) if a.gemm_only else timed(lambda: degree(z, rows, a.threshold), a.reps)
        results.append((name, g, d, deg))
    torch.backends.cuda.matmul.allow_tf32 = False
    errors, split_runs = {}, []
    if not a.no_split:
        errors["FP32"] = first_block_error(z32, lambda r1: z32[:r1] @ z32.T, rows)
        torch.backends.cuda.matmul.allow_tf32 = True
        errors["TF32"] = first_block_error(z32, lambda r1: z32[:r1] @ z32.T, rows)
        th, tl = split_tf32(z32)
        split_runs.append(("3xTF32", timed(lambda: split_gemms(th, tl, rows), a.reps)[0]))
        errors["3xTF32"] = first_block_error(z32, lambda r1: th[:r1] @ th.T + th[:r1] @ tl.T + tl[:r1] @ th.T, rows)
        torch.backends.cuda.matmul.allow_tf32 = False
        del th, tl
        bh, bl = split_bf16(z32)
        split_runs.append(("split BF16", timed(lambda: split_gemms(bh, bl, rows), a.reps)[0]))
        errors["BF16"] = first_block_error(z32, lambda r1: (z16[:r1] @ z16.T).float(), rows)
        # Each product's FP32 result (torch.mm's out_dtype; without it a BF16 product is rounded
        # to BF16 and the split gains nothing, so the error is not reported).
        try:
            mm = lambda x, y: torch.mm(x, y.T, out_dtype=torch.float32)  # noqa: E731
            errors["3xBF16"] = first_block_error(z32, lambda r1: mm(bh[:r1], bh) + mm(bh[:r1], bl) + mm(bl[:r1], bh), rows)
        except (TypeError, RuntimeError):
            pass
        del bh, bl
    exact = results[0][3]
    lines = [
        f"| {n:,} x {t}, t = {a.threshold} | torch {name} | {g:.4f} | {flops / g / 1e12:.0f} | {d:.4f} | "
        f"{'-' if deg is None else int((deg != exact).sum())} |"
        for name, g, d, deg in results
    ]
    split_lines = [
        f"| {n:,} x {t} | torch {name}: the three GEMMs alone | {g:.4f} | {flops / g / 1e12:.0f} (one product's flops) | - | - |"
        for name, g in split_runs
    ]
    if errors:
        split_lines += ["", "Largest |r - r64| on the first block: " + ", ".join(f"{k} {v:.2e}" for k, v in errors.items()) + "."]
    head = [
        "",
        f"### PyTorch floors (torch_tc_floor.py; {torch.cuda.get_device_name()}; torch {torch.__version__}; "
        f"blocks of {rows} rows; median of {a.reps} after a warm-up; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())})",
        "",
        "| N x T | GEMM | triangle's GEMMs alone s | TFLOP/s | matmul-and-threshold degree s | degrees unlike torch FP32's |",
        "|---|---|---|---|---|---|",
    ]
    text = "\n".join(head + lines + split_lines) + "\n"
    print(text)
    print(f"torch_floor n {n} t {t} pairs {pairs} " +
          " ".join(f"{name.lower()}_gemm_s {g:.6f} {name.lower()}_degree_s {d:.6f}" for name, g, d, _ in results) +
          "".join(f" {name.lower().replace(' ', '_')}_gemms_s {g:.6f}" for name, g in split_runs))
    if a.markdown:
        with open(a.markdown, "a") as f:
            f.write(text)


if __name__ == "__main__":
    main()
