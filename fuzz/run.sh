#!/usr/bin/env bash
# Runs one fuzz campaign: fuzz/run.sh TARGET [SECONDS] (default 1800).
#
# Builds TARGET with cargo fuzz on the stable toolchain (no sanitizer,
# optimised, debug assertions and overflow checks on), then runs libFuzzer
# in fork mode so that the campaign goes on past a crash, a timeout or an
# out-of-memory input, each kept in fuzz/artifacts/TARGET/. The corpus grows
# in fuzz/corpus/TARGET/ (fuzz/seeds.sh fills it first), the log goes to
# fuzz/logs/TARGET.log. Runs at the lowest priority: the fuzzer takes only
# what the rest of the machine leaves.
set -euo pipefail

target=${1:?usage: fuzz/run.sh TARGET [SECONDS]}
seconds=${2:-1800}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

case $target in
    lines | perft) dict=fuzz/fen.dict max_len=4096 ;;
    *) dict=fuzz/pgn.dict max_len=16384 ;;
esac
mkdir -p "fuzz/corpus/$target" "fuzz/artifacts/$target" fuzz/logs

exec nice -n 19 cargo fuzz run --sanitizer none --release --debug-assertions \
    --codegen-units 16 "$target" -- \
    -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
    -max_total_time="$seconds" -timeout=30 -rss_limit_mb=2048 \
    -max_len="$max_len" -dict="$dict" -close_fd_mask=2 -print_final_stats=1 \
    > "fuzz/logs/$target.log" 2>&1
