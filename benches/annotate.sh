#!/bin/sh
# Side-by-side timing of `annotate-outcome` against `validate` (issue 3:
# at most 3x with --threads 2), then instruction counts on a slice with
# callgrind, which a shared, noisy machine cannot disturb.
#
#   benches/annotate.sh [CORPUS.pgn] [ROUNDS]
#
# Needs a release build (`cargo build --release`); CARGO_TARGET_DIR is
# honoured. The corpus defaults to the decompressed pgnmentor file.
set -eu
corpus=${1:-/tmp/pgnmentor.pgn}
rounds=${2:-3}
bin=${CARGO_TARGET_DIR:-target}/release/pgnkit
t() { /usr/bin/time -f "%e %U" "$@" >/dev/null 2>>"$tmp/t" || true; tail -n1 "$tmp/t"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "round validate(wall user) annotate(wall user) ratio(wall) ratio(user)"
i=1
while [ "$i" -le "$rounds" ]; do
    v=$(t "$bin" validate -q -j2 "$corpus")
    a=$(t "$bin" annotate-outcome -q -j2 "$corpus")
    echo "$i $v $a" | awk '{printf "%s %s %s %s %s %.2f %.2f\n", $1, $2, $3, $4, $5, $4/$2, $5/$3}'
    i=$((i + 1))
done
if command -v valgrind >/dev/null; then
    head -c 3000000 "$corpus" >"$tmp/slice.pgn"
    for cmd in validate annotate-outcome; do
        valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" \
            "$bin" "$cmd" -q -j1 "$tmp/slice.pgn" >/dev/null 2>"$tmp/vg" || true
        echo "$cmd: $(grep -o 'Collected : [0-9]*' "$tmp/vg") instructions on a 3 MB slice"
    done
fi
