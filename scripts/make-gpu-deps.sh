#!/usr/bin/env bash
# Packs what the GPU machine's image lacks for a fastconn build (OpenBLAS with its headers, its
# Fortran runtime, GoogleTest) into one compressed tarball that the device tool carries:
#
#   bash scripts/make-gpu-deps.sh [OUT]      (default OUT: .gpu-deps/gpu-deps.tar.xz)
#
# The files are those the Debian packages below installed here (dpkg -L; scripts/install-deps.sh
# test installs them), less documentation and OpenBLAS's static library, laid out as
# `dpkg -x` would under root/usr. scripts/gpu-check.sh unpacks the tarball into .gpu-deps/root on
# the device (scripts/unpack-once.sh) and points CMake there when the system has no cblas.h. The
# tool carries at most 64 MiB a call, working tree included: compressed, these 40 MB take about a
# quarter of that beside the Debian Python runtime (.gpu-python, tools/debian-python).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:-$root/.gpu-deps/gpu-deps.tar.xz}
packages="libopenblas0-openmp libopenblas-openmp-dev libgfortran5 libquadmath0 libgtest-dev"

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    { echo "make-gpu-deps: package $p missing: apt-get install -y --no-install-recommends $p" >&2; exit 1; }
  dpkg -L "$p" | grep -E '^/usr/(include|lib)/' | while read -r f; do
    # regular files and links (the sonames' links), not folders; no static OpenBLAS (58 MB), which
    # nothing links: the build takes the shared library
    [ -f "$f" ] || [ -L "$f" ] || continue
    case "$f" in */openblas-openmp/lib*.a) continue ;; esac
    mkdir -p "$stage/usr$(dirname "${f#/usr}")"
    cp -P --preserve=timestamps "$f" "$stage$f"  # the packages' times: a rebuilt tarball rebuilds nothing
  done
done
mkdir -p "$(dirname "$out")"
XZ_OPT='-9 -T2' tar -C "$stage" --owner=0 --group=0 --sort=name -cJf "$out.tmp" usr
mv "$out.tmp" "$out"
# The carried folder holds the tarball alone: an unpacked copy beside it (the former layout, or
# one gpu-check.sh left) would travel too, and the device unpacks its own.
if [ -d "$(dirname "$out")/root" ] && [ "$(dirname "$out")" = "$root/.gpu-deps" ]; then
  rm -rf "$root/.gpu-deps/root"
  echo "removed the unpacked .gpu-deps/root"
fi
echo "wrote $out: $(du -k "$out" | cut -f1) KiB ($(du -sk "$stage" | cut -f1) KiB unpacked) from $packages"
