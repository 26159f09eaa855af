#!/usr/bin/python3
"""Peers of fc_leiden on the same graph (issue 31), timed in the same session as
`bench_modularity --method leiden`: igraph's community_multilevel (Louvain) and community_leiden
(modularity, until stable), and leidenalg's ModularityVertexPartition (until stable), each with its
Q from igraph's modularity(); then fastconn's time and Q against each (time ratio: the peer's time
over fastconn's; Q ratio: fastconn's Q over the peer's), and igraph's modularity() of fastconn's
labels against fastconn's Q. The peers run on one core (none of them is parallel).

  build/bench/bench_modularity --method leiden --threads 2 --save /tmp/g.fcg --labels /tmp/l.txt
  /usr/bin/python3 bench/modularity/leiden_peers.py --graph /tmp/g.fcg --labels /tmp/l.txt \\
      --fastconn-q <Q printed> --fastconn-seconds <median printed>
"""
import argparse
import random
import sys
import time

import numpy as np

from peers import read_graph, timed


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--graph", required=True)
    ap.add_argument("--labels", required=True, help="fastconn's labels, one per line")
    ap.add_argument("--fastconn-q", type=float, required=True)
    ap.add_argument("--fastconn-seconds", type=float, required=True)
    ap.add_argument("--fastconn-cpu", type=float, help="fastconn's CPU seconds (all threads), as printed")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    import igraph as ig
    import leidenalg

    random.seed(args.seed)
    ig.set_random_number_generator(random)
    n, i, j, w = read_graph(args.graph)
    g = ig.Graph(n=n, edges=np.column_stack([i, j]).tolist(), directed=False)
    weighted = not np.all(w == 1.0)
    weights = w.tolist() if weighted else None
    print(f"graph: {n} nodes, {len(i)} edges, {'weighted' if weighted else 'binary'}; igraph {ig.__version__}, "
          f"leidenalg {leidenalg.version}")
    labels = np.loadtxt(args.labels, dtype=np.int64)
    q_ig = g.modularity(labels.tolist(), weights=weights)
    diff = abs(q_ig - args.fastconn_q)
    print(f"igraph modularity() of fastconn's labels: {q_ig:.12f}; fastconn's Q {args.fastconn_q:.12f}, "
          f"|diff| = {diff:.2e} ({'OK' if diff <= 1e-9 else 'FAIL'}, bound 1e-9)")

    peers = [
        ("igraph community_multilevel (Louvain)", lambda: g.community_multilevel(weights=weights).membership),
        ("igraph community_leiden (modularity, n_iterations=-1)",
         lambda: g.community_leiden(objective_function="modularity", weights=weights, n_iterations=-1).membership),
        ("leidenalg ModularityVertexPartition (n_iterations=-1)",
         lambda: leidenalg.find_partition(g, leidenalg.ModularityVertexPartition, weights=weights, n_iterations=-1,
                                          seed=args.seed).membership),
    ]
    # CPU seconds beside the wall seconds: on a machine shared with other work the wall time
    # measures the neighbours too (the peers use one thread, so their CPU time is their own time).
    fc_cpu = args.fastconn_cpu if args.fastconn_cpu is not None else float("nan")
    print("| method | seconds | CPU seconds | Q | K | fastconn's speed-up | on CPU time | fastconn's Q / theirs |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    print(f"| fastconn fc_leiden (2 threads) | {args.fastconn_seconds:.3f} | {fc_cpu:.3f} | {args.fastconn_q:.6f} | "
          f"{labels.max() + 1} | 1 | 1 | 1 |")
    for name, f in peers:
        c = time.process_time()
        member, t = timed(f)
        c = time.process_time() - c
        q = g.modularity(member, weights=weights)
        print(f"| {name} | {t:.3f} | {c:.3f} | {q:.6f} | {max(member) + 1} | {t / args.fastconn_seconds:.2f} x | "
              f"{c / fc_cpu:.2f} x | {args.fastconn_q / q:.4f} |", flush=True)
    return 0 if diff <= 1e-9 else 1


if __name__ == "__main__":
    sys.exit(main())
