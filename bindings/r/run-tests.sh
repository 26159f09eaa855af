#!/bin/sh
# Installs the R package against an installed fastconn and tests it.
#   run-tests.sh PKGCONFIG_DIR WORK_DIR [test|check]
# PKGCONFIG_DIR holds fastconn.pc (e.g. <prefix>/lib/pkgconfig); WORK_DIR receives a copy of
# the package (for its tests, and for R CMD build) and the R library it is installed into.
#   test  (default): R CMD INSTALL of the source tree itself (which must be left unchanged), then
#         the testthat tests against the installed package.
#   check: R CMD build + R CMD check --no-manual (docs, examples, tests); fails on a WARNING.
# Used by CTest (tests/r/CMakeLists.txt).
set -eu

if [ $# -lt 2 ] || [ $# -gt 3 ]; then
  echo "usage: $0 PKGCONFIG_DIR WORK_DIR [test|check]" >&2
  exit 2
fi
pkgconfig_dir=$1
work=$2
mode=${3:-test}
here=$(cd "$(dirname "$0")" && pwd)

rm -rf "$work"
mkdir -p "$work/library"
cp -R "$here" "$work/fastconn"
(cd "$work/fastconn" && ./cleanup)

# The package must find fastconn through pkg-config alone (as a user's install does) and load
# through the rpath that configure records, so no LD_LIBRARY_PATH.
unset LD_LIBRARY_PATH
PKG_CONFIG_PATH="$pkgconfig_dir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
export PKG_CONFIG_PATH

case "$mode" in
  test)
    # Installed from the source tree itself, as the README tells users to: it must be left as it
    # was (src/install.libs.R removes what configure and the compiler wrote).
    before=$(cd "$here" && find . | LC_ALL=C sort)
    R CMD INSTALL --no-multiarch --library="$work/library" "$here"
    after=$(cd "$here" && find . | LC_ALL=C sort)
    if [ "$before" != "$after" ]; then
      echo "run-tests.sh: R CMD INSTALL $here left build products in the source tree:" >&2
      printf '%s\n' "$before" >"$work/before.txt"
      printf '%s\n' "$after" >"$work/after.txt"
      diff "$work/before.txt" "$work/after.txt" >&2 || true
      exit 1
    fi
    R_LIBS="$work/library" Rscript --vanilla -e "
      testthat::test_dir('$work/fastconn/tests/testthat', package = 'fastconn',
                         load_package = 'installed', stop_on_failure = TRUE)"
    ;;
  check)
    cd "$work"
    R CMD build --no-build-vignettes fastconn
    R_LIBS="$work/library" R CMD check --no-manual --no-build-vignettes fastconn_*.tar.gz
    if grep -q "^Status:.*WARNING" fastconn.Rcheck/00check.log; then
      echo "run-tests.sh: R CMD check reported a WARNING (see above)" >&2
      exit 1
    fi
    ;;
  *)
    echo "run-tests.sh: unknown mode '$mode' (test or check)" >&2
    exit 2
    ;;
esac
