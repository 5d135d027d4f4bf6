#!/usr/bin/env bash
# The Spark job's tests: its pure parts (unittest), then the job end to end in
# local[2] mode against the single-machine Parquet of the release binary.
#
# Needs Java 17 or 21 (Spark 4), python3 with venv, zstd, and the package
# registry the first time: pyspark, pyarrow and pandas (requirements.txt) are installed into a
# virtual environment cached under ~/.cache/pgnkit (XDG_CACHE_HOME), rebuilt
# only when requirements.txt changes.
#
# Environment: PGNKIT=BIN tests that binary instead of building it;
# PGNKIT_CORPUS=FILE.pgn.zst the corpus to slice (default
# ../shared/data/games/pgnmentor.pgn.zst beside the repo, or beside its main
# worktree); PGNKIT_SPARK_MB=30 the size of the slice.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
started=$SECONDS

say() { printf 'test_spark: %s\n' "$*" >&2; }

# Java first: without it nothing below can run, and the message says why.
if ! command -v java >/dev/null 2>&1; then
    say "Java is not installed, and Spark 4 needs Java 17 or 21 (Debian: apt-get install openjdk-17-jre-headless)"
    exit 1
fi
java_major=$(java -version 2>&1 | sed -n 's/.* version "\([0-9]*\).*/\1/p' | head -n1)
if [[ -z "$java_major" || "$java_major" -lt 17 ]]; then
    say "Java ${java_major:-?} found, and Spark 4 needs Java 17 or 21: $(java -version 2>&1 | head -n1)"
    exit 1
fi
say "Java $java_major"

cache=${XDG_CACHE_HOME:-$HOME/.cache}/pgnkit
venv=$cache/spark-venv
if ! cmp -s "$here/requirements.txt" "$venv/requirements.txt" 2>/dev/null; then
    say "installing $(grep -v '^#' "$here/requirements.txt" | tr '\n' ' ')into $venv"
    rm -rf "$venv"
    mkdir -p "$cache"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet -r "$here/requirements.txt"
    cp "$here/requirements.txt" "$venv/requirements.txt"
fi
py=$venv/bin/python
# The executors' Python must be the driver's (same version, same pyspark).
export PYSPARK_PYTHON=$py PYSPARK_DRIVER_PYTHON=$py
# No __pycache__ left in the work tree.
export PYTHONDONTWRITEBYTECODE=1

say "unit tests"
(cd "$here" && "$py" -m unittest test_pgnkit_spark)

if [[ -n "${PGNKIT:-}" ]]; then
    pgnkit=$PGNKIT
else
    (cd "$root" && cargo build --release --locked --quiet)
    pgnkit=$root/target/release/pgnkit
fi
if ! "$pgnkit" validate --help | grep -q -- '--byte-range'; then
    say "$pgnkit has no --byte-range (the shards of issue 11), which the job needs"
    exit 1
fi

corpus=${PGNKIT_CORPUS:-}
if [[ -z "$corpus" ]]; then
    corpus=$root/../shared/data/games/pgnmentor.pgn.zst
    if [[ ! -e "$corpus" ]]; then
        # A linked worktree: shared/ lies beside the main one.
        common=$(git -C "$root" rev-parse --path-format=absolute --git-common-dir 2>/dev/null || true)
        [[ -n "$common" ]] && corpus=$(dirname "$common")/../shared/data/games/pgnmentor.pgn.zst
    fi
fi

say "end to end, local[2], $pgnkit"
work=$root/target/spark-test
rm -rf "$work"
status=0
"$py" "$here/test_e2e.py" --pgnkit "$pgnkit" --work "$work" --corpus "$corpus" \
    --mb "${PGNKIT_SPARK_MB:-30}" || status=$?
rm -rf "$work"
say "$((SECONDS - started)) s"
exit $status
