#!/usr/bin/env bash
# Perft speed: pgnkit against Debian's stockfish, side by side.
#
#   benches/perft.sh            # builds the release binary first
#   RUNS=3 benches/perft.sh     # fewer runs for the medians
#   RUNS7=3 benches/perft.sh    # depth 7 three times too (once by default:
#                               # Stockfish takes 20-30 s for it here)
#
# 1. Start position, depth 7 (3,195,901,860 nodes): pgnkit with 2 threads
#    and the default 64 MiB hash vs `go perft 7` (stockfish's perft is
#    single-threaded and has no hash: this is the tool-vs-tool figure).
# 2. Raw move generation: pgnkit with 1 thread and no hash vs stockfish,
#    depth 6, median of $RUNS runs each.
# 3. Kiwipete depth 5 (193,690,690 nodes), as in 1.
#
# Environment: PGNKIT (binary), STOCKFISH (default /usr/games/stockfish),
# RUNS (default 5), RUNS7 (runs of depth 7, default 1), SKIP_BUILD=1 to use
# an existing binary.
set -euo pipefail

cd "$(dirname "$0")/.."
TARGET_DIR=${CARGO_TARGET_DIR:-target}
PGNKIT=${PGNKIT:-$TARGET_DIR/release/pgnkit}
STOCKFISH=${STOCKFISH:-/usr/games/stockfish}
RUNS=${RUNS:-5}
RUNS7=${RUNS7:-1}
KIWIPETE='r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq -'

if [[ -z ${SKIP_BUILD:-} ]]; then
    cargo build --release --quiet
fi
[[ -x $PGNKIT ]] || { echo "no pgnkit binary at $PGNKIT" >&2; exit 2; }
[[ -x $STOCKFISH ]] || { echo "no stockfish at $STOCKFISH" >&2; exit 2; }

# timed CMD...: runs CMD, sets OUT (its stdout), SECS (wall time) and CPU
# (user + system time: on a shared machine the wall time of a 2-thread run
# depends on what else is running, the CPU time much less).
timed() {
    local times
    times=$(mktemp)
    {
        TIMEFORMAT='%R %U %S'
        time OUT=$("$@")
    } 2> "$times"
    read -r SECS user sys < <(tail -n 1 "$times")
    CPU=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
    rm -f "$times"
}

# stockfish_perft POSITION-COMMAND DEPTH: prints the node count.
stockfish_perft() {
    printf '%s\ngo perft %s\nquit\n' "$1" "$2" | "$STOCKFISH" |
        awk '/^Nodes searched/ { print $3 }'
}

pgnkit_perft() { "$PGNKIT" perft -q "$@"; }

# median of the arguments
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a / b }'; }

check() { # name got expected
    if [[ $2 != "$3" ]]; then
        echo "MISMATCH: $1 counted $2, expected $3" >&2
        exit 1
    fi
}

# compare TITLE EXPECTED STOCKFISH-POSITION DEPTH RUNS PGNKIT-ARGS...
compare() {
    local title=$1 expected=$2 sf_pos=$3 depth=$4 runs=$5
    shift 5
    local pg_times=() sf_times=() pg_cpu=() sf_cpu=() i
    for ((i = 0; i < runs; i++)); do
        timed pgnkit_perft -d "$depth" "$@"
        check "pgnkit" "$OUT" "$expected"
        pg_times+=("$SECS")
        pg_cpu+=("$CPU")
        timed stockfish_perft "$sf_pos" "$depth"
        check "stockfish" "$OUT" "$expected"
        sf_times+=("$SECS")
        sf_cpu+=("$CPU")
    done
    local pg sf pgc sfc
    pg=$(median "${pg_times[@]}")
    sf=$(median "${sf_times[@]}")
    pgc=$(median "${pg_cpu[@]}")
    sfc=$(median "${sf_cpu[@]}")
    echo "== $title"
    printf '  pgnkit perft -d %s %s\n' "$depth" "$*"
    printf '      wall %8s s  cpu %8s s   (wall of each run: %s)\n' "$pg" "$pgc" "${pg_times[*]}"
    printf '  stockfish: %s / go perft %s\n' "$sf_pos" "$depth"
    printf '      wall %8s s  cpu %8s s   (wall of each run: %s)\n' "$sf" "$sfc" "${sf_times[*]}"
    printf '  nodes %s; stockfish / pgnkit: wall %sx, cpu %sx; pgnkit %s Mnodes/s\n' \
        "$expected" "$(ratio "$sf" "$pg")" "$(ratio "$sfc" "$pgc")" \
        "$(awk -v n="$expected" -v s="$pg" 'BEGIN { printf "%.0f", n / s / 1e6 }')"
}

echo "pgnkit:    $PGNKIT"
echo "stockfish: $(printf 'quit\n' | "$STOCKFISH" | head -n 1)"
echo "cpus:      $(nproc), load: $(cut -d ' ' -f 1-3 /proc/loadavg)"

compare "start position, depth 7 (pgnkit: 2 threads, default 64 MiB hash), median of $RUNS7" \
    3195901860 "position startpos" 7 "$RUNS7" --threads 2
compare "raw move generation, start position depth 6 (pgnkit: 1 thread, no hash), median of $RUNS" \
    119060324 "position startpos" 6 "$RUNS" --threads 1 --hash 0
compare "Kiwipete, depth 5 (pgnkit: 2 threads, default hash), median of $RUNS" \
    193690690 "position fen $KIWIPETE" 5 "$RUNS" --threads 2 "$KIWIPETE"
