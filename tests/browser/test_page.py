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
import re
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


def load(page_path, shot, javascript=True, width=1280, scheme="light", extra=None):
    """Opens the page offline; returns what the browser saw (and what
    `extra(page)` returns, under "extra")."""
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        context = browser.new_context(
            viewport={"width": width, "height": 1000},
            java_script_enabled=javascript,
            color_scheme=scheme,
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
        if extra is not None:
            seen["extra"] = extra(page)
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.evaluate("() => window.scrollTo(0, 0)")
        page.screenshot(path=str(SHOTS / shot))
        if javascript:
            page.emulate_media(media="print")
            page.pdf(path=str(SHOTS / shot.replace(".png", ".pdf")), format="A4")
            # What the print looks like, at A4's width (the PDF is not an
            # image to look at).
            page.set_viewport_size({"width": 794, "height": 1123})
            page.screenshot(path=str(SHOTS / shot.replace(".png", "-print.png")))
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


# Issue 47: the index, the moves around each finding, the suggested move.

REPAIR_INPUTS = ["fixtures/repairs/planted.pgn", "fixtures/pgn/illegal_move_ply_61.pgn"]

# The tags the index test files its games under: (Event, Round, Board) for
# the twelve games of twic1599_excerpt.pgn, None where the tag is left out.
FILED = [
    ("Open", "10", "2"),
    ("Open", "2", "10"),
    ("Open", "2", "9"),
    ("Open", "3.1", None),
    ("Open", "?", None),
    ("Open", "2", "1"),
    ("Open", "10", "1"),
    ("Rapid", "1", "1"),
    ("Open", "3.2", None),
    ("Open", "-", None),
    ("Open", "2", None),
    ("Open", None, None),
]


def natural(name):
    """The natural order's key: numbers by value, `2` before `10`."""
    return [
        (0, int(part), "") if part.isdigit() else (1, 0, part)
        for part in re.findall(r"\d+|\D+", name)
    ]


def filed_under(event, round_, board):
    """Round and board a game is filed under (a `5.3` round without a
    Board tag is round 5, board 3)."""
    if round_ in (None, "", "?", "-"):
        return None, board
    if board is None:
        m = re.fullmatch(r"(.+)\.(\d+)", round_)
        if m:
            return m.group(1), m.group(2)
    return round_, board


def expected_index(games):
    """The index's groups for `games` [(number, event, round, board)]:
    [(event, [(heading, [number…])…])…]."""
    events = []
    for number, event, round_, board in games:
        group = next((g for g in events if g[0] == event), None)
        if group is None:
            group = (event, [])
            events.append(group)
        group[1].append((number, *filed_under(event, round_, board)))
    out = []
    for event, entries in events:
        rounds = sorted(
            (e for e in entries if e[1] is not None),
            key=lambda e: (
                natural(e[1]),
                e[1],
                e[2] is None,
                natural(e[2] or ""),
            ),
        )
        groups = []
        for number, round_, _ in rounds:
            if not groups or groups[-1][0] != f"Round {round_}":
                groups.append((f"Round {round_}", []))
            groups[-1][1].append(number)
        others = [e[0] for e in entries if e[1] is None]
        if others:
            heading = "Other games (no round)" if groups else "Games without a round"
            groups.append((heading, others))
        out.append((event, groups))
    return out


@pytest.fixture(scope="module")
def filed_pgn(tmp_path_factory):
    """twic1599_excerpt.pgn's games under other events, rounds and
    boards, each with a termination marker its Result tag contradicts (a
    finding, so that each has an entry)."""
    path = tmp_path_factory.mktemp("filed") / "filed.pgn"
    texts = []
    with open(ROOT / "fixtures/pgn/twic1599_excerpt.pgn", encoding="utf-8") as f:
        for event, round_, board in FILED:
            game = chess.pgn.read_game(f)
            game.headers["Event"] = event
            for name, value in (("Round", round_), ("Board", board)):
                if value is None:
                    game.headers.pop(name, None)
                else:
                    game.headers[name] = value
            text = str(game).rstrip()
            texts.append(text[: text.rfind(" ")] + " *")
    path.write_text("\n\n".join(texts) + "\n", encoding="utf-8")
    return path


READ_INDEX = """
() => [...document.querySelectorAll('nav#index section')].map(sec => ({
  event: sec.querySelector('h3').textContent,
  groups: [...sec.querySelectorAll('h4')].map(h => ({
    heading: h.textContent,
    hrefs: [...h.nextElementSibling.querySelectorAll('a')].map(a => a.getAttribute('href')),
  })),
}))
"""


def test_the_index_links_every_game_once_by_round_and_board(filed_pgn, tmp_path):
    path = tmp_path / "filed.html"
    pgnkit("validate", "-q", "-f", "html", "-o", str(path), str(filed_pgn))

    def click_each(page):
        """For each index link: whether its article was in view before the
        click, and where its top is after (the viewport is 1,000 high)."""
        out = []
        hrefs = page.evaluate(
            "() => [...document.querySelectorAll('nav#index a')].map(a => a.getAttribute('href'))"
        )
        for href in hrefs:
            page.evaluate("() => window.scrollTo(0, 0)")
            page.click(f'nav#index a[href="{href}"]')
            page.wait_for_function(f"() => location.hash === '{href}'")
            out.append(
                page.evaluate(
                    """(href) => {
                      const el = document.getElementById(href.slice(1));
                      const r = el.getBoundingClientRect();
                      const bottom = window.scrollY + window.innerHeight
                        >= document.documentElement.scrollHeight - 1;
                      return {href, tag: el.tagName, top: r.top, bottom};
                    }""",
                    href,
                )
            )
        return out

    seen = load(
        path,
        "index.png",
        extra=lambda page: {
            "index": page.evaluate(READ_INDEX),
            "articles": page.evaluate(
                "() => [...document.querySelectorAll('article.game')].map(a => [a.id, Number(a.dataset.game)])"
            ),
            "clicks": click_each(page),
        },
    )
    assert seen["errors"] == [] and seen["requests"] == []
    extra = seen["extra"]
    articles = dict(extra["articles"])
    # Every game has an entry, in input order, each with its own id.
    assert [n for _, n in extra["articles"]] == list(range(1, len(FILED) + 1))
    assert len(articles) == len(FILED)
    # The index lists each entry exactly once, grouped as the tags say.
    hrefs = [h for sec in extra["index"] for g in sec["groups"] for h in g["hrefs"]]
    assert sorted(hrefs) == sorted(f"#{id}" for id in articles)
    got = [
        (sec["event"], [(g["heading"], [articles[h[1:]] for h in g["hrefs"]]) for g in sec["groups"]])
        for sec in extra["index"]
    ]
    games = [(i + 1, *tags) for i, tags in enumerate(FILED)]
    assert got == expected_index(games)
    # Round 2: boards 1, 9, 10, then the game without a board.
    assert got[0][1][0] == ("Round 2", [6, 3, 2, 11])
    # Each link scrolls its game's entry to the top of the window (or as
    # far as the page goes).
    assert len(extra["clicks"]) == len(FILED)
    for click in extra["clicks"]:
        assert click["tag"] == "ARTICLE"
        assert -2 <= click["top"] <= 2 or (click["bottom"] and 0 <= click["top"] < 1000), click
    assert seen["scroll_width"] <= 1280


def csv_rows(inputs):
    out = pgnkit("validate", "-q", "-f", "csv", *inputs)
    return list(csv.DictReader(io.StringIO(out.stdout.decode())))


def square_name(file, rank):
    return "abcdefgh"[file] + str(rank + 1)


# Per entry: its code, plies, game, the arrows by class with the squares
# under their two ends (read from where the browser drew them, not from
# the attributes), the legend, and the moves around it.
READ_ENTRIES = """
() => [...document.querySelectorAll('.finding')].map(entry => {
  const svg = entry.querySelector('svg.board');
  const game = entry.closest('.game');
  const arrows = svg ? [...svg.querySelectorAll('line')].map(line => {
    const box = svg.getBoundingClientRect();
    const size = box.width / 8;
    const m = line.getScreenCTM();
    const at = (x, y) => {
      const p = new DOMPoint(x, y).matrixTransform(m);
      return [Math.floor((p.x - box.left) / size), 7 - Math.floor((p.y - box.top) / size)];
    };
    const n = (a) => line[a].baseVal.value;
    return {
      cls: line.getAttribute('class'),
      from: at(n('x1'), n('y1')),
      to: at(n('x2'), n('y2')),
      data: [line.dataset.from, line.dataset.to, line.dataset.san],
      dashed: getComputedStyle(line).strokeDasharray,
      stroke: getComputedStyle(line).stroke,
    };
  }) : [];
  const around = entry.querySelector('.around');
  const mark = around ? around.querySelector('mark') : null;
  const caption = entry.querySelector('figcaption');
  return {
    code: entry.dataset.code,
    plies: entry.dataset.plies === undefined ? null : Number(entry.dataset.plies),
    file: game.dataset.file,
    game: Number(game.dataset.game),
    arrows,
    legend: caption ? caption.textContent : null,
    around: around ? around.textContent : null,
    mark: mark ? mark.textContent : null,
    markPly: mark ? Number(mark.dataset.ply) : null,
    beforeMark: mark ? [...around.childNodes].slice(0, [...around.childNodes].indexOf(mark))
      .map(n => n.textContent).join('') : null,
  };
})
"""


def suggested_at(row):
    """The first repair's first move and its ply, when the suggestion
    names one (`31.Qd1 (the remaining ply replays); or …`)."""
    m = re.match(r"(\d+)\.(\.\.)?(\S+)", row["suggestion"])
    if not m:
        return None
    ply = (int(m.group(1)) - 1) * 2 + (2 if m.group(2) else 1)
    return ply, m.group(3)


@pytest.fixture(scope="module")
def repair_page(tmp_path_factory):
    path = tmp_path_factory.mktemp("repairs") / "repairs.html"
    pgnkit("validate", "-q", "-f", "html", "-o", str(path), *REPAIR_INPUTS)
    return load(path, "repairs.png", extra=lambda page: page.evaluate(READ_ENTRIES))


def test_the_suggested_move_is_drawn_where_it_is_played(repair_page):
    seen = repair_page
    assert seen["errors"] == [] and seen["requests"] == []
    entries = seen["extra"]
    rows = csv_rows(REPAIR_INPUTS)
    assert len(entries) == len(rows)
    drawn = 0
    for entry, row in zip(entries, rows):
        assert (entry["file"], entry["game"], entry["code"]) == (
            row["file"],
            int(row["game"]),
            row["code"],
        )
        suggested = [a for a in entry["arrows"] if a["cls"] == "arrow-suggested"]
        at = suggested_at(row) if row["suggestion"] and row["ply"] else None
        if at is None or at[0] != int(row["ply"]):
            # No repair, or one of another move: nothing drawn for it.
            assert suggested == [], (row["game"], row["suggestion"])
            continue
        ply, san = at
        assert entry["plies"] == ply - 1
        board = python_chess_position(row["file"], int(row["game"]), ply - 1)
        move = board.parse_san(san)
        want = (chess.square_name(move.from_square), chess.square_name(move.to_square))
        [arrow] = suggested
        # Where the browser drew it, and what it says it is.
        got = (square_name(*arrow["from"]), square_name(*arrow["to"]))
        assert got == want, (row["game"], san)
        assert arrow["data"] == [*want, san]
        assert arrow["dashed"] not in ("none", ""), "the suggested arrow is dashed"
        assert f"probably meant: {san} (green, dashed)" in entry["legend"]
        written = [a for a in entry["arrows"] if a["cls"] == "arrow"]
        for w in written:
            assert w["stroke"] != arrow["stroke"], "the two arrows differ in colour"
            assert (square_name(*w["from"]), square_name(*w["to"])) == tuple(w["data"][:2])
            assert f"written: {w['data'][2]} (blue, solid)" in entry["legend"]
        drawn += 1
    # Planted games 4, 5, 6, 9, 10 and 31.Qd1 for 31.Qxe1.
    assert drawn == 6


def test_the_moves_around_each_finding_mark_its_move(repair_page):
    entries = repair_page["extra"]
    rows = csv_rows(REPAIR_INPUTS)
    checked = 0
    for entry, row in zip(entries, rows):
        if not row["ply"]:
            assert entry["around"] is None
            continue
        ply = int(row["ply"])
        assert entry["markPly"] == ply
        # The move as the report names it: `10.O-O-O`, or Black's `Ne4`
        # after White's move (`8...Ne4` when a line starts with it).
        assert re.sub(r"^\d+\.(\.\.)?", "", entry["mark"]) == row["san"]
        assert row["move"].endswith(entry["mark"])
        # The written moves before it are the game's, as python-chess
        # reads them up to the finding (the moves replay that far).
        before = [
            re.sub(r"^\d+\.(\.\.)?", "", w)
            for w in entry["beforeMark"].replace("Moves as written:", "").split()
            if w != "…"
        ]
        game_board = python_chess_position(row["file"], int(row["game"]), ply - 1)
        played = [m for m in game_board.move_stack]
        replay = _games[(row["file"], int(row["game"]))].board()
        sans = []
        for m in played:
            sans.append(replay.san(m))
            replay.push(m)
        assert before == sans[-6:], (row["game"], before)
        checked += 1
    assert checked == len(rows) > 10


def test_page_reads_on_a_narrow_screen_and_in_the_dark(repair_page, tmp_path):
    path = tmp_path / "narrow.html"
    pgnkit("validate", "-q", "-f", "html", "-o", str(path), *REPAIR_INPUTS)
    narrow = load(path, "repairs-narrow.png", width=390)
    assert narrow["scroll_width"] <= 390, "no horizontal scrolling on a phone"
    dark = load(path, "repairs-dark.png", scheme="dark")
    assert dark["errors"] == [] and dark["scroll_width"] <= 1280
    check_boards(dark["boards"])


def test_the_crosstable_links_each_problem_game(tmp_path):
    """Issue 47: the page draws each event's crosstable; a cell of a game
    with a pairing finding links that game's entry, and the link scrolls
    to it. The games are real (TWIC 1599) with pairing errors planted."""
    planted = ROOT / "fixtures" / "tournament" / "planted.pgn"
    path = tmp_path / "tournament.html"
    pgnkit("validate", "-q", "-f", "html", "-o", str(path), str(planted))
    rows = list(csv.DictReader(io.StringIO(pgnkit("validate", "-q", "-f", "csv", str(planted)).stdout.decode())))
    pairing = {"paired-twice", "board-twice", "round-missing", "round-order", "name-variant", "pairing-repeated"}
    flagged = {int(r["game"]) for r in rows if r["code"] in pairing}

    def click_cells(page):
        out = []
        hrefs = page.evaluate(
            "() => [...document.querySelectorAll('#tournament td.problem a')].map(a => a.getAttribute('href'))"
        )
        for i, href in enumerate(hrefs):
            page.evaluate("() => window.scrollTo(0, 0)")
            page.locator("#tournament td.problem a").nth(i).click()
            page.wait_for_function(f"() => location.hash === '{href}'")
            out.append(
                page.evaluate(
                    """(href) => {
                      const el = document.getElementById(href.slice(1));
                      const r = el.getBoundingClientRect();
                      const bottom = window.scrollY + window.innerHeight
                        >= document.documentElement.scrollHeight - 1;
                      const game = el.tagName === 'ARTICLE' ? Number(el.dataset.game)
                        : Number(el.querySelector('td').textContent.match(/: game (\\d+) /)[1]);
                      return {href, tag: el.tagName, game, top: r.top, bottom};
                    }""",
                    href,
                )
            )
        return out

    seen = load(
        path,
        "tournament.png",
        extra=lambda page: {
            "tables": page.evaluate("() => document.querySelectorAll('#tournament table.xt').length"),
            "clicks": click_cells(page),
        },
    )
    assert seen["errors"] == [] and seen["requests"] == []
    extra = seen["extra"]
    assert extra["tables"] == 4
    clicks = extra["clicks"]
    # Each game with a pairing finding is linked from its players' cells
    # (a bye has one); the round-order game (a real pairing) too.
    linked = {c["game"] for c in clicks}
    assert flagged <= linked, (flagged, linked)
    for click in clicks:
        # The game's entry, or (a game with pairing findings only) its row
        # in the table of pairing findings.
        assert click["tag"] in ("ARTICLE", "TR"), click
        assert -2 <= click["top"] <= 2 or (click["bottom"] and 0 <= click["top"] < 1000), click
