"""The Spark job end to end, in local[2] mode: its Parquet rows equal the
single-machine Parquet of the same binary (`-f parquet`, read with pyarrow
and compared column by column, with types, after the cast to what Spark
holds), for validate, annotate-outcome and convert, on the repo's fixtures
and on a corpus slice cut into several shards, one boundary of which falls
inside a comment that holds a blank line and `[Event`; then a fetched file,
a truncated `.zst`, the defects of issue 20 (tags named like integer
columns, a literal `[` in a path, a failed shard's whole stderr), and a
binary whose shards write other columns than its schema says. Run by
test_spark.sh:

    python test_e2e.py --pgnkit BIN --work DIR [--corpus FILE.pgn.zst] [--mb 30]
"""

import argparse
import glob
import io
import os
import shutil
import subprocess
import sys
import time
import traceback
import urllib.parse
from dataclasses import replace

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import pyarrow as pa  # noqa: E402
import pyarrow.compute as pc  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

import pgnkit_spark as ps  # noqa: E402

PARQUET = {"validate": ["-f", "parquet"], "annotate-outcome": ["-f", "parquet"], "convert": ["--to", "parquet"],
           "dedupe": ["-f", "parquet"]}

# A shard sees only its own games, so the job's validate finds no repeats
# and judges no tournament (the checks across games are asked off, so that
# whole-file and ranged shards run one command); its dedupe groups the
# games of one key (no truncated copies).
ACROSS_GAMES = ("duplicate-game,paired-twice,board-twice,round-missing,round-order,"
                "name-variant,pairing-repeated")
SUBCOMMANDS = [("validate", ["--ignore", ACROSS_GAMES]), ("annotate-outcome", []), ("convert", []),
               ("dedupe", ["--no-prefix"])]

# A game whose comment holds a blank line and a tag section: a cut point by
# the byte-range rule, and not a game. FILLER is sized so that a shard
# boundary falls inside the comment, before the false `[Event`.
TRICKY_HEAD = (
    '[Event "Shard boundary test"]\n[Site "?"]\n[Date "2026.11.30"]\n[Round "1"]\n'
    '[White "Comment, A"]\n[Black "Blank, Line"]\n[Result "1-0"]\n\n'
    "1. e4 {A comment with a blank line and a tag section in it:\n"
)
TRICKY_TAIL = (
    '\n\n[Event "not a game"]\n[Site "inside a comment"]\n\n'
    "1. d4 d5 } 1... e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n"
)


def filler(length):
    """`length` bytes of comment text in lines of at most 70, none opening with `[`."""
    words, out, line = "the shard boundary falls somewhere in this comment".split(), [], ""
    i = 0
    while sum(len(x) + 1 for x in out) + len(line) < length:
        w = words[i % len(words)]
        i += 1
        line = f"{line} {w}".strip() if len(line) + len(w) < 70 else (out.append(line) or w)
    text = "\n".join(out + [line])
    return (text + "x" * length)[:length]


def corpus_slice(corpus, mb):
    """The first `mb` MB of `corpus` (a .pgn.zst), cut at a game boundary."""
    want = mb << 20
    data = subprocess.run(
        f"zstd -dc {corpus} | head -c {want + (1 << 20)}", shell=True, check=True, capture_output=True
    ).stdout
    return data[: max(game_starts(data, want))]


def generated(copies):
    """The fixtures concatenated many times (when there is no corpus)."""
    parts = [open(p, "rb").read() for p in sorted(glob.glob(os.path.join(ROOT, "fixtures/pgn/*.pgn")))]
    return b"".join(p.rstrip(b"\r\n") + b"\n\n" for p in parts if p.strip()) * copies


def game_starts(data, up_to):
    return [0] + [i + 1 for i in iter_find(data, b"\n[Event ") if i + 1 <= up_to]


def with_tricky_game(data, at):
    """`data` with the tricky game inserted at a game boundary, so that byte
    `at` falls inside its comment, 40 bytes before the blank line."""
    head = len(TRICKY_HEAD)
    insert = max(game_starts(data, at - head - 200))
    fill = at - insert - head + 40
    game = TRICKY_HEAD + filler(fill) + TRICKY_TAIL
    assert insert + head < at < insert + head + fill, "the boundary is inside the comment"
    return data[:insert] + game.encode() + data[insert:]


def iter_find(data, needle):
    i = data.find(needle)
    while i >= 0:
        yield i
        i = data.find(needle, i + 1)


def single_machine(pgnkit, sub, flags, inputs, threads, work):
    """The exit status and the table of one `pgnkit SUB -f parquet` run."""
    path = os.path.join(work, "single.parquet")
    cmd = [pgnkit, sub, *PARQUET[sub], *flags, "-q", "-j", str(threads), "-o", path, "--", *inputs]
    p = subprocess.run(cmd, capture_output=True)
    table = pq.read_table(path) if p.returncode in (0, 1) else None
    if os.path.exists(path):
        os.remove(path)
    return p.returncode, table


def columns_of(pgnkit, sub):
    return ps.Columns.from_schema(ps.Runner(pgnkit, sub, (), 1).schema())


def null_children(arr):
    """`arr` with the dictionary children of a struct null wherever the
    struct is: pyarrow's Parquet reader gives a struct whose rows are all
    null (`error` of a slice without one) a non-nullable dictionary child of
    index 0 into an empty dictionary, which no cast can read."""
    if isinstance(arr, pa.ChunkedArray):
        chunks = [null_children(c) for c in arr.chunks]
        return pa.chunked_array(chunks, chunks[0].type if chunks else arr.type)
    if not pa.types.is_struct(arr.type) or arr.null_count == 0:
        return arr
    valid = pc.is_valid(arr)
    kids = []
    for i, f in enumerate(arr.type):
        kid = null_children(arr.field(i))
        if pa.types.is_dictionary(kid.type):
            kid = pa.DictionaryArray.from_arrays(pc.if_else(valid, kid.indices, None), kid.dictionary)
        kids.append(kid)
    fields = [pa.field(f.name, f.type, True) for f in arr.type]
    return pa.StructArray.from_arrays(kids, fields=fields, mask=pc.invert(valid))


def as_spark_holds(table, columns):
    """`table` cast to the types Spark holds (the job's `Columns.target`),
    chunks combined, so that two tables compare with `equals`."""
    table = table.select(list(columns.names))
    table = pa.table([null_children(c) for c in table.columns], names=table.column_names)
    return ps.viewed(table, columns).cast(columns.target()).combine_chunks()


def job_table(out):
    """The job's Parquet, its files read in name order (as written)."""
    files = sorted(glob.glob(os.path.join(glob.escape(out), "parquet", "part-*.parquet")))
    return pa.concat_tables([pq.read_table(f) for f in files]) if files else None


class Check:
    def __init__(self):
        self.passed = self.failed = 0

    def __call__(self, name, ok, detail=""):
        if ok:
            self.passed += 1
            print(f"ok   {name}")
        else:
            self.failed += 1
            print(f"FAIL {name} {detail}")


def first_difference(a, b):
    """Where two tables of the same columns differ, for the message."""
    if a.num_rows != b.num_rows:
        return f"{a.num_rows} rows != {b.num_rows} rows"
    for name in a.column_names:
        x, y = a.column(name), b.column(name)
        if not x.equals(y):
            for i, (p, q) in enumerate(zip(x.to_pylist(), y.to_pylist())):
                if p != q:
                    return f"column {name}, row {i + 1}: {p!r} != {q!r}"
            return f"column {name}: {x.type} != {y.type}"
    return "the schemas differ"


def check_job(check, label, result, status, out, columns, expected):
    """The job's Parquet against the single machine's table."""
    check(f"{label}: exit status {status}", result.status == status, f"(job: {result.status})")
    got = job_table(out)
    if got is None:
        check(f"{label}: Parquet written", False)
        return None
    check(f"{label}: Parquet columns", got.column_names == ["record", *columns.names], str(got.column_names))
    check(f"{label}: files in record order, 1..n", got.column("record").to_pylist() == list(range(1, got.num_rows + 1)))
    mine = as_spark_holds(got, columns)
    want = as_spark_holds(expected, columns)
    check(f"{label}: Parquet rows = single machine ({want.num_rows} rows)", mine.equals(want),
          first_difference(mine, want))
    return got


def spark_reads(check, spark, label, out, columns, rows):
    """Spark reads the job's Parquet back with the types it declared (the
    job's own files carry Spark's schema), every row; the directory holds
    the part files and `_SUCCESS`, nothing the job spooled."""
    _, declared, _ = ps.spark_schema(columns)
    df = spark.read.parquet(os.path.join(out, "parquet"))
    check(f"{label}: Spark reads the types it declared", df.schema == declared,
          f"{df.schema.simpleString()[:300]} != {declared.simpleString()[:300]}")
    check(f"{label}: Spark reads every row", df.count() == rows, f"({df.count()} != {rows})")
    left = sorted(n for n in os.listdir(out) if n != "parquet") + sorted(
        n for n in os.listdir(os.path.join(out, "parquet")) if not (n.startswith("part-") or n == "_SUCCESS"))
    check(f"{label}: nothing spooled is left", not [n for n in left if not n.endswith(".crc")], str(left))


def compare(check, spark, pgnkit, work, name, inputs, shard_bytes, expect_reruns, spark_writer=()):
    """The job against one run on `inputs`, for each subcommand; those in
    `spark_writer` also with Spark's Parquet writer (the one of a remote OUT)."""
    for sub, flags, writer in [(sub, flags, False) for sub, flags in SUBCOMMANDS] + [
            (sub, flags, True) for sub, flags in SUBCOMMANDS if sub in spark_writer]:
        label = f"{name} {sub}" + (" (Spark's writer)" if writer else "")
        status, direct = single_machine(pgnkit, sub, flags, inputs, 2, work)
        out = os.path.join(work, f"out-{name}-{sub}")
        job = ps.Job(inputs=inputs, subcommand=sub, flags=list(flags), out=out, pgnkit=pgnkit,
                     shard_bytes=shard_bytes, spark_writer=writer)
        # The slice's convert goes through the tasks' writes whatever its
        # size (a small slice would be the driver's to write).
        tasks = not writer and name == "slice" and sub == "convert"
        old, ps.DRIVER_WRITES = ps.DRIVER_WRITES, (0 if tasks else ps.DRIVER_WRITES)
        t = time.monotonic()
        try:
            result = ps.run_job(spark, job, log=open(os.devnull, "w"))
        finally:
            ps.DRIVER_WRITES = old
        took = time.monotonic() - t
        print(f"     {label}: {result.shards} shards, {result.reruns} rerun, {result.skipped} skipped, "
              f"{result.rows} rows, {took:.1f} s ("
              + ", ".join(f"{k} {v:.1f}" for k, v in result.seconds.items()) + ")")
        got = check_job(check, label, result, status, out, columns_of(pgnkit, sub), direct)
        if got is not None:
            spark_reads(check, spark, label, out, columns_of(pgnkit, sub), got.num_rows)
        files = len(glob.glob(os.path.join(out, "parquet", "part-*.parquet")))
        if not writer and name == "fixtures":
            check(f"{label}: a few rows, one file the driver wrote", files == 1, f"({files} files)")
        if tasks:
            check(f"{label}: a file per run, the tasks wrote them", files > 1, f"({files} files)")
        if expect_reruns:
            # Spark's writer sorts the rows a rerun put out of order; the
            # job's own files are named by their first record instead.
            check(f"{label}: several shards, a rerun" + (", the rows sorted" if writer else ""),
                  result.shards >= 5 and result.reruns >= 1 and result.sorted == writer,
                  f"({result.shards} shards, {result.reruns} reruns, sorted {result.sorted})")
        shutil.rmtree(out, ignore_errors=True)


def tag_columns(check, spark, pgnkit, work):
    """Issue 20: tags named like pgnkit's integer columns (`ply`, `line`)
    are text as written (`007`, `x`), in the `tags` map, never cast nor
    renumbered; `game` is."""
    games = "".join(
        f'[Event "E{i}"]\n[Site "?"]\n[Date "????.??.??"]\n[Round "{i}"]\n[White "A"]\n[Black "B"]\n'
        f'[Result "*"]\n[ply "{["007", "x", "", "12"][i % 4]}"]\n[line "0{i}"]\n[Game "g{i}"]\n\n1. e4 e5 2. Nf3 *\n\n'
        for i in range(40)
    )
    path = os.path.join(work, "tags.pgn")
    with open(path, "w") as f:
        f.write(games)
    columns = columns_of(pgnkit, "annotate-outcome")
    for flags in (["--tags", "ply,line"], ["--tags", "Game"]):
        label = f"annotate-outcome {' '.join(flags)}"
        status, direct = single_machine(pgnkit, "annotate-outcome", flags, [path], 1, work)
        out = os.path.join(work, "out-tags")
        job = ps.Job(inputs=[path], subcommand="annotate-outcome", flags=list(flags), out=out, pgnkit=pgnkit,
                     shard_bytes=1500)
        try:
            result = ps.run_job(spark, job, log=open(os.devnull, "w"))
        except Exception as e:  # noqa: BLE001 - the failure this test is about
            check(f"{label}: the job ran", False, repr(e)[:300])
            continue
        check(f"{label}: several shards", result.shards >= 3, f"({result.shards} shards)")
        got = check_job(check, label, result, status, out, columns, direct)
        if got is not None and flags[1] == "ply,line":
            tags = [dict(t) for t in got.column("tags").to_pylist()]
            check(f"{label}: the tags as written, game renumbered",
                  [(t["ply"], t["line"]) for t in tags[:2]] == [("007", "00"), ("x", "01")]
                  and got.column("game").to_pylist() == list(range(1, 41)), str(tags[:2]))
        if got is not None and flags[1] == "Game":
            check(f"{label}: a tag named like a column is in the map, not a column",
                  [dict(t) for t in got.column("tags").to_pylist()][:2] == [{"Game": "g0"}, {"Game": "g1"}])
        shutil.rmtree(out, ignore_errors=True)
    job = ps.Job(inputs=[path], subcommand="convert", flags=["--tags", "ECO"], out=os.path.join(work, "out-x"),
                 pgnkit=pgnkit)
    try:
        ps.run_job(spark, job, log=open(os.devnull, "w"))
        check("convert --tags: refused before any work, with pgnkit's reason", False, "(not refused)")
    except ps.JobError as e:
        check("convert --tags: refused before any work, with pgnkit's reason", "--tags applies to" in str(e), str(e))


def literal_path(check, spark, pgnkit, work):
    """Issue 20: `x[1].pgn` is that file, not the glob matching `x1.pgn`,
    and a file: URL is percent-decoded."""
    d = os.path.join(work, "literal")
    os.makedirs(d, exist_ok=True)
    shutil.copy(os.path.join(ROOT, "fixtures/pgn/twic1599_excerpt.pgn"), os.path.join(d, "x[1].pgn"))
    with open(os.path.join(d, "x1.pgn"), "w") as f:
        f.write('[Event "the wrong file"]\n\n1. e4 *\n')
    columns = columns_of(pgnkit, "validate")
    status, direct = single_machine(pgnkit, "validate", [], [os.path.join(d, "x[1].pgn")], 1, work)
    for name in [os.path.join(d, "x[1].pgn"), "file://" + os.path.join(d, "x%5B1%5D.pgn")]:
        out = os.path.join(work, "out-literal")
        job = ps.Job(inputs=[name], subcommand="validate", flags=[], out=out, pgnkit=pgnkit, shard_bytes=3000)
        label = f"{os.path.basename(name)}: the file of that name"
        try:
            result = ps.run_job(spark, job, log=open(os.devnull, "w"))
            check_job(check, label, result, status, out, columns, direct)
        except Exception as e:  # noqa: BLE001 - a failure of this test
            check(label, False, repr(e)[:300])
        shutil.rmtree(out, ignore_errors=True)
    # OUT as a file: URL is decoded as an INPUT is: its Parquet and its
    # failed/ go to the directory it names.
    named = os.path.join(work, "out [1] 100%")
    url = "file://" + urllib.parse.quote(named)
    job = ps.Job(inputs=[os.path.join(d, "x[1].pgn")], subcommand="validate", flags=[], out=url, pgnkit=pgnkit)
    try:
        result = ps.run_job(spark, job, log=open(os.devnull, "w"))
        check_job(check, "OUT as a file: URL, decoded", result, status, named, columns, direct)
        check("OUT as a file: URL: nothing where the URL's text would name",
              not [n for n in os.listdir(work) if "%20" in n or "%5B" in n or "%25" in n],
              str(sorted(os.listdir(work))))
    except Exception as e:  # noqa: BLE001 - a failure of this test
        check("OUT as a file: URL, decoded", False, repr(e)[:300])
    shutil.rmtree(named, ignore_errors=True)


def untrusted_shards(check, spark, pgnkit, work):
    """A binary whose shard runs write another subcommand's columns than
    its schema says: the shards fail with the reason (exit 2), nothing is
    written."""
    fake = os.path.join(work, "other-columns-pgnkit")
    with open(fake, "w") as f:
        f.write(
            "#!/bin/sh\n"
            "# The real binary, except that shard runs of validate run annotate-outcome.\n"
            'case " $* " in *" --stats "*) shift; exec ' + pgnkit + ' annotate-outcome "$@";; esac\n'
            f'exec {pgnkit} "$@"\n'
        )
    os.chmod(fake, 0o755)
    out = os.path.join(work, "out-untrusted")
    fixture = os.path.join(ROOT, "fixtures/pgn/twic1599_excerpt.pgn")
    job = ps.Job(inputs=[fixture], subcommand="validate", flags=[], out=out, pgnkit=fake, shard_bytes=4000)
    log = io.StringIO()
    result = ps.run_job(spark, job, log=log)
    check("shards of other columns: exit 2, no Parquet, the reason said",
          result.status == 2 and not os.path.exists(os.path.join(out, "parquet"))
          and "Arrow stream has the columns file, game, offset, white" in log.getvalue(),
          f"(got {result.status}) {log.getvalue()[:300]}")
    # A refused run leaves the output of the run before it as it was.
    ps.run_job(spark, replace(job, pgnkit=pgnkit, subcommand="convert"), log=open(os.devnull, "w"))
    before = {n: open(os.path.join(out, "parquet", n), "rb").read() for n in os.listdir(os.path.join(out, "parquet"))}
    result = ps.run_job(spark, job, log=io.StringIO())
    after = {n: open(os.path.join(out, "parquet", n), "rb").read() for n in os.listdir(os.path.join(out, "parquet"))}
    check("a refused run: the Parquet before it as it was, nothing spooled left",
          result.status == 2 and len(before) >= 2 and after == before
          and not [n for n in os.listdir(out) if n.startswith(".")],
          f"(got {result.status}, {sorted(before)} then {sorted(after)}, {os.listdir(out)})")
    shutil.rmtree(out, ignore_errors=True)


def failed_shard_stderr(check, spark, pgnkit, work):
    """Issue 20: a failed shard's whole stderr is kept in OUT/failed, and the
    message says how many lines it leaves out and where they are."""
    fake = os.path.join(work, "failing-pgnkit")
    with open(fake, "w") as f:
        f.write(
            "#!/bin/sh\n"
            '# The real binary, except for shard runs: 50 lines of stderr, exit 2.\n'
            'case " $* " in *" --stats "*)\n'
            '  i=1; while [ $i -le 50 ]; do echo "pgnkit: made-up problem $i" >&2; i=$((i + 1)); done; exit 2;;\n'
            "esac\n"
            f'exec {pgnkit} "$@"\n'
        )
    os.chmod(fake, 0o755)
    out = os.path.join(work, "out-failed")
    job = ps.Job(inputs=[os.path.join(ROOT, "fixtures/pgn/twic1599_excerpt.pgn")], subcommand="validate",
                 flags=[], out=out, pgnkit=fake)
    log = io.StringIO()
    result = ps.run_job(spark, job, log=log)
    saved = os.path.join(out, "failed", "file0-shard0.stderr")
    whole = "".join(f"pgnkit: made-up problem {i}\n" for i in range(1, 51))
    check("a failed shard: exit 2, no Parquet", result.status == 2 and not os.path.exists(os.path.join(out, "parquet")),
          f"(got {result.status})")
    check("a failed shard: its whole stderr in OUT/failed", os.path.exists(saved) and open(saved).read() == whole,
          f"({saved})")
    message = log.getvalue()
    check("a failed shard: the message says what it left out and where",
          "30 left out" in message and saved in message and message.rstrip().endswith("made-up problem 50")
          and "made-up problem 30\n" not in message, message[:400])
    shutil.rmtree(out, ignore_errors=True)


def main():
    a = argparse.ArgumentParser()
    a.add_argument("--pgnkit", required=True)
    a.add_argument("--work", required=True)
    a.add_argument("--corpus")
    a.add_argument("--mb", type=int, default=30)
    a.add_argument("--shard-bytes", type=int, default=4 << 20)
    args = a.parse_args()
    os.makedirs(args.work, exist_ok=True)
    work = os.path.abspath(args.work)

    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master("local[2]")
        .appName("pgnkit_spark test")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    check = Check()
    try:
        # The fixtures, plus one compressed file (a whole-file shard), in
        # shards of 2,000 bytes.
        fixtures = sorted(glob.glob(os.path.join(ROOT, "fixtures/**/*.pgn"), recursive=True))
        zst = os.path.join(work, "twic1599_excerpt.pgn.zst")
        subprocess.run(["zstd", "-qf", os.path.join(ROOT, "fixtures/pgn/twic1599_excerpt.pgn"), "-o", zst], check=True)
        compare(check, spark, args.pgnkit, work, "fixtures", fixtures + [zst], 2000, False)

        # The corpus slice, in shards of --shard-bytes; boundary 3 inside a comment.
        sliced = os.path.join(work, "slice.pgn")
        if args.corpus and os.path.exists(args.corpus):
            data = corpus_slice(args.corpus, args.mb)
            print(f"     slice: {len(data)} bytes of {args.corpus}")
        else:
            data = generated(200)
            args.shard_bytes = len(data) // 7
            print(f"     no corpus at {args.corpus}: {len(data)} bytes of fixtures instead")
        with open(sliced, "wb") as f:
            f.write(with_tricky_game(data, 3 * args.shard_bytes))
        compare(check, spark, args.pgnkit, work, "slice", [sliced], args.shard_bytes, True,
                spark_writer=("validate", "convert"))

        # A file the executors fetch (as from an object store): pgnkit reads
        # the command's output, and the rows name the URL.
        url = "s3a://bucket/twic1599_excerpt.pgn.zst"
        runner = ps.Runner(args.pgnkit, "validate", (), 1, fetch=f"cat {zst} # {{url}}")
        source = ps.Source(url, None, None, True)
        [shard] = ps.plan_file(0, source, 1000)
        columns = runner.probe()
        *batches, note = runner.run_shard(shard, columns)
        _, direct = single_machine(args.pgnkit, "validate", [], [zst], 1, work)
        expected = as_spark_holds(direct, columns)
        expected = expected.set_column(0, "file", pa.array([url] * expected.num_rows, pa.string()))
        got = pa.Table.from_batches([ps.from_staging(b.column("data")[0].as_buffer()) for b in batches],
                                    columns.target()).combine_chunks()
        check("a fetched file: its rows, named by the URL", got.equals(expected) and got.num_rows > 0,
              first_difference(got, expected))

        # A shard that cannot do the job (a truncated .zst): exit 2.
        broken = os.path.join(work, "truncated.pgn.zst")
        with open(zst, "rb") as f:
            data = f.read()
        with open(broken, "wb") as f:
            f.write(data[: len(data) // 2])
        job = ps.Job(inputs=[broken], subcommand="validate", flags=[], out=os.path.join(work, "out-broken"),
                     pgnkit=args.pgnkit, shard_bytes=1000)
        result = ps.run_job(spark, job, log=open(os.devnull, "w"))
        check("a truncated .zst: exit 2", result.status == 2, f"(got {result.status})")

        tag_columns(check, spark, args.pgnkit, work)
        literal_path(check, spark, args.pgnkit, work)
        failed_shard_stderr(check, spark, args.pgnkit, work)
        untrusted_shards(check, spark, args.pgnkit, work)
    except Exception:  # noqa: BLE001 - a crash is a failure with its traceback
        traceback.print_exc()
        check("the test ran to its end", False)
    finally:
        spark.stop()
    print(f"spark: {check.passed} passed, {check.failed} failed")
    return 1 if check.failed else 0


if __name__ == "__main__":
    sys.exit(main())
