"""Unit tests of the pure parts of pgnkit_spark.py: arguments, planning, the
chain walk and renumbering (on synthetic statistics, and against a model of
a byte-range shard), CSV writing, and reading the binary's schema (from
stand-in binaries). They need no Spark and no real binary:

    python3 -m unittest -v test_pgnkit_spark
"""

import csv
import dataclasses
import io
import json
import os
import random
import shutil
import tempfile
import unittest
import urllib.parse

import pgnkit_spark as ps


def column(name, kind, where="cell"):
    """One column of a `pgnkit schema --json` document."""
    return {"name": name, "type": {"kind": kind}, "nullable": True, "null_when": None, "csv": where,
            "jsonl": True, "doc": ""}


def schema_of(*columns):
    return {"name": "test", "doc": "", "columns": list(columns)}


# As `pgnkit schema validate --json` says (no tag columns).
VALIDATE = schema_of(
    column("file", "string"), column("game", "uint64"), column("offset", "uint64"), column("line", "uint64"),
    column("ply", "uint32"), column("san", "string"), column("severity", "vocabulary"),
    column("code", "vocabulary"), column("message", "string"), column("white", "string"),
    column("black", "string"),
)

# As `pgnkit schema convert --json` says, shortened: tags after start_fen
# (the roster, then --tags), JSONL-only columns, then plies and the rest.
CONVERT = schema_of(
    column("file", "string"), column("game", "uint64"), column("offset", "uint64"), column("start_fen", "string"),
    column("tags", "map of strings", "per-tag"), column("moves", "list", "none"),
    column("result", "vocabulary", "none"), column("plies", "uint32"), column("uci", "string"),
    column("final_fen", "string"), column("error", "struct"),
)


def fake_binary(test, script):
    """A stand-in pgnkit: a shell script, removed after the test."""
    d = tempfile.mkdtemp()
    test.addCleanup(shutil.rmtree, d)
    exe = os.path.join(d, "fake-pgnkit")
    with open(exe, "w") as f:
        f.write("#!/bin/sh\n" + script)
    os.chmod(exe, 0o755)
    return exe


def stats(first_byte, limit, end_byte, games, lines=None, rows=None, start=None, end=None):
    return ps.Stats(
        start=first_byte if start is None else start,
        end=end,
        first_byte=first_byte,
        limit=limit,
        end_byte=end_byte,
        games=games,
        lines=games * 10 if lines is None else lines,
        rows=games if rows is None else rows,
    )


class Arguments(unittest.TestCase):
    def test_inputs_options_and_subcommand(self):
        job = ps.parse_args(
            ["--out", "o", "--shard-bytes", "64M", "a.pgn", "b.pgn.zst", "--", "validate", "-f", "csv", "--quiet-not"]
        )
        self.assertEqual(job.inputs, ["a.pgn", "b.pgn.zst"])
        self.assertEqual(job.subcommand, "validate")
        self.assertEqual(job.flags, ["--quiet-not"])  # -f csv is the job's
        self.assertEqual(job.shard_bytes, 64 << 20)

    def test_flags_of_the_subcommand_pass(self):
        job = ps.parse_args(["--out", "o", "x", "--", "convert", "--to=csv", "--tags", "ECO,Opening"])
        self.assertEqual(job.flags, ["--tags", "ECO,Opening"])
        job = ps.parse_args(["--out", "o", "x", "--", "annotate-outcome", "--rules", "online", "-fcsv"])
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
            ["--out", "o", "x", "--", "convert", "--to", "pgn"],
            ["--out", "o", "--shard-bytes", "0", "x", "--", "validate"],
        ]
        for argv in bad:
            with self.subTest(argv=argv), self.assertRaises(ps.JobError):
                ps.parse_args(argv)

    def test_files_every_shard_would_overwrite_are_refused(self):
        # Issue 20: each whole-file shard truncated the same --bad-games file,
        # so only the last shard's games were left in it.
        for flag in (["--bad-games", "bad.pgn"], ["--good-games=good.pgn"], ["--bad-games=b", "--good-games", "g"]):
            with self.subTest(flag=flag):
                with self.assertRaisesRegex(ps.JobError, "every shard would write the same file"):
                    ps.parse_args(["--out", "o", "x", "--", "validate", *flag])

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


class StatsFile(unittest.TestCase):
    def test_the_binary_s_statistics(self):
        doc = {
            "inputs": [{"file": "f.pgn", "start": 100, "end": None, "first_byte": 120, "limit": None,
                        "end_byte": 900, "games": 4, "lines": 40, "first_offset": 120, "last_offset": 700}],
            "games": 4, "failed": 0, "findings": {}, "args": ["validate"], "cwd": "/",
        }
        s = ps.Stats.from_pgnkit(doc, rows=2)
        self.assertEqual((s.start, s.end, s.first_byte, s.limit, s.end_byte, s.games, s.lines, s.rows),
                         (100, None, 120, 900, 900, 4, 40, 2))
        doc["inputs"][0]["limit"] = 500
        self.assertEqual(ps.Stats.from_pgnkit(doc, 0).limit, 500)
        with self.assertRaises(ps.JobError):
            ps.Stats.from_pgnkit({"inputs": []}, 0)

    def test_keys_the_merge_does_not_read_are_ignored(self):
        # The statistics gain keys over time (issue 20's wave: command,
        # format, header, options, output, checksum, per-input path, size…);
        # only the ones the merge reads matter, and they all stay.
        doc = {
            "command": "validate", "format": "csv", "header": ["file", "game"], "checksum": "sha256:00",
            "options": {"rules": "fide", "tags": None, "nested": {"x": [1, 2]}}, "output": {"path": "-", "rows": 3},
            "inputs": [{"file": "f.pgn", "path": "/abs/f.pgn", "size": 900, "mtime": None, "start": 0, "end": 500,
                        "first_byte": 0, "limit": 520, "end_byte": 600, "games": 3, "lines": 30,
                        "a_future_key": {"deep": True}}],
            "games": 3, "failed": 0, "findings": {}, "args": ["validate"], "cwd": "/", "version": "9.9",
        }
        s = ps.Stats.from_pgnkit(doc, rows=3)
        self.assertEqual((s.start, s.end, s.first_byte, s.limit, s.end_byte, s.games, s.lines, s.rows),
                         (0, 500, 0, 520, 600, 3, 30, 3))
        note = {"exit": 0, "stderr": "", "stats": doc, "rows": 3}
        self.assertEqual(ps.Stats.from_pgnkit(json.loads(json.dumps(note))["stats"], 3), s)

    def test_a_shard_after_one_that_read_to_the_end_is_skipped(self):
        w = ps.FileWalk(0, 2)
        last = ps.Stats.from_pgnkit({"inputs": [{"start": 50, "end": None, "first_byte": 60, "limit": None,
                                                  "end_byte": 100, "games": 0, "lines": 0}]}, 0)
        runs = [stats(0, 60, 100, 2), last]
        self.assertIsNone(w.advance(lambda k: (0, runs[k])))
        self.assertEqual(w.skipped, [1])


class ChainWalk(unittest.TestCase):
    def walk(self, runs):
        """Walks one file whose shards have the given runs: {k: [stats of run 0, of run 1, ...]}."""
        w = ps.FileWalk(0, len(runs))
        done = {k: 0 for k in runs}
        requests = []
        while True:
            r = w.advance(lambda k: (done[k], runs[k][done[k]]))
            if r is None:
                return w, requests
            requests.append(r)
            done[r.shard_index] += 1

    def test_shards_in_step_are_shifted_by_what_came_before(self):
        w, requests = self.walk({0: [stats(0, 100, 100, 3)], 1: [stats(100, 250, 250, 4)], 2: [stats(250, None, 300, 2)]})
        self.assertEqual(requests, [])
        self.assertEqual(
            [(a.shard_index, a.run, a.games_before, a.lines_before) for a in w.accepted],
            [(0, 0, 0, 0), (1, 0, 3, 30), (2, 0, 7, 70)],
        )

    def test_a_shard_that_began_inside_a_game_is_rerun_from_where_that_game_ended(self):
        # Shard 0's region ends at a cut point inside a comment (100); it reads
        # on to 130. Shard 1 began at 100, inside that game.
        runs = {
            0: [stats(0, 100, 130, 3)],
            1: [stats(100, 200, 200, 5, end=200), stats(130, 200, 200, 4, start=130, end=200)],
            2: [stats(200, None, 260, 2)],
        }
        w, requests = self.walk(runs)
        self.assertEqual(requests, [ps.Rerun(0, 1, 130, 200)])
        self.assertEqual(
            [(a.shard_index, a.run, a.games_before, a.rows) for a in w.accepted],
            [(0, 0, 0, 3), (1, 1, 3, 4), (2, 0, 7, 2)],
        )
        self.assertEqual(w.reruns, 1)

    def test_a_shard_whose_region_was_read_through_is_skipped(self):
        runs = {
            0: [stats(0, 100, 260, 3)],  # a game from 90 to 260
            1: [stats(150, 200, 200, 1)],
            2: [stats(200, 300, 300, 2), stats(260, 300, 300, 1, start=260)],
            3: [stats(300, None, 400, 1)],
        }
        w, requests = self.walk(runs)
        self.assertEqual(w.skipped, [1])
        self.assertEqual(requests, [ps.Rerun(0, 2, 260, None)])
        self.assertEqual([(a.shard_index, a.run, a.games_before) for a in w.accepted], [(0, 0, 0), (2, 1, 3), (3, 0, 4)])

    def test_a_whole_file(self):
        w, _ = self.walk({0: [stats(0, None, 500, 9)]})
        self.assertEqual([(a.shard_index, a.games_before) for a in w.accepted], [(0, 0)])

    def test_a_gap_is_an_error(self):
        with self.assertRaisesRegex(ps.JobError, "do not tile"):
            self.walk({0: [stats(0, 100, 100, 1)], 1: [stats(120, None, 200, 1)]})

    def test_a_rerun_that_began_elsewhere_is_an_error(self):
        with self.assertRaisesRegex(ps.JobError, "began at byte"):
            self.walk({0: [stats(0, 100, 130, 1)], 1: [stats(100, None, 200, 1), stats(120, None, 200, 1)]})

    def test_rows_before_follow_file_then_shard_order(self):
        acc = [
            ps.Accepted(1, 0, 0, 0, 0, 5),
            ps.Accepted(0, 1, 1, 3, 30, 2),
            ps.Accepted(0, 0, 0, 0, 0, 3),
        ]
        self.assertEqual(ps.records_before(acc), {(0, 0, 0): 0, (0, 1, 1): 3, (1, 0, 0): 5})


class Model:
    """A PGN file as the shard contract sees it: true game starts, and false
    cut points inside games (a `[` after a blank line in a comment). Each
    byte is one line, so `line` is offset + 1 in the whole file."""

    def __init__(self, size, games, fakes):
        self.size, self.games, self.cuts = size, sorted(games), sorted(set(games) | set(fakes))

    def first_cut(self, at):
        return next((c for c in self.cuts if c >= at), self.size)

    def next_game(self, at):
        return next((g for g in self.games if g >= at), self.size)

    def run(self, start, end):
        """(Stats, rows) of `--byte-range start..end`; rows are (game, line, offset)."""
        first = self.first_cut(start)
        limit = self.size if end is None else self.first_cut(end)
        starts = [g for g in self.games if first <= g < limit]
        if first < limit and first not in self.games:
            starts = [first] + starts  # garbage parsed from inside a comment
        end_byte = self.next_game(limit) if starts else limit
        rows = [(i + 1, s - first + 1, s) for i, s in enumerate(starts)]
        st = ps.Stats(start, end, first, limit, end_byte, len(starts), end_byte - first, len(rows))
        return st, rows


class MergeAgainstTheModel(unittest.TestCase):
    """Random files cut into random uneven ranges: the walk, the reruns and
    the shift of game and line give the whole-file rows, in order."""

    def test_random_files_and_ranges(self):
        rng = random.Random(11)
        for case in range(400):
            size = rng.randrange(1, 400)
            games = sorted({0} | {rng.randrange(size) for _ in range(rng.randrange(0, 30))})
            inside = [p for p in range(size) if p not in games]
            fakes = rng.sample(inside, min(len(inside), rng.randrange(0, 8)))
            model = Model(size, games, fakes)
            cuts = sorted({rng.randrange(1, size + 1) for _ in range(rng.randrange(0, 9))} - {size}) if size > 1 else []
            bounds = [0] + cuts
            ranges = [(b, bounds[i + 1] if i + 1 < len(bounds) else None) for i, b in enumerate(bounds)]
            with self.subTest(case=case, games=games, fakes=fakes, ranges=ranges):
                self.assertEqual(self.merge(model, ranges), [(i + 1, g + 1, g) for i, g in enumerate(games)])

    def merge(self, model, ranges):
        runs = {k: [model.run(s, e)] for k, (s, e) in enumerate(ranges)}
        w = ps.FileWalk(0, len(ranges))
        while (r := w.advance(lambda k: (len(runs[k]) - 1, runs[k][-1][0]))) is not None:
            runs[r.shard_index].append(model.run(r.start, r.end))
        merged = []
        for a in w.accepted:
            _, rows = runs[a.shard_index][a.run]
            merged += [(g + a.games_before, line + a.lines_before, off) for g, line, off in rows]
        return merged


class Csv(unittest.TestCase):
    def test_typed_rows(self):
        header = "file,game,offset,line,ply,san,severity,code,message,white,black".split(",")
        layout = ps.Layout.from_schema(VALIDATE, header)
        self.assertEqual(layout.ints, ("game", "offset", "line", "ply"))
        self.assertEqual(
            ps.typed_row(layout, ["f.pgn", "3", "1200", "17", "", "", "error", "x", "a, b", "W", "B"]),
            ["f.pgn", 3, 1200, 17, None, "", "error", "x", "a, b", "W", "B"],
        )
        with self.assertRaises(ValueError):
            ps.typed_row(layout, ["f.pgn"])
        with self.assertRaises(TypeError):  # a plain header does not say which columns are pgnkit's
            ps.typed_row(header, header)

    def test_lines_quote_as_pgnkit_does(self):
        self.assertEqual(ps.csv_line(["a", 1, None, ""]), "a,1,,")
        self.assertEqual(ps.csv_line(['say "x"', "a,b", "l1\nl2", "cr\r"]), '"say ""x""","a,b","l1\nl2","cr\r"')
        self.assertEqual(ps.csv_line([""]), '""')
        self.assertEqual(ps.csv_line(["é ♘f3", " lead"]), "é ♘f3, lead")

    def test_lines_read_back(self):
        values = ["x", 'q"uo"te', "multi\nline", "", "1,2", "`Qxe1` is not a legal move"]
        [back] = list(csv.reader(io.StringIO(ps.csv_line(values) + "\n"), strict=True))
        self.assertEqual(back, values)

    def test_convert_tags(self):
        # The roster is in the tag block: text, and passed back with --tags
        # (pgnkit drops roster names from --tags, so they add no column).
        roster = "Event,Site,Date,Round,White,Black,Result".split(",")
        header = ["file", "game", "offset", "start_fen", *roster, "ECO", "Opening", "plies", "uci", "final_fen", "error"]
        layout = ps.Layout.from_schema(CONVERT, header)
        self.assertEqual(layout.tags(), roster + ["ECO", "Opening"])
        self.assertEqual(layout.ints, ("game", "offset", "plies"))
        self.assertEqual([layout.is_int(i) for i in (1, 2, 4, 13)], [True, True, False, True])
        self.assertEqual(ps.Layout.of(header[:4] + header[13:], header[:4] + header[13:], 4).tags(), [])

    def test_what_the_schema_says_of_the_csv(self):
        self.assertEqual(ps.csv_columns(CONVERT), (
            ["file", "game", "offset", "start_fen", "plies", "uci", "final_fen", "error"], 4,
            ("game", "offset", "plies")))
        # No per-tag column: tags (none) at the end.
        fixed, at, _ = ps.csv_columns(VALIDATE)
        self.assertEqual(at, len(fixed))
        for bad in [{}, {"columns": "x"}, schema_of({"name": "x"}), schema_of(column("a", "string", "both")),
                    schema_of(column("t", "map of strings", "per-tag"), column("u", "map of strings", "per-tag"))]:
            with self.subTest(bad=bad), self.assertRaises(ps.JobError):
                ps.csv_columns(bad)


class TagColumns(unittest.TestCase):
    """Issue 20: a tag column named like one of pgnkit's integer columns was
    cast (`007` became 7, `x` failed the task), and one named `line` shifted."""

    ANNOTATE = "file,game,offset,white,black,result,plies,termination".split(",")
    CONVERT = "file,game,offset,start_fen,Event,Result,plies,uci".split(",")

    INTS = ("game", "offset", "plies", "ply", "line")

    def test_tags_are_text_whatever_their_names(self):
        layout = ps.Layout.of(self.ANNOTATE + ["ply", "line", "game"], self.ANNOTATE, len(self.ANNOTATE), self.INTS)
        self.assertEqual(layout.own[-3:], (None, None, None))
        self.assertEqual(layout.tags(), ["ply", "line", "game"])
        self.assertEqual(
            ps.typed_row(layout, ["f", "2", "90", "A", "B", "1-0", "41", "checkmate", "007", "x", ""]),
            ["f", 2, 90, "A", "B", "1-0", 41, "checkmate", "007", "x", ""],
        )
        self.assertEqual((layout.position("game"), layout.position("line"), layout.position("file")), (1, None, 0))

    def test_tags_inside_the_fixed_columns(self):
        # convert: tags after the roster, a tag named plies before the real one.
        header = self.CONVERT[:6] + ["plies", "offset"] + self.CONVERT[6:]
        layout = ps.Layout.of(header, self.CONVERT, 6, self.INTS)
        self.assertEqual(layout.tags(), ["plies", "offset"])
        self.assertEqual(
            ps.typed_row(layout, ["f", "1", "0", "", "E", "*", "12", "x", "30", "e2e4"]),
            ["f", 1, 0, "", "E", "*", "12", "x", 30, "e2e4"],
        )
        self.assertEqual(layout.position("plies"), 8)

    def test_a_header_that_is_not_the_fixed_columns_is_an_error(self):
        with self.assertRaises(ps.JobError):
            ps.Layout.of(["file", "game"], ["file", "game", "offset"], 3)
        with self.assertRaises(ps.JobError):
            ps.Layout.of(["file", "x", "offset"], ["file", "game", "offset"], 3)

    def test_names_parquet_would_merge(self):
        self.assertIsNone(ps.Layout.of(self.ANNOTATE + ["ply"], self.ANNOTATE, 8).clash())
        self.assertEqual(ps.Layout.of(self.ANNOTATE + ["Game"], self.ANNOTATE, 8).clash(), ("game", "Game"))
        self.assertIsNone(ps.Layout.of(self.ANNOTATE + ["Game"], self.ANNOTATE, 8).clash(case_sensitive=True))
        self.assertEqual(ps.Layout.of(self.ANNOTATE + ["record"], self.ANNOTATE, 8).clash(True), ("record", "record"))

    def schema_binary(self, schema, header):
        """A stand-in binary: `schema SUB --json` prints `schema`; a run
        prints `header` with its --tags where `TAGS` is."""
        return fake_binary(self, (
            'if [ "$1" = schema ]; then [ "$3" = --json ] || exit 9; cat <<\'EOF\'\n'
            + json.dumps(schema) + "\nEOF\nexit 0; fi\n"
            'tags=""; while [ $# -gt 0 ]; do case "$1" in --tags) tags=",$2"; shift;; esac; shift; done\n'
            f'echo "{header}"\n'
        ))

    def test_the_layout_comes_from_the_binary(self):
        # Its fixed columns, and tags after `b`.
        schema = schema_of(column("file", "string"), column("game", "uint64"), column("b", "string"),
                           column("tags", "map of strings", "per-tag"), column("line", "uint64"))
        exe = self.schema_binary(schema, "file,game,b$tags,line")
        runner = ps.Runner(exe, "convert", ("--tags", "ply,line"), 1)
        layout = runner.probe_layout([ps.Source("x", "x", 1, False)], True)
        self.assertEqual(layout.header, ("file", "game", "b", "ply", "line", "line"))
        self.assertEqual(layout.own, ("file", "game", "b", None, None, "line"))
        self.assertEqual(layout.ints, ("game", "line"))
        self.assertEqual([layout.is_int(i) for i in range(6)], [False, True, False, False, False, True])
        self.assertEqual(layout, ps.Layout(*dataclasses.astuple(layout)))  # as it comes back from the task

    def test_the_integers_come_from_the_schema(self):
        # A column no list here knows (`moves_left`, uint32) is an integer;
        # a tag of that name is not; a bool or vocabulary column stays text.
        schema = schema_of(column("file", "string"), column("moves_left", "uint32"), column("ok", "bool"),
                           column("kind", "vocabulary"), column("tags", "map of strings", "per-tag"))
        exe = self.schema_binary(schema, "file,moves_left,ok,kind$tags")
        runner = ps.Runner(exe, "annotate-outcome", ("--tags", "moves_left"), 1)
        layout = runner.probe_layout([ps.Source("x", "x", 1, False)], True)
        self.assertEqual(layout.header, ("file", "moves_left", "ok", "kind", "moves_left"))
        self.assertEqual(layout.ints, ("moves_left",))
        self.assertEqual(ps.typed_row(layout, ["f", "12", "true", "mate", "007"]), ["f", 12, "true", "mate", "007"])
        self.assertEqual(ps.typed_row(layout, ["f", "", "", "", ""]), ["f", None, "", "", ""])
        self.assertEqual(layout.tags(), ["moves_left"])

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
                    runner.probe_layout([ps.Source("x", "x", 1, False)], True)
                self.assertIn(exe, str(got.exception))


class Commands(unittest.TestCase):
    def test_a_shard_command(self):
        runner = ps.Runner("/bin/true", "convert", ("--tags", "ECO"), 4)
        shard = ps.Shard(0, 1, ps.Source("d/f.pgn", "d/f.pgn", 10, False), 4, 8)
        self.assertEqual(
            runner.command(shard, "s.json", "o.csv"),
            ["/bin/true", "convert", "--to", "csv", "--tags", "ECO", "-q", "-j", "4", "--stats", "s.json",
             "-o", "o.csv", "--byte-range", "4..8", "--", "d/f.pgn"],
        )
        whole = ps.Shard(0, 0, ps.Source("s3a://b/k 1.zst", None, 10, True), None, None)
        self.assertEqual(runner.command(whole, "s", "o")[-2:], ["--", "-"])

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
        layout = ps.Layout.of(["file"], ["file"], 1)
        [note] = runner.run_shard(ps.Shard(0, 0, ps.Source("f", "f", 1, False), None, None), layout)
        n = json.loads(note[3])
        self.assertEqual(n["exit"], 2)
        self.assertEqual(n["stderr"], "".join(f"pgnkit: problem {i}\n" for i in range(1, 501)))

    def test_tail(self):
        self.assertEqual(ps.tail(""), "")
        self.assertEqual(ps.tail("\n".join(map(str, range(30))), lines=2), "28\n29\n")


if __name__ == "__main__":
    unittest.main()
