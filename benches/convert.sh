#!/usr/bin/env bash
# Benchmark `pgnkit convert` on the pgnmentor corpus (412,347 games) against
# Debian's pgn-extract, side by side in one run (ROUNDS rounds, median wall
# time), and print the ratio the issue tracks:
#   pgn-extract -s -Wuci -o /dev/null  /  pgnkit convert --to uci -j2   (target >= 10)
# plus `convert --to jsonl` and `--to csv` for reference. When pgnkit has a
# PGN writer (`convert --to pgn` works), it also times
#   pgn-extract -s -o /dev/null  /  pgnkit convert --to pgn -j2          (target >= 10)
#
# Usage: benches/convert.sh [CORPUS]   (default ../shared/data/games/pgnmentor.pgn.zst)
# Needs: zstd, pgn-extract (apt-get install zstd pgn-extract), GNU time.
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=${1:-../shared/data/games/pgnmentor.pgn.zst}
rounds=${ROUNDS:-3}
export PATH="$PATH:/usr/games"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pgn="$work/corpus.pgn"
case "$corpus" in
  *.zst) zstd -dq "$corpus" -o "$pgn" ;;
  *) cp "$corpus" "$pgn" ;;
esac
cargo build --release --quiet
bin=${CARGO_TARGET_DIR:-target}/release/pgnkit
size=$(stat -c %s "$pgn")

# measure CMD...: prints "seconds peak_kb" for one run.
measure() {
  /usr/bin/time -f "%e %M" -o "$work/time" "$@" > /dev/null 2> "$work/stderr" || true
  tail -1 "$work/time"  # GNU time prefixes a line when the exit status is not 0
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

names=(extract-uci pgnkit-uci pgnkit-jsonl pgnkit-csv)
if echo '1. e4 *' | "$bin" convert -q --to pgn > /dev/null 2>&1; then
  names+=(extract-pgn pgnkit-pgn)
fi
declare -A secs mem
for ((r = 1; r <= rounds; r++)); do
  for name in "${names[@]}"; do
    case $name in
      extract-uci) read -r s m < <(measure pgn-extract -s -Wuci -o /dev/null "$pgn") ;;
      extract-pgn) read -r s m < <(measure pgn-extract -s -o /dev/null "$pgn") ;;
      pgnkit-uci) read -r s m < <(measure "$bin" convert -q -j2 --to uci "$pgn") ;;
      pgnkit-pgn) read -r s m < <(measure "$bin" convert -q -j2 --to pgn "$pgn") ;;
      pgnkit-jsonl) read -r s m < <(measure "$bin" convert -q -j2 --to jsonl "$pgn") ;;
      pgnkit-csv) read -r s m < <(measure "$bin" convert -q -j2 --to csv "$pgn") ;;
    esac
    secs[$name]+="$s "
    mem[$name]=$m
  done
done

summary=$("$bin" convert -j2 --to uci "$pgn" 2>&1 >/dev/null | tail -1 || true)
echo "corpus: $corpus ($((size / 1000000)) MB), $summary"
echo "rounds: $rounds (median wall time)"
declare -A med
for name in "${names[@]}"; do
  med[$name]=$(tr ' ' '\n' <<< "${secs[$name]}" | grep . | median)
  awk -v n="$name" -v s="${med[$name]}" -v b="$size" -v m="${mem[$name]}" -v runs="${secs[$name]}" \
    'BEGIN { printf "%-13s %7.2f s  %7.1f MB/s  peak %6.1f MB   runs: %s\n", n, s, b / s / 1e6, m / 1024, runs }'
done
awk -v a="${med[extract-uci]}" -v b="${med[pgnkit-uci]}" 'BEGIN {
  printf "pgn-extract -Wuci / pgnkit --to uci -j2 = %.1fx (target >= 10)\n", a / b
}'
if [[ -n ${med[pgnkit-pgn]:-} ]]; then
  awk -v a="${med[extract-pgn]}" -v b="${med[pgnkit-pgn]}" 'BEGIN {
    printf "pgn-extract / pgnkit --to pgn -j2 = %.1fx (target >= 10)\n", a / b
  }'
fi
