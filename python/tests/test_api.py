"""The package on the library's typed API (issue 42): a keyword for every
option of the command line, file-like inputs, and the refusals issue 43
asked for."""

import gzip
import inspect
import io

import pyarrow as pa
import pytest

import pgnkit
from pgnkit import _pgnkit
from conftest import FIXTURES, PGN_FIXTURES

TWIC = FIXTURES / "pgn" / "twic1599_excerpt.pgn"
FIVEFOLD = FIXTURES / "pgn" / "fivefold_then_move.pgn"

# Each function, the subcommand it runs, and the command line's options it
# has no keyword for, each with the reason.
NOT_KEYWORDS = {
    "format": "the package's records are always Arrow (-f arrow)",
    "output": "the records are the returned stream, not a file",
    "quiet": "the package never draws a progress bar or prints the summary",
    "no-header": "CSV only",
}
HTML = {"html-boards": "the HTML page only"}
# The selection criteria (`pgnkit select`'s own options) are the keys of
# `where=`, not keywords of their own (test_select.py takes each).
RUN = {"threads", "output", "quiet", "byte-range", "stats", "no-header", "max-game-bytes"}
SELECTION = {
    o: "a key of where="
    for o in _pgnkit._cli_options("select")
    if o not in RUN | {"format", "openings"}
}
FUNCTIONS = {
    "validate": (
        "validate",
        {**NOT_KEYWORDS, **HTML, "fail-on": "decides the exit status only: rows carry each finding's severity"},
    ),
    "annotate_outcome": (
        "annotate-outcome",
        {**NOT_KEYWORDS, **HTML, **SELECTION, "fix-results": "rewrites PGN (-f pgn); the rows' fide_result is the result the rules give", "pgnkit-tags": "with --fix-results only (-f pgn)"},
    ),
    "games": (
        "convert",
        {
            **NOT_KEYWORDS,
            **SELECTION,
            "positions": "positions() is --positions all",
            "keep-invalid": "PGN and JSON Lines output only (variations and comments)",
            "no-comments": "PGN and JSON Lines output only",
            "no-nags": "PGN and JSON Lines output only",
            "no-variations": "PGN and JSON Lines output only",
            "no-fen": "JSON Lines output only",
            "eco-tags": "PGN output only: the rows have the eco and opening columns",
        },
    ),
    "dedupe": (
        "dedupe",
        {
            **NOT_KEYWORDS,
            "byte-range": "dedupe compares every game with every other: no shards",
            "stats": "for merging shards, which dedupe has none of",
        },
    ),
    "crosstable": (
        "crosstable",
        {
            **NOT_KEYWORDS,
            "byte-range": "crosstable counts each event whole: no shards",
            "stats": "for merging shards, which crosstable has none of",
        },
    ),
    "perft": (
        "perft",
        {
            "quiet": "the package prints no timing",
            "suite": "a suite's checks are a pass or fail, not rows: pgnkit perft --suite",
        },
    ),
}


@pytest.mark.parametrize("name", FUNCTIONS)
def test_every_cli_option_has_its_keyword(name):
    subcommand, excluded = FUNCTIONS[name]
    options = set(_pgnkit._cli_options(subcommand))
    assert options, subcommand
    params = set(inspect.signature(getattr(pgnkit, name)).parameters)
    # `--from` is `from_` (a Python keyword); the rest as their long names.
    wanted = {o.replace("-", "_") + ("_" if o == "from" else "") for o in options - set(excluded)}
    missing = wanted - params
    assert not missing, f"{name} lacks keywords for {sorted(missing)}"
    if set(SELECTION) & set(excluded):
        assert "where" in params, name
    # An exclusion names an option that exists (the list cannot go stale).
    assert set(excluded) <= options | {"quiet"}, set(excluded) - options


def test_laws_decide_which_draws_are_automatic():
    # A 2009 game played on after its fifth repetition: clean under the
    # Laws of its date, `played-on` under today's.
    by_date = pa.table(pgnkit.validate(FIVEFOLD))
    current = pa.table(pgnkit.validate(FIVEFOLD, laws="current"))
    assert by_date.num_rows == 0
    assert current["code"].to_pylist() == ["played-on"]
    outcome = pa.table(pgnkit.annotate_outcome(FIVEFOLD, laws="current"))
    assert outcome["termination"].to_pylist() == ["fivefold-repetition"]
    with pytest.raises(ValueError, match="laws"):
        pgnkit.validate(FIVEFOLD, laws="2023")


def test_problems_keeps_the_games_to_look_at():
    every = pa.table(pgnkit.annotate_outcome(*PGN_FIXTURES))
    problems = pa.table(pgnkit.annotate_outcome(*PGN_FIXTURES, problems=True))
    assert 0 < problems.num_rows < every.num_rows


def test_fix_writes_the_games_with_their_repairs(tmp_path):
    fixed = tmp_path / "fixed.pgn"
    planted = FIXTURES / "repairs" / "planted.pgn"
    before = pa.table(pgnkit.validate(planted, only="illegal-move", fix=fixed))
    after = pa.table(pgnkit.validate(fixed, only="illegal-move"))
    assert before.num_rows == 10
    # Only the tie (game 3) is left unrepaired.
    assert after["game"].to_pylist() == [3]
    assert b"{pgnkit: written Bd2; repaired to 8.Qd2" in fixed.read_bytes()


def test_bad_and_good_games_are_written(tmp_path):
    bad, good = tmp_path / "bad.pgn", tmp_path / "good.pgn"
    inputs = [p for p in PGN_FIXTURES if p.parent.name == "pgn"]
    pa.table(pgnkit.validate(*inputs, bad_games=bad, good_games=good))
    assert bad.stat().st_size > 0 and good.stat().st_size > 0
    assert pa.table(pgnkit.validate(good, only="illegal-move")).num_rows == 0


def test_a_binary_file_object_is_read_like_its_path():
    by_path = pa.table(pgnkit.games(TWIC))
    with open(TWIC, "rb") as f:
        by_file = pa.table(pgnkit.games(f))
    assert set(by_file["file"].to_pylist()) == {str(TWIC)}
    assert by_file.drop_columns(["file"]).equals(by_path.drop_columns(["file"]))
    # Without a name: `<stream>`; compressed bytes as a file's.
    stream = io.BytesIO(gzip.compress(TWIC.read_bytes()))
    unnamed = pa.table(pgnkit.games(stream))
    assert set(unnamed["file"].to_pylist()) == {"<stream>"}
    assert unnamed.num_rows == by_path.num_rows


def test_python_threads_out_of_range():
    """Issue 43, defect 5: threads=-1 or 10**6 is a ValueError, as 0 is."""
    for bad in (-1, 0, 10**6, 10**30, True):
        with pytest.raises(ValueError, match="threads"):
            pgnkit.validate(TWIC, threads=bad)
        with pytest.raises(ValueError, match="threads"):
            pgnkit.perft("startpos", 1, threads=bad)


def test_python_decompression_bomb_is_skipped(capfd):
    """Issue 43, defect 3: a stretch with no game start past max_game_bytes
    is skipped and said on standard error, the games around it read."""
    game = b'[Event "x"]\n\n1. e4 e5 *\n\n'
    bomb = gzip.compress(game + b"a" * (3 << 20) + b"\n\n" + game)
    rows = pa.table(pgnkit.games(bomb, max_game_bytes="1M"))
    assert rows.num_rows == 2
    err = capfd.readouterr().err
    assert "skipped" in err and "bytes 25.." in err, err
    codes = pa.table(pgnkit.validate(bomb, max_game_bytes=1 << 20))["code"].to_pylist()
    assert codes.count("syntax") == 1, codes
    for bad in (0, -5, "12X", True):
        with pytest.raises(ValueError, match="max_game_bytes"):
            pgnkit.games(bomb, max_game_bytes=bad)


def test_dedupe_rows_and_files(tmp_path):
    """Issue 44: the package's dedupe() gives the CLI's report as rows, and
    writes the same files."""
    planted = FIXTURES / "dedupe" / "planted.pgn"
    dups = tmp_path / "dups.pgn"
    rows = pa.table(pgnkit.dedupe(planted, duplicates=dups))
    assert rows["role"].to_pylist().count("repeat") == 7
    assert rows["kind"].to_pylist()[1:4] == ["exact", "tags-differ", "result-differs"]
    assert rows["tags_differ"].to_pylist()[2] == ["Round", "White"]
    # One key for the game, one of its own for the truncated copy.
    assert len(set(rows["key"].to_pylist())) == 2
    assert rows["kind"].to_pylist()[4] == "prefix"
    code, out, _ = _pgnkit._run(["dedupe", "-q", "-f", "csv", str(planted)])
    assert code == 1 and out.decode().count("\n") == 1 + rows.num_rows
    assert dups.read_bytes().count(b"[Event ") == 7
    keys = pa.table(pgnkit.games(planted))["key"].to_pylist()
    assert keys.count(rows["key"][0].as_py()) == 7
    # no_prefix: the games of one key only, as the CLI's --no-prefix.
    exact = pa.table(pgnkit.dedupe(planted, no_prefix=True))
    assert "prefix" not in exact["kind"].to_pylist()
    assert exact.num_rows == rows.num_rows - 1
    # The line column of games() names each game's first line.
    assert pa.table(pgnkit.games(planted))["line"].to_pylist()[:3] == [1, 21, 46]
    with pytest.raises(ValueError, match="keep"):
        pgnkit.dedupe(planted, keep="last")
    with pytest.raises(Exception, match="twice"):
        pa.table(pgnkit.dedupe(planted.read_bytes()))


def test_python_path_with_newline_or_nul(tmp_path):
    """Issue 43, defect 6: the error names the input."""
    newline = tmp_path / "two\nlines.pgn"
    with pytest.raises(FileNotFoundError) as raised:
        pgnkit.validate(newline)
    assert "two\\nlines.pgn" in str(raised.value)
    with pytest.raises(ValueError, match=r"a\\0b\.pgn.*NUL"):
        pgnkit.validate(str(tmp_path / "a\0b.pgn"))


def test_python_bytes_that_hold_a_path():
    """Issue 43, defect 7: b"file.pgn" is refused, saying why."""
    with pytest.raises(ValueError, match="hold a path"):
        pgnkit.games(b"file.pgn")
    with pytest.raises(ValueError, match="hold a path"):
        pgnkit.validate(str(TWIC).encode())
    # PGN in bytes is still PGN, even a one-game line.
    assert pa.table(pgnkit.games(b"1. e4 e5 *")).num_rows == 1


def test_python_bytes_diagnostics_name_bytes(capfd):
    """Issue 43, defect 11 (with issue 42): a bytes input's diagnostics and
    error say `<bytes>`, never a temporary file."""
    damaged = b"[Event \"x\"]\n\n1. e4 {unclosed\n"
    pa.table(pgnkit.games(damaged))
    err = capfd.readouterr().err
    assert "<bytes>" in err and "/tmp" not in err


def test_zobrist_keys_are_python_chess_polyglot_keys():
    """Issue 45: every position's `zobrist` (and each game's
    `final_zobrist`) is python-chess's `chess.polyglot.zobrist_hash` of the
    same position, on every fixture of standard chess: 0 differences."""
    chess = pytest.importorskip("chess")
    import chess.polyglot

    compared = en_passant = 0
    for path in sorted(FIXTURES.glob("**/*.pgn")):
        if "960" in path.name:
            continue  # Polyglot keys are for standard chess
        rows = pa.table(pgnkit.positions(path)).to_pylist()
        last = {}
        for row in rows:
            # python-chess replays the game itself: its en passant square is
            # set after every double step, whether or not a capture is legal.
            if row["ply"] == 0:
                board = chess.Board(row["fen"])
            else:
                board.push_uci(row["uci"])
            assert row["zobrist"] == chess.polyglot.zobrist_hash(board), (path.name, row["game"], row["ply"])
            compared += 1
            en_passant += board.ep_square is not None and board.has_pseudo_legal_en_passant()
            last[row["game"]] = row["zobrist"]
        for game in pa.table(pgnkit.games(path)).to_pylist():
            if game["final_zobrist"] is not None and game["game"] in last:
                assert game["final_zobrist"] == last[game["game"]], (path.name, game["game"])
    # Enough positions, en passant among them, to mean something.
    assert compared > 3000 and en_passant >= 5, (compared, en_passant)


LICHESS_OPENINGS = FIXTURES / "openings" / "lichess-2025-05-01.pgn"
OPENINGS_THEN = FIXTURES / "openings" / "chess-openings-1e927b9.tsv"


def test_openings_agree_with_lichess_by_the_table_of_the_day():
    """Issue 45: with the table lichess used on 1 May 2025, every game's
    `eco` and `opening` are the `ECO` and `Opening` tags lichess wrote
    (lichess's `?` being null)."""
    rows = pa.table(pgnkit.games(LICHESS_OPENINGS, openings=OPENINGS_THEN)).to_pylist()
    assert len(rows) == 43
    for row in rows:
        tags = dict(row["tags"])
        eco, name = tags["ECO"], tags["Opening"]
        if eco == "?":
            assert (row["eco"], row["opening"], row["opening_ply"]) == (None, None, None)
        else:
            assert (row["eco"], row["opening"]) == (eco, name), row["game"]
    # The embedded table (a later version) names some of them otherwise,
    # which validate says when asked.
    today = pa.table(pgnkit.games(LICHESS_OPENINGS)).to_pylist()
    tags = [dict(r["tags"]) for r in today]
    differ = sum((r["eco"], r["opening"]) != (t["ECO"], t["Opening"]) and t["ECO"] != "?" for r, t in zip(today, tags))
    notes = pa.table(pgnkit.validate(LICHESS_OPENINGS, enable=["eco-mismatch"], only=["eco-mismatch"])).to_pylist()
    assert len(notes) == differ > 0
    assert {n["severity"] for n in notes} == {"note"}


def test_time_control_periods_and_time_spent_are_typed():
    """Issue 45: `time_control` is a list of structs, `time_spent` the
    seconds each move took, by each side's clock arithmetic."""
    table = pa.table(pgnkit.games(LICHESS_OPENINGS))
    field = table.schema.field("time_control").type
    assert pa.types.is_list(field) and pa.types.is_struct(field.value_type)
    assert [f.name for f in field.value_type] == ["moves", "seconds", "increment", "sandclock"]
    assert table.schema.field("time_spent").type == pa.list_(pa.float64())
    checked = 0
    for row in table.to_pylist():
        (period,) = row["time_control"]
        assert period["moves"] is None and not period["sandclock"]
        if row["clock"] is None or None in row["clock"]:
            continue
        before = [period["seconds"]] * 2
        for i, (clock, spent) in enumerate(zip(row["clock"], row["time_spent"])):
            want = before[i % 2] + period["increment"] - clock
            before[i % 2] = clock
            assert spent == (round(want, 3) if want >= 0 else None), (row["game"], i)
        checked += 1
    assert checked > 30
    tc = pa.table(pgnkit.games(b'[Event "e"]\n[TimeControl "40/5400+30:1800+30"]\n\n1. e4 *\n'))["time_control"][0].as_py()
    assert tc == [
        {"moves": 40, "seconds": 5400.0, "increment": 30.0, "sandclock": False},
        {"moves": None, "seconds": 1800.0, "increment": 30.0, "sandclock": False},
    ]


def test_crosstable_rows_are_the_cli_standings():
    """Issue 47: the package's crosstable() gives the CLI's standings."""
    events = FIXTURES / "tournament" / "twic1599_events.pgn"
    rows = pa.table(pgnkit.crosstable(events))
    code, out, _ = _pgnkit._run(["crosstable", "-q", "-f", "csv", str(events)])
    assert code == 0
    import csv as _csv

    cli = list(_csv.DictReader(io.StringIO(out.decode())))
    assert rows.num_rows == len(cli) == 49
    assert rows["competitor"].to_pylist() == [r["competitor"] for r in cli]
    assert rows["points"].to_pylist() == [float(r["points"]) for r in cli]
    assert [" ".join(r) for r in rows["results"].to_pylist()] == [r["results"] for r in cli]
