#!/usr/bin/env bash
# Installs the .deb files made by scripts/bundle-deps.sh on a host without network access.
# Usage: scripts/install-bundle.sh [DIR] [PREFIX]
#   DIR     folder of .deb files (default .deps)
#   PREFIX  where to unpack (default /). On Debian 12 with PREFIX=/ the packages are installed with
#           `dpkg -i`; elsewhere (another distribution, or no root) they are unpacked with `dpkg -x`
#           and you configure with -DCMAKE_PREFIX_PATH=PREFIX/usr (libraries in PREFIX/usr/lib).
set -euo pipefail
dir="${1:-.deps}"
prefix="${2:-/}"
shopt -s nullglob
debs=("$dir"/*.deb)
[ ${#debs[@]} -gt 0 ] || { echo "install-bundle: no .deb files in $dir" >&2; exit 1; }
if [ "$prefix" = "/" ] && [ "$(id -u)" -eq 0 ] && grep -q '^ID=debian' /etc/os-release 2>/dev/null; then
  dpkg -i "${debs[@]}"
else
  for f in "${debs[@]}"; do dpkg -x "$f" "$prefix"; done
  [ "$prefix" = "/" ] && ldconfig || true
  echo "install-bundle: unpacked ${#debs[@]} packages into $prefix"
fi
