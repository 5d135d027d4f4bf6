"""Inputs as on the command line (compressed files, directories), bytes,
unreadable inputs and refused arguments."""

import bz2
import gzip
import shutil
import subprocess
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pytest

import pgnkit
from conftest import PGN_FIXTURES, cli_csv, fixture_id, read_all
from test_records import assert_same_rows

FUNCTIONS = {
    "validate": pgnkit.validate,
    "annotate_outcome": pgnkit.annotate_outcome,
    "games": pgnkit.games,
}

TWIC = [p for p in PGN_FIXTURES if p.name == "twic1599_excerpt.pgn"][0]


def without_file(table):
    return table.drop_columns(["file"])


@pytest.mark.parametrize("name", FUNCTIONS)
@pytest.mark.parametrize("path", PGN_FIXTURES, ids=fixture_id)
def test_bytes_equal_path(name, path):
    f = FUNCTIONS[name]
    from_path = pa.table(f(path))
    from_bytes = pa.table(f(path.read_bytes()))
    assert without_file(from_bytes).equals(without_file(from_path))
    assert set(from_bytes["file"].to_pylist()) <= {"<bytes>"}


def test_several_bytes_and_paths_are_named_apart():
    data = TWIC.read_bytes()
    table = pa.table(pgnkit.games(data, TWIC, data))
    files = table["file"].to_pylist()
    n = len(files) // 3
    assert files == ["<bytes 1>"] * n + [str(TWIC)] * n + ["<bytes 3>"] * n


def compress(src, dst_dir, kind):
    data = src.read_bytes()
    if kind == "gz":
        dst = dst_dir / (src.name + ".gz")
        dst.write_bytes(gzip.compress(data))
    elif kind == "bz2":
        dst = dst_dir / (src.name + ".bz2")
        dst.write_bytes(bz2.compress(data))
    else:
        if not shutil.which("zstd"):
            pytest.skip("zstd CLI absent")
        dst = dst_dir / (src.name + ".zst")
        subprocess.run(["zstd", "-q", "-f", str(src), "-o", str(dst)], check=True)
    return dst


@pytest.mark.parametrize("kind", ["gz", "bz2", "zst"])
@pytest.mark.parametrize("name", FUNCTIONS)
def test_compressed_equals_plain(tmp_path, kind, name):
    f = FUNCTIONS[name]
    packed = compress(TWIC, tmp_path, kind)
    assert without_file(pa.table(f(packed))).equals(without_file(pa.table(f(TWIC))))
    # compressed bytes too
    assert without_file(pa.table(f(packed.read_bytes()))).equals(without_file(pa.table(f(TWIC))))


def test_directory_equals_cli(tmp_path):
    d = tmp_path / "games"
    (d / "sub").mkdir(parents=True)
    shutil.copy(TWIC, d / "a.pgn")
    compress([p for p in PGN_FIXTURES if p.name == "illegal_move_ply_61.pgn"][0], d / "sub", "gz")
    (d / "notes.txt").write_text("not a game")
    for name, argv in [
        ("validate", ["validate", "-q", "-f", "csv"]),
        ("games", ["convert", "-q", "--to", "csv", "--tags", "all"]),
    ]:
        code, header, rows = cli_csv(*argv, d)
        table, error = read_all(FUNCTIONS[name](d))
        assert error is None and code in (0, 1)
        assert len(set(table["file"].to_pylist())) == 2
        assert_same_rows(table, header, rows, name)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_unreadable_input_raises_after_the_rows_before(tmp_path, name):
    f = FUNCTIONS[name]
    missing = tmp_path / "missing.pgn"
    truncated = tmp_path / "truncated.pgn.gz"
    truncated.write_bytes(gzip.compress(TWIC.read_bytes())[:-40])
    good = pa.table(f(TWIC))
    assert good.num_rows > 0
    # A path that cannot be opened fails at the call, naming it.
    with pytest.raises(FileNotFoundError, match=missing.name) as raised:
        f(TWIC, missing)
    assert raised.value.filename == missing
    # One that fails while it is read, after every row before the failure.
    for bad in (truncated,):
        stream = f(TWIC, bad)
        got = []
        with pytest.raises(pgnkit.PgnkitError, match=bad.name) as raised:
            for batch in stream:
                got.append(pa.record_batch(batch))
        # every row of the good input came first
        table = pa.Table.from_batches(got, schema=got[0].schema)
        assert without_file(table.slice(0, good.num_rows)).equals(without_file(good))
        # and no game line of the good input is taken for the failure
        assert str(TWIC) not in str(raised.value)


def test_unreadable_input_raises_through_the_c_stream(tmp_path):
    truncated = tmp_path / "truncated.pgn.gz"
    truncated.write_bytes(gzip.compress(TWIC.read_bytes())[:-40])
    with pytest.raises(Exception, match="truncated.pgn.gz"):
        pa.table(pgnkit.games(TWIC, truncated))


def test_unreadable_bytes_are_named_bytes():
    broken = gzip.compress(TWIC.read_bytes())[:-40]
    with pytest.raises(pgnkit.PgnkitError, match="<bytes>") as raised:
        read_all_strict(pgnkit.games(broken))
    assert "pgnkit-" not in str(raised.value)  # no temporary file


def read_all_strict(stream):
    return [pa.record_batch(b) for b in stream]


def test_usage_errors_at_call_time():
    with pytest.raises(ValueError, match="nope"):
        pgnkit.validate(TWIC, only="nope")
    with pytest.raises(ValueError, match="illegal-move"):
        pgnkit.validate(TWIC, ignore=["illegal-move", "nope"])
    with pytest.raises(ValueError, match="bogus"):
        pgnkit.annotate_outcome(TWIC, rules="bogus")
    with pytest.raises(ValueError):
        pgnkit.games()
    with pytest.raises(TypeError):
        pgnkit.games(42)
    with pytest.raises(ValueError):
        pgnkit.validate(TWIC, threads=0)
    with pytest.raises(OverflowError):
        pgnkit.perft("startpos", -1)
    with pytest.raises(ValueError, match="depth"):
        pgnkit.perft("startpos", 1001)


def test_only_and_ignore():
    all_codes = pa.table(pgnkit.validate(*PGN_FIXTURES))
    codes = set(all_codes["code"].to_pylist())
    assert {"illegal-move", "layout"} <= codes
    only = pa.table(pgnkit.validate(*PGN_FIXTURES, only="illegal-move,layout"))
    assert set(only["code"].to_pylist()) == {"illegal-move", "layout"}
    ignored = pa.table(pgnkit.validate(*PGN_FIXTURES, ignore=["layout"]))
    assert "layout" not in set(ignored["code"].to_pylist())
    assert ignored.num_rows == all_codes.num_rows - pc.sum(pc.equal(all_codes["code"], "layout")).as_py()


def test_a_stream_is_read_once():
    s = pgnkit.games(TWIC)
    assert pa.table(s).num_rows > 0
    with pytest.raises(pgnkit.PgnkitError, match="read already"):
        pa.table(s)
    s = pgnkit.validate(TWIC)
    list(s)
    with pytest.raises(pgnkit.PgnkitError, match="read already"):
        pa.table(s)
    assert list(s) == []  # iterating an ended stream ends at once


def test_close_stops_the_run(corpus_pgn, tmp_path):
    from conftest import repeated

    path = repeated(corpus_pgn, tmp_path / "x4.pgn", 4 * corpus_pgn.stat().st_size)
    s = pgnkit.games(path, threads=1)
    first = next(iter(s))
    assert first.num_rows == 8192
    s.close()
    with pytest.raises(pgnkit.PgnkitError):
        pa.table(s)
