"""Shared helpers: the fixtures, the command line's CSV for an input, and
large inputs made from the corpus fixture."""

import csv
import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import pgnkit
from pgnkit import _pgnkit

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"

# Every PGN fixture the command line reads in its own tests, and the line
# formats convert reads.
PGN_FIXTURES = sorted(
    p
    for d in ("pgn", "annotate", "convert")
    for p in (FIXTURES / d).glob("*.pgn")
)
LINE_FIXTURES = sorted(
    p for p in (FIXTURES / "convert").iterdir() if p.suffix in (".uci", ".fen", ".epd")
)
CORPUS_ZST = FIXTURES / "corpus" / "pgnmentor-2mb.pgn.zst"


def fixture_id(p):
    return str(p.relative_to(FIXTURES))


def cli(*argv):
    """Runs `pgnkit *argv` and gives (exit code, stdout bytes).

    With PGNKIT_BIN set, the binary; else the library's own subcommand in
    this process (`pgnkit._pgnkit._run`, the code main.rs calls).
    """
    argv = [str(a) for a in argv]
    binary = os.environ.get("PGNKIT_BIN")
    if binary:
        done = subprocess.run([binary, *argv], capture_output=True, check=False)
        return done.returncode, done.stdout
    code, out, _err = _pgnkit._run(argv)
    return code, bytes(out)


def cli_csv(*argv):
    """The command line's CSV rows for `argv`: (exit code, header, rows)."""
    code, out = cli(*argv)
    reader = csv.reader(io.StringIO(out.decode("utf-8")))
    rows = list(reader)
    assert rows, f"no CSV header from pgnkit {argv}"
    return code, rows[0], rows[1:]


def read_all(stream):
    """Every row of `stream` (pyarrow), and the error raised after them."""
    import pyarrow as pa

    batches, error = [], None
    try:
        for batch in stream:
            batches.append(pa.record_batch(batch))
    except pgnkit.PgnkitError as e:
        error = e
    schema = pa.schema(stream.schema) if not batches else batches[0].schema
    return pa.Table.from_batches(batches, schema=schema), error


@pytest.fixture(scope="session")
def corpus_pgn(tmp_path_factory):
    """The 2 MB corpus fixture, decompressed."""
    path = tmp_path_factory.mktemp("corpus") / "corpus.pgn"
    zstd = shutil.which("zstd")
    if zstd:
        with open(path, "wb") as out:
            subprocess.run([zstd, "-dc", str(CORPUS_ZST)], stdout=out, check=True)
    else:
        # The library decompresses it: its games, back as PGN, are not
        # byte-equal, so without zstd the large tests read the .zst itself.
        pytest.skip("zstd CLI absent")
    return path


def repeated(src, dst, size):
    """`src` written to `dst` again and again until it holds `size` bytes."""
    data = Path(src).read_bytes()
    if not data.endswith(b"\n\n"):
        data += b"\n\n"
    with open(dst, "wb") as out:
        written = 0
        while written < size:
            out.write(data)
            written += len(data)
    return dst


@pytest.fixture(scope="session")
def big_pgn(corpus_pgn, tmp_path_factory):
    """The corpus fixture repeated to 200 MB."""
    return repeated(corpus_pgn, tmp_path_factory.mktemp("big") / "big.pgn", 200 << 20)


def python_child(code, timeout=600, **kwargs):
    """Runs `code` in a fresh interpreter, with this one's sys.path."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    return subprocess.Popen(
        [sys.executable, "-c", code],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        **kwargs,
    )
