"""`pgnkit select`'s criteria as the package takes them, the `where=` of
`games()`, `positions()` and `annotate_outcome()`: for one criterion of
each kind, the games python-chess says it selects (and the ply at which a
position or move matched) are the games pgnkit gives, on every game of the
fixtures both read, with 0 differences; every option of `pgnkit select` is
a key of `where=`; a criterion that cannot be is a ValueError naming it."""

import io
import re
import shutil
import subprocess
import unicodedata
from pathlib import Path

import pyarrow as pa
import pytest

import pgnkit
from pgnkit import _pgnkit
from conftest import CORPUS_ZST, FIXTURES

chess = pytest.importorskip("chess")
import chess.pgn  # noqa: E402

LICHESS = FIXTURES / "openings" / "lichess-2025-05-01.pgn"
OPENINGS_TSV = FIXTURES / "openings" / "chess-openings-1e927b9.tsv"
TWIC = FIXTURES / "pgn" / "twic1599_excerpt.pgn"
PLANTED = FIXTURES / "dedupe" / "planted.pgn"

# A game a criterion does not select (a ply, or None, is one it does).
REJECTED = object()


# -- The games, as python-chess reads them ----------------------------------


class Game:
    """One game's main line as python-chess replays it, kept as what the
    criteria look at, so that each is cheap to test."""

    __slots__ = (
        "headers", "duplicate_tag", "errors", "marker", "moves", "keys", "ep_legal", "check", "mate", "material", "opening",
    )

    def __init__(self):
        self.headers = {}
        self.duplicate_tag = False
        self.errors = []
        # The termination marker (`1-0` after the moves).
        self.marker = None
        # Per move: (mover, piece type, from, to, capture, promotion,
        # castling side "K"/"Q" or None, UCI).
        self.moves = []
        # Per position, the start (ply 0) then after each move: the pieces
        # (the six piece-type and two colour bitboards), side to move,
        # castling rights and the en-passant square counted as Polyglot
        # counts it (a pawn of the side to move beside the pawn that moved
        # two squares), as one tuple; the en-passant square only when the
        # capture is legal (the openings table's rule); check; checkmate.
        self.keys = []
        self.ep_legal = []
        self.check = []
        self.mate = []
        # (ply, counts) where the material changes: counts are White's then
        # Black's pawns, knights, bishops, rooks, queens.
        self.material = []
        # (eco, name) by the openings table of OPENINGS_TSV, or None.
        self.opening = None


class Reader(chess.pgn.BaseVisitor):
    """A python-chess visitor that keeps a `Game` (variations skipped)."""

    def begin_game(self):
        self.game = Game()

    def visit_header(self, name, value):
        if name in self.game.headers:
            self.game.duplicate_tag = True
        else:
            self.game.headers[name] = value

    def begin_variation(self):
        return chess.pgn.SKIP

    def visit_result(self, result):
        if self.game.marker is None:
            self.game.marker = result

    def handle_error(self, error):
        self.game.errors.append(error)

    def visit_move(self, board, move):
        castle = None
        if board.is_castling(move):
            castle = "K" if board.is_kingside_castling(move) else "Q"
        self.game.moves.append(
            (
                board.turn,
                board.piece_type_at(move.from_square),
                move.from_square,
                move.to_square,
                board.is_capture(move),
                move.promotion,
                castle,
                move.uci(),
            )
        )

    def visit_board(self, board):
        g = self.game
        ply = len(g.keys)
        if ply > len(g.moves):
            return  # a move python-chess could not read: no new position
        key = position_key(board)
        g.keys.append(key)
        g.ep_legal.append(key[10] if key[10] is not None and board.has_legal_en_passant() else None)
        check = board.is_check()
        g.check.append(check)
        g.mate.append(check and board.is_checkmate())
        last = g.moves[-1] if g.moves else None
        if ply == 0 or last[4] or last[5]:
            g.material.append((ply, material_counts(key)))

    def result(self):
        return self.game


# Indexes into a position's key.
WHITE_PIECES, BLACK_PIECES, TURN, EP = 6, 7, 8, 10


def position_key(board):
    """The pieces, side to move, castling rights and en-passant square (when
    a pawn of the side to move stands beside the pawn that moved two
    squares: Polyglot's rule) of `board`, as a tuple."""
    ep = board.ep_square if board.ep_square is not None and board.has_pseudo_legal_en_passant() else None
    return (
        board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings,
        board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK],
        board.turn, board.clean_castling_rights(), ep,
    )


def material_counts(key):
    """White's then Black's pawns, knights, bishops, rooks and queens."""
    return tuple((bb & key[side]).bit_count() for side in (WHITE_PIECES, BLACK_PIECES) for bb in key[:5])


def decompress(src, dst):
    """The corpus, decompressed: by the zstandard module, else zstd."""
    try:
        import zstandard
    except ImportError:
        zstd = shutil.which("zstd")
        if not zstd:
            pytest.skip("neither the zstandard module nor the zstd CLI")
        with open(dst, "wb") as out:
            subprocess.run([zstd, "-dc", str(src)], stdout=out, check=True)
    else:
        with open(src, "rb") as f, open(dst, "wb") as out:
            zstandard.ZstdDecompressor().copy_stream(f, out)
    return dst


@pytest.fixture(scope="session")
def inputs(tmp_path_factory):
    corpus = decompress(CORPUS_ZST, tmp_path_factory.mktemp("select") / "corpus.pgn")
    return [str(p) for p in (LICHESS, TWIC, PLANTED, corpus)]


def read_openings(path):
    """The openings table of a lichess TSV file, by python-chess: {position
    key with the en-passant square only when the capture is legal: (eco,
    name)}, the first line of a position named twice kept, and the plies of
    its longest line (no later position is looked up)."""
    table, depth = {}, 0
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        cols = line.split("\t")
        if not line.strip() or cols[:3] == ["eco", "name", "pgn"]:
            continue
        eco, name, pgn = cols[:3]
        board = chess.Board()
        sans = [t for t in pgn.split() if not re.fullmatch(r"\d+\.+", t)]
        for san in sans:
            board.push_san(san)
        depth = max(depth, len(sans))
        key = position_key(board)
        key = key[:EP] + (board.ep_square if key[EP] is not None and board.has_legal_en_passant() else None,)
        table.setdefault(key, (eco, name))
    return table, depth


def classify(game, table, depth):
    """The table's last position the game reached within its depth (a game
    from another start than the standard has no opening)."""
    if game.keys[0] != position_key(chess.Board()):
        return None
    found = None
    for ply in range(1, min(depth, len(game.keys) - 1) + 1):
        opening = table.get(game.keys[ply][:EP] + (game.ep_legal[ply],))
        if opening is not None:
            found = opening
    return found


@pytest.fixture(scope="session")
def universe(inputs):
    """Every game python-chess reads without an error and pgnkit replays,
    by (file, game), as python-chess read it.

    python-chess reads each game from the bytes pgnkit says it spans (from
    its `offset` to the next game's), so that both number the games alike:
    python-chess ends a game at a blank line, and so splits in two the 4
    games of the corpus whose tags are followed by two blank lines; those
    are left out. A game is decoded as UTF-8, else Latin-1 (as pgnkit
    reads a tag that is not UTF-8: game 10 of planted.pgn)."""
    rows = pa.table(pgnkit.games(*inputs)).select(["file", "game", "offset", "error", "uci", "tags"]).to_pylist()
    by_file = {}
    for row in rows:
        by_file.setdefault(row["file"], []).append(row)
    assert list(by_file) == inputs
    table, depth = read_openings(OPENINGS_TSV)
    games = {}
    for path, file_rows in by_file.items():
        data = Path(path).read_bytes()
        ends = [r["offset"] for r in file_rows[1:]] + [len(data)]
        for row, end in zip(file_rows, ends):
            raw = data[row["offset"] : end]
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                text = raw.decode("latin-1")
            handle = io.StringIO(text)
            game = chess.pgn.read_game(handle, Visitor=Reader)
            split = chess.pgn.read_game(handle, Visitor=Reader) is not None
            if game is None or split or game.errors or row["error"] is not None:
                continue
            # Both read the same game: the same moves, the same tags.
            assert [m[7] for m in game.moves] == row["uci"], (path, row["game"])
            assert not game.duplicate_tag and game.headers == dict(row["tags"]), (path, row["game"])
            game.opening = classify(game, table, depth)
            games[(path, row["game"])] = game
    # Hundreds of games (the corpus's 3184 but 4, and the fixtures').
    assert len(games) > 3000 and len(games) > len(rows) - 10, (len(games), len(rows))
    return games


def selected(inputs, where, **kwargs):
    """pgnkit's selection: {(file, game): match_ply}."""
    t = pa.table(pgnkit.games(*inputs, where=where, **kwargs)).select(["file", "game", "match_ply"])
    return {(f, g): p for f, g, p in zip(*(t[c].to_pylist() for c in ("file", "game", "match_ply")))}


# -- The criteria, as python-chess's games answer them ----------------------
#
# Each gives a function of a `Game`: REJECTED, or the ply at which a
# position or move matched (None when the criterion is about no position).


def spans(values):
    """`MIN..MAX`, `MIN..`, `..MAX` or `N` (an int too), as (min, max)."""
    out = []
    for v in listed(values):
        lo, _, hi = str(v).partition("..") if ".." in str(v) else (str(v), "", str(v))
        out.append((int(lo) if lo else 0, int(hi) if hi else 1 << 32))
    return out


def listed(values):
    """A value or a list of them (None: none), as a list."""
    if values is None:
        return []
    return values if isinstance(values, list) else [values]


def tags(specs):
    """`NAME=VALUE` or `NAME~REGEX`; a missing tag is empty; the tests of
    one tag name any of, of two names all."""
    tests = {}
    for spec in listed(specs):
        name, op, value = re.fullmatch(r"(\w+)([=~])(.*)", spec).groups()
        if op == "=":
            tests.setdefault(name, []).append(lambda v, value=value: v == value)
        else:
            tests.setdefault(name, []).append(lambda v, rx=re.compile(value): rx.search(v) is not None)
    return lambda g: None if all(any(t(g.headers.get(n, "")) for t in ts) for n, ts in tests.items()) else REJECTED


# Letters that are no letter plus a mark, and what they fold to.
FOLDED = {
    "ł": "l", "Ł": "l", "ø": "o", "Ø": "o", "đ": "d", "Đ": "d", "ð": "d", "Ð": "d",
    "ß": "ss", "æ": "ae", "Æ": "ae", "œ": "oe", "Œ": "oe", "þ": "th", "Þ": "th", "ı": "i",
}


def fold(text):
    """The words of `text`: lower case, accents and other marks taken off
    (NFD, then no combining mark), every other character not a letter or a
    digit a separator."""
    out = []
    for c in unicodedata.normalize("NFD", text):
        if unicodedata.category(c).startswith("M"):
            continue
        out.append(FOLDED.get(c) or (c.lower() if c.isalnum() else " "))
    return "".join(out).split()


def name_matches(query, name):
    """Each word asked for begins a word of the name, or a one-letter word
    of the name (an initial) begins it."""
    words = fold(name)
    return all(any(w.startswith(q) or (len(w) == 1 and q.startswith(w)) for w in words) for q in fold(query))


def players(*tags_, names):
    def test(g):
        return any(
            name_matches(q, g.headers[t]) for t in tags_ if t in g.headers for q in listed(names)
        )

    return lambda g: None if test(g) else REJECTED


def day_span(text):
    """The first and last days a `Date` tag can be (None without a year):
    `2019.??.??` is all of 2019, `2019.05.??` all of May."""
    parts = [p.strip() for p in re.split(r"[./-]", text.strip())]

    def number(i, lo, hi):
        ok = len(parts) > i and parts[i].isascii() and parts[i].isdigit() and lo <= int(parts[i]) <= hi
        return int(parts[i]) if ok else None

    year, month = number(0, 0, (1 << 32) - 1), number(1, 1, 12)
    day = number(2, 1, 31) if month else None
    if year is None:
        return None
    if day:
        return (year, month, day), (year, month, day)
    if month:
        return (year, month, 1), (year, month, 31)
    return (year, 1, 1), (year, 12, 31)


def dates(ranges):
    """FROM..TO, either end left out; a partial date is in when it may be."""
    bounds = []
    for r in listed(ranges):
        a, _, b = r.partition("..") if ".." in r else (r, "", r)
        bounds.append((day_span(a)[0] if a else (0, 0, 0), day_span(b)[1] if b else (1 << 33, 12, 31)))

    def test(g):
        span = day_span(g.headers.get("Date", ""))
        return span is not None and any(span[1] >= lo and span[0] <= hi for lo, hi in bounds)

    return lambda g: None if test(g) else REJECTED


def elo(values):
    def rating(g, tag):
        v = g.headers.get(tag, "").strip()
        return int(v) if re.fullmatch(r"\+?[0-9]+", v) else None

    def test(g):
        w, b = rating(g, "WhiteElo"), rating(g, "BlackElo")
        return w is not None and b is not None and any(lo <= w <= hi and lo <= b <= hi for lo, hi in spans(values))

    return lambda g: None if test(g) else REJECTED


def result(values):
    """The `Result` tag when it is a result, else the termination marker."""
    wanted = {"1/2-1/2" if v == "1/2" else v for v in listed(values)}

    def test(g):
        tag = g.headers.get("Result")
        return (tag if tag in ("1-0", "0-1", "1/2-1/2", "*") else g.marker) in wanted

    return lambda g: None if test(g) else REJECTED


def plies(values):
    return lambda g: None if any(lo <= len(g.moves) <= hi for lo, hi in spans(values)) else REJECTED


SAN = re.compile(r"(?:(white|black):)?(?:(O-O-O|O-O)|([KQRBN])?([a-h])?([1-8])?(x)?([a-h][1-8])(?:=([QRBN]))?)([+#])?")


def move_test(spec):
    """A move asked for, as a function of (game, index of the move)."""
    side, castle, piece, file, rank, capture, to, promotion, suffix = SAN.fullmatch(spec).groups()
    side = None if side is None else side == "white"
    castle = {"O-O": "K", "O-O-O": "Q", None: None}[castle]
    role = chess.PIECE_SYMBOLS.index(piece.lower()) if piece else chess.PAWN
    to = chess.parse_square(to) if to else None
    promotion = chess.PIECE_SYMBOLS.index(promotion.lower()) if promotion else None

    def test(g, i):
        mover, ptype, frm, dest, captures, promotes, castles, _ = g.moves[i]
        if side is not None and mover != side:
            return False
        if castle:
            played = castles == castle
        else:
            played = (
                castles is None
                and ptype == role
                and dest == to
                and captures == bool(capture)
                and promotes == promotion
                and (file is None or chess.square_file(frm) == ord(file) - ord("a"))
                and (rank is None or chess.square_rank(frm) == int(rank) - 1)
            )
        return played and {None: True, "+": g.check[i + 1], "#": g.mate[i + 1]}[suffix]

    return test


def moves(specs):
    """The ply of the first move that is one of `specs`."""
    tests = [move_test(s) for s in listed(specs)]

    def first(g):
        for i in range(len(g.moves)):
            if any(t(g, i) for t in tests):
                return i + 1
        return REJECTED

    return first


def material_spec(text):
    """`KRPkr` or `rp nb`, with counts: for White's then Black's pawns,
    knights, bishops, rooks and queens, the fewest and most."""
    counts = {}
    words = text.split()
    for word, side in zip(words, ["white", "black"]) if len(words) == 2 else [(words[0], None)]:
        for letter, n, more in re.findall(r"([KQRBNPkqrbnp])([0-9]*)([*+-]?)", word):
            white = side == "white" if side else letter.isupper()
            n = int(n) if n else None
            lo, hi = {
                (False, "*"): (0, 99), (False, "+"): (1, 99), (False, ""): (1, 1),
                (True, "+"): (n, 99), (True, "-"): (0, n), (True, ""): (n, n),
            }[(n is not None, more)]
            if letter in "Kk":
                continue
            slot = (0 if white else 5) + "pnbrq".index(letter.lower())
            old = counts.get(slot, (0, 0))
            counts[slot] = (old[0] + lo, old[1] + hi)
    bounds = [counts.get(i, (0, 0)) for i in range(10)]
    return lambda c: all(lo <= n <= hi for n, (lo, hi) in zip(c, bounds))


def positional(position=None, sub_fen=None, material=None, side=None):
    """The first ply whose position is one of `position` (FEN), has the
    pieces of one of `sub_fen`, the material of one of `material`, and
    `side` to move: all in one position."""
    keys = []
    for fen in listed(position):
        keys.append(position_key(chess.Board() if fen == "startpos" else chess.Board(fen)))
    boards = []
    for fen in listed(sub_fen):
        board = chess.BaseBoard(fen.split()[0])
        boards.append(
            [
                (pt - 1, WHITE_PIECES if color else BLACK_PIECES, mask)
                for pt in chess.PIECE_TYPES
                for color in chess.COLORS
                if (mask := board.pieces_mask(pt, color))
            ]
        )
    specs = [material_spec(m) for m in listed(material)]
    turn = None if side is None else side == "white"

    def first(g):
        segment, counts = 0, None
        for ply, key in enumerate(g.keys):
            while segment < len(g.material) and g.material[segment][0] <= ply:
                counts = g.material[segment][1]
                segment += 1
            if (
                (not keys or key in keys)
                and (not boards or any(all(key[p] & key[c] & m == m for p, c, m in b) for b in boards))
                and (not specs or any(s(counts) for s in specs))
                and (turn is None or key[TURN] == turn)
            ):
                return ply
        return REJECTED

    return first


def final_material(specs):
    tests = [material_spec(m) for m in listed(specs)]
    return lambda g: None if any(t(g.material[-1][1]) for t in tests) else REJECTED


def side_to_move(side):
    """Alone: the side to move in the final position."""
    return lambda g: None if g.keys[-1][TURN] == (side == "white") else REJECTED


def eco(codes):
    """The classified opening's code within one of `codes` (`C42`,
    `B90..B99`, a prefix `B9`)."""

    def bounds(code):
        base = "ABCDE".index(code[0]) * 100
        digits = code[1:]
        if not digits:
            return base, base + 99
        if len(digits) == 1:
            return base + int(digits) * 10, base + int(digits) * 10 + 9
        return base + int(digits), base + int(digits)

    ranges = []
    for c in listed(codes):
        a, _, b = c.partition("..") if ".." in c else (c, "", c)
        ranges.append((bounds(a)[0], bounds(b)[1]))

    def test(g):
        return g.opening is not None and any(lo <= bounds(g.opening[0])[0] <= hi for lo, hi in ranges)

    return lambda g: None if test(g) else REJECTED


def opening(texts):
    """Each word asked for begins a word of the classified opening's name."""

    def test(g):
        return g.opening is not None and any(
            all(any(w.startswith(q) for w in fold(g.opening[1])) for q in fold(t)) for t in listed(texts)
        )

    return lambda g: None if test(g) else REJECTED


def all_of(*tests):
    """Every test holds; the ply is the first test's that has one."""

    def both(g):
        answers = [t(g) for t in tests]
        if any(a is REJECTED for a in answers):
            return REJECTED
        return next((a for a in answers if a is not None), None)

    return both


def invert(test):
    return lambda g: REJECTED if test(g) is not REJECTED else None


# -- pgnkit against python-chess --------------------------------------------

# 1. e4 e5 2. Nf3 Nc6 3. Bb5, and 1. d4 d5 2. c4 e6: reached by some games.
RUY_LOPEZ = "r1bqkbnr/pppp1ppp/2n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3"
QGD = "rnbqkbnr/ppp2ppp/4p3/3p4/2PP4/8/PP2PPPP/RNBQKBNR w KQkq - 0 3"
# 1. d4 c5 2. d5 e5: White's d5 pawn may take on e6, so the e6 counts.
EN_PASSANT = "rnbqkbnr/pp1p1ppp/8/2pPp3/8/8/PPP1PPPP/RNBQKBNR w KQkq e6 0 3"
# 1. e4: no black pawn can take on e3, so the e3 does not count.
AFTER_E4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"

# Each: where=, the other keywords, the same criteria by python-chess.
CASES = {
    # Tags, before any move is read.
    "tag-regex": ({"tag": [r"Event~(?i)\bsim\b", "Event~^World"]}, {}, tags([r"Event~(?i)\bsim\b", "Event~^World"])),
    "tag-two-names": ({"tag": ["Site~RUS$", "Round=1"]}, {}, tags(["Site~RUS$", "Round=1"])),
    "tag-empty": ({"tag": "WhiteElo="}, {}, tags("WhiteElo=")),
    "player": ({"player": ["alekseev evgeny", "richard rapport"]}, {}, players("White", "Black", names=["alekseev evgeny", "richard rapport"])),
    # "Alekseev,E" by its initial.
    "player-initial": ({"white": "Evgeny Alekseev"}, {}, players("White", names="Evgeny Alekseev")),
    "white-and-black": (
        {"white": "alekhine", "black": ["capablanca", "euwe"]},
        {},
        all_of(players("White", names="alekhine"), players("Black", names=["capablanca", "euwe"])),
    ),
    "date": ({"date": "1998.06..2004"}, {}, dates("1998.06..2004")),
    "dates": ({"date": ["..1910", "2013.05..2013.08.15"]}, {}, dates(["..1910", "2013.05..2013.08.15"])),
    "elo": ({"elo": "2500..2700"}, {}, elo("2500..2700")),
    "elos": ({"elo": ["..2200", "2750.."]}, {}, elo(["..2200", "2750.."])),
    "result": ({"result": ["1-0", "1/2"]}, {}, result(["1-0", "1/2"])),
    # Moves.
    "plies": ({"plies": "60..80"}, {}, plies("60..80")),
    "plies-any": ({"plies": [41, "150.."]}, {}, plies([41, "150.."])),
    "castling": ({"move": "O-O"}, {}, moves("O-O")),
    "castling-black-queenside": ({"move": "black:O-O-O"}, {}, moves("black:O-O-O")),
    "capture-check": ({"move": "Nxf6+"}, {}, moves("Nxf6+")),
    "mate": ({"move": ["Qg2#", "Rhxg8#", "Qxd8#", "c5#"]}, {}, moves(["Qg2#", "Rhxg8#", "Qxd8#", "c5#"])),
    "pawn-capture-white": ({"move": "white:exd5"}, {}, moves("white:exd5")),
    "from-file": ({"move": "Nbd7"}, {}, moves("Nbd7")),
    "from-rank": ({"move": "R1e2"}, {}, moves("R1e2")),
    "promotion-black": ({"move": ["black:a1=Q", "black:h1=Q"]}, {}, moves(["black:a1=Q", "black:h1=Q"])),
    "player-and-move": (
        {"player": "alekhine", "move": "black:O-O-O"},
        {},
        all_of(players("White", "Black", names="alekhine"), moves("black:O-O-O")),
    ),
    # Positions.
    "position": ({"position": [RUY_LOPEZ, QGD]}, {}, positional(position=[RUY_LOPEZ, QGD])),
    "position-en-passant": ({"position": EN_PASSANT}, {}, positional(position=EN_PASSANT)),
    "position-en-passant-not-counted": ({"position": AFTER_E4}, {}, positional(position=AFTER_E4)),
    "sub-fen": ({"sub_fen": "8/8/8/3pP3/8/8/8/8"}, {}, positional(sub_fen="8/8/8/3pP3/8/8/8/8")),
    "sub-fens": (
        {"sub_fen": ["6k1/5ppp/8/8/8/8/5PPP/6K1", "1k6/ppp5/8/8/8/8/PPP5/1K6"]},
        {},
        positional(sub_fen=["6k1/5ppp/8/8/8/8/5PPP/6K1", "1k6/ppp5/8/8/8/8/PPP5/1K6"]),
    ),
    "sub-fen-side-to-move": (
        {"sub_fen": "8/8/2n5/1B6/8/8/8/8", "side_to_move": "black"},
        {},
        positional(sub_fen="8/8/2n5/1B6/8/8/8/8", side="black"),
    ),
    "sub-fen-material": (
        {"sub_fen": "8/1P6/8/8/8/8/8/8", "material": "KRP*krp*"},
        {},
        positional(sub_fen="8/1P6/8/8/8/8/8/8", material="KRP*krp*"),
    ),
    "side-to-move": ({"side_to_move": "black"}, {}, side_to_move("black")),
    "material-any": ({"material": "KRP*krp*"}, {}, positional(material="KRP*krp*")),
    "material-two-words": ({"material": "rp+ rp+"}, {}, positional(material="rp+ rp+")),
    "material-pawn-endings": ({"material": ["KP*kp*", "KPkp2-"]}, {}, positional(material=["KP*kp*", "KPkp2-"])),
    "material-counts": ({"material": "KRRP4-krrp4-"}, {}, positional(material="KRRP4-krrp4-")),
    "material-at-least": ({"material": "qb2n*p3+ qbbn*p3+"}, {}, positional(material="qb2n*p3+ qbbn*p3+")),
    "material-side-to-move": (
        {"material": "KQP*kr2p*", "side_to_move": "white"},
        {},
        positional(material="KQP*kr2p*", side="white"),
    ),
    "final-material": ({"final_material": ["KP*kp*", "KQ+R*B*N*P*kr*b*n*p*"]}, {}, final_material(["KP*kp*", "KQ+R*B*N*P*kr*b*n*p*"])),
    # The opening, as the table of the day classifies it.
    "eco": ({"eco": ["B9", "C42", "E60..E99"]}, {"openings": OPENINGS_TSV}, eco(["B9", "C42", "E60..E99"])),
    "opening": (
        {"opening": ["queen gambit declined", "ruy lopez berlin"]},
        {"openings": OPENINGS_TSV},
        opening(["queen gambit declined", "ruy lopez berlin"]),
    ),
    # Not these.
    "invert-tag": ({"player": "alekhine", "invert": True}, {}, invert(players("White", "Black", names="alekhine"))),
    "invert-move": ({"move": "O-O", "invert": True}, {}, invert(moves("O-O"))),
    "invert-position": (
        {"material": "KRP*krp*", "plies": "..80", "invert": True},
        {},
        invert(all_of(positional(material="KRP*krp*"), plies("..80"))),
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_criterion_agrees_with_python_chess(case, inputs, universe):
    where, kwargs, reference = CASES[case]
    want = {}
    for key, game in universe.items():
        ply = reference(game)
        if ply is not REJECTED:
            want[key] = ply
    # The test can fail: the criterion sets some games apart.
    assert 0 < len(want) < len(universe), (case, len(want), len(universe))
    got = {key: ply for key, ply in selected(inputs, where, **kwargs).items() if key in universe}
    differ = sorted(
        (Path(k[0]).name, k[1], got.get(k, "not selected"), want.get(k, "not selected"))
        for k in got.keys() | want.keys()
        if got.get(k, REJECTED) != want.get(k, REJECTED)
    )
    assert not differ, f"{case}: {len(differ)} differ (file, game, pgnkit, python-chess): {differ[:10]}"


# -- where= ------------------------------------------------------------------

# The options of `pgnkit select` that are not criteria: how it runs and
# writes (test_api.py's RUN), and the openings table (the functions'
# `openings=`).
NOT_CRITERIA = {"threads", "output", "quiet", "byte-range", "stats", "no-header", "max-game-bytes", "format", "openings"}

# A sample of each criterion, which some game of TWIC or LICHESS passes.
SAMPLES = {
    "tag": {"tag": ["Event~(?i)uzchess", "Event~(?i)rated"]},
    "player": {"player": "praggnanandhaa"},
    "white": {"white": "pragg"},
    "black": {"black": ["rapport", "sindarov"]},
    "result": {"result": "0-1"},
    "date": {"date": "2025.05"},
    "elo": {"elo": "1500.."},
    "eco": {"eco": "B"},
    "opening": {"opening": "sicilian"},
    "plies": {"plies": 60},
    "move": {"move": "black:O-O"},
    "position": {"position": "startpos"},
    "sub-fen": {"sub_fen": "8/8/8/8/4P3/8/8/8"},
    "material": {"material": "KR+P*kr+p*"},
    "final-material": {"final_material": "KR*B*N*P*kr*b*n*p*"},
    "side-to-move": {"side_to_move": "white"},
    "invert": {"player": "praggnanandhaa", "invert": True},
    "limit": {"limit": 3},
}


def test_where_takes_every_criterion():
    options = set(_pgnkit._cli_options("select"))
    assert NOT_CRITERIA <= options
    assert set(SAMPLES) == options - NOT_CRITERIA, "a criterion without its sample here"
    every = pa.table(pgnkit.games(TWIC, LICHESS)).num_rows
    for option, where in SAMPLES.items():
        rows = pa.table(pgnkit.games(TWIC, LICHESS, where=where))
        assert 0 < rows.num_rows <= every, (option, rows.num_rows)
        if option == "limit":
            assert rows.num_rows == 3
        if option == "invert":
            kept = pa.table(pgnkit.games(TWIC, LICHESS, where={"player": "praggnanandhaa"})).num_rows
            assert rows.num_rows == every - kept
    # positions(): every position of the games selected, and no other's.
    where = {"player": "praggnanandhaa"}
    games = pa.table(pgnkit.games(TWIC, LICHESS, where=where))
    positions = pa.table(pgnkit.positions(TWIC, LICHESS, where=where))
    assert set(zip(positions["file"].to_pylist(), positions["game"].to_pylist())) == set(
        zip(games["file"].to_pylist(), games["game"].to_pylist())
    )
    assert positions.num_rows == sum(p + 1 for p in games["plies"].to_pylist())


@pytest.mark.parametrize(
    "where, option",
    [
        ({"elo": "2600..2400"}, "elo"),
        ({"position": "not a fen"}, "position"),
        ({"colour": "white"}, "colour"),
        ({"sub_fen": "8/8/8/8/8/8/8/8"}, "sub-fen"),
        ({"material": "KXk"}, "material"),
        ({"move": "Zz9"}, "move"),
        ({"limit": 0}, "limit"),
    ],
)
def test_where_refuses_what_cannot_be(where, option):
    for function in (pgnkit.games, pgnkit.positions, pgnkit.annotate_outcome):
        with pytest.raises(ValueError, match=re.escape(option)):
            function(TWIC, where=where)


@pytest.mark.parametrize("where, option", [({"plies": -1}, "plies"), ({"elo": "-5..2000"}, "elo")])
def test_where_refuses_a_value_with_a_leading_dash_by_its_option(where, option):
    # A value is the option's, whatever its first character: `-1` is a
    # bad number of plies, not an option of its own.
    with pytest.raises(ValueError, match=re.escape(option)):
        pgnkit.games(TWIC, where=where)


def test_a_game_is_judged_on_the_moves_that_can_be_replayed():
    # Game 1 stops at its third move (`Ke3` is not legal).
    pgn = b'[Event "x"]\n\n1. e4 d5 2. Ke3 *\n\n[Event "y"]\n\n1. e4 e5 2. Nf3 *\n'

    def rows(where):
        t = pa.table(pgnkit.games(pgn, where=where))
        return list(zip(t["game"].to_pylist(), t["match_ply"].to_pylist()))

    # A match before the illegal move counts; after it, it is not known.
    assert rows({"move": "d5"}) == [(1, 2)]
    assert rows({"move": "Nf3"}) == [(2, 3)]
    assert rows({"plies": "..3"}) == [(2, None)]
    # Not judged is not "not selected": invert leaves it out too.
    assert rows({"move": "Nf3", "invert": True}) == []
    assert rows({"move": "Nf6", "invert": True}) == [(2, None)]


@pytest.mark.parametrize(
    "where, kwargs",
    [
        ({"player": "alekhine", "result": "1-0"}, {}),
        ({"material": "KRP*krp*"}, {}),
        ({"move": "O-O", "invert": True}, {}),
        ({"eco": ["B9", "C42"]}, {"openings": OPENINGS_TSV}),
        ({"player": "alekseev", "limit": 7}, {}),
    ],
)
def test_annotate_outcome_has_the_games_games_has(where, kwargs, inputs):
    def games_of(table):
        return list(zip(table["file"].to_pylist(), table["game"].to_pylist()))

    want = games_of(pa.table(pgnkit.games(*inputs, where=where, **kwargs)))
    got = games_of(pa.table(pgnkit.annotate_outcome(*inputs, where=where, **kwargs)))
    assert 0 < len(want) and sorted(got) == sorted(want)
