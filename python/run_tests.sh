#!/bin/sh
# Builds the Python package and runs its tests, in a virtual environment
# made for the purpose from the package registry (`.ci/run` calls it).
#
#   python/run_tests.sh [pytest arguments]
#
# PGNKIT_PY_VENV: where the environment goes (default: a temporary
# directory, removed at the end). PYTHON: the interpreter (python3).
# CARGO_TARGET_DIR is honoured (default: python/target).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
python=${PYTHON:-python3}
venv=${PGNKIT_PY_VENV:-}
if [ -z "$venv" ]; then
    venv=$(mktemp -d "${TMPDIR:-/tmp}/pgnkit-py.XXXXXX")
    trap 'rm -rf "$venv"' EXIT
fi

start=$(date +%s)
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --upgrade pip
"$venv/bin/python" -m pip install --quiet "maturin>=1.9,<2" pytest pyarrow polars duckdb pandas chess

# The wheel `pip install ./python` would build, built once and installed:
# maturin's release profile (see Cargo.toml: thin LTO, not the binary's
# fat LTO, which would add minutes for no gain the tests can see).
wheels="$venv/wheels"
"$venv/bin/maturin" build --release --quiet --interpreter "$venv/bin/python" \
    --manifest-path "$here/Cargo.toml" --out "$wheels"
"$venv/bin/python" -m pip install --quiet --force-reinstall --no-deps "$wheels"/pgnkit-*.whl
built=$(date +%s)
echo "python/run_tests.sh: environment and release build in $((built - start)) s" >&2

cd "$here/tests"
"$venv/bin/python" -m pytest -q "$@"
echo "python/run_tests.sh: tests in $(($(date +%s) - built)) s" >&2
