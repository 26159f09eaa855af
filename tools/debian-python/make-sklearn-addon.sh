#!/usr/bin/env bash
# Packs Debian bookworm's scikit-learn (python3-sklearn, python3-sklearn-lib, python3-scipy,
# python3-joblib, python3-threadpoolctl) as an addon to the carried Debian Python of
# make-runtime.sh, with the shared libraries their extension modules load that the base runtime
# lacks (libstdc++, scipy's liblbfgsb; OpenBLAS, libgfortran and libgomp come from the base):
#
#   bash tools/debian-python/make-sklearn-addon.sh [OUT]   (default OUT: .gpu-python/sklearn-addon.tar.xz)
#
# Why: bench/partial_bench.py times sklearn's LedoitWolf + np.linalg.inv against fastconn's partial
# correlation, and must run as a user of issue 30's CI machine kind runs it: Debian's numpy and
# scipy on Debian's OpenBLAS 0.3.21 (Prescott kernels on newer Xeons), on the GPU machine's Intel
# host, where nothing can be installed. debpy.sh adds the addon when .gpu-python holds it.
#
# The base runtime (DEBPY_TARBALL, default .gpu-python/debian-python.tar.xz) is unpacked into a
# temporary folder: ldd resolves the modules' libraries against its lib folder first, so only what
# it lacks is packed. Left out: tests, byte code, Cython/C/Fortran sources (.pyx .pxd .pxi .c .h .f:
# build inputs) and sample data no import reads (scipy.misc's images and ECG, sklearn.datasets'
# bundled data sets, descriptions and images: the loaders of those fail, nothing else does).
# The tarball's root: usr/lib/python3/dist-packages, lib/ (lib/glibc-X.Y as in make-runtime.sh),
# INFO, PACKAGES. Finally checks it with check-sklearn-addon.sh (base + addon unpacked into fresh
# folders, run with an empty environment, LedoitWolf against this machine's /usr/bin/python3).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-$root/.gpu-python/sklearn-addon.tar.xz}
base=${DEBPY_TARBALL:-$root/.gpu-python/debian-python.tar.xz}
source "$here/pack-functions.sh"
pkgs="python3-sklearn python3-sklearn-lib python3-scipy python3-joblib python3-threadpoolctl"
# shellcheck disable=SC2086
require_packages make-sklearn-addon $pkgs
[ -f "$base" ] || { echo "make-sklearn-addon: no base runtime at $base (tools/debian-python/make-runtime.sh)" >&2; exit 1; }

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir "$stage/base"
tar -C "$stage/base" -xJf "$base"
top=$stage/addon
mkdir -p "$top"
# shellcheck disable=SC2086
copy_package_files "$top" $pkgs
echo "$pkgs" >"$top/PACKAGES"
site=$top/usr/lib/python3/dist-packages
find "$site" -type f \( -name '*.pyx' -o -name '*.pxd' -o -name '*.pxi' -o -name '*.c' -o -name '*.h' \
  -o -name '*.f' \) -delete
rm -f "$site"/scipy/misc/*.dat
rm -rf "$site"/sklearn/datasets/{data,descr,images}
find "$site" -type d -empty -delete

bundle_libs "$top" "$stage/base/lib"
need=$(glibc_needed "$top")
split_by_glibc "$top/lib" "$need"
cxx=$(find "$top/usr" -type f -name '*.so' -exec objdump -T {} + 2>/dev/null | grep -o 'GLIBCXX_[0-9.]*' | sort -uV | tail -1)
{
  echo "built $(date -u '+%Y-%m-%d %H:%M UTC') on $(. /etc/os-release; echo "$PRETTY_NAME"), glibc $(ldd --version | head -1 | awk '{print $NF}'), for the base runtime: $(head -1 "$stage/base/INFO")"
  echo "$(for p in $pkgs; do printf '%s %s, ' "${p#python3-}" "$(dpkg-query -W -f='${Version}' "$p")"; done | sed 's/, $//')"
  echo "needs glibc >= $need (the modules' newest GLIBC_ symbol version)$(glibc_info "$top/lib"); the modules need libstdc++ $cxx (the host's where lib/glibc-X.Y is not used: Ubuntu 22.04's has it)"
  echo "libraries: $(cd "$top/lib" && find . -type f | sed 's#^\./##' | sort | tr '\n' ' ')"
} >"$top/INFO"
cat "$top/INFO"
write_tarball "$top" "$out"

bash "$here/check-sklearn-addon.sh" "$out" "$base"
