#!/usr/bin/python3
"""Peers of fc_modularity on the same graph (issue 11), timed in the same session as
bench_modularity: igraph's community_leading_eigenvector (Newman 2006, ARPACK) and
community_multilevel (Louvain), optionally networkx's louvain_communities, each with its Q from
igraph's modularity(); and igraph's modularity() of fastconn's labels against fastconn's Q.

Run with /usr/bin/python3 (Debian python3-igraph, python3-networkx, python3-numpy):

  build/bench/bench_modularity --save /tmp/planted.fcg --labels /tmp/fastconn_labels.txt
  /usr/bin/python3 bench/modularity/peers.py --graph /tmp/planted.fcg \
      --labels /tmp/fastconn_labels.txt --fastconn-q <Q printed by bench_modularity>

The graph file is fastconn's format (src/graph/graph_file.hpp): "FCGRAPH1", uint32 version,
uint32 reserved, int64 n_nodes, int64 n_edges, int64 row_offsets[n + 1], int64 columns[2 m],
float32 weights[2 m], little-endian.
"""
import argparse
import signal
import sys
import time

import numpy as np


def read_graph(path):
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:8] != b"FCGRAPH1":
        sys.exit(f"{path}: not a fastconn graph file")
    version, _ = np.frombuffer(raw, "<u4", 2, 8)
    if version != 1:
        sys.exit(f"{path}: format version {version}, expected 1")
    n, m = (int(x) for x in np.frombuffer(raw, "<i8", 2, 16))
    at = 32
    offsets = np.frombuffer(raw, "<i8", n + 1, at)
    at += 8 * (n + 1)
    columns = np.frombuffer(raw, "<i8", 2 * m, at)
    at += 16 * m
    weights = np.frombuffer(raw, "<f4", 2 * m, at)
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(offsets))
    upper = rows < columns
    return n, rows[upper], columns[upper], weights[upper].astype(np.float64)


def timed(f):
    a = time.perf_counter()
    r = f()
    return r, time.perf_counter() - a


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--graph", required=True)
    ap.add_argument("--labels", help="fastconn's labels, one per line")
    ap.add_argument("--fastconn-q", type=float, help="Q reported by fc_modularity for --labels")
    ap.add_argument("--networkx", action="store_true", help="also networkx louvain_communities (10 minutes at most)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    import igraph as ig
    import random

    random.seed(args.seed)  # igraph's multilevel draws from Python's generator
    ig.set_random_number_generator(random)

    n, i, j, w = read_graph(args.graph)
    g = ig.Graph(n=n, edges=np.column_stack([i, j]).tolist(), directed=False)
    weighted = not np.all(w == 1.0)
    weights = w.tolist() if weighted else None
    print(f"graph: {n} nodes, {len(i)} edges, {'weighted' if weighted else 'binary'}; igraph {ig.__version__}")

    failures = 0
    if args.labels:
        labels = np.loadtxt(args.labels, dtype=np.int64)
        q_igraph = g.modularity(labels.tolist(), weights=weights)
        line = f"igraph modularity() of fastconn's labels: Q = {q_igraph:.12f}, K = {labels.max() + 1}"
        if args.fastconn_q is not None:
            diff = abs(q_igraph - args.fastconn_q)
            ok = diff <= 1e-9
            failures += not ok
            line += f"; fastconn's Q = {args.fastconn_q:.12f}, |diff| = {diff:.2e} ({'OK' if ok else 'FAIL'}, bound 1e-9)"
        print(line)

    lev, t = timed(lambda: g.community_leading_eigenvector(weights=weights))
    print(f"igraph community_leading_eigenvector: {t:.3f} s, Q = {g.modularity(lev.membership, weights=weights):.6f}, K = {len(lev)}")
    lou, t = timed(lambda: g.community_multilevel(weights=weights))
    print(f"igraph community_multilevel (Louvain): {t:.3f} s, Q = {g.modularity(lou.membership, weights=weights):.6f}, K = {len(lou)}")

    if args.networkx:
        import networkx as nx

        def alarm(*_):
            raise TimeoutError

        h = nx.Graph()
        h.add_nodes_from(range(n))
        h.add_weighted_edges_from(zip(i.tolist(), j.tolist(), w.tolist()))
        signal.signal(signal.SIGALRM, alarm)
        signal.alarm(600)
        try:
            parts, t = timed(lambda: nx.community.louvain_communities(h, weight="weight", seed=args.seed))
            member = np.empty(n, dtype=np.int64)
            for c, p in enumerate(parts):
                member[list(p)] = c
            print(f"networkx louvain_communities: {t:.3f} s, Q = {g.modularity(member.tolist(), weights=weights):.6f}, K = {len(parts)}")
        except TimeoutError:
            print("networkx louvain_communities: did not finish within 600 s")
        finally:
            signal.alarm(0)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
