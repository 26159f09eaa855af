#!/usr/bin/env bash
# Packs Debian bookworm's own Python (python3.11, its standard library, python3-numpy on Debian's
# OpenBLAS, python3-distributed with its dependencies) and the shared libraries they load into one
# tarball that runs on another Linux machine without installing anything:
#
#   bash tools/debian-python/make-runtime.sh [OUT]      (default OUT: .gpu-python/debian-python.tar.xz)
#
# Why: issue 30 measures np.corrcoef as a user of the CI machine kind runs it, with Debian's numpy,
# whose OpenBLAS 0.3.21 detects newer Xeons as Prescott. The GPU machine's image has its own numpy
# wheel (its own OpenBLAS, the right kernels), so this runtime is carried there instead
# (tools/debian-python/debpy.sh unpacks and runs it; scripts/gpu-steps/cpuint.sh uses it). The
# cohort runner's Dask workers can use the same runtime. scikit-learn and scipy come as a separate
# addon on top of it (make-sklearn-addon.sh), so that steps that need only numpy carry 17 MB.
#
# Needs the packages installed here (scripts/install-deps.sh test: python3-numpy,
# python3-distributed, libopenblas0-openmp). Copies no part of glibc: libc, libm, libpthread,
# libdl, librt, libutil and the dynamic loader come from the target machine, which must have glibc
# >= the newest GLIBC_ version the interpreter and modules need (printed at the end; 2.35 for
# bookworm's python3.11; libraries needing more are used only where the host has it). Finally checks the tarball: unpacked into a temporary folder, run with an empty
# environment (check_runtime.py: numpy's BLAS, a Dask LocalCluster computation).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-$root/.gpu-python/debian-python.tar.xz}
python=/usr/bin/python3.11
[ -x "$python" ] || { echo "make-runtime: $python missing (Debian bookworm's python3.11)" >&2; exit 1; }
source "$here/pack-functions.sh"
require_packages make-runtime python3-numpy python3-distributed

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
top=$stage/debpy  # the tarball's root: usr/, lib/, INFO, PACKAGES
mkdir -p "$top/usr/bin" "$top/usr/lib/python3/dist-packages" "$top/lib"
cp "$python" "$top/usr/bin/python3.11"
ln -s python3.11 "$top/usr/bin/python3"

# --- the standard library, less what a program never imports (tests, IDLE, Tk, the static
# libpython of config-*, pip's bootstrap, 2to3). -h: sitecustomize.py is a link into /etc.
tar -C /usr/lib -chf - \
  --exclude='python3.11/test' --exclude='python3.11/idlelib' --exclude='python3.11/tkinter' \
  --exclude='python3.11/turtledemo' --exclude='python3.11/turtle.py' --exclude='python3.11/ensurepip' \
  --exclude='python3.11/lib2to3' --exclude='python3.11/config-3.11-*' --exclude='python3.11/dist-packages' \
  --exclude='python3.11/pydoc_data' --exclude='python3.11/EXTERNALLY-MANAGED' \
  --exclude='*/tests' --exclude='*/test' --exclude='__pycache__' --exclude='*.pyc' \
  --exclude='lib-dynload/_test*' --exclude='lib-dynload/_ctypes_test*' --exclude='lib-dynload/xx*' \
  --exclude='lib-dynload/_xx*' --exclude='lib-dynload/nis.*' --exclude='lib-dynload/_dbm.*' \
  --exclude='lib-dynload/_curses*' --exclude='lib-dynload/readline.*' --exclude='python3.11/curses' \
  python3.11 | tar -C "$top/usr/lib" -xf -
# (nis, dbm, curses and readline would bring Kerberos, Berkeley DB and ncurses: 4 MB that a
# benchmark or a Dask worker never loads)

# --- python3-numpy and python3-distributed with the Python packages they depend on: the files each
# Debian package installed under dist-packages (dpkg -L), so nothing else of this machine's
# dist-packages (pip leftovers, .pth hooks) comes along.
pkgs=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
         --no-replaces --no-enhances python3-distributed python3-numpy 2>/dev/null |
       grep -E '^python3-' | grep -vxE 'python3-minimal' | sort -u)
copy_package_files "$top" $pkgs
echo "$pkgs" | tr '\n' ' ' >"$top/PACKAGES"

# --- shared libraries: everything the interpreter and the extension modules load, under their
# sonames, less glibc's own, which must match the target's dynamic loader.
bundle_libs "$top"
need=$(glibc_needed "$top")
# (python3.11 links libexpat itself but calls only functions every expat 2.x has)
split_by_glibc "$top/lib" "$need"
{
  echo "built $(date -u '+%Y-%m-%d %H:%M UTC') on $(. /etc/os-release; echo "$PRETTY_NAME"), glibc $(ldd --version | head -1 | awk '{print $NF}')"
  echo "python $("$python" -c 'import sys; print(sys.version.split()[0])'), numpy $(dpkg-query -W -f='${Version}' python3-numpy), distributed $(dpkg-query -W -f='${Version}' python3-distributed), OpenBLAS $(dpkg-query -W -f='${Version}' libopenblas0-openmp)"
  echo "needs glibc >= $need (the interpreter's and modules' newest GLIBC_ symbol version)$(glibc_info "$top/lib")"
  echo "libraries: $(cd "$top/lib" && find . -type f | sed 's#^\./##' | sort | tr '\n' ' ')"
} >"$top/INFO"

cat "$top/INFO"
write_tarball "$top" "$out"

# --- check: unpacked into a fresh folder, run with an empty environment.
check=$(mktemp -d)
trap 'rm -rf "$stage" "$check"' EXIT
env -i DEBPY_DIR="$check/debpy" DEBPY_TARBALL="$out" bash "$here/debpy.sh" "$here/check_runtime.py"
