#!/usr/bin/env bash
# Installs the Debian packages fastconn needs, only those missing, without prompting.
#   scripts/install-deps.sh build   compiler, CMake, OpenBLAS: enough to build and run the demo
#   scripts/install-deps.sh test    everything the full test suite uses (bindings included)
set -euo pipefail

build_packages=(g++ cmake make pkg-config libopenblas-openmp-dev
  libnifti2-dev zlib1g-dev)  # the command-line program's NIfTI reader and its .nii.gz writer (tools/cli)
test_packages=("${build_packages[@]}" libgtest-dev valgrind
  python3 python3-numpy python3-scipy python3-pytest python3-cffi python3-dev swig python3-igraph python3-networkx
  python3-pip python3-setuptools python3-wheel  # the Python module's pip install (tests/python)
  python3-leidenalg  # Leiden against leidenalg (bindings/python/tests/test_leiden.py, bench/modularity/peers.py)
  python3-nibabel  # the command-line program's tests (tests/cli)
  python3-distributed  # fastconn.cohort's tests: cohorts on a local Dask cluster (bindings/python)
  python3-sklearn  # partial correlation against scikit-learn's LedoitWolf (tests/scripts/check_partial_sklearn.py, bench)
  r-base-dev r-cran-rcpp r-cran-testthat r-cran-matrix r-cran-igraph
  octave liboctave-dev
  clang libclang-rt-dev libomp-dev)  # the sanitizer builds and libFuzzer (scripts/sanitize.sh)

case "${1:-test}" in
  build) wanted=("${build_packages[@]}") ;;
  test) wanted=("${test_packages[@]}") ;;
  *) echo "usage: $0 build|test" >&2; exit 2 ;;
esac

missing=()
for p in "${wanted[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#wanted[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: not root and no sudo; install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null
