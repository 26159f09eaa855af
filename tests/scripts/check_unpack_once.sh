#!/bin/sh
# scripts/unpack-once.sh, which unpacks the carried .gpu-deps and Debian Python tarballs on the GPU
# machine: the files arrive, a second call with the same tarball leaves the folder alone (a file
# added there survives), a changed tarball replaces the folder whole, and a missing tarball fails
# without touching it.
#   sh check_unpack_once.sh REPO WORK
set -eu
repo=$1 work=$2
unpack="bash $repo/scripts/unpack-once.sh"
rm -rf "$work" && mkdir -p "$work/src/usr/lib"
fail() { echo "check_unpack_once: $*" >&2; exit 1; }

printf 'first\n' >"$work/src/usr/lib/a.txt"
tar -C "$work/src" -cJf "$work/t.tar.xz" usr
$unpack "$work/t.tar.xz" "$work/out"
[ "$(cat "$work/out/usr/lib/a.txt")" = first ] || fail "first unpack lacks usr/lib/a.txt"

touch "$work/out/marker"
$unpack "$work/t.tar.xz" "$work/out"
[ -e "$work/out/marker" ] || fail "the same tarball was unpacked again"

printf 'second\n' >"$work/src/usr/lib/a.txt"
printf 'new\n' >"$work/src/usr/lib/b.txt"
touch -d '2001-01-01' "$work/t.tar.xz"  # another time stamp even within the same second
tar -C "$work/src" -cJf "$work/t.tar.xz" usr
$unpack "$work/t.tar.xz" "$work/out"
[ "$(cat "$work/out/usr/lib/a.txt")" = second ] || fail "a changed tarball was not unpacked"
[ -e "$work/out/usr/lib/b.txt" ] || fail "a changed tarball's new file is missing"
[ ! -e "$work/out/marker" ] || fail "the folder was not replaced whole"

if $unpack "$work/missing.tar.xz" "$work/out" 2>/dev/null; then fail "a missing tarball did not fail"; fi
[ -e "$work/out/usr/lib/b.txt" ] || fail "a missing tarball touched the folder"
[ -z "$(ls -A "$work" | grep '^\.unpack')" ] || fail "a temporary folder was left behind"
echo "check_unpack_once: ok"
