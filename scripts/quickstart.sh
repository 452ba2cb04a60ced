#!/usr/bin/env bash
# The README's quick start: installs what kbench needs, configures and builds it, then runs
#   scripts/quickstart.sh reproduce [ARGS...]   ->  build/harness/kbench reproduce all [ARGS...]
#   scripts/quickstart.sh test                  ->  ctest (CPU tests; GPU tests skip without a GPU)
# Environment: BUILD_DIR (default build), KBENCH_MATRIX_DIR (SuiteSparse .mtx files, default
# ../shared/matrices when present), CMAKE_ARGS (extra configure arguments), JOBS (build jobs).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mode="${1:-}"
case "$mode" in
  reproduce|test) shift ;;
  *) echo "usage: scripts/quickstart.sh reproduce [kbench reproduce options] | test" >&2; exit 2 ;;
esac

"$root/scripts/install-deps.sh"

build="${BUILD_DIR:-$root/build}"
jobs="${JOBS:-$(nproc)}"
# shellcheck disable=SC2086
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release ${CMAKE_ARGS:-}
cmake --build "$build" -j "$jobs"

if [ "$mode" = test ]; then
  cd "$build"
  ctest --output-on-failure -j "$jobs"
else
  "$build/harness/kbench" reproduce all "$@"
fi
