#!/usr/bin/env bash
# Usage: reproduce_leaves_tree_clean.sh <kbench> <source-dir>
# `kbench reproduce all` without a GPU re-renders the stored results; on a clean checkout it must
# change nothing. Copies the source tree as it is now (tracked files plus untracked ones that
# are not ignored) into a temporary git repository, commits it there, runs
# `kbench reproduce all --results-dir <tmp>/results` with no visible GPU and fails, printing
# the changed files and the diff stat, when `git status --porcelain` is not empty.
# Needs git and bash only (no network); the temporary directory is removed on exit.
set -euo pipefail

if [[ $# -ne 2 ]]; then
    echo "usage: $0 <kbench> <source-dir>" >&2
    exit 2
fi
kbench=$(realpath "$1")
src=$(realpath "$2")

tmp=$(mktemp -d "${TMPDIR:-/tmp}/kbench-clean-tree.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
tree="$tmp/tree"
mkdir "$tree"

# Git isolated from the user's and the system's configuration (hooks, signing, excludes).
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME=kbench GIT_AUTHOR_EMAIL=kbench@localhost
export GIT_COMMITTER_NAME=kbench GIT_COMMITTER_EMAIL=kbench@localhost

# Copy the files git sees in the source tree; tracked files deleted in the work tree are skipped.
git -C "$src" ls-files -z --cached --others --exclude-standard |
    while IFS= read -r -d '' f; do
        if [[ -e "$src/$f" || -L "$src/$f" ]]; then printf '%s\0' "$f"; fi
    done |
    tar -C "$src" --null --no-recursion -T - -cf - | tar -C "$tree" -xf -

git -C "$tree" init -q
git -C "$tree" add -A
git -C "$tree" commit -q --no-verify --no-gpg-sign -m "snapshot of $src"

echo "kbench reproduce all --results-dir $tree/results (no GPU)"
rc=0
CUDA_VISIBLE_DEVICES= "$kbench" reproduce all --results-dir "$tree/results" || rc=$?

status=$(git -C "$tree" status --porcelain --untracked-files=all)
if [[ -n "$status" ]]; then
    echo "FAIL: kbench reproduce all changed the checkout:"
    echo "$status"
    git -C "$tree" --no-pager diff --stat
    echo "text changes (first 60 lines):"
    git -C "$tree" --no-pager diff --no-color --no-ext-diff -- . ':(exclude)*.png' | head -n 60
    exit 1
fi
if [[ $rc -ne 0 ]]; then
    echo "FAIL: kbench reproduce all exited with $rc"
    exit 1
fi
echo "PASS: the checkout is unchanged"
