"""Unit tests of the pure parts of pgnkit_spark.py: arguments, planning,
reading pgnkit's walk (`merge --plan`, from stand-ins: the walk itself is
tested in pgnkit, src/shards/plan.rs), renumbering, the columns and their
Arrow types read from the binary's schema, and what a shard's run makes of what the binary writes
(from stand-in binaries, Python scripts writing Arrow streams). They need
pyarrow, no Spark and no real binary:

    python3 -m unittest -v test_pgnkit_spark
"""

import dataclasses
import json
import os
import random
import shutil
import tempfile
import unittest
import sys
import urllib.parse

import pyarrow as pa
import pyarrow.ipc as ipc

import pgnkit_spark as ps


def column(name, kind, arrow=True, **more):
    """One column of a `pgnkit schema --json` document."""
    return {"name": name, "type": {"kind": kind, **more}, "nullable": True, "null_when": None, "csv": "cell",
            "jsonl": True, "arrow": arrow, "doc": ""}


def schema_of(*columns):
    return {"name": "test", "doc": "", "columns": list(columns)}


# As `pgnkit schema validate --json` says.
VALIDATE = schema_of(
    column("file", "string"), column("game", "uint64"), column("offset", "uint64"), column("line", "uint64"),
    column("ply", "uint32"), column("san", "string"), column("severity", "vocabulary", values=["warning", "error"]),
    column("code", "vocabulary", values=["syntax"]), column("message", "string"), column("white", "string"),
    column("black", "string"),
)

ERROR = {"name": "error", "doc": "", "columns": [
    column("ply", "uint32"), column("san", "string"), column("code", "vocabulary", values=["syntax"]),
    column("message", "string")]}

# As `pgnkit schema convert --json` says, shortened: typed tags, the map, a
# column Arrow does not hold, lists and the error struct.
CONVERT = schema_of(
    column("file", "string"), column("game", "uint64"), column("offset", "uint64"), column("date", "date"),
    column("white_elo", "uint32"), column("utc_time", "time"), column("tags", "map of strings"),
    column("nags", "list", arrow=False, item={"kind": "uint8"}), column("result", "vocabulary", values=["*"]),
    column("plies", "uint32"), column("uci", "list", item={"kind": "string"}), column("error", "struct", schema=ERROR),
    column("ok", "bool"),
)

# What pgnkit writes for CONVERT.
ERROR_ARROW = pa.struct([pa.field("ply", pa.uint32()), pa.field("san", pa.string()),
                         pa.field("code", pa.dictionary(pa.int32(), pa.string()), False),
                         pa.field("message", pa.string(), False)])
CONVERT_ARROW = pa.schema([
    pa.field("file", pa.string(), False), pa.field("game", pa.uint64(), False), pa.field("offset", pa.uint64()),
    pa.field("date", pa.date32()), pa.field("white_elo", pa.uint32()), pa.field("utc_time", pa.time32("ms")),
    pa.field("tags", pa.map_(pa.string(), pa.string()), False),
    pa.field("result", pa.dictionary(pa.int32(), pa.string()), False), pa.field("plies", pa.uint32()),
    pa.field("uci", pa.list_(pa.string())), pa.field("error", ERROR_ARROW), pa.field("ok", pa.bool_(), False),
])


def fake_binary(test, script):
    """A stand-in pgnkit: a shell script, removed after the test."""
    d = tempfile.mkdtemp()
    test.addCleanup(shutil.rmtree, d)
    exe = os.path.join(d, "fake-pgnkit")
    with open(exe, "w") as f:
        f.write("#!/bin/sh\n" + script)
    os.chmod(exe, 0o755)
    return exe


class Arguments(unittest.TestCase):
    def test_inputs_options_and_subcommand(self):
        job = ps.parse_args(
            ["--out", "o", "--shard-bytes", "64M", "a.pgn", "b.pgn.zst", "--", "validate", "-f", "arrow", "--quiet-not"]
        )
        self.assertEqual(job.inputs, ["a.pgn", "b.pgn.zst"])
        self.assertEqual(job.subcommand, "validate")
        self.assertEqual(job.flags, ["--quiet-not"])  # -f arrow is the job's
        self.assertEqual(job.shard_bytes, 64 << 20)

    def test_flags_of_the_subcommand_pass(self):
        job = ps.parse_args(["--out", "o", "x", "--", "convert", "--to=parquet", "--san"])
        self.assertEqual(job.flags, ["--san"])
        job = ps.parse_args(["--out", "o", "x", "--", "annotate-outcome", "--rules", "online", "-farrow"])
        self.assertEqual(job.flags, ["--rules", "online"])

    def test_refusals(self):
        bad = [
            ["--out", "o", "x"],  # no --
            ["--out", "o", "x", "--", "perft"],
            ["--out", "o", "x", "--", "validate", "-o", "y"],
            ["--out", "o", "x", "--", "validate", "-oy"],
            ["--out", "o", "x", "--", "validate", "-j", "4"],
            ["--out", "o", "x", "--", "validate", "-j4"],
            ["--out", "o", "x", "--", "validate", "--byte-range=0..9"],
            ["--out", "o", "x", "--", "validate", "--stats", "s"],
            ["--out", "o", "x", "--", "validate", "--no-header"],
            ["--out", "o", "x", "--", "validate", "-f", "jsonl"],
            ["--out", "o", "x", "--", "validate", "-f", "csv"],  # the job writes Parquet
            ["--out", "o", "x", "--", "validate", "-fcsv"],
            ["--out", "o", "x", "--", "convert", "--to", "pgn"],
            ["--out", "o", "x", "--", "convert", "--to=csv"],
            ["--out", "o", "--shard-bytes", "0", "x", "--", "validate"],
        ]
        for argv in bad:
            with self.subTest(argv=argv), self.assertRaises(ps.JobError):
                ps.parse_args(argv)

    def test_csv_output_is_gone_and_says_so(self):
        with self.assertRaisesRegex(ps.JobError, "--csv is gone.*pgnkit merge"):
            ps.parse_args(["--out", "o", "--csv", "x", "--", "validate"])

    def test_files_every_shard_would_overwrite_are_refused(self):
        # Issue 20: each whole-file shard truncated the same --bad-games file,
        # so only the last shard's games were left in it.
        for flag in (["--bad-games", "bad.pgn"], ["--good-games=good.pgn"], ["--bad-games=b", "--good-games", "g"]):
            with self.subTest(flag=flag):
                with self.assertRaisesRegex(ps.JobError, "every shard would write the same file"):
                    ps.parse_args(["--out", "o", "x", "--", "validate", *flag])

    def test_dedupe_takes_what_its_groups_need(self):
        job = ps.parse_args(["--out", "o", "x", "--", "dedupe", "--no-prefix", "-f", "parquet"])
        self.assertEqual((job.subcommand, job.flags), ("dedupe", ["--keep", "first"]))
        job = ps.parse_args(["--out", "o", "x", "--", "dedupe", "--keep=most-tags", "--max-game-bytes", "1M"])
        self.assertEqual(job.flags, ["--keep", "most-tags", "--max-game-bytes", "1M"])
        # What needs the games' bytes or a second read of the inputs.
        for flag in (["--keep", "longest"], ["--transpositions"], ["--against", "a.pgn"],
                     ["--duplicates", "d.pgn"], ["--unique=u.pgn"], ["-f", "pgn"]):
            with self.subTest(flag=flag), self.assertRaises(ps.JobError):
                ps.parse_args(["--out", "o", "x", "--", "dedupe", *flag])

    def test_sizes(self):
        self.assertEqual(ps.parse_size("4096"), 4096)
        self.assertEqual(ps.parse_size("64k"), 65536)
        self.assertEqual(ps.parse_size("256MB"), 256 << 20)
        self.assertEqual(ps.parse_size("1G"), 1 << 30)

    def test_has_option(self):
        self.assertTrue(ps.has_option(["--tags", "A"], "--tags"))
        self.assertTrue(ps.has_option(["--tags=A"], "--tags"))
        self.assertFalse(ps.has_option(["--tagsx"], "--tags"))


class Planning(unittest.TestCase):
    def src(self, size, compressed=False, path="f.pgn"):
        return ps.Source(path, path, size, compressed)

    def test_plain_file_is_tiled_with_an_open_last_range(self):
        shards = ps.plan_file(3, self.src(10), 4)
        self.assertEqual([(s.start, s.end) for s in shards], [(0, 4), (4, 8), (8, None)])
        self.assertEqual([s.byte_range() for s in shards], ["0..4", "4..8", "8.."])
        self.assertEqual({s.file_index for s in shards}, {3})
        self.assertEqual([s.shard_index for s in shards], [0, 1, 2])

    def test_exact_multiple(self):
        shards = ps.plan_file(0, self.src(8), 4)
        self.assertEqual([(s.start, s.end) for s in shards], [(0, 4), (4, None)])

    def test_whole_file_shards(self):
        for source in [self.src(100, compressed=True), self.src(4), self.src(0), ps.Source("s3a://b/k", None, 10**9, False)]:
            with self.subTest(source=source):
                [s] = ps.plan_file(0, source, 4)
                self.assertIsNone(s.byte_range())

    def test_files_in_order(self):
        shards = ps.plan([self.src(9, path="a"), self.src(3, path="b")], 4)
        self.assertEqual([(s.file_index, s.shard_index) for s in shards], [(0, 0), (0, 1), (0, 2), (1, 0)])

    def test_paths(self):
        self.assertTrue(ps.is_remote("s3a://bucket/x.pgn.zst"))
        self.assertFalse(ps.is_remote("file:///data/x.pgn"))
        self.assertFalse(ps.is_remote("/data/x.pgn"))
        self.assertFalse(ps.is_remote("C:/data/x.pgn"))
        self.assertEqual(ps.local_path("file:///data/x.pgn"), "/data/x.pgn")
        self.assertEqual(ps.local_path("rel/x.pgn"), "rel/x.pgn")

    def test_file_urls_are_decoded(self):
        # Issue 20: `%5B` stayed `%5B`, and a `#fragment` was dropped.
        self.assertEqual(ps.local_path("file:///data/x%5B1%5D.pgn"), "/data/x[1].pgn")
        self.assertEqual(ps.local_path("file://localhost/data/a%20b%23c.pgn"), "/data/a b#c.pgn")
        self.assertEqual(ps.local_path("FILE://LocalHost/d/x.pgn"), "/d/x.pgn")
        self.assertEqual(ps.local_path("file:/data/x.pgn"), "/data/x.pgn")
        self.assertEqual(ps.local_path("file:///d/caf%C3%A9.pgn"), "/d/café.pgn")
        self.assertEqual(ps.local_path("file:///d/raw%FF.pgn"), "/d/raw\udcff.pgn")  # as os.fsdecode gives it
        # With --glob, an escaped character is literal, a bare one a pattern.
        self.assertEqual(ps.local_path("file:///d/%5B1%5D*[ab].pgn", pattern=True), "/d/[[]1]*[ab].pgn")

    def test_file_urls_that_name_no_local_file_are_refused(self):
        for url in ["file:///data/x.pgn#part", "file:///data/x.pgn?v=1", "file:///data/x.pgn?",
                    "file://server/data/x.pgn", "file://me@localhost/x.pgn", "file:rel/x.pgn"]:
            with self.subTest(url=url), self.assertRaises(ps.JobError):
                ps.local_path(url)


class LiteralPaths(unittest.TestCase):
    """Issue 20: `x[1].pgn` was read as the glob `x[1].pgn`, i.e. `x1.pgn`."""

    def setUp(self):
        self.dir = tempfile.mkdtemp()
        for name in ["x[1].pgn", "x1.pgn", "x2.pgn"]:
            with open(os.path.join(self.dir, name), "w") as f:
                f.write(f'[Event "{name}"]\n\n*\n')

    def tearDown(self):
        shutil.rmtree(self.dir)

    def names(self, sources):
        return [os.path.basename(s.path) for s in sources]

    def test_a_path_is_taken_literally(self):
        self.assertEqual(self.names(ps.find_local(os.path.join(self.dir, "x[1].pgn"))), ["x[1].pgn"])
        url = "file://" + urllib.parse.quote(os.path.join(self.dir, "x[1].pgn"))
        [source] = ps.find_local(url)
        self.assertEqual((source.name, source.path), (os.path.join(self.dir, "x[1].pgn"),) * 2)
        with self.assertRaisesRegex(ps.JobError, "give --glob"):
            ps.find_local(os.path.join(self.dir, "x*.pgn"))

    def test_glob_makes_patterns(self):
        self.assertEqual(self.names(ps.find_local(os.path.join(self.dir, "x*.pgn"), True)),
                         ["x1.pgn", "x2.pgn", "x[1].pgn"])
        self.assertEqual(self.names(ps.find_local(os.path.join(self.dir, "x[1].pgn"), True)), ["x1.pgn"])
        self.assertEqual(self.names(ps.find_local(os.path.join(self.dir, "x[[]1].pgn"), True)), ["x[1].pgn"])
        url = "file://" + os.path.join(self.dir, "x%5B1%5D.pgn")
        self.assertEqual(self.names(ps.find_local(url, True)), ["x[1].pgn"])
        with self.assertRaisesRegex(ps.JobError, "no file matches"):
            ps.find_local(os.path.join(self.dir, "y*.pgn"), True)

    def test_the_option(self):
        self.assertFalse(ps.parse_args(["--out", "o", "x", "--", "validate"]).glob)
        self.assertTrue(ps.parse_args(["--glob", "--out", "o", "x*", "--", "validate"]).glob)


def accepted(shard, games=0, lines=0, before=0, records=1, rerun=None):
    """One accepted run of a plan, as `pgnkit merge --plan` prints it."""
    return {"shard": shard, "rerun": rerun, "games_before": games, "lines_before": lines, "records_before": before,
            "records": records, "rename": None}


def file_plan(shards, kept=(), skipped=(), rerun=None, records=None):
    """One file of a plan."""
    return {"file": "f.pgn", "path": "/d/f.pgn", "shards": list(shards), "accepted": list(kept),
            "skipped": list(skipped), "failed": None, "rerun": rerun}


def plan_of(*files, records=None):
    return {"complete": all(f["rerun"] is None for f in files), "records": records, "files": list(files)}


class Segments(unittest.TestCase):
    """pgnkit plans the shards of one path as one file: a file named again
    is planned in another call."""

    def test_a_file_named_again_starts_a_segment(self):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        a, b = os.path.join(d, "a.pgn"), os.path.join(d, "b.pgn")
        src = [ps.Source(a, a, 1, False), ps.Source(b, b, 1, False), ps.Source("s3a://x/y", None, 1, True),
               ps.Source("s3a://x/y", None, 1, True), ps.Source(os.path.join(d, ".", "a.pgn"), os.path.join(d, ".", "a.pgn"), 1, False),
               ps.Source(b, b, 1, False)]
        self.assertEqual(ps.segments(src), [[0, 1, 2, 3], [4, 5]])
        self.assertEqual(ps.segments(src[:2]), [[0, 1]])


class ReadPlan(unittest.TestCase):
    """The plan pgnkit prints, read back: runs kept, reruns asked, skips."""

    ORDER = [(3, 0), (3, 1), (3, 2), (4, 0)]

    def test_runs_kept_and_their_shifts(self):
        plan = plan_of(
            file_plan([0, 1, 2], [accepted(0, records=3), accepted(1, 3, 30, 3, 4, rerun=1)], skipped=[2]),
            file_plan([3], [accepted(3, before=7, records=2)]), records=9)
        kept, asked, skipped = ps.read_plan(plan, [3, 4], self.ORDER, [((3, 2), 1), ((3, 1), 2)], offset=100)
        self.assertEqual(kept, [ps.Kept(3, 0, 0, 0, 0, 100, 3), ps.Kept(3, 1, 2, 3, 30, 103, 4),
                                ps.Kept(4, 0, 0, 0, 0, 107, 2)])
        self.assertEqual((asked, skipped), ([], 1))

    def test_the_reruns_asked_for(self):
        plan = plan_of(file_plan([0, 1, 2], [accepted(0)], rerun={"shard": 1, "from_byte": 130, "end": 200}),
                       file_plan([3], [accepted(3, before=None)]))
        kept, asked, _ = ps.read_plan(plan, [3, 4], self.ORDER, [])
        self.assertEqual(asked, [((3, 1), 130, 200)])
        self.assertEqual(kept[1].records_before, None)

    def test_a_plan_of_other_files_is_an_error(self):
        plan = plan_of(file_plan([0, 1, 2, 3], [accepted(0)]))
        with self.assertRaisesRegex(ps.JobError, "planned 1 files where the job has 2"):
            ps.read_plan(plan, [3, 4], self.ORDER, [])
        with self.assertRaisesRegex(ps.JobError, "shards of another file"):
            ps.read_plan(plan, [3], self.ORDER, [])
        failed = file_plan([0, 1, 2], [accepted(0)], skipped=[1, 2])
        failed["failed"] = 0
        with self.assertRaisesRegex(ps.JobError, "could not read it to the end"):
            ps.read_plan(plan_of(failed), [3], self.ORDER, [])


class StandInPgnkit:
    """What `pgnkit merge --plan` says to the shards of a file cut in
    three, whose middle shard began inside a game, and of a fetched file:
    rerun the middle one from 130, then keep it. It checks that it is
    given what the job has, in order."""

    def __init__(self, test):
        self.test = test

    def __call__(self, planned, reruns):
        self.test.assertEqual(planned, [(f"file0-shard{k}.stats.json", f"s{k}") for k in range(3)]
                              + [("file1-shard0.stats.json", "g")])
        whole = file_plan([3], [accepted(3, before=None, records=5)])
        if not reruns:
            return plan_of(file_plan([0, 1, 2], [accepted(0, records=3)],
                                     rerun={"shard": 1, "from_byte": 130, "end": 200}), whole)
        self.test.assertEqual(reruns, [("file0-shard1-run1.stats.json", "r1")])
        whole["accepted"][0]["records_before"] = 9
        return plan_of(file_plan([0, 1, 2], [accepted(0, records=3), accepted(1, 3, 30, 3, 4, rerun=0),
                                             accepted(2, 7, 70, 7, 2)]), whole, records=14)


class WalkAsksPgnkit(unittest.TestCase):
    """The driver's loop: statistics in, pgnkit's plan read, reruns out."""

    def test_a_rerun_then_every_run_kept(self):
        a = ps.Source("/d/f.pgn", "/d/f.pgn", 300, False)
        shards = ps.plan_file(0, a, 100) + ps.plan_file(1, ps.Source("s3a://b/g", None, 9, True), 100)
        pgnkit = StandInPgnkit(self)
        walk = ps.ShardWalk(shards, [a, shards[-1].source], pgnkit)
        walk.add(0, {(f, k): {"stats_text": f"s{k}" if f == 0 else "g"} for f, k in [(0, 2), (0, 0), (1, 0), (0, 1)]})
        [again] = walk.advance()
        self.assertEqual((again.file_index, again.shard_index, again.start, again.end), (0, 1, 130, 200))
        self.assertEqual(again.source, a)
        self.assertEqual(walk.kept, [])
        walk.add(1, {(0, 1): {"stats_text": "r1"}})
        self.assertEqual(walk.advance(), [])
        self.assertEqual(walk.kept, [ps.Kept(0, 0, 0, 0, 0, 0, 3), ps.Kept(0, 1, 1, 3, 30, 3, 4),
                                     ps.Kept(0, 2, 0, 7, 70, 7, 2), ps.Kept(1, 0, 0, 0, 0, 9, 5)])
        self.assertEqual((walk.reruns, walk.skipped), (1, 0))

    def test_a_file_named_twice_is_asked_for_apart_and_numbered_after(self):
        a = ps.Source("/d/f.pgn", "/d/f.pgn", 9, False)
        shards = ps.plan_file(0, a, 100) + ps.plan_file(1, a, 100)
        calls = []

        def ask(planned, reruns):
            calls.append([n for n, _ in planned])
            return plan_of(file_plan([0], [accepted(0, records=4)]), records=4)

        walk = ps.ShardWalk(shards, [a, a], ask)
        walk.add(0, {(0, 0): {"stats_text": "x"}, (1, 0): {"stats_text": "x"}})
        self.assertEqual(walk.advance(), [])
        self.assertEqual(calls, [["file0-shard0.stats.json"], ["file1-shard0.stats.json"]])
        self.assertEqual([(k.file_index, k.records_before) for k in walk.kept], [(0, 0), (1, 4)])


class RunnerPlan(unittest.TestCase):
    """`Runner.plan` runs `pgnkit merge --plan` on the statistics, written
    byte for byte under their names (a stand-in binary here)."""

    def binary(self, status=0, stdout=None, stderr=""):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        self.seen = os.path.join(d, "seen.json")
        exe = os.path.join(d, "fake-pgnkit")
        with open(exe, "w") as f:
            f.write(f"#!{sys.executable}\n" + f"""
import json, os, sys
args = sys.argv[1:]
files = [a for a in args if a.endswith(".json")]
json.dump({{"args": [os.path.basename(a) if a.endswith(".json") else a for a in args],
           "texts": [open(a, "rb").read().decode("utf-8") for a in files]}}, open({self.seen!r}, "w"))
sys.stdout.write({stdout!r} if {stdout!r} is not None else json.dumps({{"complete": True, "records": 0, "files": []}}))
sys.stderr.write({stderr!r})
sys.exit({status})
""")
        os.chmod(exe, 0o755)
        return ps.Runner(exe, "validate", (), 1)

    def test_the_statistics_and_the_reruns_are_handed_over(self):
        runner = self.binary()
        text = '{"version":2,"file":"é\\r"}\n'
        plan = runner.plan([("file0-shard0.stats.json", text), ("file0-shard1.stats.json", "b")],
                           [("file0-shard1-run1.stats.json", "c")])
        self.assertEqual(plan["files"], [])
        with open(self.seen) as f:
            seen = json.load(f)
        self.assertEqual(seen["args"], ["merge", "--plan", "file0-shard0.stats.json", "file0-shard1.stats.json",
                                        "--rerun", "file0-shard1-run1.stats.json"])
        self.assertEqual(seen["texts"], [text, "b", "c"])

    def test_a_refusal_stops_the_job_with_pgnkit_s_reason(self):
        runner = self.binary(status=2, stderr="pgnkit: file0-shard1.stats.json: no shard holds bytes 100..120\n")
        with self.assertRaisesRegex(ps.JobError, "do not merge.*no shard holds bytes 100..120"):
            runner.plan([("file0-shard0.stats.json", "a")], [])

    def test_no_plan_printed_is_an_error(self):
        runner = self.binary(stdout="not json")
        with self.assertRaisesRegex(ps.JobError, "printed no plan: not json"):
            runner.plan([("file0-shard0.stats.json", "a")], [])


def convert_batch(**change):
    """Three rows as pgnkit writes them for CONVERT; `change` replaces columns."""
    cols = {
        "file": pa.array(["f.pgn"] * 3), "game": pa.array([1, 2, 3], pa.uint64()),
        "offset": pa.array([0, 90, None], pa.uint64()), "date": pa.array([19000, None, 1], pa.date32()),
        "white_elo": pa.array([2700, None, 0], pa.uint32()), "utc_time": pa.array([1000, None, 86399000], pa.time32("ms")),
        "tags": pa.array([[("Event", "E"), ("ply", "007")], [], [("Z", "z"), ("A", "a")]], pa.map_(pa.string(), pa.string())),
        "result": pa.array(["*", "*", "*"]).dictionary_encode(), "plies": pa.array([2, 0, None], pa.uint32()),
        "uci": pa.array([["e2e4", "e7e5"], None, []], pa.list_(pa.string())),
        "error": pa.array([None, {"ply": 3, "san": "Kx", "code": "syntax", "message": "m"}, None],
                          pa.struct([("ply", pa.uint32()), ("san", pa.string()), ("code", pa.string()),
                                     ("message", pa.string())])),
        "ok": pa.array([True, False, True]),
    }
    cols["error"] = cols["error"].cast(ERROR_ARROW)
    cols.update(change)
    return pa.RecordBatch.from_arrays(list(cols.values()), names=list(cols))


def stream_of(*batches, schema=None):
    sink = pa.BufferOutputStream()
    with ipc.new_stream(sink, schema or batches[0].schema) as w:
        for b in batches:
            w.write_batch(b)
    return sink.getvalue().to_pybytes()


def arrow_binary(test, stream: bytes, stats=None, status=0, schema=CONVERT, stderr="pgnkit: a warning\n"):
    """A stand-in pgnkit written in Python: `schema SUB --json` prints
    `schema`; a run writes `stream` on standard output, `stats` (a dict) to
    its --stats file, `stderr`, and exits `status`."""
    d = tempfile.mkdtemp()
    test.addCleanup(shutil.rmtree, d)
    with open(os.path.join(d, "stream"), "wb") as f:
        f.write(stream)
    with open(os.path.join(d, "schema.json"), "w") as f:
        json.dump(schema, f)
    exe = os.path.join(d, "fake-pgnkit")
    with open(exe, "w") as f:
        f.write(f"#!{sys.executable}\n" + f"""
import json, os, sys
d, args = {d!r}, sys.argv[1:]
if args[0] == "schema":
    sys.stdout.write(open(os.path.join(d, "schema.json")).read())
    sys.exit(0)
if "--stats" in args and {stats!r} is not None:
    json.dump({stats!r}, open(args[args.index("--stats") + 1], "w"))
sys.stdout.buffer.write(open(os.path.join(d, "stream"), "rb").read())
sys.stderr.write({stderr!r})
sys.exit({status})
""")
    os.chmod(exe, 0o755)
    return exe


def shard_stats(records, games=3):
    return {"inputs": [{"start": 0, "end": None, "first_byte": 0, "limit": None, "end_byte": 500, "games": games,
                        "lines": 30}], "output": {"records": records}}


class ArrowColumns(unittest.TestCase):
    """The columns come from the binary's schema, not from a list here."""

    def test_a_key64_keeps_its_bits_as_a_bigint(self):
        # A Zobrist key uses every bit: past 2^63 it is a negative bigint,
        # where a uint64 past 2^63 fails its shard.
        import pyarrow as pa

        cols = ps.Columns.from_schema(schema_of(column("game", "uint64"), column("zobrist", "key64")))
        batch = pa.RecordBatch.from_arrays(
            [pa.array([1, 2], pa.uint64()), pa.array([2**64 - 1, None], pa.uint64())], names=["game", "zobrist"])
        self.assertIsNone(cols.check(batch.schema))
        out = ps.to_target(batch, cols, cols.target())
        self.assertEqual(out.column(1).to_pylist(), [-1, None])
        too_big = pa.RecordBatch.from_arrays(
            [pa.array([2**63], pa.uint64()), pa.array([0], pa.uint64())], names=["game", "zobrist"])
        with self.assertRaises(pa.ArrowInvalid):
            ps.to_target(too_big, cols, cols.target())

    def test_the_columns_arrow_holds_and_their_spark_types(self):
        cols = ps.Columns.from_schema(CONVERT)
        self.assertEqual(cols.names, ("file", "game", "offset", "date", "white_elo", "utc_time", "tags", "result",
                                      "plies", "uci", "error", "ok"))  # not nags: arrow false
        t = cols.target()
        self.assertEqual([str(f.type) for f in t], [
            "string", "int64", "int64", "date32[day]", "int64", "time64[us]", "map<string, string>", "string",
            "int64", "list<item: string>", "struct<ply: int64, san: string, code: string, message: string>", "bool"])
        self.assertTrue(all(f.nullable for f in t))
        self.assertEqual(cols, ps.Columns(*dataclasses.astuple(cols)))  # as it comes back from the task
        self.assertEqual(ps.Columns.from_schema(schema_of(column("n", "uint8"))).target().field("n").type, pa.int16())

    def test_the_staging_rows_keys_then_the_batch(self):
        st = ps.staging_schema()
        self.assertEqual(st.names, ["file_index", "shard_index", "run", "row_index", "stats", "data"])
        self.assertEqual(st.field("data").type, pa.binary())
        out = ps.Columns.from_schema(VALIDATE).output()
        self.assertEqual(out.names, ["record", *ps.Columns.from_schema(VALIDATE).names])
        self.assertEqual(out.field("record").type, pa.int64())

    def test_what_pgnkit_writes_matches(self):
        self.assertIsNone(ps.Columns.from_schema(CONVERT).check(CONVERT_ARROW))

    def test_a_stream_that_is_not_the_schema_s_is_named(self):
        cols = ps.Columns.from_schema(CONVERT)
        cases = [
            (CONVERT_ARROW.set(1, pa.field("game", pa.string())), "`game` of type string, not uint64"),
            (CONVERT_ARROW.set(1, pa.field("game", pa.int64())), "`game` of type int64"),
            (CONVERT_ARROW.set(4, pa.field("white_elo", pa.uint64())), "`white_elo`"),
            (CONVERT_ARROW.remove(11), "the columns file, .*result, plies, uci, error, not "),
            (CONVERT_ARROW.set(0, pa.field("File", pa.string())), "the columns File"),
            (CONVERT_ARROW.set(7, pa.field("result", pa.dictionary(pa.int32(), pa.int64()))), "`result`"),
            (CONVERT_ARROW.set(9, pa.field("uci", pa.list_(pa.uint32()))), "`uci`"),
            (CONVERT_ARROW.set(6, pa.field("tags", pa.map_(pa.string(), pa.int32()))), "`tags`"),
            (CONVERT_ARROW.set(10, pa.field("error", pa.struct([("ply", pa.uint32())]))), "`error`"),
        ]
        for schema, message in cases:
            with self.subTest(message=message):
                self.assertRegex(cols.check(schema) or "", message)

    def test_schemas_the_job_cannot_read_are_errors(self):
        for bad, message in [
            ({}, "no list of columns"),
            (schema_of({"name": "x"}), "without a name or a type"),
            (schema_of(column("a", "float")), "type the job does not know"),
            (schema_of(column("a", "string"), column("a", "uint64")), "names a column twice"),
            (schema_of(column("a", "string", arrow=False)), "no Arrow columns"),
        ]:
            with self.subTest(message=message), self.assertRaisesRegex(ps.JobError, message):
                ps.Columns.from_schema(bad)
        old = schema_of(column("a", "string"))
        del old["columns"][0]["arrow"]  # a binary from before -f arrow
        with self.assertRaisesRegex(ps.JobError, "without -f arrow"):
            ps.Columns.from_schema(old)

    def test_names_parquet_would_merge(self):
        self.assertIsNone(ps.Columns.from_schema(VALIDATE).clash())
        cols = ps.Columns.from_schema(schema_of(column("file", "string"), column("Record", "uint64")))
        self.assertEqual(cols.clash(), ("record", "Record"))
        self.assertIsNone(cols.clash(case_sensitive=True))


class Staging(unittest.TestCase):
    """A shard's batches as Spark gets them: cast, keyed, numbered."""

    def setUp(self):
        self.cols = ps.Columns.from_schema(CONVERT)
        self.target = self.cols.target()
        self.shard = ps.Shard(2, 5, ps.Source("s3a://b/k.pgn", None, None, True), None, None)

    def test_rows_cast(self):
        b = ps.to_target(convert_batch(), self.cols, self.target)
        self.assertEqual(b.schema, self.target)
        rows = b.to_pylist()
        self.assertEqual([r["game"] for r in rows], [1, 2, 3])
        self.assertEqual(rows[0]["tags"], [("Event", "E"), ("ply", "007")])  # a tag stays text, in order
        self.assertEqual(rows[2]["tags"], [("Z", "z"), ("A", "a")])
        self.assertEqual([r["result"] for r in rows], ["*", "*", "*"])
        self.assertEqual(rows[1]["error"], {"ply": 3, "san": "Kx", "code": "syntax", "message": "m"})
        self.assertEqual([r["offset"] for r in rows], [0, 90, None])
        self.assertEqual(str(rows[2]["utc_time"]), "23:59:59")
        self.assertEqual([r["file"] for r in rows], ["f.pgn"] * 3)

    def test_a_fetched_file_s_rows_name_its_url(self):
        b = ps.to_target(convert_batch(), self.cols, self.target, "s3a://b/k.pgn")
        self.assertEqual(b.column("file").to_pylist(), ["s3a://b/k.pgn"] * 3)

    def test_an_integer_past_what_spark_holds_fails(self):
        big = convert_batch(game=pa.array([1, 2**63, 3], pa.uint64()))
        with self.assertRaises(pa.ArrowInvalid):
            ps.to_target(big, self.cols, self.target)

    def test_a_batch_is_one_keyed_row_of_its_bytes(self):
        b = ps.to_target(convert_batch(), self.cols, self.target)
        [row] = ps.to_staging(b, self.shard, 1, 8192)
        self.assertEqual(row.schema, ps.staging_schema())
        [r] = row.to_pylist()
        self.assertEqual((r["file_index"], r["shard_index"], r["run"], r["row_index"], r["stats"]), (2, 5, 1, 8192, None))
        self.assertTrue(ps.from_staging(row.column("data")[0].as_buffer()).equals(b))

    def test_a_large_batch_is_cut_into_rows_numbered_in_order(self):
        b = ps.to_target(convert_batch(), self.cols, self.target)
        big = pa.Table.from_batches([b] * 2000).combine_chunks().to_batches()[0]  # 6,000 rows
        old, ps.STAGED_BYTES = ps.STAGED_BYTES, big.get_total_buffer_size() // 5
        try:
            rows = ps.to_staging(big, self.shard, 0, 100)
        finally:
            ps.STAGED_BYTES = old
        self.assertGreaterEqual(len(rows), 5)
        firsts = [r.column("row_index")[0].as_py() for r in rows]
        batches = [ps.from_staging(r.column("data")[0].as_buffer()) for r in rows]
        self.assertEqual(firsts, [100 + sum(x.num_rows for x in batches[:i]) for i in range(len(batches))])
        self.assertTrue(pa.Table.from_batches(batches).equals(pa.Table.from_batches([big])))

    def test_the_statistics_row(self):
        b = ps.stats_batch(self.shard, 3, {"exit": 0})
        [row] = b.to_pylist()
        self.assertEqual((row["file_index"], row["shard_index"], row["run"], row["row_index"]), (2, 5, 3, -1))
        self.assertEqual(json.loads(row["stats"]), {"exit": 0})
        self.assertIsNone(row["data"])


class Parts(unittest.TestCase):
    """The job's own Parquet files: renumbered, one per run, in record order."""

    def setUp(self):
        self.cols = ps.Columns.from_schema(CONVERT)
        self.target = self.cols.target()
        self.output = self.cols.output()
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)
        self.batch = ps.to_target(convert_batch(), self.cols, self.target)

    def read(self, name):
        import pyarrow.parquet as pq

        return pq.read_table(os.path.join(self.dir, name))

    def test_records_games_and_files(self):
        shifts = {7: ps.Shift(games=10, lines=0, rows=0), 8: ps.Shift(games=20, lines=0, rows=6)}
        parts = ps.Parts(self.dir, self.cols, shifts, self.output)
        parts.add(7, 0, self.batch)
        parts.add(7, 3, self.batch)
        parts.add(9, 0, self.batch)  # a run the walk did not keep
        parts.add(8, 0, self.batch)
        parts.close()
        self.assertEqual(parts.done, [("part-00000000000000000001.parquet", 1, 6),
                                      ("part-00000000000000000007.parquet", 7, 3)])
        self.assertEqual(sorted(os.listdir(self.dir)), [n for n, _, _ in parts.done])  # no temporary left
        one = self.read(parts.done[0][0])
        self.assertEqual(one.schema, self.output)
        self.assertEqual(one.column("record").to_pylist(), [1, 2, 3, 4, 5, 6])
        self.assertEqual(one.column("game").to_pylist(), [11, 12, 13, 11, 12, 13])
        two = self.read(parts.done[1][0])
        self.assertEqual(two.column("record").to_pylist(), [7, 8, 9])
        self.assertEqual(two.column("game").to_pylist(), [21, 22, 23])
        self.assertEqual(two.column("uci").to_pylist(), [["e2e4", "e7e5"], None, []])
        self.assertIsNone(ps.check_parts(parts.done, 9))
        import pyarrow.parquet as pq

        group = pq.read_metadata(os.path.join(self.dir, parts.done[0][0])).row_group(0)
        stats = {group.column(i).path_in_schema: group.column(i).is_stats_set for i in range(group.num_columns)}
        self.assertEqual([p for p, kept in stats.items() if not kept], ["uci.list.element"])  # as pgnkit's own
        self.assertTrue(stats["tags.key_value.key"] and stats["error.code"] and stats["record"])

    def test_one_file_takes_the_runs_that_follow_on(self):
        shifts = {1: ps.Shift(0, 0, 0), 2: ps.Shift(3, 0, 3), 3: ps.Shift(9, 0, 9)}
        parts = ps.Parts(self.dir, self.cols, shifts, self.output, one_file=True)
        for k in (1, 2, 3):  # run 3 begins at record 10: records 7..9 are not here
            parts.add(k, 0, self.batch)
        parts.close()
        self.assertEqual([(f, n) for _, f, n in parts.done], [(1, 6), (10, 3)])
        self.assertEqual(self.read(parts.done[0][0]).column("game").to_pylist(), [1, 2, 3, 4, 5, 6])

    def test_rows_out_of_order_are_an_error(self):
        parts = ps.Parts(self.dir, self.cols, {1: ps.Shift(0, 0, 0)}, self.output)
        parts.add(1, 0, self.batch)
        with self.assertRaisesRegex(ps.JobError, "out of order"):
            parts.add(1, 5, self.batch)
        parts.abandon()
        self.assertEqual(os.listdir(self.dir), [])

    def test_a_game_number_past_what_spark_holds_fails(self):
        parts = ps.Parts(self.dir, self.cols, {1: ps.Shift(2**63 - 2, 0, 0)}, self.output)
        with self.assertRaises(pa.ArrowInvalid):
            parts.add(1, 0, self.batch)

    def test_the_files_must_hold_every_record_once(self):
        name = "part-{:020d}.parquet".format
        self.assertIsNone(ps.check_parts([(name(4), 4, 2), (name(1), 1, 3)], 5))
        self.assertIsNone(ps.check_parts([], 0))
        for parts, rows, message in [
            ([(name(1), 1, 3)], 5, "hold 3 records, the shards 5"),
            ([(name(1), 1, 3), (name(3), 3, 3)], 5, "records 3..5, record 4 was next"),
            ([(name(2), 2, 4)], 5, "record 1 was next"),
            ([(name(1), 1, 3), (name(5), 4, 2)], 5, "record 4 was next"),
            ([(name(1), 1, 0)], 0, "record 1 was next"),
        ]:
            with self.subTest(parts=parts):
                self.assertRegex(ps.check_parts(parts, rows) or "", message)

    def test_a_job_without_rows_writes_the_schema(self):
        name, first, n = ps.write_empty(self.dir, self.output)
        t = self.read(name)
        self.assertEqual((t.num_rows, t.schema), (0, self.output))


class StubContext:
    """What own_writes asks of a SparkContext, run here: parallelize,
    mapPartitions, collect."""

    def __init__(self):
        self.sparkContext = self
        self.jobs = 0

    def parallelize(self, items, slices):
        self.items, self.slices = list(items), slices
        return self

    def mapPartitions(self, f):
        self.f = f
        return self

    def collect(self):
        self.jobs += 1
        return [r for item in self.items for r in self.f(iter([item]))]


class OwnWrites(unittest.TestCase):
    """The driver's side of the job's own Parquet: tasks' failures said,
    the old output kept until the new one is complete."""

    def setUp(self):
        self.cols = ps.Columns.from_schema(CONVERT)
        self.output = self.cols.output()
        self.out = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.out)
        self.spool = ps.make_spool(self.out)
        batch = ps.to_target(convert_batch(), self.cols, self.cols.target())
        self.runs = []
        for k in (1, 2):
            name = f"staged-{k}.arrow"
            with ipc.new_stream(os.path.join(self.spool, name), batch.schema) as w:
                w.write_batch(batch)
            self.runs.append((k, name))
        self.shifts = {1: ps.Shift(0, 0, 0), 2: ps.Shift(3, 0, 3)}
        old = os.path.join(self.out, "parquet")
        os.mkdir(old)
        with open(os.path.join(old, "part-old.parquet"), "w") as f:
            f.write("the run before")

    def old_is_kept(self):
        self.assertEqual(os.listdir(os.path.join(self.out, "parquet")), ["part-old.parquet"])

    def test_tasks_write_a_file_per_run_and_it_replaces_the_old_output(self):
        spark, old = StubContext(), ps.DRIVER_WRITES
        ps.DRIVER_WRITES = 0
        try:
            ps.own_writes(spark, ps.Result(0, rows=6), self.spool, self.runs, self.cols, self.shifts, self.output)
        finally:
            ps.DRIVER_WRITES = old
        self.assertEqual(spark.jobs, 1)
        self.assertEqual(sorted(os.listdir(self.out)), ["parquet"])  # the spool became it, the old one is gone
        self.assertEqual(sorted(os.listdir(os.path.join(self.out, "parquet"))),
                         ["_SUCCESS", "part-00000000000000000001.parquet", "part-00000000000000000004.parquet"])

    def test_the_driver_writes_a_little_itself_in_one_file(self):
        spark = StubContext()
        ps.own_writes(spark, ps.Result(0, rows=6), self.spool, self.runs, self.cols, self.shifts, self.output)
        self.assertEqual(spark.jobs, 0)
        self.assertEqual(sorted(os.listdir(os.path.join(self.out, "parquet"))),
                         ["_SUCCESS", "part-00000000000000000001.parquet"])

    def test_a_task_s_failure_is_said_and_the_old_output_kept(self):
        spark, old = StubContext(), ps.DRIVER_WRITES
        ps.DRIVER_WRITES = 0
        shifts = {1: ps.Shift(0, 0, 0), 2: ps.Shift(2**63 - 2, 0, 3)}  # game numbers past Spark's
        try:
            with self.assertRaisesRegex(ps.JobError, "writing the Parquet: ArrowInvalid: .*overflow"):
                ps.own_writes(spark, ps.Result(0, rows=6), self.spool, self.runs, self.cols, shifts, self.output)
        finally:
            ps.DRIVER_WRITES = old
        self.old_is_kept()

    def test_files_that_do_not_hold_the_rows_are_refused(self):
        with self.assertRaisesRegex(ps.JobError, "hold 6 records, the shards 7"):
            ps.own_writes(StubContext(), ps.Result(0, rows=7), self.spool, self.runs, self.cols, self.shifts,
                          self.output)
        self.old_is_kept()

    def test_a_spooled_file_the_driver_cannot_see(self):
        os.remove(os.path.join(self.spool, "staged-2.arrow"))
        with self.assertRaisesRegex(ps.JobError, "the driver does not see it .*share"):
            ps.own_writes(StubContext(), ps.Result(0, rows=6), self.spool, self.runs, self.cols, self.shifts,
                          self.output)
        self.old_is_kept()

    def test_a_failed_swap_puts_the_old_output_back(self):
        final = os.path.join(self.out, "parquet")
        real, calls = os.rename, []

        def rename(a, b):
            calls.append((a, b))
            if a == self.spool:
                raise OSError(16, "Device or resource busy")
            return real(a, b)

        ps.os.rename = rename
        try:
            with self.assertRaises(OSError):
                ps.swap_in(self.spool, final)
        finally:
            ps.os.rename = real
        self.assertEqual(len(calls), 3)  # aside, the failed swap, back
        self.old_is_kept()
        self.assertEqual(sorted(n for n in os.listdir(self.out) if n.startswith(".parquet-old")), [])

    def test_an_old_output_that_cannot_be_removed_is_a_warning(self):
        real = shutil.rmtree

        def rmtree(path, *a, **k):
            raise OSError(13, "Permission denied")

        ps.shutil.rmtree = rmtree
        try:
            warning = ps.swap_in(self.spool, os.path.join(self.out, "parquet"))
        finally:
            ps.shutil.rmtree = real
        self.assertRegex(warning or "", r"could not be removed, it is in .*\.parquet-old-.*Permission denied")
        self.assertEqual(sorted(os.listdir(os.path.join(self.out, "parquet"))), ["staged-1.arrow", "staged-2.arrow"])

    def test_out_that_is_a_file_or_held_by_another_job(self):
        path = os.path.join(self.out, "a-file")
        open(path, "w").close()
        with self.assertRaisesRegex(ps.JobError, "a-file: OUT is not a directory"):
            ps.make_spool(path)
        with ps.out_lock(self.out):
            with self.assertRaisesRegex(ps.JobError, "another job is writing this OUT"):
                with ps.out_lock(self.out):
                    pass
        with ps.out_lock(self.out):  # released
            pass

    def test_spool_permissions_follow_the_umask(self):
        self.assertEqual(os.stat(self.spool).st_mode & 0o777, 0o777 & ~ps.umask())


class ShardRuns(unittest.TestCase):
    """What a shard's run makes of what the binary wrote: the binary's
    output is not trusted."""

    SHARD = ps.Shard(0, 0, ps.Source("f.pgn", "f.pgn", 500, False), None, None)

    def run_shard(self, exe, spool=None):
        cols = ps.Columns.from_schema(CONVERT)
        *batches, note = ps.Runner(exe, "convert", (), 1).run_shard(self.SHARD, cols, spool=spool)
        return batches, json.loads(note.column("stats")[0].as_py())

    def test_a_good_stream(self):
        stream = stream_of(convert_batch(), convert_batch())
        batches, note = self.run_shard(arrow_binary(self, stream, shard_stats(6)))
        self.assertEqual((note["exit"], note["rows"], note["stderr"]), (0, 6, "pgnkit: a warning\n"))
        self.assertEqual([r for b in batches for r in b.column("row_index").to_pylist()], [0, 3])
        got = pa.Table.from_batches([ps.from_staging(b.column("data")[0].as_buffer()) for b in batches])
        self.assertEqual(got.column("game").to_pylist(), [1, 2, 3, 1, 2, 3])
        self.assertEqual(note["shard"], {"file": "f.pgn", "range": None})

    def test_a_good_stream_spooled(self):
        spool = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, spool)
        stream = stream_of(convert_batch(), convert_batch())
        batches, note = self.run_shard(arrow_binary(self, stream, shard_stats(6)), spool)
        self.assertEqual((batches, note["exit"], note["rows"]), ([], 0, 6))
        self.assertEqual(os.listdir(spool), [note["spooled"]])
        with pa.memory_map(os.path.join(spool, note["spooled"])) as f:
            got = ipc.open_stream(f).read_all()
        self.assertEqual(got.schema, ps.Columns.from_schema(CONVERT).target())
        self.assertEqual(got.column("game").to_pylist(), [1, 2, 3, 1, 2, 3])

    def test_a_spool_that_cannot_be_written_fails_the_shard_with_the_reason(self):
        spool = os.path.join(tempfile.mkdtemp(), "gone")
        self.addCleanup(shutil.rmtree, os.path.dirname(spool))
        stream = stream_of(convert_batch(), convert_batch())
        _, note = self.run_shard(arrow_binary(self, stream, shard_stats(6)), spool)
        self.assertEqual(note["exit"], 2)
        self.assertIn(f"could not be written into {spool}", note["stderr"])
        self.assertIn("OUT must be a directory every executor can write", note["stderr"])

    def test_a_failed_shard_leaves_nothing_spooled(self):
        spool = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, spool)
        stream = stream_of(convert_batch(), convert_batch())
        _, note = self.run_shard(arrow_binary(self, stream, shard_stats(5)), spool)
        self.assertEqual(note["exit"], 2)
        self.assertNotIn("spooled", note)
        self.assertEqual(os.listdir(spool), [])

    def test_a_row_count_that_is_not_the_statistics_one_fails(self):
        _, note = self.run_shard(arrow_binary(self, stream_of(convert_batch()), shard_stats(4)))
        self.assertEqual(note["exit"], 2)
        self.assertIn("--stats counts 4 records, its Arrow stream held 3", note["stderr"])

    def test_a_stream_of_other_columns_fails(self):
        wrong = convert_batch(game=pa.array(["1", "2", "3"]))
        _, note = self.run_shard(arrow_binary(self, stream_of(wrong), shard_stats(3)))
        self.assertEqual(note["exit"], 2)
        self.assertIn("Arrow stream has the column `game` of type string, not uint64", note["stderr"])
        self.assertEqual(note["rows"], 0)

    def test_a_stream_that_breaks_off_fails(self):
        stream = stream_of(convert_batch(), convert_batch())
        _, note = self.run_shard(arrow_binary(self, stream[: len(stream) - 100], shard_stats(6)))
        self.assertEqual(note["exit"], 2)
        self.assertIn("Arrow stream could not be read", note["stderr"])

    def test_a_value_spark_cannot_hold_fails_the_shard_not_the_task(self):
        big = convert_batch(game=pa.array([1, 2**63, 3], pa.uint64()))
        _, note = self.run_shard(arrow_binary(self, stream_of(big), shard_stats(3)))
        self.assertEqual(note["exit"], 2)
        self.assertIn("could not be read", note["stderr"])

    def test_pgnkit_s_exit_2_with_nothing_written(self):
        _, note = self.run_shard(arrow_binary(self, b"", None, status=2, stderr="pgnkit: x.pgn: No such file\n"))
        self.assertEqual((note["exit"], note["stderr"]), (2, "pgnkit: x.pgn: No such file\n"))

    def test_no_stream_at_all_with_exit_0_fails(self):
        _, note = self.run_shard(arrow_binary(self, b"", shard_stats(0)))
        self.assertEqual(note["exit"], 2)
        self.assertIn("the shard wrote no Arrow stream", note["stderr"])

    def test_no_statistics_fails(self):
        _, note = self.run_shard(arrow_binary(self, stream_of(convert_batch()), None))
        self.assertEqual(note["exit"], 2)
        self.assertIn("no --stats written", note["stderr"])


class Probe(unittest.TestCase):
    def test_the_columns_come_from_the_binary(self):
        exe = arrow_binary(self, stream_of(convert_batch()))
        cols = ps.Runner(exe, "convert", (), 1).probe()
        self.assertEqual(cols, ps.Columns.from_schema(CONVERT))

    def test_a_binary_whose_stream_is_not_its_schema(self):
        exe = arrow_binary(self, stream_of(convert_batch(plies=pa.array([1, 2, 3], pa.uint64()))))
        with self.assertRaisesRegex(ps.JobError, "the column `plies` of type uint64, not uint32, against its own"):
            ps.Runner(exe, "convert", (), 1).probe()

    def test_flags_the_binary_refuses_stop_the_job_before_any_work(self):
        exe = arrow_binary(self, b"", status=2, stderr="pgnkit: --tags applies to --to csv only\n")
        with self.assertRaisesRegex(ps.JobError, "exited 2: pgnkit: --tags applies to --to csv only"):
            ps.Runner(exe, "convert", ("--tags", "ECO"), 1).probe()

    def test_a_binary_without_the_schema_is_an_error(self):
        cases = [
            ('echo "error: unrecognized subcommand \'schema\'" >&2; exit 2\n', "exited 2.*unrecognized subcommand"),
            ("echo 'not json'\n", "printed no schema.*not json"),
            ('echo \'{"name": "x"}\'\n', "printed no schema.*no list of columns"),
        ]
        for script, message in cases:
            with self.subTest(message=message):
                exe = fake_binary(self, script)
                runner = ps.Runner(exe, "validate", (), 1)
                with self.assertRaisesRegex(ps.JobError, message) as got:
                    runner.probe()
                self.assertIn(exe, str(got.exception))


class Commands(unittest.TestCase):
    def test_a_shard_command(self):
        runner = ps.Runner("/bin/true", "convert", ("--tags", "ECO"), 4)
        shard = ps.Shard(0, 1, ps.Source("d/f.pgn", "d/f.pgn", 10, False), 4, 8)
        self.assertEqual(
            runner.command(shard, "s.json"),
            ["/bin/true", "convert", "--to", "arrow", "--tags", "ECO", "-q", "-j", "4", "--stats", "s.json",
             "--byte-range", "4..8", "--", "d/f.pgn"],
        )
        whole = ps.Shard(0, 0, ps.Source("s3a://b/k 1.zst", None, 10, True), None, None)
        self.assertEqual(runner.command(whole, "s")[-2:], ["--", "-"])

    def test_fetch_commands_quote_their_parts(self):
        runner = ps.Runner("x", "validate", (), 1, fetch="aws s3 cp s3://{host}/{path} - # {url}")
        source = ps.Source("s3a://bucket/db/a b.pgn.zst", None, 1, True)
        self.assertEqual(
            runner.fetch_command(source),
            "aws s3 cp s3://bucket/'db/a b.pgn.zst' - # 's3a://bucket/db/a b.pgn.zst'",
        )

    def test_a_failed_shard_s_message_says_what_it_left_out(self):
        # Issue 20: the job kept the last 20 lines and did not say so.
        text = "".join(f"line {i}\n" for i in range(1, 51))
        msg = ps.failure_message("f.pgn 0..9", 2, text, "out/failed/file0-shard0.stderr").splitlines()
        self.assertEqual(
            msg[0],
            "pgnkit_spark: shard f.pgn 0..9: pgnkit exit 2; the last 20 of its 50 stderr lines follow, "
            "30 left out (the whole stderr is in out/failed/file0-shard0.stderr):",
        )
        self.assertEqual(msg[1:], [f"line {i}" for i in range(31, 51)])
        short = ps.failure_message("f.pgn", 2, "one\ntwo\n", "o/x").splitlines()
        self.assertEqual(short, ["pgnkit_spark: shard f.pgn: pgnkit exit 2 (its stderr, also in o/x):", "one", "two"])
        self.assertEqual(ps.failure_message("?", None, "a shard left no statistics", None),
                         "pgnkit_spark: shard ?: pgnkit exit None:\na shard left no statistics")

    def test_a_shard_keeps_its_whole_stderr(self):
        exe = fake_binary(self, 'for i in $(seq 1 500); do echo "pgnkit: problem $i" >&2; done\nexit 2\n')
        runner = ps.Runner(exe, "validate", (), 1)
        columns = ps.Columns.from_schema(schema_of(column("file", "string")))
        [note] = runner.run_shard(ps.Shard(0, 0, ps.Source("f", "f", 1, False), None, None), columns)
        n = json.loads(note.column("stats")[0].as_py())
        self.assertEqual(n["exit"], 2)
        self.assertEqual(n["stderr"], "".join(f"pgnkit: problem {i}\n" for i in range(1, 501)))

    def test_tail(self):
        self.assertEqual(ps.tail(""), "")
        self.assertEqual(ps.tail("\n".join(map(str, range(30))), lines=2), "28\n29\n")


if __name__ == "__main__":
    unittest.main()
