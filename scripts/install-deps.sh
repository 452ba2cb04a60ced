#!/usr/bin/env bash
# Installs kbench's Debian packages (scripts/deps.txt) with apt-get, only those missing.
# Usage: scripts/install-deps.sh        (as root, or with sudo available)
# Offline GPU hosts: see scripts/bundle-deps.sh and scripts/install-bundle.sh.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mapfile -t pkgs < <(grep -v '^\s*#' "$here/deps.txt" | grep -v '^\s*$')

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#pkgs[@]} packages present"
else
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "install-deps: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if ! command -v nvcc >/dev/null && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "install-deps: the CUDA toolkit (>= 12) is not installed at /usr/local/cuda;" \
       "install it from https://developer.nvidia.com/cuda-downloads" >&2
  exit 1
fi
