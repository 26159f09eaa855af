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
# cohort runner's Dask workers can use the same runtime.
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
for p in python3-numpy python3-distributed; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    { echo "make-runtime: package $p missing: apt-get install -y --no-install-recommends $p" >&2; exit 1; }
done

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
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || continue
  dpkg -L "$p" | grep '^/usr/lib/python3/dist-packages/.' | while read -r f; do
    [ -f "$f" ] && [ ! -L "$f" ] || continue
    case "$f" in */tests/*|*/test/*|*/__pycache__/*|*.pyc|*.pyi) continue ;; esac
    mkdir -p "$top$(dirname "$f")"
    cp "$f" "$top$f"
  done
done
echo "$pkgs" | tr '\n' ' ' >"$top/PACKAGES"

# --- shared libraries: everything the interpreter and the extension modules load (ldd resolves
# libblas.so.3 / liblapack.so.3 through update-alternatives to OpenBLAS), under their sonames,
# less glibc's own, which must match the target's dynamic loader.
glibc='^(libc|libm|libpthread|libdl|librt|libutil|libresolv|libanl|libnsl|libmvec|ld-linux-x86-64)\.so'
find "$top" -type f \( -name '*.so' -o -name '*.so.*' -o -path '*/usr/bin/python3.11' \) -print0 |
  xargs -0 ldd 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' | sort -u |
  while read -r soname path; do
    [[ "$soname" =~ $glibc ]] && continue
    [ -e "$top/lib/$soname" ] || cp "$(readlink -f "$path")" "$top/lib/$soname"
  done
find "$top" -type f \( -name '*.so' -o -name '*.so.*' -o -name python3.11 \) -exec strip --strip-unneeded {} +

# The newest glibc symbol version in objdump -T's listing of imports on stdin.
newest_glibc() { grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1 | sed 's/GLIBC_//'; }
# what the interpreter and the extension modules need: the host must have it
need=$(find "$top/usr" -type f \( -name '*.so' -o -name python3.11 \) -exec objdump -T {} + 2>/dev/null | newest_glibc)
# A library needing a newer glibc than the interpreter itself (bookworm's libexpat and libcrypt
# call arc4random_buf, glibc 2.36) goes to lib/glibc-X.Y, which debpy.sh puts on the library path
# only where the host's glibc is at least X.Y; elsewhere the host's own copy serves (python3.11
# links libexpat itself but calls only functions every expat 2.x has).
for lib in "$top"/lib/*; do
  v=$(objdump -T "$lib" 2>/dev/null | newest_glibc)
  if [ -n "$v" ] && [ "$(printf '%s\n%s\n' "$v" "$need" | sort -V | tail -1)" != "$need" ]; then
    mkdir -p "$top/lib/glibc-$v"
    mv "$lib" "$top/lib/glibc-$v/"
  fi
done
{
  echo "built $(date -u '+%Y-%m-%d %H:%M UTC') on $(. /etc/os-release; echo "$PRETTY_NAME"), glibc $(ldd --version | head -1 | awk '{print $NF}')"
  echo "python $("$python" -c 'import sys; print(sys.version.split()[0])'), numpy $(dpkg-query -W -f='${Version}' python3-numpy), distributed $(dpkg-query -W -f='${Version}' python3-distributed), OpenBLAS $(dpkg-query -W -f='${Version}' libopenblas0-openmp)"
  echo "needs glibc >= $need (the interpreter's and modules' newest GLIBC_ symbol version)$(cd "$top/lib" && for d in glibc-*; do [ -d "$d" ] && printf '; with glibc >= %s also %s' "${d#glibc-}" "$(ls "$d" | tr '\n' ' ')"; done)"
  echo "libraries: $(cd "$top/lib" && find . -type f | sed 's#^\./##' | sort | tr '\n' ' ')"
} >"$top/INFO"

mkdir -p "$(dirname "$out")"
XZ_OPT='-9 -T2' tar -C "$top" --owner=0 --group=0 --sort=name -cJf "$out.tmp" .
mv "$out.tmp" "$out"
cat "$top/INFO"
echo "wrote $out: $(du -k "$out" | cut -f1) KiB ($(du -sk "$top" | cut -f1) KiB unpacked)"

# --- check: unpacked into a fresh folder, run with an empty environment.
check=$(mktemp -d)
trap 'rm -rf "$stage" "$check"' EXIT
env -i DEBPY_DIR="$check/debpy" DEBPY_TARBALL="$out" bash "$here/debpy.sh" "$here/check_runtime.py"
