#!/usr/bin/env bash
# Runs Debian bookworm's python3.11 (with Debian's numpy, OpenBLAS and Dask) from the tarball of
# tools/debian-python/make-runtime.sh, on any x86-64 Linux with glibc >= 2.35 (see its INFO file):
#
#   bash tools/debian-python/debpy.sh [PYTHON ARGS...]      e.g. debpy.sh -c 'import numpy; numpy.show_config()'
#   bash tools/debian-python/debpy.sh --print-python        unpack, print the interpreter's path
#
# Unpacks DEBPY_TARBALL (default <repo>/.gpu-python/debian-python.tar.xz) into DEBPY_DIR (default
# /tmp/debpy) unless that folder holds it already (scripts/unpack-once.sh), then runs its python3.11
# with PYTHONHOME, PYTHONPATH and LD_LIBRARY_PATH pointing inside it, and no user site, so that
# nothing of the host's Python (its numpy wheel, pip installs) is seen. Processes the interpreter
# starts (Dask's workers, multiprocessing) inherit that environment and run the same Python.
set -euo pipefail
export PATH=${PATH:-/usr/bin:/bin}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tarball=${DEBPY_TARBALL:-$here/../../.gpu-python/debian-python.tar.xz}
dir=${DEBPY_DIR:-/tmp/debpy}
[ -f "$tarball" ] || { echo "debpy: no runtime at $tarball (build it with tools/debian-python/make-runtime.sh)" >&2; exit 1; }

bash "$here/../../scripts/unpack-once.sh" "$tarball" "$dir"
if [ "${1:-}" = --print-python ]; then echo "$dir/usr/bin/python3.11"; exit 0; fi

export PYTHONHOME=$dir/usr
# DEBPY_PYTHONPATH: folders searched first (e.g. fastconn's package, tools/debian-python/pack-binding.sh)
export PYTHONPATH=${DEBPY_PYTHONPATH:+$DEBPY_PYTHONPATH:}$dir/usr/lib/python3/dist-packages
# lib/glibc-X.Y: bundled libraries that need glibc X.Y (make-runtime.sh), only where the host has it
libs=$dir/lib
host_glibc=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}')
for d in "$dir"/lib/glibc-*; do
  [ -d "$d" ] || continue
  v=${d##*/glibc-}
  [ -n "$host_glibc" ] && [ "$(printf '%s\n%s\n' "$v" "$host_glibc" | sort -V | head -1)" = "$v" ] && libs=$d:$libs
done
export LD_LIBRARY_PATH=$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PYTHONNOUSERSITE=1
exec "$dir/usr/bin/python3.11" "$@"
