#!/usr/bin/env python3
"""Multilayer modularity against leidenalg's temporal multiplex (issue 31 item 2).

The bundled region series (examples/data/fmri_timeseries.csv, 31 regions) in windows of 40 steps
every 10 (22 layers), each window's graph r >= 0.3 (positive weights, no self-loops); ordinal
coupling omega in {0.1, 1}. fastconn's Q (fc_multilayer_modularity through ctypes on the built
library) must equal Mucha et al.'s formula computed here with numpy from its labels to 1e-9, and
be at least the best Q (the same formula) of leidenalg.find_partition_temporal over 5 seeds, less
1e-3. Exit 77 (skipped) without numpy, igraph or leidenalg.
Usage: multilayer_vs_leidenalg.py LIBFASTCONN DATA_CSV
"""
import ctypes
import sys

try:
    import igraph as ig
    import leidenalg as la
    import numpy as np
except ImportError as e:
    print(f"skipped: {e}")
    sys.exit(77)


class Options(ctypes.Structure):  # fc_multilayer_options
    _fields_ = [("resolution", ctypes.c_double), ("omega", ctypes.c_double), ("seed", ctypes.c_uint64),
                ("max_iterations", ctypes.c_int64), ("coupling", ctypes.c_int32), ("reserved", ctypes.c_int32)]


def windows(path, length=40, step=10, threshold=0.3):
    x = np.loadtxt(path, delimiter=",", skiprows=1)
    mats = []
    for start in range(0, x.shape[0] - length + 1, step):
        r = np.corrcoef(x[start:start + length].T)
        np.fill_diagonal(r, 0)
        r[r < threshold] = 0
        mats.append(r.astype(np.float32))
    return mats


def mucha_q(mats, labels, omega):
    """Q of Mucha et al. 2010 (ordinal coupling) of labels[s][i]."""
    n = mats[0].shape[0]
    total, two_mu = 0.0, 0.0
    for s, a in enumerate(mats):
        a = a.astype(np.float64)
        k = a.sum(1)
        two_m = k.sum()
        two_mu += two_m
        same = labels[s][:, None] == labels[s][None, :]
        total += (a - np.outer(k, k) / two_m)[same].sum()
    for s in range(len(mats) - 1):
        total += 2 * omega * (labels[s] == labels[s + 1]).sum()
        two_mu += 2 * omega * n
    return total / two_mu


def fastconn_labels(lib, mats, omega):
    n, layers = mats[0].shape[0], len(mats)
    ctx = ctypes.c_void_p()
    assert lib.fc_context_create(0, -1, ctypes.byref(ctx)) == 0
    graphs = []
    for a in mats:
        offsets, columns, weights = [0], [], []
        for i in range(n):
            nz = np.nonzero(a[i])[0]
            columns += [int(c) for c in nz]
            weights += [float(w) for w in a[i, nz]]
            offsets.append(len(columns))
        g = ctypes.c_void_p()
        status = lib.fc_graph_create_csr(ctypes.c_int64(n), (ctypes.c_int64 * len(offsets))(*offsets),
                                         (ctypes.c_int64 * max(1, len(columns)))(*columns),
                                         (ctypes.c_float * max(1, len(weights)))(*weights), ctypes.byref(g))
        assert status == 0
        graphs.append(g.value)
    o = Options()
    lib.fc_multilayer_options_default(ctypes.byref(o))
    o.omega = omega
    m = ctypes.c_void_p()
    status = lib.fc_multilayer_modularity(ctx, (ctypes.c_void_p * layers)(*graphs), ctypes.c_int64(layers), None,
                                          ctypes.byref(o), ctypes.byref(m))
    assert status == 0, lib.fc_last_error()
    q = ctypes.c_double()
    lib.fc_multilayer_info(m, None, None, None, ctypes.byref(q))
    labels = (ctypes.c_int64 * (n * layers))()
    assert lib.fc_multilayer_labels(m, labels, ctypes.c_int64(n * layers)) == 0
    lib.fc_multilayer_destroy(m)
    for g in graphs:
        lib.fc_graph_destroy(ctypes.c_void_p(g))
    lib.fc_context_destroy(ctx)
    return q.value, np.array(labels).reshape(layers, n)


def main():
    lib = ctypes.CDLL(sys.argv[1])
    lib.fc_last_error.restype = ctypes.c_char_p
    mats = windows(sys.argv[2])
    n = mats[0].shape[0]
    failed = False
    for omega in (0.1, 1.0):
        q, labels = fastconn_labels(lib, mats, omega)
        direct = mucha_q(mats, labels, omega)
        graphs = []
        for a in mats:
            g = ig.Graph.Weighted_Adjacency(a.astype(float).tolist(), mode="undirected")
            g.vs["id"] = list(range(n))
            graphs.append(g)
        theirs = -1.0
        for seed in range(5):
            membership, _ = la.find_partition_temporal(graphs, la.ModularityVertexPartition, interslice_weight=omega,
                                                       weights="weight", seed=seed)
            theirs = max(theirs, mucha_q(mats, np.array(membership).reshape(len(mats), n), omega))
        ok = abs(q - direct) <= 1e-9 and q >= theirs - 1e-3
        failed |= not ok
        print(f"omega {omega}: fastconn Q {q:.6f} (numpy {direct:.6f}), leidenalg best of 5 {theirs:.6f}"
              f" {'ok' if ok else 'FAILED'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
