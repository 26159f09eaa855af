#!/bin/sh
# tools/debian-python/debpy.sh with and without the scikit-learn addon, on stand-in tarballs (a
# python3.11 that prints its environment): without an addon (none at the default path, or
# DEBPY_ADDON set empty) PYTHONPATH and LD_LIBRARY_PATH are the base runtime's alone and nothing more
# is unpacked; with one, its dist-packages and lib follow the base's (its lib/glibc-X.Y folders only
# where the host's glibc is X.Y or newer); a DEBPY_ADDON that names no file fails, naming it.
#   sh check_debpy_addon.sh REPO WORK
set -eu
repo=$1 work=$2
rm -rf "$work" && mkdir -p "$work/repo/tools/debian-python" "$work/repo/scripts" "$work/repo/.gpu-python"
fail() { echo "check_debpy_addon: $*" >&2; exit 1; }
# debpy.sh finds its tarballs and unpack-once.sh relative to itself: a stand-in repository
cp "$repo/tools/debian-python/debpy.sh" "$work/repo/tools/debian-python/"
cp "$repo/scripts/unpack-once.sh" "$work/repo/scripts/"
debpy="$work/repo/tools/debian-python/debpy.sh"

mkdir -p "$work/base/usr/bin" "$work/base/usr/lib/python3/dist-packages" "$work/base/lib/glibc-2.0"
printf '#!/bin/sh\necho "PYTHONPATH=$PYTHONPATH"\necho "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"\n' >"$work/base/usr/bin/python3.11"
chmod +x "$work/base/usr/bin/python3.11"
tar -C "$work/base" -cJf "$work/repo/.gpu-python/debian-python.tar.xz" .
mkdir -p "$work/addon/usr/lib/python3/dist-packages/sklearn" "$work/addon/lib/glibc-2.0" "$work/addon/lib/glibc-99.0"
tar -C "$work/addon" -cJf "$work/addon.tar.xz" .

run() { env -i DEBPY_DIR="$work/debpy" DEBPY_ADDON_DIR="$work/sklearn" "$@" bash "$debpy"; }
d=$work/debpy s=$work/sklearn
before="PYTHONPATH=$d/usr/lib/python3/dist-packages
LD_LIBRARY_PATH=$d/lib/glibc-2.0:$d/lib"
[ "$(run)" = "$before" ] || fail "without an addon: $(run)"
[ ! -e "$s" ] || fail "without an addon, $s was made"
[ "$(run DEBPY_ADDON=)" = "$before" ] || fail "with DEBPY_ADDON empty: $(run DEBPY_ADDON=)"

with="PYTHONPATH=$d/usr/lib/python3/dist-packages:$s/usr/lib/python3/dist-packages
LD_LIBRARY_PATH=$d/lib/glibc-2.0:$d/lib:$s/lib/glibc-2.0:$s/lib"
[ "$(run DEBPY_ADDON="$work/addon.tar.xz")" = "$with" ] || fail "with DEBPY_ADDON: $(run DEBPY_ADDON="$work/addon.tar.xz")"
[ -d "$s/usr/lib/python3/dist-packages/sklearn" ] || fail "the addon was not unpacked into DEBPY_ADDON_DIR"
cp "$work/addon.tar.xz" "$work/repo/.gpu-python/sklearn-addon.tar.xz"
[ "$(run)" = "$with" ] || fail "with the addon at the default path: $(run)"
[ "$(run DEBPY_PYTHONPATH=/first | head -1)" = "PYTHONPATH=/first:$d/usr/lib/python3/dist-packages:$s/usr/lib/python3/dist-packages" ] ||
  fail "DEBPY_PYTHONPATH is not searched first: $(run DEBPY_PYTHONPATH=/first | head -1)"

if msg=$(run DEBPY_ADDON="$work/missing.tar.xz" 2>&1); then fail "a missing DEBPY_ADDON did not fail"; fi
case "$msg" in *"$work/missing.tar.xz"*) ;; *) fail "a missing DEBPY_ADDON's message does not name it: $msg" ;; esac
echo "check_debpy_addon: ok"
