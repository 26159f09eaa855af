# Functions shared by the scripts that pack parts of Debian bookworm's Python for another machine
# (sourced by make-runtime.sh, the base runtime, and make-sklearn-addon.sh, scikit-learn on top of
# it), so that both pick package files, shared libraries and glibc versions the same way.

# glibc's own libraries: never packed, they must match the target's dynamic loader
glibc_own='^(libc|libm|libpthread|libdl|librt|libutil|libresolv|libanl|libnsl|libmvec|ld-linux-x86-64)\.so'

# require_packages WHO PKG...: exits naming the apt-get line when a Debian package is not installed.
require_packages() {
  local who=$1 p
  shift
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
      { echo "$who: package $p missing: apt-get install -y --no-install-recommends $p" >&2; exit 1; }
  done
}

# copy_package_files TOP PKG...: the files each installed package put under dist-packages (dpkg -L)
# to the same path below TOP, so nothing else of this machine's dist-packages (pip leftovers, .pth
# hooks) comes along; less tests, byte code and type stubs. Packages not installed are skipped.
copy_package_files() {
  local top=$1 p f
  shift
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || continue
    dpkg -L "$p" | grep '^/usr/lib/python3/dist-packages/.' | while read -r f; do
      [ -f "$f" ] && [ ! -L "$f" ] || continue
      case "$f" in */tests/*|*/test/*|*/__pycache__/*|*.pyc|*.pyi) continue ;; esac
      mkdir -p "$top$(dirname "$f")"
      cp "$f" "$top$f"
    done
  done
}

# bundle_libs TOP [HAVE]: every shared library that the extension modules (and usr/bin/python3.11)
# under TOP load, copied under its soname into TOP/lib, less glibc's own. HAVE: the lib folder of
# the unpacked runtime that TOP extends; ldd searches it (and its glibc-X.Y folders) first, and
# what it resolves there is not copied again. (ldd resolves libblas.so.3 / liblapack.so.3 through
# update-alternatives to OpenBLAS.)
bundle_libs() {
  local top=$1 have=${2:-} search="" d soname path
  if [ -n "$have" ]; then
    for d in "$have"/glibc-* "$have"; do [ -d "$d" ] && search+=${search:+:}$d; done
  fi
  mkdir -p "$top/lib"
  find "$top" -type f \( -name '*.so' -o -name '*.so.*' -o -path '*/usr/bin/python3.11' \) -print0 |
    LD_LIBRARY_PATH=$search xargs -0 ldd 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' | sort -u |
    while read -r soname path; do
      [[ "$soname" =~ $glibc_own ]] && continue
      [ -n "$have" ] && [[ "$path" == "$have"/* ]] && continue
      [ -e "$top/lib/$soname" ] || cp "$(readlink -f "$path")" "$top/lib/$soname"
    done
  find "$top" -type f \( -name '*.so' -o -name '*.so.*' -o -name python3.11 \) -exec strip --strip-unneeded {} +
}

# The newest glibc symbol version in objdump -T's listing of imports on stdin.
newest_glibc() { grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1 | sed 's/GLIBC_//'; }

# glibc_needed TOP: what the interpreter and the extension modules under TOP/usr need (the host
# must have it).
glibc_needed() {
  find "$1/usr" -type f \( -name '*.so' -o -name python3.11 \) -exec objdump -T {} + 2>/dev/null | newest_glibc
}

# split_by_glibc LIBDIR NEED: a library needing a newer glibc than NEED (bookworm's libexpat,
# libcrypt and libstdc++ call arc4random, glibc 2.36) goes to LIBDIR/glibc-X.Y, which debpy.sh puts
# on the library path only where the host's glibc is at least X.Y; elsewhere the host's own copy
# serves (the modules call only functions that older releases of these libraries have).
split_by_glibc() {
  local lib v
  for lib in "$1"/*; do
    [ -f "$lib" ] || continue
    v=$(objdump -T "$lib" 2>/dev/null | newest_glibc)
    if [ -n "$v" ] && [ "$(printf '%s\n%s\n' "$v" "$2" | sort -V | tail -1)" != "$2" ]; then
      mkdir -p "$1/glibc-$v"
      mv "$lib" "$1/glibc-$v/"
    fi
  done
}

# glibc_info LIBDIR: the INFO line's tail naming the libraries of LIBDIR/glibc-X.Y folders.
glibc_info() {
  local d
  (cd "$1" && for d in glibc-*; do [ -d "$d" ] && printf '; with glibc >= %s also %s' "${d#glibc-}" "$(ls "$d" | tr '\n' ' ')"; done)
}

# write_tarball TOP OUT: TOP's contents as OUT (xz -9; root-owned, sorted: the same files give the
# same listing), written beside OUT first so that an interrupted run leaves no partial OUT.
write_tarball() {
  mkdir -p "$(dirname "$2")"
  XZ_OPT='-9 -T2' tar -C "$1" --owner=0 --group=0 --sort=name -cJf "$2.tmp" .
  mv "$2.tmp" "$2"
  echo "wrote $2: $(du -k "$2" | cut -f1) KiB ($(du -sk "$1" | cut -f1) KiB unpacked)"
}
