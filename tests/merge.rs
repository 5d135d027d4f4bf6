//! `pgnkit merge` trusts nothing it is handed (issue 20): shards and their
//! statistics are another run's output. Every refusal is exit 2 with
//! nothing written and an old output left as it was; every honest tiling,
//! however it cuts the file, merges into the bytes of one run.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use pgnkit::output::stats::RunStats;

use crate::shards::corpus;
use crate::util::{code, fixture, mkfifo, part_files, pgnkit, stderr};

/// Runs pgnkit with OS-string arguments from `dir`.
fn run_in(dir: &Path, args: &[&OsStr]) -> Output {
    pgnkit()
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("pgnkit runs")
}

fn os(s: &str) -> &OsStr {
    OsStr::new(s)
}

/// Shards of `input` cut at `bounds` (consecutive pairs; an empty bound is
/// an open end), written as `{name}{i}` in `dir` with their statistics, by
/// `args` run from `cwd`; the shard paths in range order.
fn make_shards(
    dir: &Path,
    cwd: &Path,
    name: &str,
    args: &[&str],
    input: &OsStr,
    bounds: &[String],
) -> Vec<PathBuf> {
    let mut shards = Vec::new();
    for (i, pair) in bounds.windows(2).enumerate() {
        let out = dir.join(format!("{name}{i}"));
        let mut stats = out.as_os_str().to_owned();
        stats.push(".stats.json");
        let range = format!("{}..{}", pair[0], pair[1]);
        let mut all: Vec<&OsStr> = args.iter().map(|a| os(a)).collect();
        all.extend([
            os("-q"),
            os("-j1"),
            os("--byte-range"),
            os(&range),
            os("--stats"),
            &stats,
            os("-o"),
            out.as_os_str(),
            os("--"),
            input,
        ]);
        let result = run_in(cwd, &all);
        assert!(
            matches!(code(&result), 0 | 1),
            "{args:?} {range}: {}",
            stderr(&result)
        );
        shards.push(out);
    }
    shards
}

/// One run of `args` over `input` from `cwd`: its standard output.
fn one_run(cwd: &Path, args: &[&str], input: &OsStr) -> Vec<u8> {
    let mut all: Vec<&OsStr> = args.iter().map(|a| os(a)).collect();
    // A shard cannot see a tournament whole: merged shards are a run
    // without the tournament checks (as without duplicate-game).
    if args.first() == Some(&"validate") {
        all.extend([os("--ignore"), os(TOURNAMENT_CODES)]);
    }
    all.extend([os("-q"), os("-j1"), os("--"), input]);
    let out = run_in(cwd, &all);
    assert!(matches!(code(&out), 0 | 1), "{}", stderr(&out));
    out.stdout
}

/// `merge` with `extra` flags, then the shards.
fn merge(cwd: &Path, extra: &[&str], shards: &[PathBuf]) -> Output {
    let mut all: Vec<&OsStr> = vec![os("merge")];
    all.extend(extra.iter().map(|a| os(a)));
    all.extend(shards.iter().map(|s| s.as_os_str()));
    run_in(cwd, &all)
}

fn stats_of(shard: &Path) -> PathBuf {
    let mut s = shard.as_os_str().to_owned();
    s.push(".stats.json");
    PathBuf::from(s)
}

/// Reads, changes and rewrites a shard's statistics with a valid checksum:
/// an edit made on purpose, as a careless script or a hostile user would.
fn edit_stats(shard: &Path, edit: impl FnOnce(&mut RunStats)) {
    let path = stats_of(shard);
    let mut stats = RunStats::parse(&std::fs::read_to_string(&path).unwrap()).unwrap();
    edit(&mut stats);
    std::fs::write(&path, stats.to_json()).unwrap();
}

/// Asserts a refusal: exit 2, a message holding `says`, nothing on
/// standard output.
fn refused(out: &Output, says: &str, what: &str) {
    assert_eq!(code(out), 2, "{what}: {}", stderr(out));
    assert!(
        stderr(out).contains(says),
        "{what}: `{says}` not in: {}",
        stderr(out)
    );
    assert!(out.stdout.is_empty(), "{what}: wrote to standard output");
}

/// The corpus cut in three, with a boundary inside the comment game (the
/// shard after it begins inside a game: merge reruns it).
fn three(dir: &Path) -> (PathBuf, Vec<String>) {
    let (input, inside) = corpus(dir);
    let len = std::fs::metadata(&input).unwrap().len();
    let bounds = vec![
        String::new(),
        inside.to_string(),
        (len * 2 / 3).to_string(),
        String::new(),
    ];
    (input, bounds)
}

const VALIDATE_CSV: &[&str] = &["validate", "-f", "csv"];

/// The codes of `validate`'s tournament checks, which a shard leaves out.
pub const TOURNAMENT_CODES: &str =
    "paired-twice,board-twice,round-missing,round-order,name-variant,pairing-repeated";

#[test]
fn an_output_that_is_a_shard_or_its_statistics_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (input, bounds) = three(dir.path());
    let shards = make_shards(
        dir.path(),
        dir.path(),
        "sh",
        VALIDATE_CSV,
        input.as_os_str(),
        &bounds,
    );
    let before: Vec<Vec<u8>> = shards.iter().map(|s| std::fs::read(s).unwrap()).collect();
    for target in [shards[0].clone(), stats_of(&shards[1])] {
        let t = target.to_str().unwrap();
        let out = merge(dir.path(), &["-o", t], &shards);
        refused(&out, "which merge reads", &format!("-o {t}"));
    }
    // `merge … >> sh1`: standard output is a shard.
    let append = std::fs::OpenOptions::new()
        .append(true)
        .open(&shards[1])
        .unwrap();
    let out = pgnkit()
        .current_dir(dir.path())
        .arg("merge")
        .args(&shards)
        .stdout(append)
        .output()
        .unwrap();
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("standard output"), "{}", stderr(&out));
    for (shard, bytes) in shards.iter().zip(&before) {
        assert!(
            std::fs::read(shard).unwrap() == *bytes,
            "{} changed",
            shard.display()
        );
    }
    // The same shard twice would count its games twice.
    let twice = [
        shards[0].clone(),
        shards[0].clone(),
        shards[1].clone(),
        shards[2].clone(),
    ];
    refused(
        &merge(dir.path(), &[], &twice),
        "the same shard",
        "a shard twice",
    );
}

#[test]
fn a_shard_whose_input_could_not_be_read_ends_the_merge_as_one_run_would() {
    let dir = tempfile::tempdir().unwrap();
    let packed = std::fs::read(fixture("corpus/pgnmentor-2mb.pgn.zst")).unwrap();
    let cut = dir.path().join("cut.pgn.zst");
    std::fs::write(&cut, &packed[..packed.len() / 2]).unwrap();
    let shard = dir.path().join("whole.csv");
    let stats = stats_of(&shard);
    let out = pgnkit()
        .args(["annotate-outcome", "-q", "-f", "csv", "--stats"])
        .arg(&stats)
        .arg("-o")
        .arg(&shard)
        .arg(&cut)
        .output()
        .unwrap();
    assert_eq!(code(&out), 2, "the truncated input fails its run");
    let merged_path = dir.path().join("merged.csv");
    let merged = merge(
        dir.path(),
        &["-o", merged_path.to_str().unwrap()],
        std::slice::from_ref(&shard),
    );
    assert_eq!(code(&merged), 2, "{}", stderr(&merged));
    assert!(
        stderr(&merged).contains("could not read"),
        "{}",
        stderr(&merged)
    );
    assert!(stderr(&merged).contains("whole.csv"), "{}", stderr(&merged));
    // What was read is written, as the run that failed wrote it.
    let written = std::fs::read(&merged_path).unwrap();
    assert!(written == std::fs::read(&shard).unwrap());
    assert!(written.len() > 10_000);
}

#[test]
fn a_rerun_reads_the_recorded_file_never_what_args_or_cwd_say() {
    let dir = tempfile::tempdir().unwrap();
    let (input, bounds) = three(dir.path());
    let run_dir = dir.path().join("run");
    let other = dir.path().join("other");
    std::fs::create_dir_all(&run_dir).unwrap();
    std::fs::create_dir_all(&other).unwrap();
    std::fs::rename(&input, run_dir.join("games.pgn")).unwrap();
    // A different file of the same name where merge runs.
    std::fs::write(
        other.join("games.pgn"),
        std::fs::read(fixture("pgn/twic1599_excerpt.pgn")).unwrap(),
    )
    .unwrap();
    let shards = make_shards(
        dir.path(),
        &run_dir,
        "sh",
        VALIDATE_CSV,
        os("games.pgn"),
        &bounds,
    );
    let one = one_run(&run_dir, VALIDATE_CSV, os("games.pgn"));
    // The directory the shards ran in is gone; its file moved elsewhere
    // would be another file: the recorded absolute path is what counts.
    edit_stats(&shards[1], |s| {
        s.args = vec![
            "validate".into(),
            "-f".into(),
            "csv".into(),
            "games.pgn".into(),
        ];
        s.cwd = Some("/nonexistent".into());
    });
    let merged = merge(&other, &[], &shards);
    assert_eq!(code(&merged), 0, "{}", stderr(&merged));
    assert!(
        merged.stdout == one,
        "merged rows differ from one run over the recorded file"
    );
    // An edit without a valid checksum is refused.
    let stats = stats_of(&shards[2]);
    let text = std::fs::read_to_string(&stats).unwrap();
    std::fs::write(&stats, text.replacen("\"games\":", "\"games\":1", 1)).unwrap();
    refused(
        &merge(&other, &[], &shards),
        "checksum",
        "an edited --stats",
    );
    std::fs::write(&stats, &text).unwrap();
    // The same size and modification time, other bytes (review of issue
    // 20): the digest of the shard's region tells.
    let games = run_dir.join("games.pgn");
    let saved = dir.path().join("saved.pgn");
    std::fs::copy(&games, &saved).unwrap();
    let mut same_size = std::fs::read(&games).unwrap();
    // In the region of the shard that is run again.
    let inside: usize = bounds[1].parse().unwrap();
    let at =
        inside + 2000 + memchr::memmem::find(&same_size[inside + 2000..], b"[White \"").unwrap();
    same_size[at + 8] = b'X';
    let replaced = run_dir.join("replaced.pgn");
    std::fs::write(&replaced, &same_size).unwrap();
    assert!(
        Command::new("touch")
            .arg("-r")
            .arg(&games)
            .arg(&replaced)
            .status()
            .unwrap()
            .success()
    );
    std::fs::rename(&replaced, &games).unwrap();
    refused(
        &merge(&other, &[], &shards),
        "the bytes it read differ",
        "a same-size replacement",
    );
    std::fs::copy(&saved, &games).unwrap();
    // The recorded file changed since the shards ran: the rerun refuses.
    let mut bytes = std::fs::read(&games).unwrap();
    bytes.extend_from_slice(b"\n[Event \"added later\"]\n\n1. e4 *\n");
    std::fs::write(&games, &bytes).unwrap();
    refused(&merge(&other, &[], &shards), "changed", "a changed input");
}

#[test]
fn a_tag_column_named_line_or_game_is_never_renumbered() {
    let dir = tempfile::tempdir().unwrap();
    let (input, bounds) = three(dir.path());
    // Every game gets tags named like pgnkit's own columns (in case or in
    // another record kind: a tag named exactly like one of the run's own
    // columns is refused, issue 21).
    let text = std::fs::read(&input).unwrap();
    let tagged = memchr::memmem::find_iter(&text, b"[Event ").fold(
        (Vec::new(), 0),
        |(mut out, at), found| {
            out.extend_from_slice(&text[at..found]);
            out.extend_from_slice(b"[line \"121\"]\r\n[game \"007\"]\r\n");
            (out, found)
        },
    );
    let (mut tagged, at) = tagged;
    tagged.extend_from_slice(&text[at..]);
    let input = dir.path().join("tagged.pgn");
    std::fs::write(&input, &tagged).unwrap();
    // The inside bound moved with the added tags: recompute a cut inside
    // the comment game.
    let inside = memchr::memmem::find(&tagged, b"[Event \"not a game").unwrap();
    let bounds = [
        bounds[0].clone(),
        inside.to_string(),
        bounds[2].clone(),
        String::new(),
    ];
    for (args, extra) in [
        (
            &["annotate-outcome", "-f", "csv", "--tags", "line,Game"][..],
            &[][..],
        ),
        (
            &["annotate-outcome", "-f", "jsonl", "--tags", "line,Game"],
            &["-f", "jsonl"],
        ),
        (&["convert", "--to", "csv", "--tags", "line,Game"], &[]),
    ] {
        let shards = make_shards(
            dir.path(),
            dir.path(),
            "t",
            args,
            input.as_os_str(),
            &bounds,
        );
        let merged = merge(dir.path(), extra, &shards);
        assert_eq!(code(&merged), 0, "{args:?}: {}", stderr(&merged));
        let one = one_run(dir.path(), args, input.as_os_str());
        assert!(
            merged.stdout == one,
            "{args:?}: merged differs from one run"
        );
        // Every row keeps its tag's value.
        let text = String::from_utf8(merged.stdout).unwrap();
        let rows = text.lines().filter(|l| l.contains("tagged.pgn")).count();
        assert!(rows > 100, "{args:?}");
        let kept = if args.contains(&"jsonl") {
            text.matches(r#""line":"121""#).count()
        } else {
            let mut csv = csv::Reader::from_reader(text.as_bytes());
            let at = csv
                .headers()
                .unwrap()
                .iter()
                .position(|h| h == "line")
                .unwrap();
            csv.records()
                .filter(|r| &r.as_ref().unwrap()[at] == "121")
                .count()
        };
        assert_eq!(kept, rows, "{args:?}: a tag column was renumbered");
    }
}

#[test]
fn shards_of_other_commands_flags_or_formats_are_refused_and_headerless_ones_merge() {
    let dir = tempfile::tempdir().unwrap();
    let (input, bounds) = three(dir.path());
    let input = input.as_os_str();
    let v = make_shards(dir.path(), dir.path(), "v", VALIDATE_CSV, input, &bounds);
    let a = make_shards(
        dir.path(),
        dir.path(),
        "a",
        &["annotate-outcome", "-f", "csv"],
        input,
        &bounds,
    );
    let only = make_shards(
        dir.path(),
        dir.path(),
        "o",
        &["validate", "-f", "csv", "--only", "syntax"],
        input,
        &bounds,
    );
    let j = make_shards(
        dir.path(),
        dir.path(),
        "j",
        &["validate", "-f", "jsonl"],
        input,
        &bounds,
    );
    let t = make_shards(
        dir.path(),
        dir.path(),
        "x",
        &["validate", "-f", "text"],
        input,
        &bounds,
    );
    let mixed = |x: &[PathBuf], y: &[PathBuf]| vec![x[0].clone(), y[1].clone(), x[2].clone()];
    refused(
        &merge(dir.path(), &[], &mixed(&v, &a)),
        "one command with the same flags",
        "validate and annotate",
    );
    refused(
        &merge(dir.path(), &[], &mixed(&v, &only)),
        "one command with the same flags",
        "--only",
    );
    let laws = make_shards(
        dir.path(),
        dir.path(),
        "l",
        &["validate", "-f", "csv", "--laws", "current"],
        input,
        &bounds,
    );
    refused(
        &merge(dir.path(), &[], &mixed(&v, &laws)),
        "one command with the same flags",
        "--laws",
    );
    // A rerun keeps the recorded --laws: merged equals one run with it.
    let merged = merge(dir.path(), &[], &laws);
    assert_eq!(code(&merged), 0, "{}", stderr(&merged));
    assert!(
        merged.stdout
            == one_run(
                dir.path(),
                &["validate", "-f", "csv", "--laws", "current"],
                input
            )
    );
    refused(
        &merge(dir.path(), &[], &j),
        "give -f jsonl",
        "JSONL merged as CSV",
    );
    refused(
        &merge(dir.path(), &["-f", "jsonl"], &v),
        "give -f csv",
        "CSV merged as JSONL",
    );
    refused(
        &merge(dir.path(), &[], &t),
        "merge reads CSV, JSON Lines, Parquet and Arrow",
        "text shards",
    );
    // Shards without their header merge, and renumber, like the others;
    // one headed and one headless shard too.
    let bare = make_shards(
        dir.path(),
        dir.path(),
        "b",
        &["validate", "-f", "csv", "--no-header"],
        input,
        &bounds,
    );
    let one = one_run(dir.path(), VALIDATE_CSV, input);
    for shards in [bare.clone(), mixed(&v, &bare)] {
        let merged = merge(dir.path(), &[], &shards);
        assert_eq!(code(&merged), 0, "{}", stderr(&merged));
        assert!(
            merged.stdout == one,
            "headerless shards merge into one run's output"
        );
    }
}

/// Issue 43, defect 9: a shard of the recorded size with one byte flipped
/// is refused with the digest that differs, not two equal sizes.
#[test]
fn a_flipped_byte_names_the_digest_that_differs() {
    let dir = tempfile::tempdir().unwrap();
    let (input, bounds) = three(dir.path());
    let shards = make_shards(
        dir.path(),
        dir.path(),
        "f",
        VALIDATE_CSV,
        input.as_os_str(),
        &bounds,
    );
    let mut bytes = std::fs::read(&shards[1]).unwrap();
    let recorded = {
        let stats = std::fs::read_to_string(format!("{}.stats.json", shards[1].display())).unwrap();
        let stats: serde_json::Value = serde_json::from_str(&stats).unwrap();
        stats["output"]["digest"].as_str().unwrap().to_owned()
    };
    let middle = bytes.len() / 2;
    bytes[middle] ^= 1;
    std::fs::write(&shards[1], &bytes).unwrap();
    let out = merge(dir.path(), &[], &shards);
    refused(
        &out,
        "it is not the output its statistics describe",
        "a flipped byte",
    );
    let err = stderr(&out);
    assert!(
        err.contains("have the digest ") && err.contains(&format!("{recorded} recorded")),
        "names the digests: {err}"
    );
    assert!(
        !err.contains(&format!(
            "({} bytes, {} recorded)",
            bytes.len(),
            bytes.len()
        )),
        "{err}"
    );
}

#[test]
fn a_cut_emptied_or_broken_shard_is_refused_and_the_old_output_stays() {
    let dir = tempfile::tempdir().unwrap();
    let (input, bounds) = three(dir.path());
    let target = dir.path().join("report.csv");
    let t = target.to_str().unwrap().to_owned();
    for (args, extra) in [
        (VALIDATE_CSV, &["-o", &t][..]),
        (&["validate", "-f", "jsonl"][..], &["-f", "jsonl", "-o", &t]),
    ] {
        let shards = make_shards(
            dir.path(),
            dir.path(),
            "c",
            args,
            input.as_os_str(),
            &bounds,
        );
        let good: Vec<Vec<u8>> = shards.iter().map(|s| std::fs::read(s).unwrap()).collect();
        let rows = good[1].iter().filter(|&&b| b == b'\n').count();
        assert!(rows > 5, "the middle shard has rows");
        let at_row = good[1]
            .iter()
            .enumerate()
            .filter(|(_, b)| **b == b'\n')
            .nth(rows / 2)
            .unwrap()
            .0
            + 1;
        for (damage, bytes) in [
            ("cut at a row", good[1][..at_row].to_vec()),
            ("cut mid-row", good[1][..at_row + 7].to_vec()),
            ("emptied", Vec::new()),
            ("a byte changed", {
                let mut b = good[1].clone();
                b[at_row + 2] ^= 1;
                b
            }),
        ] {
            std::fs::write(&target, b"the old report\n").unwrap();
            std::fs::write(&shards[1], &bytes).unwrap();
            let out = merge(dir.path(), extra, &shards);
            refused(&out, "it is not the output its statistics describe", damage);
            assert_eq!(
                std::fs::read(&target).unwrap(),
                b"the old report\n",
                "{damage}"
            );
        }
        std::fs::write(&shards[1], &good[1]).unwrap();
        // A gap between shards: refused before the output is touched.
        let gap = [shards[0].clone(), shards[2].clone()];
        let out = merge(dir.path(), extra, &gap);
        refused(&out, "no shard holds bytes", "a gap");
        assert_eq!(std::fs::read(&target).unwrap(), b"the old report\n");
        // The last shard missing: its games would be lost.
        let out = merge(dir.path(), extra, &shards[..2]);
        refused(&out, "no shard holds the end", "no last shard");
        // All present: the merge replaces the old report whole.
        let out = merge(dir.path(), extra, &shards);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        assert!(std::fs::read(&target).unwrap() == one_run(dir.path(), args, input.as_os_str()));
        // Nothing is left beside it.
        let litter = part_files(dir.path());
        assert!(litter.is_empty(), "{litter:?}");
    }
}

#[test]
fn counts_that_overflow_or_contradict_each_other_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (input, bounds) = three(dir.path());
    let shards = make_shards(
        dir.path(),
        dir.path(),
        "n",
        VALIDATE_CSV,
        input.as_os_str(),
        &bounds,
    );
    let saved: Vec<String> = shards
        .iter()
        .map(|s| std::fs::read_to_string(stats_of(s)).unwrap())
        .collect();
    let restore = || {
        for (s, text) in shards.iter().zip(&saved) {
            std::fs::write(stats_of(s), text).unwrap();
        }
    };
    edit_stats(&shards[0], |s| {
        s.games = u64::MAX;
        s.inputs[0].games = u64::MAX;
    });
    refused(
        &merge(dir.path(), &[], &shards),
        "overflow",
        "u64::MAX games",
    );
    restore();
    edit_stats(&shards[0], |s| s.inputs[0].lines = u64::MAX - 3);
    refused(
        &merge(dir.path(), &[], &shards),
        "overflow",
        "u64::MAX lines",
    );
    restore();
    edit_stats(&shards[1], |s| s.inputs[0].games += 1);
    refused(
        &merge(dir.path(), &[], &shards),
        "contradict",
        "games that disagree",
    );
    restore();
    edit_stats(&shards[1], |s| {
        *s.findings.values_mut().next().unwrap() += 1;
    });
    refused(
        &merge(dir.path(), &[], &shards),
        "records",
        "findings that disagree with the rows",
    );
    restore();
    let out = merge(dir.path(), &[], &shards);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
}

#[test]
fn names_that_look_like_flags_or_are_not_utf8_rerun_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let (input, bounds) = three(dir.path());
    for name in [&b"-openings.pgn"[..], b"a\xff[1].pgn"] {
        let name = OsStr::from_bytes(name);
        std::fs::copy(&input, dir.path().join(name)).unwrap();
        // `a\xfe[1].pgn` displays like `a\xff[1].pgn`: a decoy.
        std::fs::write(
            dir.path().join(OsStr::from_bytes(b"a\xfe[1].pgn")),
            b"[Event \"decoy\"]\n\n1. e4 *\n",
        )
        .unwrap();
        for (args, extra) in [
            (VALIDATE_CSV, &[][..]),
            (&["convert", "--to", "jsonl"][..], &["-f", "jsonl"][..]),
        ] {
            // Without PGNKIT_LONG_TESTS, JSON Lines only for the name that
            // is not UTF-8 (the one its records escape).
            if !long_tests() && !extra.is_empty() && name.to_str().is_some() {
                continue;
            }
            let shards = make_shards(dir.path(), dir.path(), "f", args, name, &bounds);
            let merged = merge(dir.path(), extra, &shards);
            assert_eq!(code(&merged), 0, "{name:?} {args:?}: {}", stderr(&merged));
            assert!(
                merged.stdout == one_run(dir.path(), args, name),
                "{name:?} {args:?}"
            );
        }
    }
    // Two files of one relative name, from two directories: two files.
    let (d1, d2) = (dir.path().join("d1"), dir.path().join("d2"));
    std::fs::create_dir_all(&d1).unwrap();
    std::fs::create_dir_all(&d2).unwrap();
    std::fs::copy(&input, d1.join("x.pgn")).unwrap();
    std::fs::copy(fixture("pgn/twic1599_excerpt.pgn"), d2.join("x.pgn")).unwrap();
    let whole = [String::new(), String::new()];
    let mut shards = make_shards(&d1, &d1, "s", VALIDATE_CSV, os("x.pgn"), &whole);
    shards.extend(make_shards(
        &d2,
        &d2,
        "s",
        VALIDATE_CSV,
        os("x.pgn"),
        &whole,
    ));
    let merged = merge(dir.path(), &[], &shards);
    assert_eq!(code(&merged), 0, "{}", stderr(&merged));
    let rows = |b: &[u8]| b.iter().filter(|&&c| c == b'\n').count();
    let one = rows(&one_run(&d1, VALIDATE_CSV, os("x.pgn")))
        + rows(&one_run(&d2, VALIDATE_CSV, os("x.pgn")))
        - 1;
    assert_eq!(rows(&merged.stdout), one, "both files' rows, one header");
}

#[test]
fn merge_needs_no_temporary_directory_unless_it_reruns_and_names_it_then() {
    let dir = tempfile::tempdir().unwrap();
    let (input, bounds) = three(dir.path());
    let len = std::fs::metadata(&input).unwrap().len();
    // Whole-file shards need no rerun.
    let exact = [String::new(), String::new()];
    let shards = make_shards(
        dir.path(),
        dir.path(),
        "e",
        VALIDATE_CSV,
        input.as_os_str(),
        &exact,
    );
    let missing = dir.path().join("no-such-tmp");
    let out = pgnkit()
        .env("TMPDIR", &missing)
        .arg("merge")
        .args(&shards)
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(len > 0);
    let shards = make_shards(
        dir.path(),
        dir.path(),
        "r",
        VALIDATE_CSV,
        input.as_os_str(),
        &bounds,
    );
    let out = pgnkit()
        .env("TMPDIR", &missing)
        .arg("merge")
        .args(&shards)
        .output()
        .unwrap();
    refused(&out, "no-such-tmp", "a rerun without TMPDIR");
}

#[test]
fn sigterm_during_a_rerun_ends_the_child_and_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (input, _) = corpus(dir.path());
    // Ten copies: a rerun of nearly all of it takes a while.
    let one = std::fs::read(&input).unwrap();
    let big = dir.path().join("big.pgn");
    std::fs::write(&big, one.repeat(10)).unwrap();
    let inside = memchr::memmem::find(&one, b"[Event \"not a game").unwrap();
    let bounds = [String::new(), inside.to_string(), String::new()];
    let args = ["annotate-outcome", "-f", "csv"];
    let shards = make_shards(dir.path(), dir.path(), "s", &args, big.as_os_str(), &bounds);
    let tmp = dir.path().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let target = dir.path().join("out.csv");
    let child = pgnkit()
        .env("TMPDIR", &tmp)
        .arg("merge")
        .arg("-o")
        .arg(&target)
        .args(&shards)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait for the rerun's child to run: a process whose command line
    // names the temporary directory (its -o and --stats are there). No
    // process says when it has started, so this polls for it.
    let started = std::time::Instant::now();
    while !running_in(&tmp) {
        assert!(started.elapsed().as_secs() < 60, "the rerun never started");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let pid = child.id().to_string();
    assert!(
        Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success()
    );
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("interrupted"));
    assert!(
        std::fs::read_dir(&tmp).unwrap().next().is_none(),
        "the temporary directory is left"
    );
    assert!(!target.exists(), "a partial output is left");
    let litter = part_files(dir.path());
    assert!(litter.is_empty(), "{litter:?}");
    // No pgnkit is still running on that input.
    assert!(!running_in(&tmp), "the rerun's child is still running");
}

/// Whether a process runs whose command line names `dir`.
fn running_in(dir: &Path) -> bool {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(Result::ok)
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .any(|cmd| memchr::memmem::find(&cmd, dir.as_os_str().as_bytes()).is_some())
}

/// Whether the long test cases run (`PGNKIT_LONG_TESTS=1`, which `.ci/run`
/// sets): without it, `cargo test` runs a small sample of each.
pub fn long_tests() -> bool {
    std::env::var_os("PGNKIT_LONG_TESTS").is_some_and(|v| !v.is_empty() && v != "0")
}

/// A tiny deterministic generator (xorshift), seeded per run: the seed is
/// printed on failure, and `PGNKIT_SEED` replays it.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// Random tilings of a real multi-megabyte slice, for every mergeable
/// subcommand and format, with and without headers, merge into the bytes
/// of one run. Cuts fall anywhere, three bytes either side of a comment
/// holding a blank line and `[Event`, make empty shards, or lie past the
/// end of the file.
#[test]
fn random_tilings_merge_into_one_run() {
    let seed = std::env::var("PGNKIT_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
                | 1
        });
    let dir = tempfile::tempdir().unwrap();
    let (input, inside) = corpus(dir.path());
    let len = std::fs::metadata(&input).unwrap().len();
    let configs: [(&[&str], &[&str]); 10] = [
        (&["validate", "-f", "csv"], &[]),
        (&["validate", "-f", "jsonl"], &["-f", "jsonl"]),
        (&["annotate-outcome", "-f", "csv"], &[]),
        (&["annotate-outcome", "-f", "jsonl"], &["-f", "jsonl"]),
        (
            &["convert", "--to", "csv", "--tags", "WhiteElo,ECO,Opening"],
            &[],
        ),
        (&["convert", "--to", "jsonl"], &["-f", "jsonl"]),
        // Columnar shards: merged row by row into the batches and row
        // groups one run writes, so the bytes are one run's.
        (&["validate", "-f", "parquet"], &["-f", "parquet"]),
        (&["annotate-outcome", "-f", "arrow"], &["-f", "arrow"]),
        (&["convert", "--to", "parquet"], &["-f", "parquet"]),
        (
            &["convert", "--to", "parquet", "--positions", "all"],
            &["-f", "parquet"],
        ),
    ];
    // With PGNKIT_LONG_TESTS (CI), each thread cuts each of the 17
    // configurations eleven ways (374 plans, about 40 s); without it, the
    // threads share the configurations and cut each once (11 plans: no
    // headerless CSV but validate's).
    let long = long_tests();
    let plans_per_config = if long { 40 } else { 0 };
    let threads = 2;
    std::thread::scope(|scope| {
        for t in 0..threads {
            let input = &input;
            let dir = dir.path();
            scope.spawn(move || {
                let mut rng = Rng(seed.wrapping_add(t as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
                let mut combination = 0;
                for (c, (args, extra)) in configs.iter().enumerate() {
                    let columnar = extra.iter().any(|f| *f == "parquet" || *f == "arrow");
                    for headed in [true, false] {
                        if columnar && !headed {
                            continue;
                        }
                        // Without PGNKIT_LONG_TESTS, headerless CSV for
                        // the first configuration only.
                        if !long && !headed && c > 0 {
                            continue;
                        }
                        combination += 1;
                        if !long && combination % threads != t {
                            continue;
                        }
                        let mut shard_args = args.to_vec();
                        if !headed {
                            shard_args.push("--no-header");
                        }
                        let one = one_run(dir, &shard_args, input.as_os_str());
                        for p in 0..plans_per_config / 2 / threads + 1 {
                            // Up to 8 cuts with PGNKIT_LONG_TESTS (CI), up
                            // to 4 without: fewer runs a plan.
                            let cuts = 1 + rng.below(if long { 8 } else { 4 }) as usize;
                            let mut at: Vec<u64> = (0..cuts)
                                .map(|_| match rng.below(6) {
                                    0 => inside.saturating_sub(3),
                                    1 => inside + 3,
                                    2 => len + rng.below(1000),
                                    _ => rng.below(len),
                                })
                                .collect();
                            if rng.below(4) == 0 {
                                // A shard of zero bytes.
                                let dup = at[0];
                                at.push(dup);
                            }
                            at.sort_unstable();
                            let mut bounds = vec![String::new()];
                            bounds.extend(at.iter().map(u64::to_string));
                            bounds.push(String::new());
                            let name = format!("p{t}-{c}-{headed}-{p}-");
                            let sub = dir.join(&name);
                            std::fs::create_dir_all(&sub).unwrap();
                            let shards = make_shards(&sub, dir, "s", &shard_args, input.as_os_str(), &bounds);
                            let mut m = extra.to_vec();
                            if !headed {
                                m.push("--no-header");
                            }
                            let merged = merge(dir, &m, &shards);
                            assert_eq!(
                                code(&merged),
                                0,
                                "seed {seed}, {shard_args:?}, cuts {at:?}: {}",
                                stderr(&merged)
                            );
                            assert!(
                                merged.stdout == one,
                                "seed {seed}, {shard_args:?}, cuts {at:?}: merged differs from one run"
                            );
                            std::fs::remove_dir_all(&sub).unwrap();
                        }
                    }
                }
            });
        }
    });
}

/// Review of issue 20: the temporary-file-and-rename write keeps what a
/// user had: a symlink stays a link (its target gets the output), a FIFO
/// or device is written in place, an existing file keeps its mode, and a
/// new one gets the umask's mode, not 0600.
#[test]
fn outputs_keep_their_links_modes_and_kind() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let (input, bounds) = three(dir.path());
    let shards = make_shards(
        dir.path(),
        dir.path(),
        "k",
        VALIDATE_CSV,
        input.as_os_str(),
        &bounds,
    );
    let one = one_run(dir.path(), VALIDATE_CSV, input.as_os_str());
    let real = dir.path().join("real.csv");
    std::fs::write(&real, b"old").unwrap();
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o640)).unwrap();
    let link = dir.path().join("link.csv");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let out = merge(dir.path(), &["-o", link.to_str().unwrap()], &shards);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(std::fs::read(&real).unwrap() == one);
    assert_eq!(
        std::fs::metadata(&real).unwrap().permissions().mode() & 0o777,
        0o640
    );
    // A new file: the mode `>` would give it.
    let new = dir.path().join("new.csv");
    let out = merge(dir.path(), &["-o", new.to_str().unwrap()], &shards);
    assert_eq!(code(&out), 0);
    let by_shell = dir.path().join("by_shell.csv");
    std::fs::File::create(&by_shell).unwrap();
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&new), mode(&by_shell));
    // A FIFO stays a FIFO and its reader gets the output.
    let fifo = dir.path().join("out.fifo");
    mkfifo(&fifo);
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(fifo).unwrap())
    };
    let out = merge(dir.path(), &["-o", fifo.to_str().unwrap()], &shards);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(reader.join().unwrap() == one);
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    // Nothing written to a directory, and the reason is given at once.
    refused(
        &merge(dir.path(), &["-o", dir.path().to_str().unwrap()], &shards),
        "it is a directory",
        "-o DIR",
    );
}

/// Review of issue 20: SIGTERM or SIGINT to a run writing `-o` and the
/// problem-game files leaves no temporary file and the old files as they
/// were.
#[test]
fn an_interrupted_run_leaves_no_part_files() {
    let dir = tempfile::tempdir().unwrap();
    let (input, _) = corpus(dir.path());
    let big = dir.path().join("big.pgn");
    // Large enough that the run is still going when the signal comes, on a
    // loaded machine too (at 6 copies a CI run once ended before the kill).
    std::fs::write(&big, std::fs::read(&input).unwrap().repeat(40)).unwrap();
    let out_dir = dir.path().join("out");
    std::fs::create_dir_all(&out_dir).unwrap();
    let report = out_dir.join("report.csv");
    std::fs::write(&report, b"old").unwrap();
    for signal in ["-TERM", "-INT"] {
        let child = pgnkit()
            .args(["validate", "-q", "-j1", "-f", "csv", "-o"])
            .arg(&report)
            .arg("--bad-games")
            .arg(out_dir.join("bad.pgn"))
            .arg("--good-games")
            .arg(out_dir.join("good.pgn"))
            .arg(&big)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let started = std::time::Instant::now();
        let parts = || part_files(&out_dir).len();
        while parts() < 3 {
            assert!(
                started.elapsed().as_secs() < 60,
                "no temporary files appeared"
            );
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let pid = child.id().to_string();
        assert!(
            Command::new("kill")
                .args([signal, &pid])
                .status()
                .unwrap()
                .success()
        );
        let out = child.wait_with_output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(2),
            "{signal}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(parts(), 0, "{signal}: temporary files left");
        assert_eq!(std::fs::read(&report).unwrap(), b"old");
    }
}

/// A columnar shard is read back as untrusted input too: one replaced by a
/// Parquet file of other columns (or an Arrow stream where Parquet is
/// recorded), its statistics rewritten to match, is refused, and the old
/// output stays.
#[test]
fn a_columnar_shard_that_is_not_pgnkits_records_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (input, bounds) = three(dir.path());
    let args = ["validate", "-f", "parquet"];
    let shards = make_shards(
        dir.path(),
        dir.path(),
        "v",
        &args,
        input.as_os_str(),
        &bounds,
    );
    let good = merge(dir.path(), &["-f", "parquet"], &shards);
    assert_eq!(code(&good), 0, "{}", stderr(&good));
    assert_eq!(good.stdout, one_run(dir.path(), &args, input.as_os_str()));
    // The same bytes' shape from another subcommand: annotate-outcome's
    // Parquet, passed off as validate's.
    let other = dir.path().join("other");
    let out = run_in(
        dir.path(),
        &[
            os("annotate-outcome"),
            os("-q"),
            os("-f"),
            os("parquet"),
            os("-o"),
            other.as_os_str(),
            input.as_os_str(),
        ],
    );
    assert!(matches!(code(&out), 0 | 1), "{}", stderr(&out));
    let arrow = run_in(
        dir.path(),
        &[
            os("validate"),
            os("-q"),
            os("-f"),
            os("arrow"),
            input.as_os_str(),
        ],
    )
    .stdout;
    let target = dir.path().join("merged.parquet");
    std::fs::write(&target, b"old").unwrap();
    for (bytes, says) in [
        (
            std::fs::read(&other).unwrap(),
            "not pgnkit's parquet records",
        ),
        (arrow, "not Parquet"),
    ] {
        std::fs::write(&shards[1], &bytes).unwrap();
        edit_stats(&shards[1], |s| {
            let mut d = pgnkit::output::stats::Digest::default();
            d.update(&bytes);
            s.output.bytes = d.len();
            s.output.digest = d.hex();
        });
        let out = merge(
            dir.path(),
            &["-f", "parquet", "-o", target.to_str().unwrap()],
            &shards,
        );
        assert_eq!(code(&out), 2, "{}", stderr(&out));
        assert!(stderr(&out).contains(says), "{says}: {}", stderr(&out));
        assert_eq!(std::fs::read(&target).unwrap(), b"old");
    }
}

/// `merge --plan`: the walk merge takes, as JSON, for a program that runs
/// the shards and their reruns itself (the Spark job). The program reruns
/// what the plan asks for, asks again with the rerun's statistics, and
/// gets what one run gives: the same records, renumbered the same way.
#[test]
fn plan_gives_a_program_the_walk_merge_takes() {
    let dir = tempfile::tempdir().unwrap();
    let (input, bounds) = three(dir.path());
    let args = ["annotate-outcome", "-f", "jsonl"];
    let shards = make_shards(
        dir.path(),
        dir.path(),
        "p",
        &args,
        input.as_os_str(),
        &bounds,
    );
    // Given out of order: shards are named by their place here.
    let stats: Vec<PathBuf> = shards.iter().rev().map(|s| stats_of(s)).collect();
    let plan = |reruns: &[PathBuf]| {
        let mut all: Vec<&OsStr> = vec![os("merge"), os("--plan")];
        all.extend(stats.iter().map(|s| s.as_os_str()));
        for r in reruns {
            all.extend([os("--rerun"), r.as_os_str()]);
        }
        let out = run_in(dir.path(), &all);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let first = plan(&[]);
    assert_eq!(first["complete"], false);
    let file = &first["files"][0];
    assert_eq!(file["shards"], serde_json::json!([2, 1, 0]));
    let rerun = &file["rerun"];
    assert_eq!(rerun["shard"], 1, "{first}");
    assert_eq!(rerun["end"], bounds[2].parse::<u64>().unwrap());
    let from = rerun["from_byte"].as_u64().unwrap();
    assert!(from > bounds[1].parse().unwrap());
    // Run it as asked, and ask again.
    let again = make_shards(
        dir.path(),
        dir.path(),
        "r",
        &args,
        input.as_os_str(),
        &[from.to_string(), bounds[2].clone()],
    );
    let done = plan(&[stats_of(&again[0])]);
    assert_eq!(done["complete"], true, "{done}");
    let one = one_run(dir.path(), &args, input.as_os_str());
    let lines: Vec<&[u8]> = one
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    assert_eq!(done["records"], lines.len());
    let accepted = done["files"][0]["accepted"].as_array().unwrap();
    let kept = [(2, None), (1, Some(0)), (0, None)];
    assert_eq!(accepted.len(), 3);
    for (a, (shard, rerun)) in accepted.iter().zip(kept) {
        assert_eq!(
            (&a["shard"], a["rerun"].as_u64()),
            (&serde_json::json!(shard), rerun)
        );
        // The first record of each run is the one-run record at its place,
        // with its game shifted by `games_before`.
        let output = if rerun.is_some() {
            &again[0]
        } else {
            &shards[2 - shard]
        };
        let text = std::fs::read(output).unwrap();
        let Some(record) = text.split(|&b| b == b'\n').next().filter(|l| !l.is_empty()) else {
            continue;
        };
        let record: serde_json::Value = serde_json::from_slice(record).unwrap();
        let at = a["records_before"].as_u64().unwrap() as usize;
        let whole: serde_json::Value = serde_json::from_slice(lines[at]).unwrap();
        let game = record["game"].as_u64().unwrap() + a["games_before"].as_u64().unwrap();
        assert_eq!(whole["game"], game);
        assert_eq!(whole["offset"], record["offset"]);
    }
    // Refused: a gap, and a rerun no walk asks for.
    let gap = run_in(
        dir.path(),
        &[
            os("merge"),
            os("--plan"),
            stats[0].as_os_str(),
            stats[2].as_os_str(),
        ],
    );
    refused(&gap, "no shard holds bytes", "a gap in a plan");
    let stray = run_in(
        dir.path(),
        &[
            os("merge"),
            os("--plan"),
            stats[0].as_os_str(),
            stats[1].as_os_str(),
            stats[2].as_os_str(),
            os("--rerun"),
            stats[1].as_os_str(),
        ],
    );
    refused(&stray, "the same shard", "a shard as its own rerun");
    let copy = dir.path().join("copy.stats.json");
    std::fs::copy(stats_of(&again[0]), &copy).unwrap();
    let twice = run_in(
        dir.path(),
        &[
            os("merge"),
            os("--plan"),
            stats[0].as_os_str(),
            stats[1].as_os_str(),
            stats[2].as_os_str(),
            os("--rerun"),
            stats_of(&again[0]).as_os_str(),
            os("--rerun"),
            copy.as_os_str(),
        ],
    );
    refused(&twice, "no shard's walk asks for a rerun", "a rerun twice");
}
