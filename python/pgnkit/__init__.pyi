"""Type stubs of pgnkit (the extension module `pgnkit._pgnkit`)."""

import os
from collections.abc import Iterable, Iterator
from typing import Any, BinaryIO, Optional, Union

Input = Union[str, os.PathLike[str], bytes, BinaryIO]
"""A path (a file, plain or .gz/.zst/.bz2, or a directory of PGN files)
as on the command line, the bytes of a PGN file (named ``<bytes>``
in the ``file`` column; ``<bytes 1>``, ``<bytes 2>``, … when several), or
a binary file object (named by its ``name``, else ``<stream>``)."""

PathArg = Union[str, os.PathLike[str]]

Names = Union[str, Iterable[str]]
"""A list of names, or one str of comma-separated names."""

Where = dict[str, Union[str, int, bool, list[Union[str, int]]]]
"""Selection criteria: ``pgnkit select``'s options as keys (underscores
for dashes: ``player``, ``tag``, ``date``, ``elo``, ``eco``, ``opening``,
``plies``, ``move``, ``position``, ``sub_fen``, ``material``,
``final_material``, ``side_to_move``, ``invert``, ``limit``, …), each with
a value as the command line takes it, or a list of them ("any of")."""

PERFT_COLUMNS: list[str]
"""The columns of ``perft``'s rows: ``["move", "nodes"]``."""

class PgnkitError(Exception):
    """A run that could not do its job: an input that could not be read
    (raised after the records of everything read before were delivered),
    a failed run, or a stream read a second time."""

class Schema:
    """The schema of a stream's records: ``pyarrow.schema(s.schema)``."""

    @property
    def names(self) -> list[str]: ...
    def __arrow_c_schema__(self) -> object: ...

class Batch:
    """One batch of records (at most 8192 rows): ``pyarrow.record_batch(b)``,
    ``polars.DataFrame(b)``."""

    @property
    def num_rows(self) -> int: ...
    def __len__(self) -> int: ...
    def __arrow_c_array__(self, requested_schema: Optional[object] = None) -> tuple[object, object]: ...
    def __arrow_c_schema__(self) -> object: ...

class RecordStream:
    """The records of one call, produced batch by batch while the run works.

    Read it once: ``pyarrow.table(s)``, ``polars.DataFrame(s)``,
    ``duckdb.sql("select * from s")``, ``pandas.DataFrame.from_arrow(s)``,
    or ``for batch in s``. A second use raises :class:`PgnkitError`.
    Ctrl-C stops the run within half a second.
    """

    @property
    def schema(self) -> Schema:
        """The schema; waits for the run's first batch."""
    def __arrow_c_stream__(self, requested_schema: Optional[object] = None) -> object: ...
    def __arrow_c_schema__(self) -> object: ...
    def __iter__(self) -> Iterator[Batch]: ...
    def __next__(self) -> Batch: ...
    def close(self) -> None:
        """Stops the run; what it had not handed out is dropped."""
    def __enter__(self) -> "RecordStream": ...
    def __exit__(self, *args: Any) -> None: ...

def validate(
    *paths: Input,
    threads: Optional[int] = None,
    only: Optional[Names] = None,
    ignore: Optional[Names] = None,
    enable: Optional[Names] = None,
    openings: Optional[PathArg] = None,
    tags: Optional[Names] = None,
    laws: str = "date",
    bad_games: Optional[PathArg] = None,
    good_games: Optional[PathArg] = None,
    fix: Optional[PathArg] = None,
    byte_range: Optional[str] = None,
    stats: Optional[PathArg] = None,
    max_game_bytes: Optional[Union[int, str]] = None,
) -> RecordStream:
    """Every finding of every game, one row per finding (``finding`` in
    docs/records.md). Findings are data, never exceptions.

    >>> import polars as pl, pgnkit
    >>> pl.DataFrame(pgnkit.validate("games.pgn", only=["illegal-move"]))
    """

def annotate_outcome(
    *paths: Input,
    rules: str = "fide",
    tags: Optional[Names] = None,
    threads: Optional[int] = None,
    laws: str = "date",
    problems: bool = False,
    openings: Optional[PathArg] = None,
    where: Optional[Where] = None,
    byte_range: Optional[str] = None,
    stats: Optional[PathArg] = None,
    max_game_bytes: Optional[Union[int, str]] = None,
) -> RecordStream:
    """What the Laws say happened in each game, one row per game
    (``outcome`` in docs/records.md). ``rules``: ``fide``, ``app`` or
    ``online``; ``tags``: the tags whose values fill the ``tags`` map.

    >>> import pyarrow as pa, pgnkit
    >>> t = pa.table(pgnkit.annotate_outcome("games.pgn", tags=["Event"]))
    """

def games(
    *paths: Input,
    tags: Optional[Names] = None,
    san: bool = False,
    threads: Optional[int] = None,
    from_: Optional[str] = None,
    openings: Optional[PathArg] = None,
    where: Optional[Where] = None,
    byte_range: Optional[str] = None,
    stats: Optional[PathArg] = None,
    max_game_bytes: Optional[Union[int, str]] = None,
) -> RecordStream:
    """Every game converted, one row per game (``game`` in docs/records.md):
    UCI moves (SAN too with ``san=True``), final FEN, typed tags, all tags
    in the ``tags`` map (only those named, with ``tags=``), and per move the
    clock in seconds (``clock``, from ``[%clk]``), the time it took
    (``time_spent``, by the ``time_control`` periods) and the evaluation
    (``eval_cp``, ``eval_mate``, from ``[%eval]``), null where a move has
    none; the opening (``eco``, ``opening``, ``opening_ply``) by lichess's
    table or ``openings``, a TSV or PGN file. ``where``: only the games
    these criteria select (``Where``); ``match_ply`` is the ply a position
    or move criterion matched at.

    >>> import duckdb, pgnkit
    >>> g = pgnkit.games("games.pgn", threads=2)
    >>> duckdb.sql("select white, black, plies from g where plies > 200")
    """

def crosstable(
    *paths: Input,
    threads: Optional[int] = None,
    max_game_bytes: Optional[Union[int, str]] = None,
) -> RecordStream:
    """Each event's standings from its results: one row per player of each
    event (``standing`` in docs/records.md), in the order of the
    standings, with ``points``, the tie-break and ``results`` (the
    player's row of the crosstable).

    >>> import polars as pl, pgnkit
    >>> pl.DataFrame(pgnkit.crosstable("tournament.pgn")).filter(pl.col("rank") <= 3)
    """

def dedupe(
    *paths: Input,
    keep: str = "first",
    transpositions: bool = False,
    no_prefix: bool = False,
    against: Optional[list[PathArg]] = None,
    duplicates: Optional[PathArg] = None,
    unique: Optional[PathArg] = None,
    threads: Optional[int] = None,
    max_game_bytes: Optional[Union[int, str]] = None,
) -> RecordStream:
    """The games that are one game (one ``key``), grouped: one row per game
    of a group of repeats (``duplicate`` in docs/records.md), with its
    ``role`` (``kept``, ``repeat``), ``kind`` and ``tags_differ``. The
    inputs are read twice, so they must be files.

    >>> import polars as pl, pgnkit
    >>> pl.DataFrame(pgnkit.dedupe("games.pgn")).filter(pl.col("kind") == "tags-differ")
    """

def positions(
    *paths: Input,
    threads: Optional[int] = None,
    from_: Optional[str] = None,
    where: Optional[Where] = None,
    byte_range: Optional[str] = None,
    stats: Optional[PathArg] = None,
    max_game_bytes: Optional[Union[int, str]] = None,
) -> RecordStream:
    """Every position of every game, one row per position (``position`` in
    docs/records.md), with the FEN, the move that led to it, and that
    move's clock and evaluation.

    >>> import polars as pl, pgnkit
    >>> pl.DataFrame(pgnkit.positions("games.pgn"))
    """

def perft(
    fen: str,
    depth: int,
    divide: bool = False,
    threads: Optional[int] = None,
    chess960: bool = False,
    moves: Optional[str] = None,
    hash: int = 64,
    max_nodes: Optional[int] = None,
) -> RecordStream:
    """Leaf nodes ``depth`` plies below ``fen`` (``"startpos"`` for the
    standard start): rows ``move`` (UCI; null without ``divide``) and
    ``nodes``, one per root move with ``divide``, else one of the total.

    >>> import pyarrow as pa, pgnkit
    >>> pa.table(pgnkit.perft("startpos", 3))["nodes"][0].as_py()
    8902
    """
