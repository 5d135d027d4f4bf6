#!/usr/bin/env python3
"""Run pgnkit on a Spark cluster and give exactly the rows one machine gives.

    spark-submit [--files /path/to/pgnkit] pgnkit_spark.py \\
        [--pgnkit PATH] [--shard-bytes N] [--threads N] [--fetch CMD] \\
        --out DIR [--glob] INPUT... -- SUBCOMMAND [FLAGS...]

SUBCOMMAND is `validate`, `annotate-outcome` or `convert`. The job

1. reads the columns of the subcommand's Arrow stream from the binary
   (`pgnkit schema SUBCOMMAND --json`, the columns with `"arrow": true`)
   and checks them against a run of the binary, with the flags, on an
   empty input: nothing here lists columns;
2. plans shards: one per compressed file (zstd, gzip, bzip2, told by their
   first bytes, or by the name for files the driver cannot open), byte ranges
   of --shard-bytes for plain files;
3. runs `pgnkit SUBCOMMAND -f arrow -q --byte-range S..E --stats ... -j N`
   on the executors, one task per shard, and reads the record batches of
   its standard output, cast to what Spark takes (vocabularies as strings,
   unsigned integers as signed ones that hold them, a value past 2^63
   failing the shard) with no Python object per row; a stream whose
   columns or types are not the schema's, that breaks off, or whose row
   count is not its --stats' fails the shard. The batches wait for the
   walk: with a local DIR, spooled as Arrow IPC files in a new directory
   `DIR/.parquet-*` (the driver and the executors must share DIR, as Spark's
   own writer needs); otherwise cached by Spark on disk, a row per batch of
   its Arrow IPC bytes. Only the statistics come back to the driver;
4. asks pgnkit for the walk over each file's shards (`pgnkit merge --plan`
   on their statistics: merge's own code, per the merge contract of
   docs/shards.md), and reruns on the executors what it asks
   for, from where the previous shard's last game ended (a shard that
   began inside a game its predecessor owns), until it asks for nothing;
5. writes DIR/parquet: the rows of `pgnkit SUBCOMMAND -f parquet` on one
   machine, `game` and `line` renumbered file-wide, with a first column
   `record` (1, 2, ...: the row's place in the single-machine output; the
   files in name order hold the rows in that order). With a local DIR the
   tasks write the files with pyarrow (zstd, Spark's schema in the footer),
   one per kept shard run, named by its first record (`part-<20
   digits>.parquet`; the driver writes a few MB itself, in one file); the
   driver checks that they hold records 1..n, each once (their footers'
   row counts), and only then replaces DIR/parquet (the old one moved
   aside, then removed), so a failed job leaves the old one as it was; a
   local DIR is held by the job (flock), and a `file:` URL is decoded as an
   INPUT is. Otherwise Spark's writer writes them (mode overwrite, zstd),
   sorting by `record` after a rerun.

The exit status is pgnkit's: 0, 1 when a shard the merge kept found problems,
2 when a shard could not do the job (then nothing is written but
DIR/failed/fileF-shardK.stderr, the whole stderr of each failed shard, of
which the job prints the last lines, saying how many it left out).

Paths are ones the executors can read: local paths or `file://` URLs on a
shared file system (or in local mode). Every INPUT names one file, literally
(`x[1].pgn` is that file, a `file:` URL is percent-decoded), unless --glob
makes them patterns (Python's glob for local paths, Hadoop's for URLs). For an object store (`s3a://...`),
the driver lists the files through Hadoop and --fetch gives the command an
executor runs to stream one object to standard output, e.g.
`--fetch 'aws s3 cp s3://{host}/{path} -'`; such a file is one shard.

The binary: `--pgnkit PATH` where PATH exists on every node, or ship it with
`spark-submit --files /local/pgnkit` and give `--pgnkit pgnkit` (a name that
is not an existing path is looked up with SparkFiles.get, then on $PATH).

The pure parts (arguments, planning, reading pgnkit's walk, the columns
and their types) come first and need no Spark (the columns need pyarrow);
the Spark parts import pyspark when they run. The walk runs the binary on
the driver when it is there (as the schema probe does), else in a task. The executors need pyarrow and pandas
(PySpark's mapInArrow imports it).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import gc
import glob
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field, replace
from typing import Callable, Iterator
from urllib.parse import unquote_to_bytes, urlparse, urlsplit

# Output flags each subcommand gets, so that every shard writes an Arrow stream.
ARROW_FLAGS = {
    "validate": ["-f", "arrow"],
    "annotate-outcome": ["-f", "arrow"],
    "convert": ["--to", "arrow"],
}

# Formats that may be given after `--` and are dropped: the shards write
# Arrow, the job Parquet.
OWN_FORMATS = frozenset({"arrow", "parquet"})

# Flags the job sets itself, per shard.
JOB_FLAGS = frozenset(
    {"-o", "--output", "-j", "--threads", "--byte-range", "--stats", "--no-header", "-q", "--quiet"}
)
FORMAT_FLAGS = frozenset({"-f", "--format", "--to"})

# Flags that name one file every shard would write: each shard's pgnkit opens
# it anew, so each overwrites the games of the one before (and --bad-games is
# refused with --byte-range anyway). See issue 20.
ONE_FILE_FLAGS = frozenset({"--bad-games", "--good-games"})

DEFAULT_SHARD_BYTES = 256 << 20

# First bytes of the compressed formats pgnkit reads.
MAGIC = (b"\x28\xb5\x2f\xfd", b"\x1f\x8b", b"BZh")
COMPRESSED_SUFFIXES = (".zst", ".zstd", ".gz", ".bz2")


class JobError(Exception):
    """The job cannot run as asked (exit status 2)."""


# ---------------------------------------------------------------- arguments


@dataclass
class Job:
    """What the command line asks for."""

    inputs: list[str]
    subcommand: str
    flags: list[str]
    out: str
    pgnkit: str = "pgnkit"
    shard_bytes: int = DEFAULT_SHARD_BYTES
    threads: int | None = None
    fetch: str | None = None
    glob: bool = False  # INPUTs are patterns; otherwise every name is literal
    spark_writer: bool = False  # Spark's Parquet writer even for a local OUT (it writes a remote one)


def parse_args(argv: list[str]) -> Job:
    """Splits `OPTIONS INPUT... -- SUBCOMMAND FLAGS...` and checks the flags.

    Flags the job sets per shard (-o, -j, --byte-range, --stats, --no-header,
    -q) are refused, and so are --bad-games and --good-games (one file that
    every shard would overwrite); `-f arrow`/`parquet` (`--to` for convert)
    may be given and is dropped (the shards write Arrow, the job Parquet);
    any other format is refused, and so is the former `--csv`.
    """
    if "--" not in argv:
        raise JobError("give the subcommand after `--`: INPUT... -- SUBCOMMAND [FLAGS...]")
    cut = argv.index("--")
    mine, theirs = argv[:cut], argv[cut + 1 :]
    p = argparse.ArgumentParser(
        prog="pgnkit_spark.py",
        description="Run pgnkit on Spark; see the module docstring and docs/shards.md.",
    )
    p.add_argument("inputs", nargs="+", metavar="INPUT")
    p.add_argument("--out", required=True, metavar="DIR")
    p.add_argument("--pgnkit", default="pgnkit", metavar="PATH")
    p.add_argument("--shard-bytes", type=parse_size, default=DEFAULT_SHARD_BYTES, metavar="N")
    p.add_argument("--threads", "-j", type=int, default=None, metavar="N")
    p.add_argument("--fetch", default=None, metavar="CMD")
    p.add_argument("--csv", action="store_true")
    p.add_argument("--glob", action="store_true")
    a = p.parse_args(mine)
    if a.csv:
        raise JobError(
            "--csv is gone: the job reads pgnkit's Arrow stream and writes Parquet only; for the "
            "single-machine CSV, run the shards with `pgnkit ... --byte-range -f csv` and `pgnkit merge`"
        )
    if not theirs or (theirs[0] not in ARROW_FLAGS and theirs[0] != "dedupe"):
        raise JobError("the subcommand must be one of " + ", ".join([*ARROW_FLAGS, "dedupe"]))
    subcommand, flags = theirs[0], []
    rest = iter(theirs[1:])
    for flag in rest:
        name, eq, value = flag.partition("=")
        if name in JOB_FLAGS or (flag.startswith("-j") and flag[2:].isdigit()) or (
            flag.startswith("-o") and len(flag) > 2 and not flag.startswith("--")
        ):
            raise JobError(f"`{flag}` is set by the job for each shard; leave it out")
        if name in ONE_FILE_FLAGS:
            raise JobError(
                f"`{name}` is not supported: every shard would write the same file, and each "
                f"would overwrite the games of the ones before; run `pgnkit {theirs[0]} {name}` "
                "on one machine"
            )
        if name in FORMAT_FLAGS:
            value = value if eq else next(rest, "")
            if value not in OWN_FORMATS:
                raise JobError(f"the job writes Parquet (from Arrow shards); `{name} {value}` is not supported")
            continue
        if flag.startswith("-f") and len(flag) > 2:
            if flag[2:] not in OWN_FORMATS:
                raise JobError(f"the job writes Parquet (from Arrow shards); `{flag}` is not supported")
            continue
        flags.append(flag)
    if subcommand == "dedupe":
        flags = dedupe_flags(flags)
    if a.shard_bytes <= 0:
        raise JobError("--shard-bytes must be positive")
    if a.threads is not None and a.threads <= 0:
        raise JobError("--threads must be positive")
    return Job(
        inputs=a.inputs,
        subcommand=subcommand,
        flags=flags,
        out=a.out,
        pgnkit=a.pgnkit,
        shard_bytes=a.shard_bytes,
        threads=a.threads,
        fetch=a.fetch,
        glob=a.glob,
    )


# What the job's dedupe keeps of a group (`pgnkit dedupe --keep`): the
# copies' lengths in bytes are not in convert's rows, so not `longest`.
DEDUPE_KEEP = ("first", "most-tags")


def dedupe_flags(flags: list[str]) -> list[str]:
    """The flags of `-- dedupe`, canonically: `--keep first|most-tags`, and
    `--max-game-bytes N` when given. The job's dedupe groups the games of
    one key (`pgnkit dedupe --no-prefix`, which may be given); what needs
    the games' bytes or a second read (truncated copies, transpositions, an
    archive, files of games) is refused."""
    keep, passed = "first", []
    rest = iter(flags)
    for flag in rest:
        name, eq, value = flag.partition("=")
        if name in ("--keep", "--max-game-bytes"):
            value = value if eq else next(rest, "")
            if name == "--max-game-bytes":
                passed += [name, value]
                continue
            if value not in DEDUPE_KEEP:
                raise JobError(
                    f"`--keep {value}` is not supported by the job's dedupe (it keeps the first copy, or the "
                    "one with the most tags: the lengths of the copies are not in the rows it groups)"
                )
            keep = value
        elif flag == "--no-prefix":
            continue
        else:
            raise JobError(
                f"`{flag}` is not supported by the job's dedupe, which groups the games of one key "
                f"(`pgnkit dedupe --no-prefix`); run `pgnkit dedupe {flag}` on one machine"
            )
    return ["--keep", keep, *passed]


def parse_size(text: str) -> int:
    """`4096`, `64K`, `256M`, `1G` (powers of 1024) in bytes."""
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    t = text.strip().upper().removesuffix("B")
    if t and t[-1] in units:
        return int(t[:-1]) * units[t[-1]]
    return int(t)


def has_option(flags: list[str], name: str) -> bool:
    """Whether `name` (a long flag) is among `flags`, as `--x v` or `--x=v`."""
    return any(f == name or f.startswith(name + "=") for f in flags)


# ----------------------------------------------------------------- planning


@dataclass(frozen=True)
class Source:
    """One input file, as the driver found it."""

    name: str  # what the `file` column says: the path given to pgnkit, or the URL
    path: str | None  # local path pgnkit opens; None when the file is fetched
    size: int | None
    compressed: bool


@dataclass(frozen=True)
class Shard:
    """One pgnkit run: a byte range of a plain file, or a whole file."""

    file_index: int
    shard_index: int
    source: Source
    start: int | None  # None: no --byte-range (the whole file)
    end: int | None  # None: to the end of the file

    def byte_range(self) -> str | None:
        if self.start is None:
            return None
        return f"{self.start}..{'' if self.end is None else self.end}"


def plan_file(file_index: int, source: Source, shard_bytes: int) -> list[Shard]:
    """The shards of one file: ranges that tile a plain file (the last one
    open-ended, so a file that grew is still read to its end), or the whole
    file when it is compressed, fetched, or fits in one shard."""
    if source.compressed or source.path is None or source.size is None or source.size <= shard_bytes:
        return [Shard(file_index, 0, source, None, None)]
    count = -(-source.size // shard_bytes)
    return [
        Shard(
            file_index,
            k,
            source,
            k * shard_bytes,
            (k + 1) * shard_bytes if k < count - 1 else None,
        )
        for k in range(count)
    ]


def plan(sources: list[Source], shard_bytes: int) -> list[Shard]:
    """All shards, files in the order named, each file's shards in order."""
    return [s for i, src in enumerate(sources) for s in plan_file(i, src, shard_bytes)]


def is_remote(name: str) -> bool:
    scheme = urlparse(name).scheme
    return len(scheme) > 1 and scheme != "file"


def local_path(name: str, pattern: bool = False) -> str:
    """A `file:` URL's path, percent-decoded; any other name as it is.

    A `file:` URL names a file of this machine: its host is empty or
    `localhost`, its path is absolute, and it has no query or fragment (`?`
    and `#` in a file name are written `%3F` and `%23`); other URLs are
    refused. With `pattern` (--glob), what a percent escape stands for is
    escaped for glob, so that `%5B` is a literal `[` and a bare `[` opens a
    set.
    """
    parts = urlsplit(name)
    if parts.scheme != "file":
        return name
    if "?" in name or "#" in name:
        raise JobError(f"{name}: a file: URL with a query or a fragment; write `?` as %3F and `#` as %23")
    if parts.netloc.lower() not in ("", "localhost"):
        raise JobError(
            f"{name}: a file: URL of host `{parts.netloc}`; the host must be empty or localhost "
            "(a shared file system is read by its local path)"
        )
    if not parts.path.startswith("/"):
        raise JobError(f"{name}: a file: URL needs an absolute path (file:///dir/name)")

    def decode(m: re.Match) -> str:
        text = os.fsdecode(unquote_to_bytes(m.group(0)))
        return glob.escape(text) if pattern else text

    # A run of escapes is decoded at once: one character may be several bytes.
    return re.sub(r"(?:%[0-9A-Fa-f]{2})+", decode, parts.path)


def is_compressed_file(path: str) -> bool:
    """Told by the first bytes, as pgnkit tells it."""
    with open(path, "rb") as f:
        head = f.read(4)
    return any(head.startswith(m) for m in MAGIC)


def find_local(name: str, is_pattern: bool = False) -> list[Source]:
    """A local path (or a `file:` URL of one), taken literally: `x[1].pgn`
    is that file. With `is_pattern` (--glob), a glob whose matches are
    sorted; `[[]` or, in a URL, `%5B` is a literal `[`."""
    path = local_path(name, pattern=is_pattern)
    names = sorted(glob.glob(path)) if is_pattern else [path]
    if not names:
        raise JobError(f"{name}: no file matches")
    sources = []
    for n in names:
        if not os.path.isfile(n):
            hint = " (a pattern? give --glob)" if not is_pattern and glob.has_magic(n) and not os.path.exists(n) else ""
            raise JobError(f"{n}: not a file the driver can see (executors read the same path){hint}")
        sources.append(Source(n, n, os.path.getsize(n), is_compressed_file(n)))
    return sources


# ------------------------------------------------------------- the chain walk
#
# The walk itself is pgnkit's (`pgnkit merge --plan`, the merge's own code):
# the job hands it the statistics of every run so far and reads what to
# keep, with which shift, and what to rerun. Nothing here walks.


@dataclass(frozen=True)
class Kept:
    """A shard run the walk keeps, and what is added to its numbers."""

    file_index: int
    shard_index: int
    run: int  # 0: the planned run; r > 0: the rerun of round r
    games_before: int
    lines_before: int
    records_before: int  # rows before its first in the whole output
    rows: int


def segments(sources: list[Source]) -> list[list[int]]:
    """The files in order, cut where a file is named again: pgnkit's plan
    takes the shards of one path for one file, so a file named twice is
    planned in another call (its rows come again, as one machine gives
    them)."""
    out: list[list[int]] = []
    seen: set[str] = set()
    for i, src in enumerate(sources):
        key = os.path.realpath(src.path) if src.path is not None else None
        if not out or (key is not None and key in seen):
            out.append([])
            seen = set()
        out[-1].append(i)
        if key is not None:
            seen.add(key)
    return out


@dataclass
class ShardWalk:
    """The driver's side of the walk: the statistics of every run so far,
    asked of pgnkit with `ask(planned, reruns)` (the statistics texts of
    the planned runs and of the reruns; it returns the plan, see
    `Runner.plan`; each text is named `fileF-shardK[-runR].stats.json`,
    as pgnkit's messages name it). `advance` says which shards to rerun; once it says
    none, `kept` is every run the output keeps, in output order."""

    shards: list["Shard"]
    sources: list[Source]
    ask: Callable[[list[tuple[str, str]], list[tuple[str, str]]], dict]
    planned: dict[tuple[int, int], str] = field(default_factory=dict)
    reran: list[tuple[tuple[int, int], int, str]] = field(default_factory=list)  # key, run, statistics
    kept: list[Kept] = field(default_factory=list)
    skipped: int = 0
    reruns: int = 0

    def add(self, run: int, notes: dict[tuple[int, int], dict]) -> None:
        """The notes of round `run`'s shard runs (their `stats_text`)."""
        for key, note in sorted(notes.items()):
            if run == 0:
                self.planned[key] = note["stats_text"]
            else:
                self.reran.append((key, run, note["stats_text"]))

    def advance(self) -> list["Shard"]:
        """The shards to run again, from where pgnkit says (none: done)."""
        asked: list[Shard] = []
        kept: list[Kept] = []
        self.skipped, offset = 0, 0
        for files in segments(self.sources):
            order = [(s.file_index, s.shard_index) for s in self.shards if s.file_index in files]
            reran = [r for r in self.reran if r[0][0] in files]
            plan = self.ask([(f"file{f}-shard{k}.stats.json", self.planned[(f, k)]) for f, k in order],
                            [(f"file{f}-shard{k}-run{run}.stats.json", text) for (f, k), run, text in reran])
            got, more, skipped = read_plan(plan, files, order, [(k, run) for k, run, _ in reran], offset)
            kept += got
            self.skipped += skipped
            for (f, k), start, end in more:
                asked.append(replace(next(s for s in self.shards if (s.file_index, s.shard_index) == (f, k)),
                                     start=start, end=end))
            offset += plan.get("records") or 0
        self.reruns += len(asked)
        self.kept = [] if asked else kept
        return asked


def read_plan(plan: dict, files: list[int], order: list[tuple[int, int]],
              reran: list[tuple[tuple[int, int], int]], offset: int = 0
              ) -> tuple[list[Kept], list[tuple[tuple[int, int], int, int | None]], int]:
    """What pgnkit's plan (of the shards `order`, the reruns `reran`, of
    the files `files`) says: the runs kept (their rows `offset` later), the
    reruns asked for ((file, shard), from, end), and the shards skipped."""
    got = plan.get("files")
    if not isinstance(got, list) or len(got) != len(files):
        raise JobError(f"pgnkit planned {len(got or [])} files where the job has {len(files)} (a file "
                       "named twice under two names?)")
    kept, asked, skipped = [], [], 0
    for f, walk in zip(files, got):
        if any(order[k][0] != f for k in walk["shards"]):
            raise JobError(f"pgnkit's plan of file {f} holds shards of another file")
        for a in walk["accepted"]:
            (fi, k), run = order[a["shard"]], 0 if a["rerun"] is None else reran[a["rerun"]][1]
            before = a["records_before"]
            kept.append(Kept(fi, k, run, a["games_before"], a["lines_before"],
                             None if before is None else before + offset, a["records"]))
        if walk.get("failed") is not None:
            raise JobError(f"file {f}: pgnkit says the run of shard {order[walk['failed']][1]} could not read it "
                           "to the end")
        skipped += len(walk["skipped"])
        if walk["rerun"] is not None:
            r = walk["rerun"]
            asked.append((order[r["shard"]], r["from_byte"], r["end"]))
    return kept, asked, skipped


# ------------------------------------------------------------------ columns


# The staging rows Spark keeps between the shards and the Parquet: one per
# record batch a shard wrote, its keys (where it comes from, and the place of
# its first row there), then the batch itself as Arrow IPC bytes, so that
# Spark holds a few large values, not a row per record; a shard's statistics
# row has row_index -1 and its JSON in `stats`.
KEYS = (("file_index", "int32"), ("shard_index", "int32"), ("run", "int32"), ("row_index", "int64"),
        ("stats", "string"), ("data", "binary"))

# A staged batch holds at most this many bytes of Arrow buffers: a shard's
# batch is cut to fit (Spark holds a binary value in at most 2 GiB).
STAGED_BYTES = 64 << 20


def staging_schema():
    """The staging rows' Arrow schema (KEYS)."""
    import pyarrow as pa

    return pa.schema([pa.field(n, getattr(pa, t)(), n in ("stats", "data")) for n, t in KEYS])


def arrow_target(t: dict):
    """The Arrow type Spark is handed for a column of schema type `t` (a
    `"type"` of `pgnkit schema SUB --json`): vocabularies as plain strings,
    unsigned integers as the signed type that holds them (uint64 in int64:
    a value past 2^63 fails the cast, it never wraps; a `key64`, a Zobrist
    key whose every bit is used, is its 64 bits as an int64), time in microseconds,
    lists, maps and structs of the same."""
    import pyarrow as pa

    kind = t.get("kind") if isinstance(t, dict) else None
    simple = {
        "string": pa.string(), "vocabulary": pa.string(), "uint8": pa.int16(), "uint32": pa.int64(),
        "uint64": pa.int64(), "key64": pa.int64(), "bool": pa.bool_(), "date": pa.date32(), "time": pa.time64("us"),
        "int32": pa.int32(), "float64": pa.float64(), "map of strings": pa.map_(pa.string(), pa.string()),
    }
    if kind in simple:
        return simple[kind]
    if kind == "list":
        return pa.list_(arrow_target(t.get("item")))
    if kind == "struct":
        return pa.struct([pa.field(c["name"], arrow_target(c["type"]), True) for c in arrow_columns(t.get("schema"))])
    raise JobError(f"the schema has a column type the job does not know: {t!r}")


def source_matches(at, t: dict) -> bool:
    """Whether the Arrow type `at` that a shard wrote is what schema type `t`
    says pgnkit writes (nullability and the names of list and map children
    aside). A string where an integer should be is a mismatch: a cast would
    parse it, and text that looks like a number is not one."""
    import pyarrow as pa

    kind = t.get("kind")
    ty = pa.types
    if kind == "string":
        return ty.is_string(at) or ty.is_large_string(at)
    if kind == "vocabulary":
        return (ty.is_dictionary(at) and (ty.is_string(at.value_type) or ty.is_large_string(at.value_type))) or \
            ty.is_string(at)
    if kind in ("uint8", "uint32", "uint64", "key64"):
        return at == {"uint8": pa.uint8(), "uint32": pa.uint32(), "uint64": pa.uint64(), "key64": pa.uint64()}[kind]
    if kind == "int32":
        return at == pa.int32()
    if kind == "float64":
        return at == pa.float64()
    if kind == "bool":
        return ty.is_boolean(at)
    if kind == "date":
        return ty.is_date32(at)
    if kind == "time":
        return ty.is_time(at)
    if kind == "map of strings":
        return ty.is_map(at) and source_matches(at.key_type, {"kind": "string"}) and \
            source_matches(at.item_type, {"kind": "string"})
    if kind == "list":
        return (ty.is_list(at) or ty.is_large_list(at)) and source_matches(at.value_type, t["item"])
    if kind == "struct":
        cols = arrow_columns(t.get("schema"))
        return ty.is_struct(at) and [f.name for f in at] == [c["name"] for c in cols] and all(
            source_matches(f.type, c["type"]) for f, c in zip(at, cols))
    return False


def arrow_columns(schema) -> list[dict]:
    """The columns of a schema (or a struct's) that Arrow and Parquet hold
    (`"arrow": true`), in order."""
    columns = schema.get("columns") if isinstance(schema, dict) else None
    if not isinstance(columns, list):
        raise JobError("the schema has no list of columns")
    out = []
    for c in columns:
        if not isinstance(c, dict) or not isinstance(c.get("name"), str) or not isinstance(c.get("type"), dict):
            raise JobError(f"the schema has a column without a name or a type: {c!r}")
        if c.get("arrow") not in (True, False):
            raise JobError(f"the schema's column `{c['name']}` does not say whether Arrow holds it "
                           "(a pgnkit without -f arrow?)")
        if c["arrow"]:
            out.append(c)
    return out


@dataclass(frozen=True)
class Columns:
    """The columns of a subcommand's Arrow stream, from the binary's
    `pgnkit schema SUBCOMMAND --json`: their names and schema types (as
    JSON text, so that the value travels to and from the tasks as plain
    tuples). No list of columns here: a column the binary adds is known."""

    names: tuple[str, ...]
    types: tuple[str, ...]

    @staticmethod
    def from_schema(schema: dict) -> "Columns":
        cols = arrow_columns(schema)
        if not cols:
            raise JobError("the schema has no Arrow columns")
        names = tuple(c["name"] for c in cols)
        if len(set(names)) != len(names):
            raise JobError(f"the schema names a column twice: {', '.join(names)}")
        for c in cols:
            arrow_target(c["type"])  # every type known, before any work
        return Columns(names, tuple(json.dumps(c["type"], sort_keys=True) for c in cols))

    def type_of(self, i: int) -> dict:
        return json.loads(self.types[i])

    def position(self, name: str) -> int | None:
        return self.names.index(name) if name in self.names else None

    def target(self):
        """The Arrow schema of the rows as Spark gets them (all nullable)."""
        import pyarrow as pa

        return pa.schema([pa.field(n, arrow_target(self.type_of(i)), True) for i, n in enumerate(self.names)])

    def output(self):
        """The Arrow schema of the job's Parquet: `record`, then `target()`."""
        import pyarrow as pa

        return pa.schema([pa.field("record", pa.int64(), True), *self.target()])

    def check(self, schema) -> str | None:
        """What is wrong with the Arrow schema a shard wrote (None: nothing)."""
        got = list(schema.names)
        if got != list(self.names):
            return f"the columns {', '.join(got) or '(none)'}, not {', '.join(self.names)}"
        for i, f in enumerate(schema):
            if not source_matches(f.type, self.type_of(i)):
                return f"the column `{f.name}` of type {f.type}, not {self.type_of(i).get('kind')}"
        return None

    def clash(self, case_sensitive: bool = False) -> tuple[str, str] | None:
        """Two output columns (`record` first, then these) that Parquet
        would take for one: equal names, or names equal but for case when
        Spark compares them so (its default)."""
        seen: dict[str, str] = {}
        for name in ("record", *self.names):
            key = name if case_sensitive else name.lower()
            if key in seen:
                return seen[key], name
            seen[key] = name
        return None


def viewed(data, columns: Columns):
    """`data` (a record batch or a table of the columns) with each `key64`
    column's bits seen as int64: a Zobrist key past 2^63 is a negative
    bigint in Spark, never a failed cast."""
    import pyarrow as pa

    keys = [i for i in range(len(columns.names)) if columns.type_of(i).get("kind") == "key64"]
    if not keys:
        return data
    arrays = list(data.columns)
    for i in keys:
        a = arrays[i]
        if isinstance(a, pa.ChunkedArray):
            arrays[i] = pa.chunked_array([c.view(pa.int64()) for c in a.chunks], pa.int64())
        else:
            arrays[i] = a.view(pa.int64())
    build = pa.RecordBatch.from_arrays if isinstance(data, pa.RecordBatch) else pa.Table.from_arrays
    return build(arrays, names=list(data.schema.names))


def to_target(batch, columns: Columns, target, file_name=None):
    """One batch a shard wrote, cast to `target` (the Arrow form of what
    Spark holds: vocabularies as strings, unsigned as signed integers; a
    value that does not fit fails), `file` replaced by `file_name` when given
    (a fetched file is read from standard input). Columnar throughout: no
    Python object per row."""
    import numpy as np
    import pyarrow as pa

    n = batch.num_rows
    data = viewed(batch, columns).cast(columns.target())
    arrays = list(data.columns)
    at = columns.position("file")
    if file_name is not None and at is not None:
        arrays[at] = pa.DictionaryArray.from_arrays(
            pa.array(np.zeros(n, np.int32)), pa.array([file_name], pa.string())).cast(pa.string())
    return pa.RecordBatch.from_arrays([a.cast(f.type) for a, f in zip(arrays, target)], schema=target)


def to_staging(batch, shard: "Shard", run: int, first_row: int) -> list:
    """A cast batch (`to_target`) as staging rows: one per piece of at most
    STAGED_BYTES, keyed, its rows as Arrow IPC bytes."""
    import pyarrow as pa

    n = batch.num_rows
    pieces = max(1, -(-batch.get_total_buffer_size() // STAGED_BYTES))
    step = max(1, -(-n // pieces))
    out = []
    for at in range(0, n, step):
        piece = batch.slice(at, step)
        sink = pa.BufferOutputStream()
        with pa.ipc.new_stream(sink, piece.schema, options=pa.ipc.IpcWriteOptions(compression="lz4")) as writer:
            writer.write_batch(piece)
        out.append(staging_row(shard, run, first_row + at, pa.nulls(1, pa.string()), one_value(sink.getvalue())))
    return out


def staging_row(shard: "Shard", run: int, row_index: int, stats, data):
    """One staging row: the shard's keys, `row_index`, and the one-value
    arrays `stats` and `data`."""
    import pyarrow as pa

    return pa.RecordBatch.from_arrays([
        pa.array([shard.file_index], pa.int32()), pa.array([shard.shard_index], pa.int32()),
        pa.array([run], pa.int32()), pa.array([row_index], pa.int64()), stats, data], schema=staging_schema())


def one_value(buf):
    """A binary array of the one value `buf`, without a copy."""
    import pyarrow as pa

    offsets = pa.array([0, buf.size], pa.int32()).buffers()[1]
    return pa.Array.from_buffers(pa.binary(), 1, [None, offsets, buf])


def from_staging(data: bytes):
    """The batch of a staging row's `data`."""
    import pyarrow as pa

    return pa.ipc.open_stream(data).read_next_batch()


def stats_batch(shard: "Shard", run: int, note: dict):
    """A shard's statistics row: its keys, row_index -1, the note as JSON."""
    import pyarrow as pa

    return staging_row(shard, run, -1, pa.array([json.dumps(note)], pa.string()), pa.nulls(1, pa.binary()))


@dataclass(frozen=True)
class Shift:
    """What an accepted run's rows add: to `game`, to `line` (validate), and
    the records before its first row."""

    games: int
    lines: int
    rows: int


def renumbered(batch, columns: Columns, shift: Shift, first_row: int, output):
    """A staged batch as the job writes it: `record` first (the row's place
    in the single-machine output, from 1), `game` and `line` shifted by what
    came before in the file."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    n = batch.num_rows
    start = shift.rows + first_row + 1
    arrays = [pa.array(np.arange(start, start + n, dtype=np.int64))]
    for i, a in enumerate(batch.columns):
        add = {"game": shift.games, "line": shift.lines}.get(columns.names[i], 0)
        arrays.append(pc.add_checked(a, pa.scalar(add, a.type)) if add else a)
    return pa.RecordBatch.from_arrays(arrays, schema=output)


class Parts:
    """Writes the job's Parquet files from staging rows, where they are:
    one file per accepted run (a run's rows come in order), named by its
    first record, `part-<20 digits>.parquet`, so that the files in name
    order are the rows in record order whatever the task that wrote them.
    A file is written under a name of its own and renamed when complete
    (a retried or speculative task writes the same bytes)."""

    ROW_GROUP = 65_536  # rows, as pgnkit's own Parquet

    def __init__(self, directory: str, columns: Columns, shifts: dict[int, Shift], output, one_file=False):
        """`one_file`: a run that goes on from the last record of the run
        before goes into its file (the driver writes every run)."""
        self.directory, self.columns, self.shifts, self.output = directory, columns, shifts, output
        self.one_file = one_file
        self.writer = self.key = self.name = self.tmp = None
        self.first = self.rows = 0
        self.pending: list = []
        self.pending_rows = 0
        self.done: list[tuple[str, int, int]] = []  # name, first record, rows

    def add(self, key: int, row_index: int, batch) -> None:
        """Adds `batch` (cast, as `to_target` gives it), the rows from
        `row_index` of the run `key`."""
        shift = self.shifts.get(key)
        if shift is None:
            return  # a run the walk did not keep
        if key != self.key:
            if not (self.one_file and self.rows and self.first + self.rows == shift.rows + row_index + 1):
                self.close()
                self.first, self.rows = shift.rows + row_index + 1, 0
            self.key = key
        batch = renumbered(batch, self.columns, shift, row_index, self.output)
        if batch.num_rows == 0:
            return
        if self.first + self.rows != shift.rows + row_index + 1:
            raise JobError(f"run {key}: its rows came out of order (its row {row_index} came after record "
                           f"{self.first + self.rows - 1})")
        self.pending.append(batch)
        self.pending_rows += batch.num_rows
        self.rows += batch.num_rows
        if self.pending_rows >= self.ROW_GROUP:
            self.flush()

    def flush(self) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        if not self.pending:
            return
        if self.writer is None:
            self.name = f"part-{self.first:020d}.parquet"
            self.tmp = os.path.join(self.directory, f".{self.name}.{uuid.uuid4().hex}")
            self.writer = pq.ParquetWriter(self.tmp, self.output, compression="zstd",
                                           write_statistics=statistics_paths(self.output))
        self.writer.write_table(pa.Table.from_batches(self.pending, self.output), row_group_size=self.ROW_GROUP)
        self.pending, self.pending_rows = [], 0

    def close(self) -> None:
        self.flush()
        if self.writer is not None:
            self.writer.close()
            os.replace(self.tmp, os.path.join(self.directory, self.name))
            self.done.append((self.name, self.first, self.rows))
        self.writer = self.key = self.name = self.tmp = None
        self.rows = 0

    def abandon(self) -> None:
        if self.writer is not None:
            self.writer.close()
            os.remove(self.tmp)
        self.writer = None


def statistics_paths(schema) -> list[str]:
    """The Parquet columns that get min/max statistics, as pgnkit's own
    files: every one but list items (no reader skips a page on the least
    move of a game, and computing them cost 12 % of the writing)."""
    import pyarrow as pa

    def leaves(name: str, t) -> list[str]:
        if pa.types.is_list(t) or pa.types.is_large_list(t):
            return []
        if pa.types.is_map(t):
            return [f"{name}.key_value.key", *leaves(f"{name}.key_value.value", t.item_type)]
        if pa.types.is_struct(t):
            return [p for f in t for p in leaves(f"{name}.{f.name}", f.type)]
        return [name]

    return [p for f in schema for p in leaves(f.name, f.type)]


def write_empty(directory: str, output) -> tuple[str, int, int]:
    """The one file of a job without rows: the schema, no row group."""
    import pyarrow.parquet as pq

    name = f"part-{1:020d}.parquet"
    pq.ParquetWriter(os.path.join(directory, name), output, compression="zstd").close()
    return name, 1, 0


def check_parts(parts: list[tuple[str, int, int]], rows: int) -> str | None:
    """What is wrong with the files the tasks say they wrote: they must hold
    records 1..rows, each once, in name order (None: nothing)."""
    expected = 1
    for name, first, n in sorted(parts):
        if first != expected or n <= 0 or name != f"part-{first:020d}.parquet":
            return f"{name} holds records {first}..{first + n - 1}, record {expected} was next"
        expected += n
    if expected != rows + 1:
        return f"the files hold {expected - 1} records, the shards {rows}"
    return None


def shard_env() -> dict[str, str]:
    """pgnkit's environment in a task: the task's own, with the transparent
    huge pages of pgnkit's allocator (mimalloc) off unless MIMALLOC_ALLOW_THP
    is set. A shard's run allocates each batch afresh; with THP each first
    touch zeroed 2 MiB, and the pages mimalloc purged were faulted and
    zeroed again: `convert --to arrow -j1` of a 32 MB shard of pgnmentor took
    0.36 s of system time and 1.1 s in all, 0.06 s and 0.7 s without. It
    changes no output."""
    env = dict(os.environ)
    env.setdefault("MIMALLOC_ALLOW_THP", "0")
    return env


@contextlib.contextmanager
def no_gc(freeze: bool = True):
    """Python's cyclic garbage collector off while a task works: the
    batches' pyarrow objects hold no cycles, and its collections walked
    every object of the worker (pyspark, pandas, pyarrow): 0.73 s of the
    workers' 2.4 s in a convert job of pgnmentor (perf), 0.02 s without. With `freeze` (in a Spark worker, not
    the driver) the objects there already are frozen: left out of later
    collections. The collector is on again after."""
    was = gc.isenabled()
    if freeze:
        gc.freeze()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


class ShardOutputError(Exception):
    """A shard's Arrow stream is not what the schema says (exit 2)."""


class SpoolError(ShardOutputError):
    """A shard's batches could not be spooled into OUT (exit 2)."""

    def __init__(self, spool: str, error: Exception):
        super().__init__(f"the shard's batches could not be written into {spool}: "
                         f"{getattr(error, 'strerror', None) or error} (OUT must be a directory every executor "
                         "can write, shared with the driver)")


# ---------------------------------------------------------- on the executors


@dataclass(frozen=True)
class Runner:
    """How an executor runs pgnkit: shipped to the tasks with each shard."""

    pgnkit: str
    subcommand: str
    flags: tuple[str, ...]
    threads: int
    fetch: str | None = None

    def executable(self) -> str:
        """An absolute path: a relative PATH names a file in the task's
        directory (where YARN puts `--files`), which $PATH would not find."""
        candidates = [self.pgnkit]
        try:
            from pyspark import SparkFiles

            candidates.append(SparkFiles.get(os.path.basename(self.pgnkit)))
        except Exception:  # noqa: BLE001 - not in a Spark task
            pass
        for path in candidates:
            if os.path.isfile(path):
                path = os.path.abspath(path)
                if not os.access(path, os.X_OK):
                    try:
                        os.chmod(path, 0o755)  # shipped files may lose the bit
                    except OSError:
                        pass  # running it will say what is wrong
                return path
        found = shutil.which(self.pgnkit)
        if found is None:
            raise FileNotFoundError(
                f"pgnkit binary `{self.pgnkit}` not found on this node "
                "(give a path present on every node, or ship it with --files)"
            )
        return found

    def command(self, shard: Shard, stats: str) -> list[str]:
        """A shard's run: its Arrow stream on standard output."""
        cmd = [self.executable(), self.subcommand, *ARROW_FLAGS[self.subcommand], *self.flags]
        cmd += ["-q", "-j", str(self.threads), "--stats", stats]
        r = shard.byte_range()
        if r is not None:
            cmd += ["--byte-range", r]
        return cmd + ["--", shard.source.path if shard.source.path is not None else "-"]

    def fetch_command(self, source: Source) -> str:
        u = urlparse(source.name)
        return self.fetch.format(
            url=shlex.quote(source.name),
            host=shlex.quote(u.netloc),
            path=shlex.quote(u.path.lstrip("/")),
        )

    def start(
        self, shard_or_source, cmd: list[str], **kw
    ) -> tuple[subprocess.Popen, subprocess.Popen | None]:
        """Starts pgnkit, fed by the fetch command when the file is remote."""
        source = shard_or_source.source if isinstance(shard_or_source, Shard) else shard_or_source
        feeder = None
        stdin = subprocess.DEVNULL
        if source.path is None:
            feeder = subprocess.Popen(
                self.fetch_command(source), shell=True, stdout=subprocess.PIPE
            )
            stdin = feeder.stdout
        proc = subprocess.Popen(cmd, stdin=stdin, env=shard_env(), **kw)
        if feeder is not None:
            feeder.stdout.close()  # pgnkit holds it now
        return proc, feeder

    def run_shard(self, shard: Shard, columns: Columns, run: int = 0, target=None, spool: str | None = None
                  ) -> Iterator:
        """Runs one shard; yields its batches as staging rows (see
        `to_staging`), cast to `target` (default: `columns.target()`), as
        pgnkit writes them, then one statistics row. With `spool` (a
        directory the driver shares) the batches go to a file there instead,
        an Arrow IPC stream named in the statistics (`spooled`), and only
        the statistics row is yielded.

        Failures are recorded in the statistics, not raised: pgnkit's exit 2
        is deterministic, so Spark's retries would only repeat it. What the
        shard wrote is not trusted: a stream whose columns or types are not
        the schema's, that breaks off, or whose row count is not the one its
        --stats gives, fails the shard (exit 2) with the reason.
        """
        import pyarrow as pa
        import pyarrow.ipc as ipc

        target = columns.target() if target is None else target
        tmp = tempfile.mkdtemp(prefix="pgnkit-shard-")
        stats, errors = os.path.join(tmp, "stats.json"), os.path.join(tmp, "stderr")
        note = {"exit": None, "stderr": "", "stats": None, "rows": 0}
        problem = None
        silent = False  # no stream at all
        rename = shard.source.name if shard.source.path is None else None
        spooled = writer = None
        if spool is not None:
            spooled = f"staged-f{shard.file_index}-s{shard.shard_index}-r{run}.arrow"
            spooling = os.path.join(spool, f".{spooled}.{uuid.uuid4().hex}")
        try:
            try:
                cmd = self.command(shard, stats)
                with open(errors, "wb") as err:
                    proc, feeder = self.start(shard, cmd, stdout=subprocess.PIPE, stderr=err)
                try:
                    try:
                        reader = ipc.open_stream(proc.stdout)
                    except (pa.ArrowInvalid, OSError):
                        reader = None  # nothing written: pgnkit's exit status says why
                        silent = True
                    if reader is not None:
                        wrong = columns.check(reader.schema)
                        if wrong is not None:
                            raise ShardOutputError(f"the shard's Arrow stream has {wrong}")
                        for batch in reader:
                            if not batch.num_rows:
                                continue
                            batch = to_target(batch, columns, target, rename)
                            if spool is None:
                                yield from to_staging(batch, shard, run, note["rows"])
                            else:
                                try:
                                    if writer is None:
                                        writer = ipc.new_stream(spooling, target)
                                    writer.write_batch(batch)
                                except (pa.ArrowException, OSError) as e:
                                    raise SpoolError(spool, e) from None
                            note["rows"] += batch.num_rows
                except (pa.ArrowException, OSError, ShardOutputError) as e:  # ArrowIOError is an OSError
                    problem = f"pgnkit_spark: {e}" if isinstance(e, ShardOutputError) else \
                        f"pgnkit_spark: the shard's Arrow stream could not be read: {e}"
                    proc.kill()
                finally:
                    proc.stdout.close()
                    proc.wait()
                with open(errors, "rb") as f:
                    # All of it: a failed shard's is kept in OUT/failed, an
                    # accepted shard's is printed (issue 20: a tail dropped lines).
                    note["stderr"] = f.read().decode("utf-8", "replace")
                if feeder is not None and feeder.wait() != 0 and proc.returncode in (0, 1) and problem is None:
                    note["exit"] = 2
                    note["stderr"] += f"fetch command exited {feeder.returncode}\n"
                else:
                    note["exit"] = proc.returncode
            except OSError as e:
                note["exit"], note["stderr"] = 2, str(e)
            if note["exit"] in (0, 1) and problem is None and silent:
                problem = "pgnkit_spark: the shard wrote no Arrow stream"
            if note["exit"] in (0, 1) and problem is None:
                if os.path.exists(stats):
                    with open(stats, "rb") as f:
                        raw = f.read()
                    note["stats"] = json.loads(raw)
                    note["stats_text"] = raw.decode("utf-8")  # for the walk: its checksum covers these bytes
                    records = (note["stats"].get("output") or {}).get("records")
                    if records is not None and records != note["rows"]:
                        problem = (f"pgnkit_spark: the shard's --stats counts {records} records, "
                                   f"its Arrow stream held {note['rows']}")
                else:
                    problem = "no --stats written"
            if problem is not None:
                note["exit"] = 2
                note["stderr"] += problem + "\n"
            if writer is not None:
                try:
                    writer.close()
                    writer = None
                    if note["exit"] in (0, 1):
                        os.replace(spooling, os.path.join(spool, spooled))
                        note["spooled"] = spooled
                except (pa.ArrowException, OSError) as e:
                    writer = None
                    note["exit"] = 2
                    note["stderr"] += f"pgnkit_spark: {SpoolError(spool, e)}\n"
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
            if writer is not None:
                writer.close()
            if spool is not None and os.path.lexists(spooling):
                os.remove(spooling)
        note["shard"] = {"file": shard.source.name, "range": shard.byte_range()}
        yield stats_batch(shard, run, note)

    def schema(self) -> dict:
        """What `pgnkit schema SUBCOMMAND --json` prints: the columns of the
        subcommand's records, and which of them Arrow holds."""
        exe = self.executable()
        cmd = [exe, "schema", self.subcommand, "--json"]
        try:
            proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired) as e:
            raise JobError(f"`{' '.join(cmd)}` could not run: {e}") from None
        said = tail(proc.stderr.decode("utf-8", "replace")) or tail(proc.stdout.decode("utf-8", "replace"))
        if proc.returncode != 0:
            raise JobError(
                f"`{' '.join(cmd)}` exited {proc.returncode} (a pgnkit without the schema subcommand?): "
                + (said.strip() or "it printed nothing")
            )
        try:
            doc = json.loads(proc.stdout)
            Columns.from_schema(doc)
        except (ValueError, JobError) as e:
            raise JobError(
                f"`{' '.join(cmd)}` printed no schema ({e}): " + (tail(proc.stdout.decode("utf-8", "replace")).strip()
                                                               or "nothing")
            ) from None
        return doc

    def plan(self, planned: list[tuple[str, str]], reruns: list[tuple[str, str]]) -> dict:
        """pgnkit's walk over the statistics of the planned runs of some
        files' shards (in order) and of their reruns so far, each a (name,
        text) pair: `pgnkit merge --plan` on them, written to files of those
        names. Shards that do not merge stop the job with pgnkit's reason."""
        exe = self.executable()
        tmp = tempfile.mkdtemp(prefix="pgnkit-plan-")

        def write(name: str, text: str) -> str:
            path = os.path.join(tmp, name)
            with open(path, "w", encoding="utf-8", newline="") as f:
                f.write(text)  # as pgnkit wrote it: its checksum covers the bytes
            return path

        try:
            cmd = [exe, "merge", "--plan", *(write(n, t) for n, t in planned)]
            for n, t in reruns:
                cmd += ["--rerun", write(n, t)]
            try:
                proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, timeout=600)
            except (OSError, subprocess.TimeoutExpired) as e:
                raise JobError(f"`pgnkit merge --plan` could not run: {e}") from None
            said = tail(proc.stderr.decode("utf-8", "replace")).strip()
            if proc.returncode != 0:
                raise JobError(f"the shards do not merge (`pgnkit merge --plan` exited {proc.returncode}): "
                               + (said or "it printed nothing"))
            try:
                plan = json.loads(proc.stdout)
            except ValueError:
                plan = None
            if not isinstance(plan, dict) or not isinstance(plan.get("files"), list):
                raise JobError("`pgnkit merge --plan` printed no plan: "
                               + (tail(proc.stdout.decode("utf-8", "replace")).strip() or "nothing"))
            return plan
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def probe(self) -> Columns:
        """The columns, from the binary's schema, checked against what it
        writes: a run with these flags on an empty input, which also says,
        before any work, when the binary refuses the flags."""
        import pyarrow as pa
        import pyarrow.ipc as ipc

        columns = Columns.from_schema(self.schema())
        cmd = [self.executable(), self.subcommand, *ARROW_FLAGS[self.subcommand], *self.flags, "-q", "-j", "1", "-"]
        try:
            proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, timeout=120)
        except (OSError, subprocess.TimeoutExpired) as e:
            raise JobError(f"`{' '.join(cmd)}` could not run: {e}") from None
        if proc.returncode not in (0, 1):
            raise JobError(f"`{' '.join(cmd)}` exited {proc.returncode}: "
                           + (tail(proc.stderr.decode("utf-8", "replace")).strip() or "it printed nothing"))
        try:
            schema = ipc.open_stream(pa.py_buffer(proc.stdout)).schema
        except pa.ArrowException as e:
            raise JobError(f"`{' '.join(cmd)}` wrote no Arrow stream ({e})") from None
        wrong = columns.check(schema)
        if wrong is not None:
            raise JobError(f"`{' '.join(cmd)}` wrote {wrong}, against its own schema")
        return columns


# Lines of a failed shard's stderr printed; the whole text is in OUT/failed.
FAILED_LINES = 20


def failure_message(where: str, status, stderr: str, saved: str | None, keep: int = FAILED_LINES) -> str:
    """What the job prints for a failed shard: its last `keep` stderr lines,
    how many were left out, and where the whole text is."""
    lines = stderr.splitlines()
    head = f"pgnkit_spark: shard {where}: pgnkit exit {status}"
    if saved is not None and len(lines) > keep:
        head += (f"; the last {keep} of its {len(lines)} stderr lines follow, {len(lines) - keep} "
                 f"left out (the whole stderr is in {saved}):")
    elif saved is not None:
        head += f" (its stderr, also in {saved}):"
    else:
        head += ":"
    return "\n".join([head, *lines[-keep:]])


def tail(text: str, lines: int = 20, chars: int = 4000) -> str:
    """The end of a stderr text, small enough to travel in a statistics row."""
    kept = text.splitlines()[-lines:]
    out = "\n".join(kept)
    return out[-chars:] + ("\n" if out else "")


# ------------------------------------------------------------- on the driver


CACHE_COMPRESSED = "spark.sql.inMemoryColumnarStorage.compressed"
# One staging row per Arrow batch into a task: each holds a batch of up to
# STAGED_BYTES, and Spark's Arrow batches hold at most 2 GiB of binary.
ARROW_BATCH = "spark.sql.execution.arrow.maxRecordsPerBatch"

# Spooled batches of at most this many bytes in all are written by the driver:
# a Spark job of a task per run would cost more than the writing.
DRIVER_WRITES = 32 << 20

# The key of the Parquet footer under which Spark's writer keeps its schema.
SPARK_SCHEMA = "org.apache.spark.sql.parquet.row.metadata"

# A run's key, file_index * 10^12 + shard_index * 10^6 + run: one long.
RUN_KEY = (10**12, 10**6)


def run_key(file_index: int, shard_index: int, run: int) -> int:
    if not (0 <= shard_index < RUN_KEY[0] // RUN_KEY[1] and 0 <= run < RUN_KEY[1] and 0 <= file_index < 9 * 10**6):
        raise JobError(f"file {file_index}, shard {shard_index}, run {run}: too many files or shards for one job")
    return file_index * RUN_KEY[0] + shard_index * RUN_KEY[1] + run


def spark_schema(columns: Columns):
    """The staging rows as Spark declares them; the job's output as Spark
    declares it, and the Arrow schema Spark expects back for it (exactly:
    the batches are cast to that, and the job's own files have it)."""
    from pyspark.sql.pandas.types import from_arrow_schema, to_arrow_schema

    declared = from_arrow_schema(columns.output())
    return from_arrow_schema(staging_schema()), declared, to_arrow_schema(declared)


def find_sources(spark, job: Job) -> list[Source]:
    sources: list[Source] = []
    for name in job.inputs:
        if not is_remote(name):
            sources += find_local(name, job.glob)
            continue
        if job.fetch is None:
            raise JobError(
                f"{name}: pgnkit on the executors reads local paths only; give --fetch "
                "(a command that writes one object to standard output) or mount the store"
            )
        jvm = spark._jvm
        hpath = jvm.org.apache.hadoop.fs.Path(name)
        fs = hpath.getFileSystem(spark._jsc.hadoopConfiguration())
        if job.glob:
            found = fs.globStatus(hpath) or []
        else:
            found = [fs.getFileStatus(hpath)] if fs.exists(hpath) else []
        files = [st for st in found if st.isFile()]
        if not files:
            raise JobError(f"{name}: no such file")
        for st in files:
            url = st.getPath().toString()
            compressed = url.endswith(COMPRESSED_SUFFIXES)
            sources.append(Source(url, None, st.getLen(), compressed))
    return sources


def write_text(spark, url: str, text: str) -> None:
    """Writes `text` (UTF-8) to the file `url`, through Hadoop, so that an
    output directory on HDFS or a store works as a local one."""
    jvm = spark._jvm
    hpath = jvm.org.apache.hadoop.fs.Path(url)
    stream = hpath.getFileSystem(spark._jsc.hadoopConfiguration()).create(hpath, True)
    try:
        stream.write(bytearray(text.encode("utf-8")))
    finally:
        stream.close()


def delete_path(spark, path: str) -> None:
    jvm = spark._jvm
    hpath = jvm.org.apache.hadoop.fs.Path(path)
    hpath.getFileSystem(spark._jsc.hadoopConfiguration()).delete(hpath, True)


def out_url(out: str, name: str) -> str:
    """`name` under the output directory, as a URL: a local directory gets
    `file://`, so that a cluster's default file system (HDFS) does not take it."""
    if urlparse(out).scheme:
        return out.rstrip("/") + "/" + name
    return "file://" + os.path.join(os.path.abspath(out), name)


def out_shown(out: str, name: str) -> str:
    """`name` under the output directory as a user would type it."""
    return out.rstrip("/") + "/" + name if urlparse(out).scheme else os.path.join(out, name)


@dataclass
class Result:
    """What a run did, for the caller (and the test)."""

    status: int
    shards: int = 0
    reruns: int = 0
    skipped: int = 0
    rows: int = 0
    columns: Columns | None = None
    sorted: bool = False  # whether the rows needed a sort (reruns put them out of order)
    seconds: dict[str, float] = field(default_factory=dict)  # wall time per phase


@contextlib.contextmanager
def session_conf(spark, key: str, value: str):
    """`key` set to `value` in the session while the block runs."""
    old = spark.conf.get(key, None)
    spark.conf.set(key, value)
    try:
        yield
    finally:
        if old is None:
            spark.conf.unset(key)
        else:
            spark.conf.set(key, old)


def staged_rows(batches) -> Iterator[tuple[int, int, object]]:
    """The (run key, first row, data) of the staging rows in `batches`."""
    for b in batches:
        yield from zip(b.column(0).to_pylist(), b.column(1).to_pylist(), (v.as_buffer() for v in b.column(2)))


def spark_writes(spark, out: str, result: Result, rows, columns: Columns, shifts: dict[int, Shift], declared,
                 output, reruns: bool) -> None:
    """The Parquet written by Spark's writer (an output directory Hadoop
    opens: HDFS, a store): the batches renumbered on the executors, handed
    back to Spark, sorted by `record` when reruns put them out of order."""

    def renumber(batches):
        for k, first, data in staged_rows(batches):
            batch = renumbered(from_staging(data), columns, shifts[k], first, output)
            if batch.num_rows:
                yield batch

    merged = rows.mapInArrow(renumber, declared)
    if reruns:
        merged = merged.orderBy("record")
        result.sorted = True
    with session_conf(spark, ARROW_BATCH, "1"):
        merged.write.mode("overwrite").option("compression", "zstd").parquet(out_url(out, "parquet"))


def umask() -> int:
    """The process's umask, read without changing it (where Linux says it)."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o22)
    os.umask(mask)
    return mask


def make_spool(directory: str) -> str:
    """A new directory in OUT (`directory`, a local path), with the
    permissions of one Spark's writer makes, not mkdtemp's 0700: the
    shards' batches are spooled there, the tasks write the Parquet files
    there, and it becomes OUT/parquet when they are checked."""
    if os.path.lexists(directory) and not os.path.isdir(directory):
        raise JobError(f"{directory}: OUT is not a directory")
    try:
        os.makedirs(directory, exist_ok=True)
        spool = tempfile.mkdtemp(prefix=".parquet-", dir=directory)
        os.chmod(spool, 0o777 & ~umask())
    except OSError as e:
        raise JobError(f"{directory}: OUT cannot be written: {e.strerror or e}") from None
    return spool


@contextlib.contextmanager
def out_lock(directory: str):
    """OUT held for this job: a second job writing the same OUT at once
    would swap its Parquet under this one's, and delete its failed/."""
    import fcntl

    fd = os.open(directory, os.O_RDONLY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise JobError(f"{directory}: another job is writing this OUT") from None
        yield
    finally:
        os.close(fd)


def swap_in(spool: str, final: str) -> str | None:
    """Puts the directory `spool` in `final`'s place, the old `final` (if
    any) moved aside first and only then removed, so that a failure leaves
    either the old output or the new one, never neither. Returns a warning
    when the old one could not be removed."""
    old = None
    if os.path.lexists(final):
        old = tempfile.mkdtemp(prefix=".parquet-old-", dir=os.path.dirname(final))
        os.rmdir(old)
        os.rename(final, old)
    try:
        os.rename(spool, final)
    except OSError:
        if old is not None:
            os.rename(old, final)
        raise
    if old is not None:
        try:
            if os.path.isdir(old) and not os.path.islink(old):
                shutil.rmtree(old)
            else:
                os.remove(old)
        except OSError as e:
            return f"the previous Parquet could not be removed, it is in {old}: {e.strerror or e}"
    return None


def own_writes(spark, result: Result, spool: str, runs: list[tuple[int, str]], columns: Columns,
               shifts: dict[int, Shift], output, log=sys.stderr) -> None:
    """The Parquet written by the tasks themselves, with pyarrow, into a
    local directory (or one of a file system the driver and the executors
    share): one task per accepted run with rows (`runs`: its key and its
    spooled file) writes its file (`Parts`) into `spool`; the driver checks
    that the files hold records 1..n, each once (their footers' row counts,
    not the tasks' word), then puts `spool` in OUT/parquet's place
    (`swap_in`). Nothing is deleted before that: a failed job leaves the old
    OUT/parquet as it was. What stops a task comes back as text, to be the
    job's JobError (Spark's own message would say only that a Python worker
    failed)."""
    import pyarrow as pa
    import pyarrow.ipc as ipc
    import pyarrow.parquet as pq

    def write(todo, one_file=False):
        parts = Parts(spool, columns, shifts, output, one_file)
        try:
            for k, name in todo:
                row = 0
                with pa.memory_map(os.path.join(spool, name)) as source:
                    for batch in ipc.open_stream(source):
                        parts.add(k, row, batch)
                        row += batch.num_rows
            parts.close()
        except BaseException:
            parts.abandon()
            raise
        return parts.done

    def task(todo, one_file=False, worker=True):
        try:
            with no_gc(freeze=worker):
                return [(None, *d) for d in write(list(todo), one_file)]
        except (JobError, pa.ArrowException, OSError) as e:
            return [(f"{type(e).__name__}: {e}", "", 0, 0)]

    for _, name in runs:
        if not os.path.isfile(os.path.join(spool, name)):
            raise JobError(f"{os.path.join(spool, name)}: a task spooled it, the driver does not see it (a local "
                           "OUT must be a directory the driver and every executor share)")
    spooled = sum(os.path.getsize(os.path.join(spool, name)) for _, name in runs)
    if spooled <= DRIVER_WRITES:
        done = task(runs, one_file=True, worker=False)  # a Spark job would cost more than the writing
    else:
        done = spark.sparkContext.parallelize(runs, len(runs)).mapPartitions(task).collect()
    for error, *_ in done:
        if error is not None:
            raise JobError(f"writing the Parquet: {error}")
    parts = [tuple(d[1:]) for d in done]
    if not parts and result.rows == 0:
        parts = [write_empty(spool, output)]
    for name, first, n in parts:
        path = os.path.join(spool, name)
        if not os.path.isfile(path):
            raise JobError(f"{path}: a task wrote it, the driver does not see it (a local OUT must be a directory "
                           "the driver and every executor share)")
        got = pq.read_metadata(path).num_rows
        if got != n:
            raise JobError(f"{path}: {got} rows, its task wrote {n}")
    wrong = check_parts([p for p in parts if p[2] > 0], result.rows)
    if wrong is not None:
        raise JobError(f"the Parquet files are not the rows the shards gave: {wrong}")
    keep = {name for name, _, _ in parts}
    for name in os.listdir(spool):
        if name not in keep:
            os.remove(os.path.join(spool, name))  # the spooled batches, a failed attempt's leftovers
    open(os.path.join(spool, "_SUCCESS"), "wb").close()
    warning = swap_in(spool, os.path.join(os.path.dirname(spool), "parquet"))
    if warning is not None:
        print(f"pgnkit_spark: warning: {warning}", file=log)


def run_job(spark, job: Job, log=sys.stderr) -> Result:
    """Runs the whole job in `spark`; returns the exit status and counts.
    A local OUT (a `file:` URL decoded, as an INPUT is) is made if need be
    (and removed again if the job leaves it empty), and held for the job."""
    if job.subcommand == "dedupe":
        return run_dedupe(spark, job, log)
    if is_remote(job.out):
        return run_in(spark, job, job.out, log)
    out = os.path.abspath(local_path(job.out))
    if os.path.lexists(out) and not os.path.isdir(out):
        raise JobError(f"{out}: OUT is not a directory")
    made = not os.path.lexists(out)
    try:
        os.makedirs(out, exist_ok=True)
    except OSError as e:
        raise JobError(f"{out}: OUT cannot be made: {e.strerror or e}") from None
    try:
        with out_lock(out):
            return run_in(spark, job, out, log)
    finally:
        if made:
            try:
                os.rmdir(out)  # only if the job left it empty
            except OSError:
                pass


def run_in(spark, job: Job, out: str, log) -> Result:
    """The job, writing into `out`: a remote URL, or a local directory that
    exists."""
    import pyarrow as pa
    from pyspark import StorageLevel
    from pyspark.sql import functions as F

    sc = spark.sparkContext
    clock = [time.monotonic()]

    def lap(phase: str) -> None:
        now = time.monotonic()
        result.seconds[phase] = result.seconds.get(phase, 0.0) + now - clock[0]
        clock[0] = now

    result = Result(status=0)
    sc.addPyFile(os.path.abspath(__file__))  # the tasks import this module
    threads = job.threads or int(sc.getConf().get("spark.task.cpus", "1"))
    sources = find_sources(spark, job)
    runner = Runner(job.pgnkit, job.subcommand, tuple(job.flags), threads, job.fetch)

    # Plain tuples back from the task: under spark-submit this module is
    # __main__, whose classes the result pickler cannot name. The probe runs
    # where the shards run (the binary may be only there); what stops it
    # comes back as text, to be this job's JobError.
    def probe(_):
        try:
            return None, dataclasses.astuple(runner.probe())
        except (JobError, OSError, ImportError) as e:
            return str(e), None

    # A binary the driver has at that path (a local run, a shared file
    # system) is probed here, which spares a Spark job.
    error, fields = probe(0) if os.path.isfile(job.pgnkit) else sc.parallelize([0], 1).map(probe).first()
    if error is not None:
        raise JobError(error)
    columns = Columns(*fields)
    lap("schema")
    clash = columns.clash(spark.conf.get("spark.sql.caseSensitive", "false").lower() == "true")
    if clash is not None:
        raise JobError(f"the columns `{clash[0]}` and `{clash[1]}` would be one Parquet column")
    if any(json.loads(t).get("kind") == "time" for t in columns.types):
        try:
            spark.conf.set("spark.sql.timeType.enabled", "true")  # `utc_time`: Spark 4.1 and later
        except Exception as e:  # noqa: BLE001 - an older Spark: say so
            raise JobError(f"this Spark has no TIME type, which the column utc_time needs: {e}") from None
    staging, declared, output = spark_schema(columns)
    target = pa.schema(list(output)[1:])
    shards = plan(sources, job.shard_bytes)
    # The stderr of this run's failed shards, and no older run's.
    delete_path(spark, out_url(out, "failed"))

    staged = []  # the DataFrames of every round, cached on the executors
    # A local OUT: the shards spool their batches into a directory there, and
    # the tasks write the Parquet; otherwise Spark keeps them and writes it.
    spool = None if job.spark_writer or is_remote(out) else make_spool(out)

    def stage(items: list[Shard], run: int) -> dict[tuple[int, int], dict]:
        """Runs `items`, one task each, keeping their batches: spooled into
        `spool`, or where they ran, cached as staging rows on disk (in
        memory they took the heap Spark's Parquet writer needs: convert on
        pgnmentor ran out of 1 GiB); a lost block is computed again, which
        reruns that shard's pgnkit and gives the same rows. Returns their
        statistics."""

        if spool is not None:
            # Only the statistics come back: plain tuples, no DataFrame.
            def spooled(indexes):
                with no_gc():
                    notes = [(items[i].file_index, items[i].shard_index, b.column("stats")[0].as_py())
                             for i in indexes for b in runner.run_shard(items[i], columns, run, target, spool)]
                return iter(notes)

            notes = sc.parallelize(range(len(items)), len(items)).mapPartitions(spooled).collect()
            return {(f, k): json.loads(note) for f, k, note in notes}

        def task(batches):
            for b in batches:
                for i in b.column(0).to_pylist():
                    yield from runner.run_shard(items[i], columns, run, target)

        index = spark.createDataFrame(sc.parallelize([(i,) for i in range(len(items))], len(items)), "i int")
        df = index.mapInArrow(task, staging).persist(StorageLevel.DISK_ONLY)
        staged.append(df)
        # Uncompressed: the batches are read once, and compressing them
        # again cost more than it saved.
        with session_conf(spark, CACHE_COMPRESSED, "false"):
            notes = df.where(F.col("row_index") < 0).select("file_index", "shard_index", "stats").collect()
        return {(r.file_index, r.shard_index): json.loads(r.stats) for r in notes}

    result.shards, result.columns = len(shards), columns
    latest: dict[tuple[int, int], tuple[int, dict]] = {}
    pending = [(0, shards)]

    def ask(planned, reruns):
        """pgnkit's walk: run where the binary is (see `probe`)."""
        if os.path.isfile(job.pgnkit):
            return runner.plan(planned, reruns)

        def task(_):
            try:
                return None, runner.plan(planned, reruns)
            except (JobError, OSError) as e:
                return str(e), None

        error, plan = sc.parallelize([0], 1).map(task).first()
        if error is not None:
            raise JobError(error)
        return plan

    walk = ShardWalk(shards, sources, ask)
    try:
        while pending:
            run, items = pending.pop()
            notes = stage(items, run)
            lap("shards" if run == 0 else "reruns")
            failed = [(k, n) for k, n in sorted(notes.items()) if n["exit"] not in (0, 1)]
            if len(notes) != len(items):
                failed.append((None, {"stderr": "a shard left no statistics", "shard": {}}))
            for key, n in failed:
                where = f"{n['shard'].get('file')} {n['shard'].get('range') or ''}".strip()
                saved = None
                if key is not None:
                    name = f"failed/file{key[0]}-shard{key[1]}.stderr"
                    write_text(spark, out_url(out, name), n["stderr"])
                    saved = out_shown(out, name)
                print(failure_message(where, n.get("exit"), n["stderr"], saved), file=log)
            if failed:
                result.status = 2
                return result
            for key, n in notes.items():
                latest[key] = (run, n)
            walk.add(run, notes)
            reruns = walk.advance()
            lap("walk")
            if reruns:
                pending.append((run + 1, reruns))

        accepted = walk.kept
        result.reruns, result.skipped = walk.reruns, walk.skipped
        for a in accepted:
            n = latest[(a.file_index, a.shard_index)][1]
            for line in n["stderr"].splitlines():
                print(line, file=log)
            if n["exit"] == 1:
                result.status = 1
        result.rows = sum(a.rows for a in accepted)
        # What each accepted run's rows add, by a key of the run; the rows of
        # a run the walk did not keep are left behind in Spark.
        shifts = {run_key(a.file_index, a.shard_index, a.run): Shift(a.games_before, a.lines_before, a.records_before)
                  for a in accepted}
        if spool is not None:
            runs = []
            for a in accepted:
                run, note = latest[(a.file_index, a.shard_index)]
                if a.rows:
                    if run != a.run or not note.get("spooled"):
                        raise JobError(f"file {a.file_index} shard {a.shard_index}: its rows were not spooled")
                    runs.append((run_key(a.file_index, a.shard_index, a.run), note["spooled"]))
            # Spark's own key: Spark reads the files with the types it declared
            # (without it, it takes pyarrow's `time64[us]` for a `time(9)`).
            own = output.with_metadata({SPARK_SCHEMA: declared.json()})
            own_writes(spark, result, spool, runs, columns, shifts, own, log)
        else:
            key = F.col("file_index").cast("long") * RUN_KEY[0] + F.col("shard_index").cast("long") * RUN_KEY[1] + \
                F.col("run").cast("long")
            rows = staged[0]
            for df in staged[1:]:
                rows = rows.union(df)
            # The batches stay in their order: the partitions are the shards
            # in order, each a run's batches in order, reruns after them.
            rows = rows.where((F.col("row_index") >= 0) & key.isin(list(shifts))).select(
                key.alias("key"), "row_index", "data")
            spark_writes(spark, out, result, rows, columns, shifts, declared, output, reruns=len(staged) > 1)
        lap("parquet")
    finally:
        for df in staged:
            df.unpersist()
        if spool is not None and os.path.lexists(spool):
            shutil.rmtree(spool, ignore_errors=True)
            if os.path.lexists(spool):
                print(f"pgnkit_spark: warning: {spool} could not be removed (a task still writing there?); "
                      "delete it", file=log)
    return result


# The kind of a repeat beside the copy kept, and the tags that differ, as
# `pgnkit dedupe` tells them (src/api/dedupe.rs, `kind_of`): the kept copy's
# tags whose first value the repeat does not share, in its order, then the
# repeat's tags the kept copy lacks. `entries` are `map_entries(tags)`:
# every tag once, with its first value, in input order.
DIFFER = """concat(
    transform(filter(kept_entries,
        e -> NOT (try_element_at(map_from_entries(entries), e.key) <=> e.value)), e -> e.key),
    transform(filter(entries,
        e -> NOT array_contains(transform(kept_entries, k -> k.key), e.key)), e -> e.key))"""
KIND = """CASE WHEN role = 'kept' THEN NULL
    WHEN array_contains(differ, 'Result') THEN 'result-differs'
    WHEN size(differ) = 0 THEN 'exact'
    ELSE 'tags-differ' END"""


def run_dedupe(spark, job: Job, log=sys.stderr) -> Result:
    """`-- dedupe`: the report of `pgnkit dedupe --no-prefix -f parquet` on
    one machine. The job's convert gives every game's row (its `key`,
    place, players and tags) into a directory of its own under OUT; Spark
    groups them by key (a shuffle), picks each group's copy kept
    (`--keep`), tells each repeat's kind from the kept copy's tags, numbers
    the groups in the order of their first copy and the rows in the
    report's order, and writes DIR/parquet as the other subcommands do (a
    local DIR: into a new directory first, swapped in at the end). Exit 1
    when a game has a repeat, as `pgnkit dedupe`."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    flags = dedupe_flags(job.flags)
    keep = flags[1]
    columns = Columns.from_schema(Runner(job.pgnkit, "dedupe", (), 1).schema())
    _, declared, _ = spark_schema(columns)
    remote = is_remote(job.out)
    out = job.out if remote else os.path.abspath(local_path(job.out))
    if not remote:
        if os.path.lexists(out) and not os.path.isdir(out):
            raise JobError(f"{out}: OUT is not a directory")
        try:
            os.makedirs(out, exist_ok=True)
        except OSError as e:
            raise JobError(f"{out}: OUT cannot be made: {e.strerror or e}") from None
    tag = uuid.uuid4().hex[:12]
    games_dir = out_shown(out, f".dedupe-games-{tag}")
    games = replace(job, subcommand="convert", flags=flags[2:], out=games_dir, spark_writer=False)
    held = contextlib.nullcontext() if remote else out_lock(out)
    with held:
        spool = None if remote else os.path.join(out, f".parquet-{tag}")
        try:
            t = time.monotonic()
            result = run_job(spark, games, log)
            if result.status == 2:
                # What the failed shards said stays in OUT/failed.
                failed = os.path.join(games_dir, "failed")
                if not remote and os.path.isdir(failed):
                    shutil.rmtree(os.path.join(out, "failed"), ignore_errors=True)
                    os.replace(failed, os.path.join(out, "failed"))
                return result
            result.status = 0
            rows = spark.read.parquet(out_url(games_dir, "parquet")).where(
                F.col("key").isNotNull() & (F.col("plies") > 0))
            by_key = Window.partitionBy("key")
            measure = F.size("tags") if keep == "most-tags" else F.lit(0)
            ranked = (
                rows.select("record", "file", "game", "offset", "line", "white", "black", "event", "round",
                            "plies", "key", F.map_entries("tags").alias("entries"), measure.alias("measure"))
                .withColumn("copies", F.count(F.lit(1)).over(by_key))
                .where(F.col("copies") > 1)
                .withColumn("first", F.min("record").over(by_key))
                .withColumn("rank", F.row_number().over(by_key.orderBy(F.desc("measure"), F.asc("record"))))
            )
            kept = ranked.where(F.col("rank") == 1).select("key", F.col("entries").alias("kept_entries"))
            # The groups' numbers and the rows' places: one ordering of the
            # report's rows (the only step not spread over the executors).
            order = Window.orderBy("first", "record")
            report = (
                ranked.join(kept, "key")
                .withColumn("role", F.when(F.col("rank") == 1, "kept").otherwise("repeat"))
                .withColumn("differ", F.expr(DIFFER))
                .withColumn("kind", F.expr(KIND))
                .withColumn("tags_differ", F.when(F.col("role") == "kept", F.lit(None)).otherwise(F.col("differ")))
                .withColumn("group", F.dense_rank().over(Window.orderBy("first")))
                .withColumn("record", F.row_number().over(order))
            )
            report = report.select([F.col(f.name).cast(f.dataType).alias(f.name) for f in declared.fields])
            report = report.orderBy("record").persist()
            result.rows = report.count()
            if report.where(F.col("role") == "repeat").limit(1).count():
                result.status = 1
            writer = report.coalesce(1) if result.rows <= DEDUPE_ONE_FILE else report
            target = out_url(out, "parquet") if remote else spool
            writer.write.mode("overwrite").option("compression", "zstd").parquet(
                target if remote else "file://" + spool)
            report.unpersist()
            if spool is not None:
                warning = swap_in(spool, os.path.join(out, "parquet"))
                if warning:
                    print(f"pgnkit_spark: warning: {warning}", file=log)
            result.columns = columns
            result.seconds["dedupe"] = time.monotonic() - t
            return result
        finally:
            if remote:
                delete_path(spark, out_url(games_dir, ""))
            else:
                shutil.rmtree(games_dir, ignore_errors=True)
                if spool is not None and os.path.lexists(spool):
                    shutil.rmtree(spool, ignore_errors=True)


# Up to this many rows, the dedupe report is one Parquet file.
DEDUPE_ONE_FILE = 1 << 20


def main(argv: list[str]) -> int:
    try:
        job = parse_args(argv)
    except JobError as e:
        print(f"pgnkit_spark: {e}", file=sys.stderr)
        return 2
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.appName(f"pgnkit {job.subcommand}").getOrCreate()
    spark.sparkContext.setLogLevel("WARN")  # Spark's INFO lines would bury pgnkit's own
    try:
        result = run_job(spark, job)
    except JobError as e:
        print(f"pgnkit_spark: {e}", file=sys.stderr)
        return 2
    except Exception as e:  # noqa: BLE001 - a failed Spark job: say why, exit 2
        print(f"pgnkit_spark: the job failed: {str(e).splitlines()[0] if str(e) else e!r}", file=sys.stderr)
        return 2
    finally:
        spark.stop()
    print(
        f"pgnkit_spark: {result.shards} shards, {result.reruns} rerun, {result.skipped} skipped, "
        f"{result.rows} rows",
        file=sys.stderr,
    )
    return result.status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
