#!/usr/bin/env bash
# Unpacks a carried tarball once: after `bash scripts/unpack-once.sh TARBALL DIR`, DIR holds the
# tarball's files. Nothing is done when DIR already holds this tarball's files (its .tarball stamp:
# size and modification time); otherwise they go into a fresh folder beside DIR, which then
# replaces DIR, so an interrupted unpack never passes for a whole one. Used for the folders the
# device tool carries compressed (.gpu-deps: scripts/make-gpu-deps.sh; .gpu-python:
# tools/debian-python/make-runtime.sh and make-sklearn-addon.sh).
set -euo pipefail
export PATH=${PATH:-/usr/bin:/bin}
tarball=${1:?usage: unpack-once.sh TARBALL DIR}
dir=${2:?usage: unpack-once.sh TARBALL DIR}
[ -f "$tarball" ] || { echo "unpack-once: no $tarball" >&2; exit 1; }
id=$(stat -c '%s %Y' "$tarball")
[ "$(cat "$dir/.tarball" 2>/dev/null)" = "$id" ] && exit 0
parent=$(dirname "$dir")
mkdir -p "$parent"
tmp=$(mktemp -d "$parent/.unpack.XXXXXX")
chmod 755 "$tmp"  # mktemp makes it private
tar -C "$tmp" -xJf "$tarball" || { rm -rf "$tmp"; exit 1; }
echo "$id" >"$tmp/.tarball"
rm -rf "$dir"
mv "$tmp" "$dir"
