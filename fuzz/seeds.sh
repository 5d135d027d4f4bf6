#!/usr/bin/env bash
# Builds the seed corpora fuzz/corpus/<target>/ from the repository's
# fixtures and, when present, the shared data beside the repository
# (../shared/data, or $PGNKIT_SHARED_DATA): whole PGN files and their games
# one by one for the PGN targets, FEN/EPD/UCI files and lines for `lines`,
# FENs for `perft`. The targets `lines` and `perft` read a first byte that
# chooses the run (see their doc comments): each seed is written with a
# spread of them. Re-running adds nothing already there (files are named by
# content). Usage: fuzz/seeds.sh
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
corpus=$root/fuzz/corpus
shared=${PGNKIT_SHARED_DATA:-$root/../shared/data}
[ -d "$shared" ] || { echo "seeds.sh: no $shared, fixtures only" >&2; shared=; }

# seed TARGET: standard input becomes one seed file of TARGET.
seed() {
    local tmp
    tmp=$(mktemp)
    cat > "$tmp"
    if [ -s "$tmp" ]; then
        mv "$tmp" "$corpus/$1/$(sha1sum < "$tmp" | cut -c1-40)"
    else
        rm -f "$tmp"
    fi
}

# with_byte BYTE: standard input with the selector byte BYTE (0-255) first.
with_byte() {
    printf "\\$(printf '%03o' "$1")"
    cat
}

mkdir -p "$corpus"/{validate,annotate_outcome,convert_pgn,lines,perft,names}

# names: a length byte and a file name holding terminal controls (ESC ] 0 ;
# t BEL .pgn, 11 bytes), then the game.
named() {
    printf '\013a\033]0;t\007.pgn'
    cat
}

# PGN: every file up to 64 KB whole, and every game (a tag line after a
# line that is not one starts the next) of the first 40 of each file.
pgn_files=$(find "$root/fixtures" ${shared:+"$shared/pgn-edge-cases"} -name '*.pgn' | sort)
for file in $pgn_files; do
    if [ "$(wc -c < "$file")" -le 65536 ]; then
        for target in validate annotate_outcome convert_pgn; do
            seed "$target" < "$file"
        done
    fi
    split=$(mktemp -d)
    awk -v dir="$split" '
        /^\[/ && !in_tags { n++; if (n > 40) exit }
        { in_tags = /^\[/; if (n > 0) print > (dir "/" n) }
    ' "$file"
    for game in "$split"/*; do
        [ -e "$game" ] || continue
        for target in validate annotate_outcome convert_pgn; do
            seed "$target" < "$game"
        done
        named < "$game" | seed names
    done
    rm -rf "$split"
done

# Lines: each file whole under every --to (from detected), and its first
# 20 lines one by one under every --from, spread over the --to formats.
line_files=$(find "$root/fixtures/convert" "$root/fixtures/perft" -maxdepth 1 \
    \( -name '*.fen' -o -name '*.epd' -o -name '*.uci' \) | sort)
for file in $line_files; do
    for to in 0 1 2 3 4 5 6 7; do
        with_byte $((to << 2)) < "$file" | seed lines
    done
    i=0
    head -n 20 "$file" | while IFS= read -r line; do
        i=$((i + 1))
        printf '%s\n' "$line" | with_byte $(((i & 3) | ((i * 3 & 7) << 2) | (i & 8) << 2)) | seed lines
    done
done

# Perft: the FEN of every EPD line (before `;`) and `epd` line of the
# fixtures, and of the first lines of the shared suites, at depths 1-3,
# standard, --chess960, with and without a table and --divide.
fens() {
    find "$root/fixtures/perft" "$root/fixtures/convert" -type f \
        \( -name '*.epd' -o -name '*.perft' -o -name '*.fen' \) -print0 |
        xargs -0 cat
    if [ -n "$shared" ]; then
        for f in "$shared"/perft/*; do head -n 400 "$f"; done
    fi
}
fens | sed -n -e 's/^epd[[:space:]]\+//p' -e '/^[1-8a-zA-Z\/]\{15,\} [wb]/s/[[:space:]]*;.*//p' |
    sort -u | head -n 600 | {
    i=0
    while IFS= read -r fen; do
        i=$((i + 1))
        printf '%s' "$fen" | with_byte $((1 + i % 3 | (i & 4) | (i & 8) | (i & 16))) | seed perft
    done
}
printf 'startpos|e2e4 e7e5 g1f3' | with_byte 2 | seed perft
printf '%s|e1g1' 'r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1' | with_byte 1 | seed perft

for target in validate annotate_outcome convert_pgn lines perft names; do
    echo "$target: $(find "$corpus/$target" -type f | wc -l) seeds"
done
