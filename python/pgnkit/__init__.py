"""pgnkit: chess games (PGN) validated, annotated and converted exactly to
the FIDE Laws, as Arrow record streams.

Each function runs one pgnkit subcommand on a background thread and
returns a :class:`RecordStream`, produced batch by batch while the run
works. Hand it to any Arrow PyCapsule consumer::

    import pgnkit, polars as pl, pyarrow as pa, duckdb
    pl.DataFrame(pgnkit.games("games.pgn"))
    pa.table(pgnkit.validate("games.pgn"))
    s = pgnkit.annotate_outcome("games.pgn")
    duckdb.sql("select termination, count(*) from s group by all")

or iterate it batch by batch (memory stays flat). pyarrow is not needed
at run time.
"""

from ._pgnkit import (
    PERFT_COLUMNS,
    Batch,
    PgnkitError,
    RecordStream,
    Schema,
    annotate_outcome,
    crosstable,
    dedupe,
    games,
    perft,
    positions,
    validate,
)

__all__ = [
    "PERFT_COLUMNS",
    "Batch",
    "PgnkitError",
    "RecordStream",
    "Schema",
    "annotate_outcome",
    "crosstable",
    "dedupe",
    "games",
    "perft",
    "positions",
    "validate",
]
