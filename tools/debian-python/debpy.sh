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
#
# scikit-learn (tools/debian-python/make-sklearn-addon.sh): where DEBPY_ADDON (default
# <repo>/.gpu-python/sklearn-addon.tar.xz) exists, it is unpacked the same way into DEBPY_ADDON_DIR
# (default /tmp/debpy-sklearn), and its dist-packages and lib folders go on PYTHONPATH and
# LD_LIBRARY_PATH after the base runtime's. Without the addon (or with DEBPY_ADDON set empty) nothing
# changes; a DEBPY_ADDON named but missing is an error.
set -euo pipefail
export PATH=${PATH:-/usr/bin:/bin}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tarball=${DEBPY_TARBALL:-$here/../../.gpu-python/debian-python.tar.xz}
dir=${DEBPY_DIR:-/tmp/debpy}
[ -f "$tarball" ] || { echo "debpy: no runtime at $tarball (build it with tools/debian-python/make-runtime.sh)" >&2; exit 1; }
addon=${DEBPY_ADDON-$here/../../.gpu-python/sklearn-addon.tar.xz}
addon_dir=${DEBPY_ADDON_DIR:-/tmp/debpy-sklearn}
if [ -n "${DEBPY_ADDON:-}" ] && [ ! -f "$addon" ]; then
  echo "debpy: no addon at DEBPY_ADDON=$addon (build it with tools/debian-python/make-sklearn-addon.sh)" >&2; exit 1
fi
[ -n "$addon" ] && [ -f "$addon" ] || addon=""

bash "$here/../../scripts/unpack-once.sh" "$tarball" "$dir"
[ -z "$addon" ] || bash "$here/../../scripts/unpack-once.sh" "$addon" "$addon_dir"
if [ "${1:-}" = --print-python ]; then echo "$dir/usr/bin/python3.11"; exit 0; fi

export PYTHONHOME=$dir/usr
# DEBPY_PYTHONPATH: folders searched first (e.g. fastconn's package, tools/debian-python/pack-binding.sh)
export PYTHONPATH=${DEBPY_PYTHONPATH:+$DEBPY_PYTHONPATH:}$dir/usr/lib/python3/dist-packages${addon:+:$addon_dir/usr/lib/python3/dist-packages}
host_glibc=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}')
# lib_path DIR: DIR/lib, preceded by its lib/glibc-X.Y folders (bundled libraries that need glibc
# X.Y, make-runtime.sh) where the host's glibc is at least X.Y
lib_path() {
  local libs=$1/lib d v
  for d in "$1"/lib/glibc-*; do
    [ -d "$d" ] || continue
    v=${d##*/glibc-}
    [ -n "$host_glibc" ] && [ "$(printf '%s\n%s\n' "$v" "$host_glibc" | sort -V | head -1)" = "$v" ] && libs=$d:$libs
  done
  echo "$libs"
}
libs=$(lib_path "$dir")${addon:+:$(lib_path "$addon_dir")}
export LD_LIBRARY_PATH=$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PYTHONNOUSERSITE=1
exec "$dir/usr/bin/python3.11" "$@"
