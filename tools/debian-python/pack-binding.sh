#!/usr/bin/env bash
# Packs fastconn's Python package, built here for Debian bookworm's python3.11 (the SWIG extension
# and the pure-Python layer), as .gpu-python/fastconn-python.tar.xz, for the carried Debian Python
# on the GPU machine (scripts/gpu-steps/cohort.sh): there, DEBPY_PYTHONPATH points at the unpacked
# package and LD_LIBRARY_PATH at the GPU build's libfastconn.so.0, which the extension then loads
# instead of the CPU library it was linked against (same soname and C ABI).
#
#   bash tools/debian-python/pack-binding.sh [BUILD_DIR]     (default build-k: a CPU build whose
#        tests built python-binding/; it is rebuilt here from the current sources first)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build-k}
[ -d "$build/python-binding" ] || { echo "pack-binding: no $build/python-binding (run the python tests of that build once)" >&2; exit 1; }
cmake --build "$build" --target fastconn >/dev/null
cmake --build "$build/python-binding" >/dev/null
pkg=$build/python-binding/python
ls "$pkg"/fastconn/_fastconn*.so >/dev/null
mkdir -p "$root/.gpu-python"
tar -C "$pkg" --exclude=__pycache__ -cJf "$root/.gpu-python/fastconn-python.tar.xz" fastconn
ls -la "$root/.gpu-python/fastconn-python.tar.xz"
