#!/bin/bash
# bench/RESULTS-leiden.md's runs: fc_leiden on bench_modularity's planted partition and voxel
# network (2 threads), then bench/modularity/leiden_peers.py on the same graph files. Run from a
# build with -DFASTCONN_BUILD_BENCH=ON in build/; outputs in /tmp/bench_*.txt and /tmp/peers_*.txt.
set -e
cd "$(dirname "$0")/../.."
for graph in planted voxel; do
  args=(); [ $graph = voxel ] && args=(--voxel-samples 200 --density 0.015)
  OMP_NUM_THREADS=2 build/bench/bench_modularity --method leiden --threads 2 --reps 3 "${args[@]}" \
      --save /tmp/leiden_$graph.fcg --labels /tmp/leiden_${graph}_labels.txt > /tmp/bench_$graph.txt 2>&1
  q=$(grep '^Q = ' /tmp/bench_$graph.txt | awk '{print $3}')
  s=$(grep 'median' /tmp/bench_$graph.txt | sed 's/.*: median \([0-9.]*\) s.*/\1/')
  c=$(grep 'CPU time' /tmp/bench_$graph.txt | sed 's/.*CPU time (all threads) median \([0-9.]*\) s.*/\1/')
  uptime >> /tmp/bench_$graph.txt
  (cd bench/modularity && /usr/bin/python3 leiden_peers.py --graph /tmp/leiden_$graph.fcg \
      --labels /tmp/leiden_${graph}_labels.txt --fastconn-q "$q" --fastconn-seconds "$s" --fastconn-cpu "$c" > /tmp/peers_$graph.txt 2>&1)
  cat /tmp/bench_$graph.txt /tmp/peers_$graph.txt
done
