#!/usr/bin/env python3
"""Quality of fc_leiden_v2's synchronous Leiden (issue 31) beside fc_leiden's queue, igraph's Leiden
and Louvain and leidenalg, on the karate club and LFR graphs (n = 1,000, mu 0.1-0.5, two seeds):
Q from fastconn (one call, seed 1) and the best of three runs (seeds 0-2) of each peer, all on the
CPU. Run with the Python binding importable, e.g.
    PYTHONPATH=build/python-binding/python LD_LIBRARY_PATH=build /usr/bin/python3 \\
        bench/modularity/leiden_sync_quality.py
Needs python3-igraph, python3-leidenalg, python3-networkx, python3-scipy."""
import sys

import igraph as ig
import leidenalg
import networkx as nx
import numpy as np
import scipy.sparse

import fastconn


def to_csr(G, n):
    """The graph's symmetric adjacency (weights 1) as scipy CSR."""
    e = np.array(G.edges(), dtype=np.int64)
    A = scipy.sparse.coo_matrix((np.ones(len(e)), (e[:, 0], e[:, 1])), shape=(n, n))
    return (A + A.T).tocsr()


def main():
    graphs = [("karate", nx.karate_club_graph())]
    for mu in (0.1, 0.2, 0.3, 0.4, 0.5):
        for seed in (1, 2):
            try:
                G = nx.LFR_benchmark_graph(1000, 2.5, 1.5, mu, average_degree=15, max_degree=50, min_community=20,
                                           max_community=100, seed=seed)
                G.remove_edges_from(nx.selfloop_edges(G))
                graphs.append((f"LFR mu {mu} seed {seed}", G))
            except Exception as ex:
                print("LFR", mu, seed, ex, file=sys.stderr)
    for name, G in graphs:
        n = G.number_of_nodes()
        A = to_csr(G, n)
        h = ig.Graph(n=n, edges=list(G.edges()))
        qs = {}
        qs["sync"] = fastconn.leiden(A, algorithm="synchronous").q
        qs["queue"] = fastconn.leiden(A).q
        qs["ig_leiden"] = max(h.modularity(h.community_leiden(objective_function="modularity", n_iterations=-1))
                              for _ in range(3))
        qs["ig_louvain"] = max(h.modularity(h.community_multilevel()) for _ in range(3))
        qs["leidenalg"] = max(h.modularity(leidenalg.find_partition(h, leidenalg.ModularityVertexPartition, n_iterations=-1,
                                                                    seed=s).membership) for s in range(3))
        best = max(qs["ig_leiden"], qs["ig_louvain"], qs["leidenalg"])
        print(f"{name:22s} " + " ".join(f"{k} {v:.6f}" for k, v in qs.items()) + f"  sync>=peers: {qs['sync'] >= best - 1e-12}")


if __name__ == "__main__":
    main()
