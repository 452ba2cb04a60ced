#!/usr/bin/env bash
# Fuzzes the Matrix Market reader (matrices/mm_io.cpp) with libFuzzer + ASan + UBSan.
#
# Usage: matrices/fuzz/run.sh [SECONDS] [extra libFuzzer flags...]
#   SECONDS   how long to fuzz (default 60)
#   env KBENCH_FUZZ_DIR  work directory (default /tmp/kbench-fuzz): holds the binary, a copy of
#                        the seed corpus (matrices/test/malformed), which grows as the fuzzer
#                        finds new coverage, and crash-* / leak-* / oom-* / timeout-* artifacts.
#   env CXX              clang++ with libFuzzer (default clang++; Debian: clang, libclang-rt-14-dev)
# Example: matrices/fuzz/run.sh 120 -jobs=2 -workers=2
# Exit status: non-zero when the fuzzer found a bug; the reproducer is under $KBENCH_FUZZ_DIR/
# artifacts. Replay one with `$KBENCH_FUZZ_DIR/fuzz_mm_io FILE`, fix the bug, then add the file
# to matrices/test/malformed (and to kMalformed in matrices/test/test_mm_io.cpp when it is not a
# valid_* seed) so the ctest fuzz_mm_io_corpus replays it forever.
set -euo pipefail

seconds="${1:-60}"
shift $(( $# > 0 ? 1 : 0 ))
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work="${KBENCH_FUZZ_DIR:-/tmp/kbench-fuzz}"
cxx="${CXX:-clang++}"
mkdir -p "$work/corpus" "$work/artifacts"

echo "building $work/fuzz_mm_io with $cxx"
"$cxx" -std=c++17 -O1 -g -fno-omit-frame-pointer \
    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -I"$repo" \
    "$repo/matrices/mm_io.cpp" "$repo/matrices/fuzz/fuzz_mm_io.cpp" \
    -lz -o "$work/fuzz_mm_io"

cp -n "$repo"/matrices/test/malformed/* "$work/corpus/" 2>/dev/null || true

# Tokens of the format, so mutations reach the banner and value parsers quickly.
cat > "$work/mm.dict" <<'EOF'
"%%MatrixMarket"
"matrix"
"coordinate"
"array"
"real"
"integer"
"pattern"
"complex"
"general"
"symmetric"
"skew-symmetric"
"hermitian"
"nan"
"inf"
"e+308"
"e-324"
"2147483647"
"2147483648"
"\x0a"
"\x0d\x0a"
"%"
"\x1f\x8b"
EOF

echo "fuzzing for ${seconds}s (corpus $work/corpus, artifacts $work/artifacts)"
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
"$work/fuzz_mm_io" -max_total_time="$seconds" -dict="$work/mm.dict" -max_len=4096 \
    -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
    -artifact_prefix="$work/artifacts/" "$@" "$work/corpus"
