#!/usr/bin/env bash
# Byte-identity guard for refactors and optimisations: runs every
# subcommand and format (Parquet and Arrow included; merge has its own
# tests) of one pgnkit binary over a corpus and the fixtures,
# and records the SHA-256, size and exit status of each stdout. Run it with
# the binary saved before the change and with the new one, then diff the two
# records.
#
#   benches/compare.sh BINARY OUT.txt [CORPUS.pgn]
#   diff before.txt after.txt && echo identical
#
# CORPUS defaults to the decompressed pgnmentor file (/tmp/pgnmentor.pgn;
# make it with `zstd -dc ../shared/data/games/pgnmentor.pgn.zst`). With
# CORPUS=none only the fixtures are compared. FEN, EPD and UCI line inputs
# are derived from the corpus with the first binary's own output, written to
# $LINES (default /tmp/compare-lines) once and reused, so both runs read the
# same lines. Threads: $JOBS (default 2).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "$1")
out=$2
corpus=${3:-/tmp/pgnmentor.pgn}
jobs=${JOBS:-2}
lines=${LINES:-/tmp/compare-lines}
: >"$out"

# rec NAME CMD...: one line "NAME exit size sha256" for CMD's stdout. Size
# and hash come from one reader of the pipe, so neither can race the other.
rec() {
    local name=$1 code sum
    shift
    set +e
    sum=$("$@" 2>/dev/null | python3 -c '
import hashlib, sys
h, n = hashlib.sha256(), 0
for block in iter(lambda: sys.stdin.buffer.read(1 << 20), b""):
    h.update(block)
    n += len(block)
print(f"bytes={n} sha={h.hexdigest()[:16]}")')
    code=${PIPESTATUS[0]}
    set -e
    echo "$name exit=$code $sum" >>"$out"
}

# pgn_all LABEL FILE...: every PGN-reading subcommand and format.
pgn_all() {
    local label=$1
    shift
    for f in text csv jsonl html; do
        rec "$label validate -f $f" "$bin" validate -q -j"$jobs" -f "$f" "$@"
    done
    for f in text html; do
        rec "$label annotate -f $f" "$bin" annotate-outcome -q -j"$jobs" -f "$f" "$@"
    done
    rec "$label annotate --problems -f csv" "$bin" annotate-outcome -q -j"$jobs" --problems "$@"
    for r in fide app online; do
        for f in csv jsonl pgn; do
            rec "$label annotate --rules $r -f $f" "$bin" annotate-outcome -q -j"$jobs" --rules "$r" -f "$f" "$@"
        done
    done
    rec "$label annotate -f pgn --fix-results" "$bin" annotate-outcome -q -j"$jobs" -f pgn --fix-results "$@"
    for t in pgn uci san lan fen epd csv jsonl; do
        rec "$label convert --to $t" "$bin" convert -q -j"$jobs" --to "$t" "$@"
    done
    for t in fen epd jsonl; do
        rec "$label convert --to $t --positions all" "$bin" convert -q -j"$jobs" --to "$t" --positions all "$@"
    done
    rec "$label convert --to pgn --no-comments --no-nags --no-variations" \
        "$bin" convert -q -j"$jobs" --to pgn --no-comments --no-nags --no-variations "$@"
    rec "$label convert --to pgn --keep-invalid" "$bin" convert -q -j"$jobs" --to pgn --keep-invalid "$@"
    rec "$label convert --to csv --tags" "$bin" convert -q -j"$jobs" --to csv --tags Event,Site,ECO,FEN "$@"
    # select: the games byte for byte, a line each, the records; criteria
    # on tags, moves, positions and material (issue 46).
    rec "$label select --player" "$bin" select -q -j"$jobs" --player a "$@"
    rec "$label select -f text --move" "$bin" select -q -j"$jobs" -f text --move O-O-O --move 'black:Qxf2+' "$@"
    rec "$label select -f csv --sub-fen --side-to-move" "$bin" select -q -j"$jobs" -f csv --sub-fen 8/8/8/8/3PP3/8/8/8 --side-to-move black "$@"
    rec "$label select --material --invert" "$bin" select -q -j"$jobs" --material 'KRP*krp*' --invert "$@"
    rec "$label select -f jsonl --eco --plies" "$bin" select -q -j"$jobs" -f jsonl --eco B --plies 40..80 "$@"
    # crosstable: each event's standings (issue 47).
    for f in text csv jsonl html; do
        rec "$label crosstable -f $f" "$bin" crosstable -q -j"$jobs" -f "$f" "$@"
    done
    # The columnar forms: their bytes too are the same for any -j.
    for f in parquet arrow; do
        rec "$label validate -f $f" "$bin" validate -q -j"$jobs" -f "$f" "$@"
        rec "$label annotate -f $f --tags Event" "$bin" annotate-outcome -q -j"$jobs" -f "$f" --tags Event "$@"
        rec "$label convert --to $f" "$bin" convert -q -j"$jobs" --to "$f" "$@"
        rec "$label convert --to $f --positions all" "$bin" convert -q -j"$jobs" --to "$f" --positions all "$@"
    done
}

# lines_all LABEL FROM FILE...: every target from one line format.
lines_all() {
    local label=$1 from=$2
    shift 2
    for t in pgn uci san lan fen epd csv jsonl; do
        rec "$label convert --from $from --to $t" "$bin" convert -q -j"$jobs" --from "$from" --to "$t" "$@"
    done
}

mapfile -t pgns < <(find fixtures -name '*.pgn' | sort)
for f in "${pgns[@]}"; do
    pgn_all "$f" "$f"
done
pgn_all "fixtures/*.pgn" "${pgns[@]}"
lines_all fixtures/convert/positions.fen fen fixtures/convert/positions.fen
lines_all fixtures/convert/puzzles.epd epd fixtures/convert/puzzles.epd
lines_all fixtures/convert/games.uci uci fixtures/convert/games.uci
for t in uci san fen; do
    rec "sniffed fixtures/convert/* --to $t" "$bin" convert -q -j"$jobs" --to "$t" \
        fixtures/convert/positions.fen fixtures/convert/puzzles.epd fixtures/convert/games.uci
done

# The schema of every record, as text and as JSON.
for sub in "" validate annotate-outcome convert select; do
    rec "schema $sub" "$bin" schema $sub
    rec "schema $sub --json" "$bin" schema $sub --json
done

# perft: counts, divide, Chess960, --moves, suites.
kiwi='r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq -'
rec "perft startpos -d 5" "$bin" perft -q -j"$jobs" -d 5
rec "perft kiwipete -d 4 --divide" "$bin" perft -q -j"$jobs" -d 4 --divide "$kiwi"
rec "perft kiwipete -d 3 --divide --hash 0" "$bin" perft -q -j"$jobs" -d 3 --divide --hash 0 "$kiwi"
rec "perft --moves" "$bin" perft -q -j"$jobs" -d 4 --divide --moves "e2e4 e7e5 g1f3"
rec "perft chess960" "$bin" perft -q -j"$jobs" -d 4 --divide --chess960 'bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9'
for s in fixtures/perft/*.perft fixtures/perft/*.epd; do
    rec "perft --suite $s" "$bin" perft -q -j"$jobs" --suite "$s" --max-nodes 2000000
done

[[ $corpus == none ]] && exit 0

pgn_all corpus "$corpus"
if [[ ! -s $lines/positions.fen ]]; then
    mkdir -p "$lines"
    "$bin" convert -q -j"$jobs" --to fen --positions all "$corpus" 2>/dev/null | head -n 300000 >"$lines/positions.fen" || true
    "$bin" convert -q -j"$jobs" --to epd --positions all "$corpus" 2>/dev/null | head -n 300000 >"$lines/positions.epd" || true
    "$bin" convert -q -j"$jobs" --to uci "$corpus" 2>/dev/null | head -n 50000 >"$lines/games.uci" || true
fi
lines_all "corpus fen" fen "$lines/positions.fen"
lines_all "corpus epd" epd "$lines/positions.epd"
lines_all "corpus uci" uci "$lines/games.uci"
