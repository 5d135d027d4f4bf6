#!/usr/bin/env bash
# select side by side with validate and with pgn-extract asking the same
# questions, in one run, and the games each finds compared (issue 46).
#
#   benches/select.sh BINARY [CORPUS.pgn]
#
# CORPUS defaults to the decompressed pgnmentor file (/tmp/pgnmentor.pgn;
# make it with `zstd -dc ../shared/data/games/pgnmentor.pgn.zst`). Rounds are
# interleaved ($ROUNDS, default 3), pgnkit at -j2; pgn-extract (Debian's,
# /usr/games/pgn-extract, one core: it has no threads) runs once per
# question. The questions, each as both tools ask it:
#   tag       --tag 'White~^Carlsen'          -TwCarlsen (a prefix of White)
#   position  --position FEN (the Najdorf)    -H its Polyglot key
#   sub-fen   --sub-fen (pawns d4, e4; d6)    -Tf the same board, `?` elsewhere
#   material  --material 'KRP*krp*'           -z a file `0 rp* rp*` (stability
#             (one rook each, any pawns)      0: the balance need not last,
#                                             as pgnkit's; its default is 2)
# Then the games each found, as (White, Black, Date, Round, key) from
# `convert -f csv` of both outputs: how many each, and how many differ.
set -euo pipefail
bin=$(realpath "$1")
corpus=${2:-/tmp/pgnmentor.pgn}
rounds=${ROUNDS:-3}
extract=${PGN_EXTRACT:-/usr/games/pgn-extract}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

najdorf='rnbqkb1r/1p2pppp/p2p1n2/8/3NP3/2N5/PPP2PPP/R1BQKB1R w KQkq - 0 6'
# Its Polyglot key, as pgnkit writes it (`final_zobrist`), in hex.
najdorf_key=$(printf '%016x' "$(echo "$najdorf" | "$bin" convert -q --from fen -f csv - |
    python3 -c 'import csv, sys; print(next(csv.DictReader(sys.stdin))["final_zobrist"])')")
printf '0 rp* rp*\n' >"$work/material"

run() { # NAME CMD...: wall time and peak memory of CMD, stdout dropped
    local name=$1
    shift
    /usr/bin/time -f "%e s  %M KB  $name" "$@" >/dev/null 2>>"$work/time" || true
    tail -n1 "$work/time"
}

declare -A ours=(
    [tag]="--tag White~^Carlsen"
    [position]="--position $najdorf"
    [sub-fen]="--sub-fen 8/8/3p4/8/3PP3/8/8/8"
    [material]="--material KRP*krp*"
)
declare -A theirs=(
    [tag]="-TwCarlsen"
    [position]="-H$najdorf_key"
    [sub-fen]="-Tf????????/????????/???p????/????????/???PP???/????????/????????/????????"
    [material]="-z$work/material"
)
questions=(tag position sub-fen material)

for r in $(seq "$rounds"); do
    echo "round $r"
    run "validate -j2" "$bin" validate -q -j2 "$corpus"
    for q in "${questions[@]}"; do
        # shellcheck disable=SC2086 # the criteria are words
        IFS=' ' read -r -a args <<<"${ours[$q]}"
        if [[ $q == position ]]; then args=(--position "$najdorf"); fi
        run "select -j2 $q" "$bin" select -q -j2 "${args[@]}" "$corpus"
    done
done
for q in "${questions[@]}"; do
    IFS=' ' read -r -a args <<<"${ours[$q]}"
    if [[ $q == position ]]; then args=(--position "$najdorf"); fi
    "$bin" select -q -j2 "${args[@]}" "$corpus" >"$work/ours-$q.pgn" || true
    if [[ -x "$extract" ]]; then
        run "pgn-extract $q (${theirs[$q]})" "$extract" -s "${theirs[$q]}" -o "$work/theirs-$q.pgn" "$corpus"
    else
        : >"$work/theirs-$q.pgn"
    fi
    for side in ours theirs; do
        "$bin" convert -q -j2 -f csv --tags Round "$work/$side-$q.pgn" >"$work/$side-$q.csv" 2>/dev/null || true
    done
    python3 - "$q" "$work/ours-$q.csv" "$work/theirs-$q.csv" <<'EOF'
import csv, sys
from collections import Counter
csv.field_size_limit(1 << 30)
def games(path):
    try:
        with open(path, newline="", encoding="utf-8", errors="replace") as f:
            return Counter((r["White"], r["Black"], r["Date"], r["Round"], r["key"]) for r in csv.DictReader(f))
    except FileNotFoundError:
        return Counter()
ours, theirs = games(sys.argv[2]), games(sys.argv[3])
only_ours, only_theirs = ours - theirs, theirs - ours
print(f"{sys.argv[1]}: select {sum(ours.values())} games, pgn-extract {sum(theirs.values())}; "
      f"only select {sum(only_ours.values())}, only pgn-extract {sum(only_theirs.values())}")
for g in list(only_ours)[:3]:
    print("  only select:", g[:4])
for g in list(only_theirs)[:3]:
    print("  only pgn-extract:", g[:4])
EOF
done
