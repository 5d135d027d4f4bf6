#!/usr/bin/env bash
# The hostile-input matrix of issue 10 at full size: exit code, wall time and
# peak memory (max RSS, from /usr/bin/time -v) of every case through validate,
# annotate-outcome and convert --to pgn at -j2, the memory cases also at -j1
# and -j4 (and through convert --to uci and --to jsonl), and the cases that
# could grow faster than linearly at half and full size.
#
# Usage: benches/hostile.sh BINARY [OUTDIR]
#   OUTDIR (default /tmp/pgnkit-hostile) receives the generated inputs, about
#   700 MB; they are kept for a second run. TIMEOUT (seconds, default 600)
#   bounds each run: a run that hits it shows exit 124. MEMORY_CASES (default
#   "empty packed real") picks the cases of the -j1/-j2/-j4 section
#   (annotate-outcome takes about 2 minutes on a million empty games at -j1).
# Needs python3, GNU time, gzip, bzip2 and zstd.
set -euo pipefail

BIN=$(realpath "${1:?usage: benches/hostile.sh BINARY [OUTDIR]}")
OUT=${2:-/tmp/pgnkit-hostile}
TIMEOUT=${TIMEOUT:-600}
HERE=$(cd "$(dirname "$0")/.." && pwd)
TWIC="$HERE/fixtures/pgn/twic1599_excerpt.pgn"
mkdir -p "$OUT"

# gen NAME SCALE: writes $OUT/NAME (SCALE 1 is the size of the issue).
gen() {
    python3 - "$OUT" "$1" "$2" "$TWIC" <<'EOF'
import os, random, sys
out, name, scale, twic = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
path = os.path.join(out, name)
if os.path.exists(path):
    sys.exit(0)
good = (b'[Event "e"]\n[Site "s"]\n[Date "2024.01.01"]\n[Round "1"]\n[White "w"]\n'
        b'[Black "b"]\n[Result "1-0"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n')
real = open(twic, 'rb').read().rstrip(b'\n') + b'\n\n'
n = lambda k: int(k * scale)
MB = 1 << 20
kind = name.split('-')[0]
with open(path + '.tmp', 'wb') as f:
    w = f.write
    if kind == 'random':
        w(random.Random(1).randbytes(n(20 * MB)))
    elif kind == 'line':
        w(good + b'[Event "line"]\n\n' + b'Nf3 Nf6 Ng1 Ng8 ' * n(50 * MB // 16) + b'*\n\n' + good)
    elif kind == 'comment':
        w(good + b'[Event "comment"]\n\n1. e4 {' + b'never closed ' * n(50 * MB // 13) + b'\n\n' + good)
    elif kind == 'nested':
        k = n(200_000)
        w(good + b'[Event "nested"]\n\n1. e4 ' + b'(1. d4 ' * k + b')' * k + b' e5 *\n\n' + good)
    elif kind == 'unclosed':
        w(good + b'[Event "unclosed"]\n\n1. e4 ' + b'(1. d4 ' * n(200_000) + b' e5 *\n\n' + good)
    elif kind == 'tags':
        w(good + b''.join(b'[T%d "v"]\n' % i for i in range(n(100_000))) + b'\n1. e4 *\n\n' + good)
    elif kind == 'tagvalue':
        w(good + b'[White "' + b'W' * n(10 * MB) + b'"]\n\n1. e4 *\n\n' + good)
    elif kind == 'empty':
        w(b'[Event "x"]\n\n*\n' * n(1_000_000))
    elif kind == 'packed':
        w(b'[Event "x"]\n*\n' * n(1_000_000))
    elif kind == 'plies':
        w(good + b'[Event "plies"]\n\n' + b'1. Nf3 Nf6 2. Ng1 Ng8 ' * n(50_000) + b'*\n\n' + good)
    elif kind == 'noblank':
        games = real.replace(b'\n\n[', b'\n[').replace(b']\n\n', b']\n')
        w(games * max(1, n(20 * MB) // len(games)))
    elif kind == 'real':
        # Each copy numbered, so that a compressor cannot fold the file into
        # a few blocks (a cut in half would then leave nothing to decode).
        w(b''.join(real.replace(b'[Round "', b'[Round "%d.' % i)
                   for i in range(max(1, n(20 * MB) // len(real)))))
    elif kind == 'nul':
        bad = (b'[Event "x\0y\xff"]\n[White "\x1b[2J\xc3"]\n\n'
               b'1. e4 {co\0mm\xffent} e5 2. Nf3\0 Nc6 3. Q\xffz9 *\n\n')
        w((good + bad) * max(1, n(10 * MB) // len(good + bad)))
    elif kind == 'utf16':
        w((real * max(1, n(5 * MB) // len(real))).decode('utf-8', 'replace').encode('utf-16'))
os.rename(path + '.tmp', path)
EOF
}

# Compressed cases: the real games packed, then cut at half or damaged in
# the middle.
packed() {
    local tool=$1 ext=$2 whole="$OUT/real-packed.pgn.$2"
    [ -e "$OUT/truncated.pgn.$ext" ] && return
    "$tool" -c "$OUT/real-1" > "$whole"
    local size
    size=$(stat -c %s "$whole")
    head -c $((size / 2)) "$whole" > "$OUT/truncated.pgn.$ext"
    python3 - "$whole" "$OUT/corrupt.pgn.$ext" <<'EOF'
import sys
data = bytearray(open(sys.argv[1], 'rb').read())
mid = len(data) // 2
for i in range(mid, mid + 64):
    data[i] ^= 0x55
open(sys.argv[2], 'wb').write(bytes(data))
EOF
}

# measure FILE J ARGS...: prints `exit wall_s rss_MB`.
measure() {
    local file=$1 j=$2
    shift 2
    local log="$OUT/time.log"
    local rc=0
    timeout "$TIMEOUT" /usr/bin/time -v -o "$log" "$BIN" "$@" -q -j"$j" "$file" > /dev/null 2>"$OUT/stderr.log" || rc=$?
    local wall rss
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s}' "$log" 2>/dev/null || true)
    rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.1f", $2 / 1024}' "$log" 2>/dev/null || true)
    echo "$rc ${wall:-?} ${rss:-?}"
}

row() {
    local case=$1 file=$2 j=$3
    shift 3
    read -r rc wall rss < <(measure "$file" "$j" "$@")
    printf '%-20s %-24s %3s %5s %9s %9s\n' "$case" "$*" "-j$j" "$rc" "$wall" "$rss"
}

echo "generating inputs in $OUT" >&2
for c in random line comment nested unclosed tags tagvalue empty packed plies noblank real nul utf16; do
    gen "$c-1" 1
done
for c in line comment nested unclosed tags tagvalue empty packed plies; do
    gen "$c-0.5" 0.5
done
packed gzip gz
packed bzip2 bz2
packed zstd zst

COMMANDS=("validate" "annotate-outcome" "convert --to pgn")
printf '%-20s %-24s %3s %5s %9s %9s\n' case command j exit wall_s rss_MB
for c in random line comment nested unclosed tags tagvalue plies noblank nul utf16 \
    truncated.pgn.gz corrupt.pgn.gz truncated.pgn.bz2 corrupt.pgn.bz2 \
    truncated.pgn.zst corrupt.pgn.zst; do
    file="$OUT/$c"
    [ -e "$file" ] || file="$OUT/$c-1"
    for cmd in "${COMMANDS[@]}"; do
        # shellcheck disable=SC2086
        row "$c" "$file" 2 $cmd
    done
done

echo
echo "memory: -j1, -j2, -j4"
for c in ${MEMORY_CASES:-empty packed real}; do
    for cmd in "${COMMANDS[@]}" "convert --to uci" "convert --to jsonl"; do
        for j in 1 2 4; do
            # shellcheck disable=SC2086
            row "$c" "$OUT/$c-1" "$j" $cmd
        done
    done
done

echo
echo "growth: half size, then full size (validate and convert --to pgn, -j2)"
for c in line comment nested unclosed tags tagvalue empty packed plies; do
    for cmd in "validate" "convert --to pgn"; do
        for s in 0.5 1; do
            # shellcheck disable=SC2086
            row "$c-$s" "$OUT/$c-$s" 2 $cmd
        done
    done
done
