#!/usr/bin/env bash
# dedupe side by side with validate and pgn-extract, in one run, and its
# groups checked a second, plain way (issue 44).
#
#   benches/dedupe.sh BINARY [CORPUS.pgn]
#
# CORPUS defaults to the decompressed pgnmentor file (/tmp/pgnmentor.pgn;
# make it with `zstd -dc ../shared/data/games/pgnmentor.pgn.zst`). Rounds are
# interleaved ($ROUNDS, default 3), each command at -j2; pgn-extract (Debian's,
# /usr/games/pgn-extract, one core: it has no threads) runs once, `-s -d`
# (its `-D` clashes with `-d` in 19.04). The second way: `convert -f csv`'s
# start position and UCI moves, grouped in Python, against the groups of
# `dedupe --no-prefix -f csv` (the games of one key): the differences are
# printed, and should be none.
set -euo pipefail
bin=$(realpath "$1")
corpus=${2:-/tmp/pgnmentor.pgn}
rounds=${ROUNDS:-3}
extract=${PGN_EXTRACT:-/usr/games/pgn-extract}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

run() { # NAME CMD...: wall time and peak memory of CMD, stdout dropped
    local name=$1
    shift
    /usr/bin/time -f "%e s  %M KB  $name" "$@" >/dev/null 2>>"$work/time" || true
    tail -n1 "$work/time"
}

for r in $(seq "$rounds"); do
    echo "round $r"
    run "validate -j2" "$bin" validate -q -j2 "$corpus"
    run "validate -j2 --ignore duplicate-game" "$bin" validate -q -j2 --ignore duplicate-game "$corpus"
    run "dedupe -j2" "$bin" dedupe -q -j2 "$corpus"
    run "dedupe -j2 --no-prefix" "$bin" dedupe -q -j2 --no-prefix "$corpus"
    run "dedupe -j2 -f csv" "$bin" dedupe -q -j2 -f csv "$corpus"
done
if [[ -x "$extract" ]]; then
    run "pgn-extract -s -d" "$extract" -s -d "$work/dups.pgn" -o "$work/unique.pgn" "$corpus"
    echo "pgn-extract repeats: $(grep -c '^\[Event ' "$work/dups.pgn")"
fi
for flags in "" "--no-prefix" "--transpositions"; do
    echo "dedupe $flags: $("$bin" dedupe -j2 $flags -f csv "$corpus" 2>&1 >/dev/null | head -n1)"
done
echo "validate: $("$bin" validate -j2 -f csv --only duplicate-game "$corpus" 2>/dev/null | tail -n +2 | wc -l) duplicate-game findings"

"$bin" convert -q -j2 -f csv "$corpus" >"$work/games.csv" || true
"$bin" dedupe -q -j2 --no-prefix -f csv "$corpus" >"$work/groups.csv" || true
python3 - "$work/games.csv" "$work/groups.csv" <<'EOF'
import csv, sys
from collections import defaultdict
csv.field_size_limit(1 << 30)
plain = defaultdict(list)
with open(sys.argv[1], newline="", encoding="utf-8") as f:
    for row in csv.DictReader(f):
        # Replayed to the end and with a move: the games dedupe groups.
        if row["key"] and row["plies"] not in ("", "0"):
            plain[(row["start_fen"], row["uci"])].append(int(row["game"]))
want = sorted(sorted(g) for g in plain.values() if len(g) > 1)
groups = defaultdict(list)
with open(sys.argv[2], newline="", encoding="utf-8") as f:
    for row in csv.DictReader(f):
        groups[row["group"]].append(int(row["game"]))
got = sorted(sorted(g) for g in groups.values())
print(f"second way: {len(want)} groups, {sum(len(g) - 1 for g in want)} repeats; "
      f"dedupe --no-prefix: {len(got)} groups, {sum(len(g) - 1 for g in got)} repeats; "
      f"{len(set(map(tuple, want)) ^ set(map(tuple, got)))} groups differ")
EOF
