#!/bin/sh
# The Python module's install paths (issue 29), each in the scratch folder WORK (nothing else is
# written; the system's Python stays as it was):
#   install_test.sh pip   REPO STAGE LIBDIR WORK PYTHON
#     the git-tracked files of a fresh clone, `pip install --no-build-isolation` (offline, --target)
#     against the staged fastconn.pc, then fastconn, its sample data and every doctest from another folder
#   install_test.sh cmake REPO STAGE LIBDIR WORK PYTHON
#     bindings/python/install_module.cmake as `cmake --install` runs it with FASTCONN_INSTALL_PYTHON=ON,
#     under DESTDIR with prefix /usr/local: the module lands in the interpreter's /usr/local site
#     folder with an RPATH to /usr/local/lib (not to the DESTDIR copy), and works from there
set -eu
mode=$1 repo=$2 stage=$3 libdir=$4 work=$5 python=$6
rm -rf "$work"
mkdir -p "$work/clone" "$work/elsewhere"
clone=$work/clone
if git -C "$repo" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  # what a clone holds: tracked files only (links kept as links), with this tree's contents
  (cd "$repo" && git ls-files -z -- bindings/python examples/data tests/data | xargs -0 cp -P --parents -t "$clone")
else
  for d in bindings/python examples/data tests/data; do mkdir -p "$clone/$d" && cp -RP "$repo/$d/." "$clone/$d/"; done
fi
unset PKG_CONFIG_PATH

case $mode in
pip)
  if ! PKG_CONFIG_LIBDIR="$stage/$libdir/pkgconfig" "$python" -m pip install --no-build-isolation --no-deps \
       --no-index --no-cache-dir --disable-pip-version-check --target "$work/site" "$clone/bindings/python" \
       >"$work/pip.log" 2>&1; then
    cat "$work/pip.log"; exit 1
  fi
  cd "$work/elsewhere"
  PYTHONPATH="$work/site" "$python" "$repo/tests/python/check_installed.py" "$work/site"
  ;;
cmake)
  root=$work/root
  mkdir -p "$root/usr/local"
  cp -a "$stage/." "$root/usr/local/"
  DESTDIR=$root cmake -DCMAKE_INSTALL_PREFIX=/usr/local -DFASTCONN_PYTHON="$python" \
    -DFASTCONN_PYTHON_SOURCE="$clone/bindings/python" -DFASTCONN_PYTHON_WORK="$work/build" \
    -DFASTCONN_PYTHON_LIBDIR="$libdir" -P "$repo/bindings/python/install_module.cmake"
  site=$("$python" -c 'import sys; print(next(p for p in sys.path if p.startswith("/usr/local/") and p.endswith("-packages")))')
  test -f "$root$site/fastconn/__init__.py" || { echo "no fastconn in $root$site"; exit 1; }
  readelf -d "$root$site"/fastconn/_fastconn*.so | grep -E 'R(UN)?PATH' | grep -q "\[/usr/local/$libdir\]" ||
    { echo "the extension's RPATH is not /usr/local/$libdir:"; readelf -d "$root$site"/fastconn/_fastconn*.so | grep PATH; exit 1; }
  cd "$work/elsewhere"
  LD_LIBRARY_PATH="$root/usr/local/$libdir" PYTHONPATH="$root$site" "$python" "$repo/tests/python/check_installed.py" "$root$site"
  ;;
*) echo "usage: $0 pip|cmake REPO STAGE LIBDIR WORK PYTHON" >&2; exit 2 ;;
esac
