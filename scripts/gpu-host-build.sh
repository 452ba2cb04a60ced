#!/usr/bin/env bash
# Builds kbench on a GPU host without network access that is not Debian 12 (e.g. an Ubuntu
# image with the CUDA toolkit, OpenMPI and Python): the library packages of
# scripts/bundle-deps.sh, carried in DIR, are unpacked into a prefix (never into /), kbench is
# configured against them and built with every core. Source it, so that LD_LIBRARY_PATH (the
# bundled shared libraries, which Zoltan's own dependencies need at run time) stays set:
#   . scripts/gpu-host-build.sh [DIR] [BUILD_DIR]      (defaults: .deps, build)
# The tree's commit is passed as KBENCH_GIT_SHA (a copied tree has no .git; docs/usage.md "Results").
# KBENCH_MATRIX_DIR, when set, is also the tests' matrix directory (-DKBENCH_MATRIX_DIR): the
# default, ../shared/matrices, is not there on such a host.
_kb_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
_kb_deps="${1:-$_kb_root/.deps}"
_kb_build="${2:-$_kb_root/build}"
_kb_prefix="${KBENCH_DEPS_PREFIX:-/opt/kbench-deps}"
if [ ! -d "$_kb_prefix/usr" ]; then
  "$_kb_root/scripts/install-bundle.sh" "$_kb_deps" "$_kb_prefix" >/dev/null || return 1
fi
mkdir -p "$_kb_build"
export LD_LIBRARY_PATH="$_kb_prefix/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# OpenMPI refuses root without these (the lent machines run commands as root).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cmake -S "$_kb_root" -B "$_kb_build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$_kb_prefix/usr" ${KBENCH_MATRIX_DIR:+-DKBENCH_MATRIX_DIR="$KBENCH_MATRIX_DIR"} \
  ${CMAKE_ARGS:-} >"$_kb_build/configure.log" 2>&1 \
  || { tail -30 "$_kb_build/configure.log"; return 1; }
cmake --build "$_kb_build" -j "$(nproc)" >"$_kb_build/build.log" 2>&1 \
  || { grep -m20 -B2 -A8 "error" "$_kb_build/build.log"; return 1; }
