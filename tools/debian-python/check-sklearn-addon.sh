#!/usr/bin/env bash
# Checks the scikit-learn addon of the carried Debian Python (make-sklearn-addon.sh, which runs this
# at its end) as the GPU machine will run it: the base runtime and the addon unpacked into fresh
# temporary folders, debpy.sh run with an empty environment (env -i), check_sklearn.py inside it
# (versions, threadpoolctl's OpenBLAS, LedoitWolf on a random 1200 x 300 array against the formula
# and against this machine's /usr/bin/python3 with its own scikit-learn: the same shrinkage).
#
#   bash tools/debian-python/check-sklearn-addon.sh [ADDON] [BASE]
#        (defaults: .gpu-python/sklearn-addon.tar.xz, .gpu-python/debian-python.tar.xz)
#
# Without scikit-learn in /usr/bin/python3 (the GPU machine's image) the comparison with it is
# left out: CHECK_SKLEARN_REFERENCE= (empty) does the same here.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
addon=$(realpath "${1:-$root/.gpu-python/sklearn-addon.tar.xz}")
base=$(realpath "${2:-$root/.gpu-python/debian-python.tar.xz}")
reference=${CHECK_SKLEARN_REFERENCE-/usr/bin/python3}
if [ -n "$reference" ] && ! "$reference" -c 'import sklearn' 2>/dev/null; then
  echo "check-sklearn-addon: $reference has no scikit-learn: no comparison with it"; reference=""
fi
check=$(mktemp -d)
trap 'rm -rf "$check"' EXIT
env -i DEBPY_DIR="$check/debpy" DEBPY_TARBALL="$base" DEBPY_ADDON="$addon" DEBPY_ADDON_DIR="$check/sklearn" \
  bash "$here/debpy.sh" "$here/check_sklearn.py" ${reference:+--reference "$reference"}
