"""The DuckDB queries of the guide (docs/convert.md, section "Typed
records"), run on the fixtures' Parquet and held to the CSV the same runs
write (pgnkit's own test suite has no Python: CI runs this with the Python
package's venv)."""

import csv
import io
import os
import re
import subprocess
from pathlib import Path

import duckdb
import polars as pl
import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = os.environ.get("PGNKIT_BIN", str(ROOT / "target" / "debug" / "pgnkit"))
FIXTURES = str(ROOT / "fixtures")


def pgnkit(*args):
    out = subprocess.run([BIN, *args], capture_output=True)
    assert out.returncode in (0, 1), out.stderr.decode()
    return out.stdout


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("q")
    runs = {
        "findings": ["validate", "-q", "-f", "{f}", FIXTURES],
        "outcomes": ["annotate-outcome", "-q", "--tags", "Event", "-f", "{f}", FIXTURES],
        "games": ["convert", "-q", "--to", "{f}", FIXTURES],
    }
    csvs = {}
    for name, args in runs.items():
        pgnkit(*[a.format(f="parquet") for a in args], "-o", str(d / f"{name}.parquet"))
        text = pgnkit(*[a.format(f="csv") for a in args] + (["--tags", "all"] if name == "games" else []))
        csvs[name] = list(csv.DictReader(io.StringIO(text.decode())))
    pgnkit("convert", "-q", "--to", "parquet", "--positions", "all", FIXTURES, "-o", str(d / "positions.parquet"))
    return d, csvs


PAGE = ROOT / "docs" / "convert.md"


def queries():
    page = PAGE.read_text()
    section = page.split("## Typed records:")[1].split("\n## ")[0]
    return re.findall(r"```sql\n(.*?)```", section, re.S)


def run(d, sql):
    con = duckdb.connect()
    con.execute(f"set file_search_path = '{d}'")
    return con.sql(sql).fetchall()


def test_the_page_has_four_queries():
    assert len(queries()) == 4


def test_decisive_games_the_winner_could_not_mate(files):
    d, csvs = files
    got = run(d, queries()[0])
    want = [
        (r["file"], int(r["game"]), r["white"], r["black"], r["result"], r["fide_result"] or None, r["loss_rule"] or None)
        for r in csvs["outcomes"]
        if r["result"] in ("1-0", "0-1") and r["winner_can_mate"] == "no"
    ]
    assert got == sorted(want, key=lambda r: (r[0], r[1]))
    assert got, "the fixtures hold such games"
    df = pl.read_parquet(d / "outcomes.parquet").filter(
        pl.col("result").is_in(["1-0", "0-1"]) & (pl.col("winner_can_mate") == "no")
    )
    assert df.height == len(got)


def test_unclaimed_threefold(files):
    d, csvs = files
    got = run(d, queries()[1])
    want = [
        (r["file"], int(r["game"]), r["white"], r["black"], int(r["threefold_claim_ply"]), int(r["plies"]), r["result"] or None)
        for r in csvs["outcomes"]
        if r["threefold_claim_ply"] and int(r["plies"]) > int(r["threefold_claim_ply"])
    ]
    assert got == sorted(want, key=lambda r: (r[0], r[1]))
    assert got


def test_illegal_moves_per_event(files):
    d, csvs = files
    got = run(d, queries()[2])
    event = {(r["file"], r["game"]): r["Event"] or None for r in csvs["games"]}
    counts = {}
    for f in csvs["findings"]:
        if f["code"] == "illegal-move":
            e = event[(f["file"], f["game"])]
            counts[e] = counts.get(e, 0) + 1
    want = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0] is None, kv[0] or ""))
    assert sorted(got, key=lambda kv: (-kv[1], kv[0] is None, kv[0] or "")) == want
    assert sum(c for _, c in got) >= 1


def test_the_games_that_reach_a_position(files):
    """The query's key is python-chess's for the Sicilian, and its games are
    those whose replay, by python-chess from the CSV's start and moves,
    passes through that position."""
    chess = pytest.importorskip("chess")
    import chess.polyglot

    d, csvs = files
    sql = queries()[3]
    board = chess.Board()
    board.push_san("e4")
    board.push_san("c5")
    key = chess.polyglot.zobrist_hash(board)
    assert f"zobrist = {key}" in sql
    got = run(d, sql)
    want = []
    for r in csvs["games"]:
        if not r["uci"] and not r["plies"]:
            continue  # not replayed: no positions
        start = r["start_fen"] or chess.STARTING_FEN
        b = chess.Board(start, chess960=" " in start and start.split()[2] not in ("-", "KQkq")
                        and any(c not in "KQkq-" for c in start.split()[2]))
        seen = chess.polyglot.zobrist_hash(b) == key
        for m in r["uci"].split():
            b.push_uci(m)
            seen = seen or chess.polyglot.zobrist_hash(b) == key
        if seen:
            want.append((r["file"], int(r["game"])))
    assert got == sorted(set(want))
    assert len(got) >= 3, got
    # `pgnkit select --position` finds the same games (docs/select.md);
    # it also takes those that reach the position before a move that is not
    # legal, which convert writes no positions for.
    fen = board.fen()
    sel = pgnkit("select", "-q", "-f", "csv", "--position", fen, FIXTURES)
    rows = list(csv.DictReader(io.StringIO(sel.decode())))
    picked = sorted((r["file"], int(r["game"])) for r in rows if not r["error"])
    assert got == picked
    assert all(r["match_ply"] == "2" for r in rows if r["uci"].startswith("e2e4 c7c5"))
