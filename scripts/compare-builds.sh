#!/usr/bin/env bash
# Compares every public call's outputs between two builds of fastconn, bit for bit: builds
# scripts/output_digest.c against each build folder's library and diffs their digests on the
# bundled region series and structured synthetic data, for each backend asked (default: cpu, and
# cuda when nvidia-smi sees a GPU). For restructurings, which must change no output (issue 28).
#
#   scripts/compare-builds.sh BUILD_A SOURCE_A BUILD_B SOURCE_B [cpu|cuda ...]
#
# SOURCE_* is the source tree of each build (for its public header). Exit 0 when every digest of
# every backend is the same.
set -euo pipefail
[ $# -ge 4 ] || { sed -n '2,9p' "$0"; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
a_build=$1 a_src=$2 b_build=$3 b_src=$4
shift 4
backends=("$@")
if [ ${#backends[@]} -eq 0 ]; then
  backends=(cpu)
  nvidia-smi -L >/dev/null 2>&1 && backends+=(cuda)
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for side in a b; do
  if [ $side = a ]; then build=$a_build src=$a_src; else build=$b_build src=$b_src; fi
  build=$(cd "$build" && pwd)
  cc -std=c99 -O1 "$root/scripts/output_digest.c" -I "$src/include" -I "$build/include" -I "$build/include/fastconn" \
     -L "$build" -lfastconn -lm -Wl,-rpath,"$build" -o "$work/digest-$side"
done
status=0
for backend in "${backends[@]}"; do
  for side in a b; do
    "$work/digest-$side" "$backend" "$root/examples/data/fmri_timeseries.csv" >"$work/$side-$backend.txt"
  done
  if cmp -s "$work/a-$backend.txt" "$work/b-$backend.txt"; then
    echo "$backend: the same bits ($(wc -l <"$work/a-$backend.txt") digests)"
  else
    echo "$backend: DIFFERENT"
    diff "$work/a-$backend.txt" "$work/b-$backend.txt" || true
    status=1
  fi
done
exit $status
