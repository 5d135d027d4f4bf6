#!/usr/bin/env python3
"""Run pgnkit on a Spark cluster and give exactly the output one machine gives.

    spark-submit [--files /path/to/pgnkit] pgnkit_spark.py \\
        [--pgnkit PATH] [--shard-bytes N] [--threads N] [--fetch CMD] \\
        --out DIR [--csv] [--glob] INPUT... -- SUBCOMMAND [FLAGS...]

SUBCOMMAND is `validate`, `annotate-outcome` or `convert` (always with CSV
output: `-f csv` / `--to csv` are added, and may be given). The job

1. plans shards: one per compressed file (zstd, gzip, bzip2, told by their
   first bytes, or by the name for files the driver cannot open), byte ranges
   of --shard-bytes for plain files;
2. runs `pgnkit SUBCOMMAND -q --byte-range S..E --stats ... -j N` on the
   executors, one task per shard, and stages each shard's CSV as Parquet rows
   with a declared schema (the columns the binary writes, named by place:
   integers for pgnkit's own columns of an unsigned integer type, strings
   otherwise, tag columns too whatever their names; which columns are
   pgnkit's own, where the tag columns stand among them and which are
   integers, `pgnkit schema SUBCOMMAND --json` says);
3. walks each file's shards on the driver from their small statistics, per
   the merge contract of the README ("Beyond one machine"), and reruns on the
   executors, from where the previous shard's last game ended, every shard
   that began inside a game its predecessor owns;
4. writes DIR/parquet: the single-machine rows, `game` and `line` renumbered
   file-wide, with a first column `record` (1, 2, ...: the row's place in the
   single-machine output; the files are written in that order), and with
   --csv DIR/csv, whose part files concatenated (`cat DIR/csv/part-*`) are
   byte for byte the single-machine CSV, one header.

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

The pure parts (planning, the chain walk, renumbering, CSV writing) come
first and need no Spark; the Spark parts import pyspark when they run.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import glob
import io
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field, replace
from typing import Callable, Iterable, Iterator
from urllib.parse import unquote_to_bytes, urlparse, urlsplit

# Output flags each subcommand gets, so that every shard writes CSV.
CSV_FLAGS = {
    "validate": ["-f", "csv"],
    "annotate-outcome": ["-f", "csv"],
    "convert": ["--to", "csv"],
}

# The kinds of `pgnkit schema --json` column types read as integers (empty
# cells become nulls); a column of any other kind, and every tag column
# whatever its name, is a string, kept exactly as the binary wrote it.
INT_KINDS = frozenset({"uint8", "uint32", "uint64"})

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
    csv: bool = False
    keep_staging: bool = False
    glob: bool = False  # INPUTs are patterns; otherwise every name is literal


def parse_args(argv: list[str]) -> Job:
    """Splits `OPTIONS INPUT... -- SUBCOMMAND FLAGS...` and checks the flags.

    Flags the job sets per shard (-o, -j, --byte-range, --stats, --no-header,
    -q) are refused, and so are --bad-games and --good-games (one file that
    every shard would overwrite); an output format other than CSV is refused; `-f csv` or
    `--to csv` may be given and is dropped (the job adds it).
    """
    if "--" not in argv:
        raise JobError("give the subcommand after `--`: INPUT... -- SUBCOMMAND [FLAGS...]")
    cut = argv.index("--")
    mine, theirs = argv[:cut], argv[cut + 1 :]
    p = argparse.ArgumentParser(
        prog="pgnkit_spark.py",
        description="Run pgnkit on Spark; see the module docstring and the README.",
    )
    p.add_argument("inputs", nargs="+", metavar="INPUT")
    p.add_argument("--out", required=True, metavar="DIR")
    p.add_argument("--pgnkit", default="pgnkit", metavar="PATH")
    p.add_argument("--shard-bytes", type=parse_size, default=DEFAULT_SHARD_BYTES, metavar="N")
    p.add_argument("--threads", "-j", type=int, default=None, metavar="N")
    p.add_argument("--fetch", default=None, metavar="CMD")
    p.add_argument("--csv", action="store_true")
    p.add_argument("--keep-staging", action="store_true")
    p.add_argument("--glob", action="store_true")
    a = p.parse_args(mine)
    if not theirs or theirs[0] not in CSV_FLAGS:
        raise JobError("the subcommand must be one of " + ", ".join(CSV_FLAGS))
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
            if value != "csv":
                raise JobError(f"the job writes CSV; `{name} {value}` is not supported")
            continue
        if flag.startswith("-f") and len(flag) > 2:
            if flag[2:] != "csv":
                raise JobError(f"the job writes CSV; `{flag}` is not supported")
            continue
        flags.append(flag)
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
        csv=a.csv,
        keep_staging=a.keep_staging,
        glob=a.glob,
    )


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


@dataclass(frozen=True)
class Stats:
    """What the merge needs from a shard's `--stats`, plus its row count."""

    start: int
    end: int | None
    first_byte: int
    limit: int | None  # None: to the end of the file
    end_byte: int
    games: int
    lines: int
    rows: int

    @staticmethod
    def from_pgnkit(doc: dict, rows: int) -> "Stats":
        inputs = doc.get("inputs") or []
        if len(inputs) != 1:
            raise JobError(f"a shard's --stats names {len(inputs)} inputs, not one")
        i = inputs[0]
        end_byte = int(i["end_byte"])
        # A null limit: the region reached the end of the file, and the shard
        # read to it (end_byte is the file's size).
        limit = i.get("limit")
        return Stats(
            start=int(i.get("start") or 0),
            end=i.get("end"),
            first_byte=int(i["first_byte"]),
            limit=end_byte if limit is None else int(limit),
            end_byte=end_byte,
            games=int(i["games"]),
            lines=int(i["lines"]),
            rows=rows,
        )


@dataclass(frozen=True)
class Accepted:
    """A shard run the merge keeps, and what is added to its numbers."""

    file_index: int
    shard_index: int
    run: int  # 0: the planned run; r > 0: the rerun of round r
    games_before: int
    lines_before: int
    rows: int


@dataclass(frozen=True)
class Rerun:
    """A shard to run again: from where its predecessor's last game ended."""

    file_index: int
    shard_index: int
    start: int
    end: int | None


@dataclass
class FileWalk:
    """The merge contract, walked over one file's shards in order of start.

    `advance` goes as far as the statistics at hand allow and returns the one
    shard it needs rerun to go on, or None when the file is done. Each shard
    holds the statistics of its latest run, with that run's number.
    """

    file_index: int
    shard_count: int
    owned_until: int = 0
    games_before: int = 0
    lines_before: int = 0
    next: int = 0
    accepted: list[Accepted] = field(default_factory=list)
    skipped: list[int] = field(default_factory=list)
    reruns: int = 0

    def advance(self, latest: Callable[[int], tuple[int, Stats]]) -> Rerun | None:
        while self.next < self.shard_count:
            k = self.next
            run, s = latest(k)
            if s.limit is not None and s.limit <= self.owned_until:
                # The previous shard read through this one's whole region.
                self.skipped.append(k)
            elif s.first_byte == self.owned_until:
                self.accepted.append(
                    Accepted(self.file_index, k, run, self.games_before, self.lines_before, s.rows)
                )
                self.games_before += s.games
                self.lines_before += s.lines
                self.owned_until = s.end_byte
            elif s.first_byte < self.owned_until and run == 0:
                # It began inside a game the previous shard owns.
                self.reruns += 1
                return Rerun(self.file_index, k, self.owned_until, s.end)
            elif s.first_byte < self.owned_until:
                raise JobError(
                    f"file {self.file_index}, shard {k}: rerun from byte {self.owned_until} "
                    f"began at byte {s.first_byte}"
                )
            else:
                raise JobError(
                    f"file {self.file_index}: no shard holds bytes {self.owned_until}.."
                    f"{s.first_byte} (the ranges do not tile the file)"
                )
            self.next += 1
        return None


def records_before(accepted: Iterable[Accepted]) -> dict[tuple[int, int, int], int]:
    """Rows before each accepted run in the merged output, in output order."""
    out, total = {}, 0
    for a in sorted(accepted, key=lambda a: (a.file_index, a.shard_index)):
        out[(a.file_index, a.shard_index, a.run)] = total
        total += a.rows
    return out


# ---------------------------------------------------------------------- CSV


@dataclass(frozen=True)
class Layout:
    """A CSV header, which of its columns are pgnkit's own, and which of
    those are integers.

    `own[i]` is the name of the fixed column at position i, or None where a
    tag column stands (convert's Seven Tag Roster and --tags, the --tags of
    the others): a tag is text whatever its name (`ply`, `line`), never cast
    to an integer or renumbered. `ints` names the own columns read as
    integers. Both come from the binary's `pgnkit schema SUBCOMMAND --json`
    (`Layout.from_schema`), so a column it adds is known without a list here.
    """

    header: tuple[str, ...]
    own: tuple[str | None, ...]
    ints: tuple[str, ...] = ()

    @staticmethod
    def of(header: list[str], fixed: list[str], tags_at: int, ints: Iterable[str] = ()) -> "Layout":
        """`header`, read as the `fixed` columns with tag columns inserted
        at position `tags_at` of them; the fixed columns named in `ints`
        are integers."""
        t = len(header) - len(fixed)
        if t < 0 or list(header[:tags_at]) != list(fixed[:tags_at]) or list(header[tags_at + t :]) != list(fixed[tags_at:]):
            raise JobError(
                f"the CSV header {','.join(header)} is not pgnkit's columns "
                f"({','.join(fixed)}) with tags at column {tags_at + 1}"
            )
        own = tuple(fixed[:tags_at]) + (None,) * t + tuple(fixed[tags_at:])
        return Layout(tuple(header), own, tuple(ints))

    @staticmethod
    def from_schema(schema: dict, header: Iterable[str]) -> "Layout":
        """`header` read by a schema (what `pgnkit schema SUBCOMMAND --json`
        prints): see `csv_columns`."""
        fixed, tags_at, ints = csv_columns(schema)
        return Layout.of(list(header), fixed, tags_at, ints)

    def position(self, name: str) -> int | None:
        """Where pgnkit's own column `name` is (None: it has none)."""
        return self.own.index(name) if name in self.own else None

    def is_int(self, i: int) -> bool:
        """Whether column i is one of pgnkit's integer columns (a tag never is)."""
        return self.own[i] is not None and self.own[i] in self.ints

    def tags(self) -> list[str]:
        """The tag columns, in order (for convert, the roster first)."""
        return [h for h, o in zip(self.header, self.own) if o is None]

    def clash(self, case_sensitive: bool = False) -> tuple[str, str] | None:
        """Two output columns (`record` first, then the header) that Parquet
        would take for one: equal names, or names equal but for case when
        Spark compares them so (its default)."""
        seen: dict[str, str] = {}
        for name in ("record", *self.header):
            key = name if case_sensitive else name.lower()
            if key in seen:
                return seen[key], name
            seen[key] = name
        return None


def csv_columns(schema: dict) -> tuple[list[str], int, tuple[str, ...]]:
    """What a schema (`pgnkit schema SUBCOMMAND --json`) says of the CSV:
    the fixed columns (those with `"csv": "cell"`, in order), where the tag
    columns stand among them (the number of fixed columns before the
    `"per-tag"` column; all of them when there is none), and which fixed
    columns are integers (type kind uint8, uint32 or uint64)."""
    columns = schema.get("columns") if isinstance(schema, dict) else None
    if not isinstance(columns, list):
        raise JobError("the schema has no list of columns")
    fixed: list[str] = []
    ints: list[str] = []
    tags_at = None
    for c in columns:
        if not isinstance(c, dict) or not isinstance(c.get("name"), str) or not isinstance(c.get("type"), dict):
            raise JobError(f"the schema has a column without a name or a type: {c!r}")
        where = c.get("csv")
        if where == "cell":
            fixed.append(c["name"])
            if c["type"].get("kind") in INT_KINDS:
                ints.append(c["name"])
        elif where == "per-tag":
            if tags_at is not None:
                raise JobError("the schema has two per-tag columns")
            tags_at = len(fixed)
        elif where != "none":
            raise JobError(f"the schema's column `{c['name']}` has csv {where!r}, not cell, per-tag or none")
    return fixed, len(fixed) if tags_at is None else tags_at, tuple(ints)


def typed_row(layout: Layout, cells: list[str]) -> list:
    """A CSV record with pgnkit's integer columns as ints (empty: None).
    A plain header does not say which columns are pgnkit's: build the Layout
    with `Layout.from_schema` (or `Layout.of`)."""
    if not isinstance(layout, Layout):
        raise TypeError("typed_row needs a Layout (Layout.from_schema(schema, header)), not a plain header")
    if len(cells) != len(layout.own):
        raise ValueError(f"a record of {len(cells)} fields under a header of {len(layout.own)}")
    return [
        (int(c) if c != "" else None) if layout.is_int(i) else c for i, c in enumerate(cells)
    ]


def csv_field(v) -> str:
    """One field as pgnkit writes it (Rust csv, QuoteStyle::Necessary)."""
    s = "" if v is None else str(v)
    if any(ch in s for ch in ',"\r\n'):
        return '"' + s.replace('"', '""') + '"'
    return s


def csv_line(values: Iterable) -> str:
    """One record, without its line end; a lone empty field is quoted, as the
    Rust csv writer does, so it is not read as an empty line."""
    fields = [csv_field(v) for v in values]
    if fields == [""]:
        return '""'
    return ",".join(fields)


# A convert row holds a whole game's moves; the csv module's default field
# limit (128 KiB) is not a limit pgnkit has.
csv.field_size_limit(sys.maxsize)


def read_csv(text_stream) -> Iterator[list[str]]:
    return csv.reader(text_stream, strict=True)


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

    def command(self, shard: Shard, stats: str, out: str) -> list[str]:
        cmd = [self.executable(), self.subcommand, *CSV_FLAGS[self.subcommand], *self.flags]
        cmd += ["-q", "-j", str(self.threads), "--stats", stats, "-o", out]
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
        proc = subprocess.Popen(cmd, stdin=stdin, **kw)
        if feeder is not None:
            feeder.stdout.close()  # pgnkit holds it now
        return proc, feeder

    def run_shard(self, shard: Shard, layout: Layout) -> Iterator[tuple]:
        """Runs one shard; yields its staged rows, then one statistics row.

        A staged row is (file_index, shard_index, row_index, None, *cells);
        the statistics row is (file_index, shard_index, -1, JSON, None...).
        Failures are recorded in the statistics, not raised: pgnkit's exit 2
        is deterministic, so Spark's retries would only repeat it.
        """
        tmp = tempfile.mkdtemp(prefix="pgnkit-shard-")
        out, stats = os.path.join(tmp, "out.csv"), os.path.join(tmp, "stats.json")
        note = {"exit": None, "stderr": "", "stats": None, "rows": 0}
        header = list(layout.header)
        blank = (None,) * len(header)
        try:
            try:
                cmd = self.command(shard, stats, out)
                proc, feeder = self.start(shard, cmd, stderr=subprocess.PIPE)
                _, err = proc.communicate()
                if feeder is not None and feeder.wait() != 0 and proc.returncode in (0, 1):
                    note["exit"] = 2
                    err += f"fetch command exited {feeder.returncode}\n".encode()
                else:
                    note["exit"] = proc.returncode
                # All of it: a failed shard's is kept in OUT/failed, an
                # accepted shard's is printed (issue 20: a tail dropped lines).
                note["stderr"] = err.decode("utf-8", "replace")
            except OSError as e:
                note["exit"], note["stderr"] = 2, str(e)
            if note["exit"] in (0, 1):
                if os.path.exists(stats):
                    with open(stats, encoding="utf-8") as f:
                        note["stats"] = json.load(f)
                else:
                    note["exit"], note["stderr"] = 2, note["stderr"] + "no --stats written\n"
            if note["exit"] in (0, 1) and os.path.exists(out):
                file_col = layout.position("file")
                rename = shard.source.path is None and file_col is not None
                with open(out, encoding="utf-8", newline="") as f:
                    records = read_csv(f)
                    got = next(records, None)
                    if got is not None and got != header:
                        raise JobError(f"a shard wrote the header {got}, not {header}")
                    for i, cells in enumerate(records):
                        row = typed_row(layout, cells)
                        if rename:
                            row[file_col] = shard.source.name
                        note["rows"] = i + 1
                        yield (shard.file_index, shard.shard_index, i, None, *row)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        note["shard"] = {"file": shard.source.name, "range": shard.byte_range()}
        yield (shard.file_index, shard.shard_index, -1, json.dumps(note), *blank)

    def probe_header(self, sources: list[Source], tags_known: bool) -> list[str]:
        """The CSV header of a single-machine run with these flags.

        validate and annotate-outcome, and convert with --tags, write it
        before reading anything, so an empty input tells it. convert without
        --tags chooses its columns from the first 1,000 games of the whole
        run, so the probe is that run, stopped once the header is out."""
        exe = self.executable()
        cmd = [exe, self.subcommand, *CSV_FLAGS[self.subcommand], *self.flags, "-q", "-j", str(self.threads)]
        feeder = None
        if tags_known:
            proc = subprocess.Popen(
                cmd + ["-"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE
            )
        elif all(s.path is not None for s in sources):
            proc = subprocess.Popen(
                cmd + ["--"] + [s.path for s in sources],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
        else:
            # Fetched files: the first one (a month of lichess holds far more
            # than 1,000 games).
            proc, feeder = self.start(sources[0], cmd + ["-"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        first = proc.stdout.readline()
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)  # the header is all the probe needs
        _, err = proc.communicate()
        if feeder is not None:
            feeder.kill()
            feeder.wait()
        return header_of(proc, first, err)

    def schema(self) -> dict:
        """What `pgnkit schema SUBCOMMAND --json` prints: the columns of the
        subcommand's records, and how each is written in CSV."""
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
            csv_columns(doc)
        except (ValueError, JobError) as e:
            raise JobError(
                f"`{' '.join(cmd)}` printed no schema ({e}): " + (tail(proc.stdout.decode("utf-8", "replace")).strip()
                                                               or "nothing")
            ) from None
        return doc

    def probe_layout(self, sources: list[Source], tags_known: bool) -> Layout:
        """The header of a single-machine run (`probe_header`), read by the
        binary's schema: which columns are pgnkit's own, where the tag
        columns stand among them, and which are integers."""
        schema = self.schema()
        header = self.probe_header(sources, tags_known)
        return Layout.from_schema(schema, header)


def header_of(proc, first: bytes, err: bytes) -> list[str]:
    """The header row a probe read, or why there is none."""
    if not first:
        raise JobError(
            f"pgnkit wrote no CSV header (exit {proc.returncode}): " + tail(err.decode("utf-8", "replace"))
        )
    return next(read_csv(io.StringIO(first.decode("utf-8"))))


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


def staged_name(i: int) -> str:
    """The staging column of header column i: by place, not by name, so that
    no tag can take a key's name (`run`, `stats`) or need quoting."""
    return f"c{i}"


def spark_types(layout: Layout):
    from pyspark.sql.types import IntegerType, LongType, StringType, StructField, StructType

    data = [
        StructField(staged_name(i), LongType() if layout.is_int(i) else StringType(), True)
        for i in range(len(layout.header))
    ]
    keys = [
        StructField("file_index", IntegerType(), False),
        StructField("shard_index", IntegerType(), False),
        StructField("row_index", LongType(), False),
        StructField("stats", StringType(), True),
    ]
    return StructType(keys + data)


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
    header: list[str] = field(default_factory=list)
    layout: Layout | None = None
    seconds: dict[str, float] = field(default_factory=dict)  # wall time per phase


def run_job(spark, job: Job, log=sys.stderr) -> Result:
    """Runs the whole job in `spark`; returns the exit status and counts."""
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
    flags = list(job.flags)
    runner = Runner(job.pgnkit, job.subcommand, tuple(flags), threads, job.fetch)

    tags_known = job.subcommand != "convert" or has_option(flags, "--tags")
    # Plain tuples back from the task: under spark-submit this module is
    # __main__, whose classes the result pickler cannot name. The probe runs
    # where the shards run (the binary may be only there); what stops it
    # comes back as text, to be this job's JobError.
    def probe(_):
        try:
            return None, dataclasses.astuple(runner.probe_layout(sources, tags_known))
        except (JobError, OSError) as e:
            return str(e), None

    error, fields = sc.parallelize([0], 1).map(probe).first()
    if error is not None:
        raise JobError(error)
    layout = Layout(*fields)
    header = list(layout.header)
    lap("header")
    clash = layout.clash(spark.conf.get("spark.sql.caseSensitive", "false").lower() == "true")
    if clash is not None:
        raise JobError(
            f"the columns `{clash[0]}` and `{clash[1]}` would be one Parquet column "
            "(Spark compares names without case); name the tags with --tags, without that one"
        )
    if not tags_known:
        # Every shard gets the columns the single-machine run chose: the
        # roster and the other tags (pgnkit drops roster names from --tags,
        # so they add no column).
        tags = layout.tags() or ["Event"]  # a roster tag: no extra column
        runner = replace(runner, flags=tuple(flags + ["--tags", ",".join(tags)]))
    schema = spark_types(layout)
    shards = plan(sources, job.shard_bytes)
    # Not `_staging`: Spark warns that it ignores a path that starts with `_`.
    staging = out_url(job.out, "staging")
    delete_path(spark, staging)
    # The stderr of this run's failed shards, and no older run's.
    delete_path(spark, out_url(job.out, "failed"))

    def stage(items: list[Shard], run: int) -> dict[tuple[int, int], dict]:
        rdd = sc.parallelize(items, len(items)).flatMap(lambda s: runner.run_shard(s, layout))
        spark.createDataFrame(rdd, schema, verifySchema=False).write.parquet(f"{staging}/run={run}")
        notes = (
            spark.read.parquet(f"{staging}/run={run}")
            .where(F.col("stats").isNotNull())
            .select("file_index", "shard_index", "stats")
            .collect()
        )
        return {(r.file_index, r.shard_index): json.loads(r.stats) for r in notes}

    result.shards, result.header, result.layout = len(shards), header, layout
    latest: dict[tuple[int, int], tuple[int, dict]] = {}
    pending = [(0, shards)]
    walks = {
        i: FileWalk(i, sum(1 for s in shards if s.file_index == i)) for i in range(len(sources))
    }
    by_key = {(s.file_index, s.shard_index): s for s in shards}
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
                    write_text(spark, out_url(job.out, name), n["stderr"])
                    saved = out_shown(job.out, name)
                print(failure_message(where, n.get("exit"), n["stderr"], saved), file=log)
            if failed:
                result.status = 2
                return result
            for key, n in notes.items():
                latest[key] = (run, n)

            def latest_of(file_index: int) -> Callable[[int], tuple[int, Stats]]:
                def get(k: int) -> tuple[int, Stats]:
                    run, note = latest[(file_index, k)]
                    return run, Stats.from_pgnkit(note["stats"], note["rows"])

                return get

            reruns = []
            for w in walks.values():
                r = w.advance(latest_of(w.file_index))
                if r is not None:
                    reruns.append(replace(by_key[(r.file_index, r.shard_index)], start=r.start, end=r.end))
            if reruns:
                pending.append((run + 1, reruns))

        accepted = [a for w in walks.values() for a in w.accepted]
        result.reruns = sum(w.reruns for w in walks.values())
        result.skipped = sum(len(w.skipped) for w in walks.values())
        for a in accepted:
            n = latest[(a.file_index, a.shard_index)][1]
            for line in n["stderr"].splitlines():
                print(line, file=log)
            if n["exit"] == 1:
                result.status = 1
        before = records_before(accepted)
        result.rows = sum(a.rows for a in accepted)
        plan_df = spark.createDataFrame(
            [
                (a.file_index, a.shard_index, a.run, a.games_before, a.lines_before,
                 before[(a.file_index, a.shard_index, a.run)])
                for a in accepted
            ],
            "file_index int, shard_index int, run int, games_before long, lines_before long, "
            "rows_before long",
        )
        rows = spark.read.parquet(staging).where(F.col("stats").isNull())
        joined = rows.join(F.broadcast(plan_df), ["file_index", "shard_index", "run"])
        columns = [(F.col("rows_before") + F.col("row_index") + 1).alias("record")]
        shift = {layout.position("game"): "games_before", layout.position("line"): "lines_before"}
        for i, h in enumerate(header):
            c = F.col(staged_name(i))
            if i in shift:
                c = c + F.col(shift[i])
            columns.append(c.alias(h))
        merged = joined.select(*columns).orderBy("record")
        parquet = out_url(job.out, "parquet")
        merged.write.mode("overwrite").parquet(parquet)
        lap("parquet")
        if job.csv:
            csv_dir = out_url(job.out, "csv")
            delete_path(spark, csv_dir)
            # Read back from the Parquet just written, in record order: the
            # same rows, without running the merge again. A union keeps the
            # order of its parts' partitions, so the header comes first.
            body = spark.read.parquet(parquet).orderBy("record").rdd.map(lambda r: csv_line(r[1:]))
            sc.parallelize([csv_line(header)], 1).union(body).saveAsTextFile(csv_dir)
            lap("csv")
    finally:
        if not job.keep_staging:
            delete_path(spark, staging)
    return result


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
