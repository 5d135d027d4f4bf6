#!/usr/bin/env bash
# Benchmark `pgnkit validate` on the pgnmentor corpus (412,347 games) against
# Debian's pgn-extract, side by side in one run, and against itself on one
# thread. Prints wall times (median of ROUNDS), throughput, peak memory and
# the two ratios the project tracks:
#   pgn-extract -r -s  /  pgnkit validate -j2      (target >= 12)
#   pgnkit validate -j1 / pgnkit validate -j2      (target >= 1.7)
#
# Usage: benches/validate.sh [CORPUS]   (default ../shared/data/games/pgnmentor.pgn.zst)
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
bin=target/release/pgnkit
size=$(stat -c %s "$pgn")

# run NAME CMD...: prints "seconds peak_kb" for one run.
measure() {
  /usr/bin/time -f "%e %M" -o "$work/time" "$@" > /dev/null 2> "$work/stderr" || true
  tail -n 1 "$work/time"
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

declare -A secs mem
names=(pgn-extract pgnkit-j1 pgnkit-j2)
for ((r = 1; r <= rounds; r++)); do
  for name in "${names[@]}"; do
    case $name in
      pgn-extract) read -r s m < <(measure pgn-extract -r -s "$pgn") ;;
      pgnkit-j1) read -r s m < <(measure "$bin" validate -q -j1 "$pgn") ;;
      pgnkit-j2) read -r s m < <(measure "$bin" validate -q -j2 "$pgn") ;;
    esac
    secs[$name]+="$s "
    mem[$name]=$m
  done
done

summary=$({ "$bin" validate -j2 "$pgn" 2>&1 >/dev/null || true; } | tail -1)
echo "corpus: $corpus ($((size / 1000000)) MB), $summary"
echo "rounds: $rounds (median wall time)"
declare -A med
for name in "${names[@]}"; do
  med[$name]=$(tr ' ' '\n' <<< "${secs[$name]}" | grep . | median)
  awk -v n="$name" -v s="${med[$name]}" -v b="$size" -v m="${mem[$name]}" -v runs="${secs[$name]}" \
    'BEGIN { printf "%-12s %7.2f s  %7.1f MB/s  peak %6.1f MB   runs: %s\n", n, s, b / s / 1e6, m / 1024, runs }'
done
awk -v a="${med[pgn-extract]}" -v b="${med[pgnkit-j1]}" -v c="${med[pgnkit-j2]}" 'BEGIN {
  printf "pgn-extract / pgnkit -j2 = %.1fx (target >= 12)\n", a / c
  printf "pgnkit -j1 / pgnkit -j2  = %.2fx (target >= 1.7)\n", b / c
}'
