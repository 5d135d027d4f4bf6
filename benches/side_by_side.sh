#!/usr/bin/env bash
# The speed rows of issue 48, side by side in one run: pgnkit against
# pgn-reader 0.29's own `validate` and `parallel_validate` examples, against
# Debian's pgn-extract, annotate-outcome against validate, and each
# subcommand's scaling from one thread to two. Rounds are interleaved, so a
# busy machine disturbs every command alike; each figure is the median wall
# time of ROUNDS runs.
#
#   benches/side_by_side.sh [PGN] [PGNKIT] [BASE]
#
# PGN defaults to /tmp/pgnmentor.pgn (zstd -dc ../shared/data/games/pgnmentor.pgn.zst);
# PGNKIT to target/release/pgnkit. With BASE (a binary saved before a
# change), each pgnkit command also runs with BASE right after it, in the
# same rounds, and the last lines give each command's time against BASE's:
# on a shared machine two separate runs differ by more than most changes.
# pgn-reader's examples are looked for in $PGN_READER_EXAMPLES (default
# /tmp/pgnreader/target/release/examples); build them from the crate's
# registry copy (pgn-reader is our dev-dependency, so cargo has its source):
#   cp -r ~/.cargo/registry/src/*/pgn-reader-0.29.0 /tmp/pgnreader
#   (cd /tmp/pgnreader && cargo build --release --examples)
# Needs GNU time and pgn-extract (apt-get install pgn-extract).
set -euo pipefail
cd "$(dirname "$0")/.."
pgn=${1:-/tmp/pgnmentor.pgn}
bin=$(realpath "${2:-target/release/pgnkit}")
base=${3:+$(realpath "$3")}
for b in "$bin" ${base:+"$base"}; do
  [[ -x $b ]] || { echo "side_by_side.sh: $b is not an executable" >&2; exit 2; }
done
ex=${PGN_READER_EXAMPLES:-/tmp/pgnreader/target/release/examples}
rounds=${ROUNDS:-3}
export PATH="$PATH:/usr/games"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pairing=paired-twice,board-twice,round-missing,round-order,name-variant,pairing-repeated

declare -A cmd
cmd[reader-validate]="$ex/validate $pgn"
cmd[reader-parallel]="$ex/parallel_validate $pgn"
cmd[extract]="pgn-extract -r -s $pgn"
cmd[validate-j1]="$bin validate -q -j1 $pgn"
cmd[validate-j2]="$bin validate -q -j2 $pgn"
cmd[validate-nopair-j1]="$bin validate -q -j1 --ignore $pairing $pgn"
cmd[validate-nopair-j2]="$bin validate -q -j2 --ignore $pairing $pgn"
cmd[annotate-j1]="$bin annotate-outcome -q -j1 $pgn"
cmd[annotate-j2]="$bin annotate-outcome -q -j2 $pgn"
cmd[convert-j1]="$bin convert -q -j1 --to csv $pgn"
cmd[convert-j2]="$bin convert -q -j2 --to csv $pgn"
names=(reader-validate validate-j1 validate-nopair-j1 reader-parallel validate-j2 validate-nopair-j2
  extract annotate-j1 annotate-j2 convert-j1 convert-j2)
ours=(validate-j1 validate-nopair-j1 validate-j2 validate-nopair-j2 annotate-j1 annotate-j2
  convert-j1 convert-j2)
if [[ -n $base ]]; then
  all=()
  for name in "${names[@]}"; do
    all+=("$name")
    if [[ ${cmd[$name]} == "$bin "* ]]; then
      cmd[base-$name]="$base ${cmd[$name]#"$bin "}"
      all+=("base-$name")
    fi
  done
  names=("${all[@]}")
fi

# A command that could not do the job has no time: its rows and ratios say
# so, instead of the time it took to fail. pgnkit exits 2 then (a BASE
# without a flag, a missing input; 1 is problems found), the others
# anything but 0.
declare -A secs failed
for ((r = 1; r <= rounds; r++)); do
  for name in "${names[@]}"; do
    status=0
    # shellcheck disable=SC2086
    /usr/bin/time -f "%e" -o "$work/t" ${cmd[$name]} > /dev/null 2> /dev/null || status=$?
    limit=1
    if [[ ${cmd[$name]} == "$bin "* || (-n $base && ${cmd[$name]} == "$base "*) ]]; then
      limit=2
    fi
    if ((status >= limit)); then
      failed[$name]="failed (exit $status)"
    fi
    secs[$name]+="$(tail -n 1 "$work/t") "
  done
done
median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
declare -A m
echo "input: $pgn ($(($(stat -c %s "$pgn") / 1000000)) MB), $rounds rounds, median wall time"
for name in "${names[@]}"; do
  if [[ -n ${failed[$name]:-} ]]; then
    m[$name]=
    printf '%-20s %s  (%s)\n' "$name" "${failed[$name]}" "${cmd[$name]}"
    continue
  fi
  m[$name]=$(median <<< "${secs[$name]}")
  printf '%-20s %6.2f s   runs: %s  (%s)\n' "$name" "${m[$name]}" "${secs[$name]}" "${cmd[$name]}"
done
ratio() {
  if [[ -z $1 || -z $2 ]]; then
    printf 'n/a'
  else
    # A median of 0.00 s (under GNU time's resolution) has no ratio either.
    awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 == 0) printf "n/a"; else printf "%.2f", a / b }'
  fi
}
rx() {
  local r
  r=$(ratio "$@")
  if [[ $r == n/a ]]; then printf 'n/a'; else printf '%sx' "$r"; fi
}
echo
echo "validate -j1 speed / pgn-reader validate:          $(rx "${m[reader-validate]}" "${m[validate-j1]}") (without the pairing checks $(rx "${m[reader-validate]}" "${m[validate-nopair-j1]}"); target >= 1.1)"
echo "validate -j2 speed / pgn-reader parallel_validate: $(rx "${m[reader-parallel]}" "${m[validate-j2]}") (without the pairing checks $(rx "${m[reader-parallel]}" "${m[validate-nopair-j2]}"); target >= 1.3)"
echo "pgn-extract -r -s / validate -j2:                  $(rx "${m[extract]}" "${m[validate-j2]}") (without the pairing checks $(rx "${m[extract]}" "${m[validate-nopair-j2]}"); target >= 15)"
echo "annotate-outcome -j2 / validate -j2:               $(rx "${m[annotate-j2]}" "${m[validate-j2]}") (target <= 1.6)"
echo "scaling -j2/-j1: validate $(rx "${m[validate-j1]}" "${m[validate-j2]}"), annotate-outcome $(rx "${m[annotate-j1]}" "${m[annotate-j2]}"), convert --to csv $(rx "${m[convert-j1]}" "${m[convert-j2]}") (target >= 1.9)"
if [[ -n $base ]]; then
  echo
  echo "against BASE ($base), median wall time, this binary / BASE:"
  for name in "${ours[@]}"; do
    printf '  %-20s %s\n' "$name" "$(ratio "${m[$name]}" "${m[base-$name]}")"
  done
fi
