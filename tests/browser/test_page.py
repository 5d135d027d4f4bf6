"""The arbiter's page in a real browser: Debian's Chromium, headless, driven
by playwright (no browser download). `.ci/run` installs both.

Each board is read back from where the browser drew its pieces and compared
with the FEN printed beside it and with the position python-chess reaches
at that ply of the same game. A screenshot of each page is kept under
target/browser/.

Environment: PGNKIT_BIN (default target/debug/pgnkit), CHROMIUM
(default /usr/bin/chromium).
"""

import csv
import io
import os
import subprocess
from pathlib import Path

import chess
import chess.pgn
import pytest
from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[2]
BIN = os.environ.get("PGNKIT_BIN", str(ROOT / "target" / "debug" / "pgnkit"))
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
SHOTS = ROOT / "target" / "browser"

# Real games with every kind of finding a board is drawn for.
VALIDATE_INPUTS = [
    "fixtures/pgn/illegal_move_ply_61.pgn",
    "fixtures/pgn/ambiguous_move.pgn",
    "fixtures/pgn/move_after_mate.pgn",
    "fixtures/pgn/wrong_result_mate.pgn",
    "fixtures/pgn/check_suffix.pgn",
    "fixtures/pgn/stalemate_scored_win.pgn",
    "fixtures/pgn/twic1599_excerpt.pgn",
    "fixtures/pgn/lichess_clocks.pgn",
    "fixtures/pgn/fivefold_then_move.pgn",
]
ANNOTATE_INPUTS = sorted(
    str(p.relative_to(ROOT)) for p in (ROOT / "fixtures" / "annotate").glob("*.pgn")
) + ["fixtures/pgn/twic1599_excerpt.pgn", "fixtures/pgn/wrong_result_mate.pgn"]

# Where each piece is drawn, read from the rendered page: per board, the
# FEN printed beside it, its data-fen, the game and plies it stands for,
# and the pieces by the square under the centre of each one's drawing.
READ_BOARDS = """
() => [...document.querySelectorAll('svg.board')].map(svg => {
  const box = svg.getBoundingClientRect();
  const size = box.width / 8;
  const pieces = [...svg.querySelectorAll('use[href^="#pc-"]')].map(u => {
    const r = u.getBoundingClientRect();
    const file = Math.floor((r.left + r.width / 2 - box.left) / size);
    const rank = 7 - Math.floor((r.top + r.height / 2 - box.top) / size);
    return [file, rank, u.getAttribute('href').slice(4)];
  });
  const entry = svg.closest('.finding');
  const game = svg.closest('.game');
  const caption = entry.querySelector('code.fen');
  return {
    fen: svg.dataset.fen,
    printed: caption ? caption.textContent : null,
    label: svg.getAttribute('aria-label'),
    plies: Number(entry.dataset.plies),
    file: game.dataset.file,
    game: Number(game.dataset.game),
    pieces,
  };
})
"""


def pgnkit(*args, check_status=(0, 1)):
    out = subprocess.run([BIN, *args], cwd=ROOT, capture_output=True)
    assert out.returncode in check_status, out.stderr.decode()
    return out


def placement(pieces):
    """A FEN placement from (file, rank, 'wK') triples."""
    grid = [[None] * 8 for _ in range(8)]
    for file, rank, name in pieces:
        assert 0 <= file < 8 and 0 <= rank < 8, (file, rank, name)
        assert grid[rank][file] is None, f"two pieces drawn on one square: {name}"
        symbol = name[1]
        grid[rank][file] = symbol if name[0] == "w" else symbol.lower()
    rows = []
    for rank in range(7, -1, -1):
        row, empty = "", 0
        for file in range(8):
            p = grid[rank][file]
            if p is None:
                empty += 1
            else:
                row += (str(empty) if empty else "") + p
                empty = 0
        rows.append(row + (str(empty) if empty else ""))
    return "/".join(rows)


_games = {}


def python_chess_position(file, number, plies):
    """The position python-chess reaches after `plies` main-line moves of
    game `number` of `file` (plies beyond its main line: its end)."""
    key = (file, number)
    if key not in _games:
        with open(ROOT / file, encoding="utf-8", errors="replace") as f:
            for _ in range(number):
                game = chess.pgn.read_game(f)
        _games[key] = game
    board = _games[key].board()
    for i, move in enumerate(_games[key].mainline_moves()):
        if i == plies:
            break
        board.push(move)
    return board


def load(page_path, shot, javascript=True, width=1280):
    """Opens the page offline; returns what the browser saw."""
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        context = browser.new_context(
            viewport={"width": width, "height": 1000}, java_script_enabled=javascript
        )
        page = context.new_page()
        errors, requests = [], []
        page.on("console", lambda m: m.type == "error" and errors.append(m.text))
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on(
            "request",
            lambda r: not r.url.startswith("file://") and requests.append(r.url),
        )
        page.goto(page_path.as_uri())
        seen = {
            "errors": errors,
            "requests": requests,
            "boards": page.evaluate(READ_BOARDS),
            "body": page.evaluate("() => ({...document.body.dataset})"),
            "scroll_width": page.evaluate("() => document.documentElement.scrollWidth"),
            "rest_fens": page.evaluate(
                "() => [...document.querySelectorAll('section tbody code.fen')].map(c => c.textContent)"
            ),
        }
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / shot))
        if javascript:
            page.emulate_media(media="print")
            page.pdf(path=str(SHOTS / shot.replace(".png", ".pdf")), format="A4")
        browser.close()
    return seen


def expected_boards(inputs):
    """The findings validate draws a board for, from its CSV report: those
    about a move, and those about the result."""
    out = pgnkit("validate", "-q", "-f", "csv", *inputs)
    rows = list(csv.DictReader(io.StringIO(out.stdout.decode())))
    return [
        r
        for r in rows
        if r["ply"] or r["code"] in ("result-mismatch", "wrong-result")
    ]


def check_boards(boards):
    for b in boards:
        drawn = placement(b["pieces"])
        assert b["printed"] == b["fen"], b
        assert drawn == b["fen"].split()[0], (b["file"], b["game"], b["plies"])
        assert b["fen"] in b["label"], "the FEN is the board's text alternative"
        board = python_chess_position(b["file"], b["game"], b["plies"])
        assert board.fen() == b["fen"], (b["file"], b["game"], b["plies"])


@pytest.fixture(scope="module")
def validate_page(tmp_path_factory):
    path = tmp_path_factory.mktemp("page") / "validate.html"
    pgnkit("validate", "-q", "-f", "html", "-o", str(path), *VALIDATE_INPUTS)
    return path


def test_validate_page_boards_are_the_positions_of_the_findings(validate_page):
    seen = load(validate_page, "validate.png")
    assert seen["errors"] == []
    assert seen["requests"] == [], "the page loads nothing from the network"
    want = expected_boards(VALIDATE_INPUTS)
    assert len(want) > 5
    assert len(seen["boards"]) == len(want) == int(seen["body"]["boards"])
    # In input order, each at the game and ply of its finding.
    for b, row in zip(seen["boards"], want):
        assert (b["file"], b["game"]) == (row["file"], int(row["game"]))
        if row["ply"]:
            assert b["plies"] == int(row["ply"]) - 1
    check_boards(seen["boards"])
    assert seen["scroll_width"] <= 1280, "no horizontal scrolling at 1,280 px"


def test_validate_page_reads_without_javascript(validate_page):
    seen = load(validate_page, "validate-nojs.png", javascript=False)
    assert len(seen["boards"]) == len(expected_boards(VALIDATE_INPUTS))
    check_boards(seen["boards"])


def test_boards_beyond_the_limit_are_listed_with_their_fen(tmp_path):
    path = tmp_path / "limited.html"
    pgnkit("validate", "-q", "-f", "html", "--html-boards", "3", "-o", str(path), *VALIDATE_INPUTS)
    seen = load(path, "validate-limited.png")
    want = expected_boards(VALIDATE_INPUTS)
    assert len(seen["boards"]) == 3
    assert len(seen["rest_fens"]) == len(want) - 3
    full = load_fens(VALIDATE_INPUTS)
    assert [b["fen"] for b in seen["boards"]] + seen["rest_fens"] == full


def load_fens(inputs):
    """Every board's FEN of the unlimited page, in order."""
    with subprocess.Popen(
        [BIN, "validate", "-q", "-f", "html", *inputs], cwd=ROOT, stdout=subprocess.PIPE
    ) as proc:
        html = proc.stdout.read().decode()
    import re

    return re.findall(r'<svg class="board"[^>]* data-fen="([^"]*)"', html)


def test_annotate_page_shows_the_positions_an_arbiter_must_see(tmp_path):
    path = tmp_path / "annotate.html"
    pgnkit("annotate-outcome", "-q", "-f", "html", "-o", str(path), *ANNOTATE_INPUTS)
    seen = load(path, "annotate.png")
    assert seen["errors"] == [] and seen["requests"] == []
    # One entry per line of -f text, the same games.
    text = pgnkit("annotate-outcome", "-q", "-f", "text", *ANNOTATE_INPUTS).stdout.decode()
    assert int(seen["body"]["entries"]) == len(text.splitlines()) > 5
    assert len(seen["boards"]) == int(seen["body"]["boards"]) > 5
    check_boards(seen["boards"])
    assert seen["scroll_width"] <= 1280
