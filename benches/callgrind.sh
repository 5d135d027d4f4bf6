#!/usr/bin/env bash
# Instruction counts (valgrind --tool=callgrind), which a shared, noisy
# machine cannot disturb: the speed guardrail for refactors.
#
#   benches/callgrind.sh BINARY [SLICE.pgn]
#
# SLICE defaults to /tmp/slice8.pgn: the first 8 MB of pgnmentor, cut at the
# last game boundary before byte 8,000,000 (12,251 games). Make it with
#   zstd -dc ../shared/data/games/pgnmentor.pgn.zst | head -c 8000000 >/tmp/head8
#   python3 -c "d=open('/tmp/head8','rb').read(); open('/tmp/slice8.pgn','wb').write(d[:d.rfind(b'\r\n\r\n[Event ')+4])"
# Prints one line per command: instructions (millions) and the command.
set -euo pipefail
bin=$(realpath "$1")
slice=${2:-/tmp/slice8.pgn}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

count() {
    valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" "$@" >/dev/null 2>"$tmp/vg" || true
    local n
    n=$(grep -o 'Collected : [0-9]*' "$tmp/vg" | grep -o '[0-9]*$')
    printf '%8d M  %s\n' "$((n / 1000000))" "${*:2}"
}

count "$bin" validate -q -j1 "$slice"
count "$bin" annotate-outcome -q -j1 "$slice"
count "$bin" convert -q -j1 --to pgn "$slice"
count "$bin" convert -q -j1 --to uci "$slice"
count "$bin" convert -q -j1 --to csv "$slice"
count "$bin" convert -q -j1 --to arrow "$slice"
count "$bin" perft -q -j1 --hash 0 -d 5
