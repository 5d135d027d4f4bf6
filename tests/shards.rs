//! Byte-range shards: ranges that tile a file, merged by `pgnkit merge`,
//! give byte for byte the output of one run over the whole file, even when
//! a boundary falls inside a comment that holds a blank line and `[Event`.

use std::path::{Path, PathBuf};

use crate::util::{code, fixture, run, stderr, stdout};

/// A game whose comment holds a blank line and a tag line: a shard boundary
/// placed there starts a shard inside a game.
pub const COMMENT_GAME: &[u8] =
    b"[Event \"Shard boundary\"]\r\n[Site \"?\"]\r\n[Date \"????.??.??\"]\r\n\
[Round \"?\"]\r\n[White \"A\"]\r\n[Black \"B\"]\r\n[Result \"1-0\"]\r\n\r\n\
1. e4 {a note\r\n\r\n[Event \"not a game\"]\r\n\r\n1. d4 d5 (1... Nf6) } e5 2. Qh5 Nc6 \
3. Bc4 Nf6 4. Qxf7# 1-0\r\n\r\n";

/// The real corpus with the comment game inserted about a third of the
/// way in, written to `dir`; also where the comment's `[Event` lies.
pub fn corpus(dir: &Path) -> (PathBuf, u64) {
    let packed = std::fs::read(fixture("corpus/pgnmentor-2mb.pgn.zst")).unwrap();
    let mut pgn = zstd::decode_all(&packed[..]).unwrap();
    let third = pgn.len() / 3;
    let at = third + memchr::memmem::find(&pgn[third..], b"\r\n\r\n[Event ").unwrap() + 4;
    pgn.splice(at..at, COMMENT_GAME.iter().copied());
    let inside = at + memchr::memmem::find(COMMENT_GAME, b"[Event \"not a game").unwrap();
    let path = dir.join("corpus.pgn");
    std::fs::write(&path, &pgn).unwrap();
    (path, inside as u64)
}

/// Runs `args` on each range of `bounds` (consecutive pairs) with
/// `--stats`, merges the shards and returns the merged bytes.
fn sharded(dir: &Path, args: &[&str], input: &Path, bounds: &[String], merge: &[&str]) -> String {
    let mut shards = Vec::new();
    for (i, pair) in bounds.windows(2).enumerate() {
        let out = dir.join(format!("shard{i}.{}", args[0]));
        let stats = dir.join(format!("shard{i}.{}.stats.json", args[0]));
        let range = format!("{}..{}", pair[0], pair[1]);
        let mut all: Vec<&str> = args.to_vec();
        all.extend([
            "-q",
            "-j2",
            "--byte-range",
            &range,
            "--stats",
            stats.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            input.to_str().unwrap(),
        ]);
        let result = run(&all, None);
        assert!(
            matches!(code(&result), 0 | 1),
            "{range}: {}",
            stderr(&result)
        );
        shards.push(out);
    }
    // Given out of order: merge orders shards by their statistics.
    shards.reverse();
    let mut all = vec!["merge"];
    all.extend_from_slice(merge);
    all.extend(shards.iter().map(|s| s.to_str().unwrap()));
    let merged = run(&all, None);
    assert_eq!(code(&merged), 0, "{}", stderr(&merged));
    stdout(&merged)
}

fn whole(args: &[&str], input: &Path) -> String {
    let mut all: Vec<&str> = args.to_vec();
    if args.first() == Some(&"validate") {
        all.extend(["--ignore", crate::merge::TOURNAMENT_CODES]);
    }
    all.extend(["-q", "-j1", input.to_str().unwrap()]);
    let out = run(&all, None);
    assert!(matches!(code(&out), 0 | 1), "{}", stderr(&out));
    stdout(&out)
}

#[test]
fn seven_uneven_shards_merge_into_the_whole_output() {
    let dir = tempfile::tempdir().unwrap();
    let (input, inside) = corpus(dir.path());
    let len = std::fs::metadata(&input).unwrap().len();
    // Uneven ranges, one boundary inside the comment (that shard begins
    // inside a game: merge runs it again from where the game ended), one
    // range of a single byte, and open ends.
    let bounds: Vec<String> = vec![
        String::new(),
        "1000".into(),
        (len / 5).to_string(),
        inside.to_string(),
        (len / 2).to_string(),
        (len / 2 + 1).to_string(),
        (len * 3 / 4).to_string(),
        String::new(),
    ];
    assert_eq!(bounds.len() - 1, 7);
    let configs: [(&[&str], &[&str]); 5] = [
        (&["validate", "-f", "csv"], &[]),
        (&["convert", "--to", "jsonl"], &["-f", "jsonl"]),
        (&["annotate-outcome", "-f", "csv"], &[]),
        (
            &["convert", "--to", "csv", "--tags", "WhiteElo,BlackElo,ECO"],
            &[],
        ),
        (&["validate", "-f", "jsonl"], &["-f", "jsonl"]),
    ];
    // Every one with PGNKIT_LONG_TESTS (CI); a CSV and a JSON Lines one
    // without (random_tilings_merge_into_one_run cuts the others).
    let take = if crate::merge::long_tests() { 5 } else { 2 };
    for (args, merge) in &configs[..take] {
        let one = whole(args, &input);
        assert!(one.lines().count() > 20, "{args:?}: {one}");
        let merged = sharded(dir.path(), args, &input, &bounds, merge);
        assert!(merged == one, "{args:?}: merged shards differ from one run");
    }
    // A range that lies wholly inside the comment: the shard before reads
    // through it, and merge skips it.
    let args = ["validate", "-f", "csv"];
    let inner = [
        String::new(),
        inside.to_string(),
        (inside + 9).to_string(),
        String::new(),
    ];
    let merged = sharded(dir.path(), &args, &input, &inner, &[]);
    assert!(merged == whole(&args, &input));
}

#[test]
fn stats_say_where_each_shard_began_and_ended() {
    let dir = tempfile::tempdir().unwrap();
    let (input, inside) = corpus(dir.path());
    let stats = dir.path().join("s.json");
    let range = format!("{}..{}", inside - 200, inside);
    let out = run(
        &[
            "validate",
            "-q",
            "--byte-range",
            &range,
            "--stats",
            stats.to_str().unwrap(),
            input.to_str().unwrap(),
        ],
        None,
    );
    assert!(matches!(code(&out), 0 | 1), "{}", stderr(&out));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    let s = &v["inputs"][0];
    let pgn = std::fs::read(&input).unwrap();
    let first = s["first_byte"].as_u64().unwrap() as usize;
    let limit = s["limit"].as_u64().unwrap();
    let end = s["end_byte"].as_u64().unwrap() as usize;
    // It began at a game and ended past the comment, at the next game.
    assert!(pgn[first..].starts_with(b"[Event \"Shard boundary\"]"));
    assert_eq!(limit, inside, "the comment's `[Event` is a cut point");
    assert!(end > inside as usize);
    assert!(
        pgn[end..].starts_with(b"[Event "),
        "{:?}",
        &pgn[end..end + 20]
    );
    assert_eq!(s["games"], 1);
    assert_eq!(s["first_offset"].as_u64(), Some(first as u64));
    let newlines = pgn[first..end].iter().filter(|&&b| b == b'\n').count();
    assert_eq!(s["lines"].as_u64(), Some(newlines as u64));
    assert_eq!(v["args"][0], "validate");
}

#[test]
fn no_header_drops_only_the_header() {
    let path = "fixtures/pgn/ambiguous_move.pgn";
    let with = stdout(&run(&["validate", "-q", "-f", "csv", path], None));
    let without = stdout(&run(
        &["validate", "-q", "-f", "csv", "--no-header", path],
        None,
    ));
    let (header, rows) = with.split_once('\n').unwrap();
    assert!(header.starts_with("file,game,offset,"));
    assert_eq!(without, rows);
}

#[test]
fn ranges_are_refused_where_offsets_mean_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let compressed = fixture("corpus/pgnmentor-2mb.pgn.zst");
    let out = run(
        &[
            "validate",
            "--byte-range",
            "0..100",
            compressed.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("compressed"), "{}", stderr(&out));

    let out = run(
        &["validate", "--byte-range", "0..100"],
        Some(b"[Event \"x\"]\n\n*\n"),
    );
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("standard input"), "{}", stderr(&out));

    let a = "fixtures/pgn/ambiguous_move.pgn";
    let out = run(&["validate", "--byte-range", "0..100", a, a], None);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("exactly one input"),
        "{}",
        stderr(&out)
    );

    let out = run(&["validate", "--byte-range", "9..3", a], None);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("ends before it starts"),
        "{}",
        stderr(&out)
    );

    // Shards that leave a gap are not merged.
    let (input, _) = corpus(dir.path());
    let mut shards = Vec::new();
    for (i, range) in ["0..1000", "500000..600000"].iter().enumerate() {
        let out = dir.path().join(format!("gap{i}.csv"));
        let stats = dir.path().join(format!("gap{i}.csv.stats.json"));
        run(
            &[
                "validate",
                "-q",
                "-f",
                "csv",
                "--byte-range",
                range,
                "--stats",
                stats.to_str().unwrap(),
                "-o",
                out.to_str().unwrap(),
                input.to_str().unwrap(),
            ],
            None,
        );
        shards.push(out.to_str().unwrap().to_owned());
    }
    let out = run(&["merge", &shards[0], &shards[1]], None);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("tile"), "{}", stderr(&out));
}

/// Several compressed inputs (zstd, gzip, bzip2, plain) and a missing one,
/// read one at a time (`-j1`) or several at once (`-j8` starts two
/// readers): the same bytes, in input order.
#[test]
fn inputs_read_at_once_give_the_same_bytes_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let packed = std::fs::read(fixture("corpus/pgnmentor-2mb.pgn.zst")).unwrap();
    let pgn = zstd::decode_all(&packed[..]).unwrap();
    // Five parts cut at game boundaries, of uneven sizes.
    let mut parts = Vec::new();
    let mut from = 0;
    for frac in [0.3, 0.35, 0.7, 0.9] {
        let at = (pgn.len() as f64 * frac) as usize;
        let cut = at + memchr::memmem::find(&pgn[at..], b"\r\n\r\n[Event ").unwrap() + 4;
        parts.push(pgn[from..cut].to_vec());
        from = cut;
    }
    parts.push(pgn[from..].to_vec());
    let mut files = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        let (name, bytes) = match i {
            0 | 3 => (
                format!("p{i}.pgn.zst"),
                zstd::encode_all(&part[..], 3).unwrap(),
            ),
            1 => {
                let mut gz = flate2::write::GzEncoder::new(Vec::new(), Default::default());
                std::io::Write::write_all(&mut gz, part).unwrap();
                (format!("p{i}.pgn.gz"), gz.finish().unwrap())
            }
            2 => {
                let mut bz = bzip2::write::BzEncoder::new(Vec::new(), Default::default());
                std::io::Write::write_all(&mut bz, part).unwrap();
                (format!("p{i}.pgn.bz2"), bz.finish().unwrap())
            }
            _ => (format!("p{i}.pgn"), part.clone()),
        };
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        files.push(path.to_str().unwrap().to_owned());
    }
    files.insert(
        2,
        dir.path().join("missing.pgn").to_str().unwrap().to_owned(),
    );
    for args in [
        &["validate", "-f", "csv"][..],
        &["annotate-outcome", "-f", "jsonl"],
        &["convert", "--to", "pgn"],
        &["convert", "--to", "csv", "--tags", "ECO"],
    ] {
        let outputs: Vec<(i32, String)> = ["-j1", "-j2", "-j8"]
            .iter()
            .map(|j| {
                let mut all: Vec<&str> = args.to_vec();
                all.extend(["-q", j]);
                all.extend(files.iter().map(String::as_str));
                let out = run(&all, None);
                (code(&out), stdout(&out))
            })
            .collect();
        assert_eq!(outputs[0].0, 2, "{args:?}: a missing input fails the run");
        assert!(outputs[0].1.len() > 1000);
        for other in &outputs[1..] {
            assert!(*other == outputs[0], "{args:?}: differs across -j");
        }
    }
}
