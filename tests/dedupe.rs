//! `pgnkit dedupe` (issue 44): repeats found, grouped, told apart, and
//! every game read either kept or left out, byte for byte.

use crate::util::{CHUNK, code, multi_chunk_pgn, run, stderr, stdout};

/// Ten games: one game in seven copies of four kinds, a truncated copy,
/// another move order, another game (fixtures/dedupe/README.md).
const PLANTED: &str = "fixtures/dedupe/planted.pgn";

/// The games of PGN `text` as they were read: cut before each `[Event`
/// that starts a line after a blank line (the fixtures' games all start
/// so).
fn games_of(text: &[u8]) -> Vec<Vec<u8>> {
    let mut starts = vec![0];
    for i in 1..text.len() {
        if text[i..].starts_with(b"[Event ") && text[..i].ends_with(b"\n\n") {
            starts.push(i);
        }
    }
    starts.push(text.len());
    starts
        .windows(2)
        .map(|w| text[w[0]..w[1]].to_vec())
        .collect()
}

/// The report's rows as (game, role, kind, tags_differ).
fn rows(csv: &[u8]) -> Vec<(u64, String, String, String)> {
    let mut reader = csv::Reader::from_reader(csv);
    let header = reader.headers().unwrap().clone();
    let at = |name: &str| header.iter().position(|h| h == name).unwrap();
    let (game, role, kind, differ) = (at("game"), at("role"), at("kind"), at("tags_differ"));
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            (
                r[game].parse().unwrap(),
                r[role].to_owned(),
                r[kind].to_owned(),
                r[differ].to_owned(),
            )
        })
        .collect()
}

#[test]
fn planted_repeats_are_grouped_with_their_kinds() {
    let out = run(&["dedupe", "-q", "-f", "csv", PLANTED], None);
    assert_eq!(code(&out), 1, "repeats were found: {}", stderr(&out));
    let rows = rows(&out.stdout);
    let expected: Vec<(u64, &str, &str, &str)> = vec![
        (1, "kept", "", ""),
        (2, "repeat", "exact", ""),
        (3, "repeat", "tags-differ", "Round White"),
        (4, "repeat", "result-differs", "Result"),
        (5, "repeat", "prefix", "Result"),
        (7, "repeat", "exact", ""),
        (9, "repeat", "tags-differ", "Black"),
        (10, "repeat", "tags-differ", "Black"),
    ];
    let got: Vec<(u64, &str, &str, &str)> = rows
        .iter()
        .map(|(g, r, k, d)| (*g, r.as_str(), k.as_str(), d.as_str()))
        .collect();
    assert_eq!(got, expected);
    // Games 9 and 10 (one in UTF-8, one in Latin-1) are one game and
    // read as one tag value.
    let text = run(&["dedupe", "-q", "-f", "text", PLANTED], None);
    assert!(
        stdout(&text).contains("group 1: 8 copies of"),
        "{}",
        stdout(&text)
    );
    // Clean input: no repeat, exit 0, an empty report.
    let out = run(
        &["dedupe", "-q", "-f", "csv", "fixtures/pgn/chess960.pgn"],
        None,
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out).lines().count(), 1, "the header only");
}

#[test]
fn every_game_is_kept_or_left_out_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let dups = dir.path().join("dups.pgn");
    let out = run(
        &[
            "dedupe",
            "-q",
            "--duplicates",
            dups.to_str().unwrap(),
            PLANTED,
        ],
        None,
    );
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let games = games_of(&std::fs::read(PLANTED).unwrap());
    assert_eq!(games.len(), 10);
    let pick = |numbers: &[usize]| -> Vec<u8> {
        numbers.iter().flat_map(|&n| games[n - 1].clone()).collect()
    };
    assert!(out.stdout == pick(&[1, 6, 8]), "the games kept");
    assert!(
        std::fs::read(&dups).unwrap() == pick(&[2, 3, 4, 5, 7, 9, 10]),
        "the repeats"
    );
    // With a report on standard output, --unique holds the games kept.
    let unique = dir.path().join("unique.pgn");
    let out = run(
        &[
            "dedupe",
            "-q",
            "-f",
            "jsonl",
            "--unique",
            unique.to_str().unwrap(),
            PLANTED,
        ],
        None,
    );
    assert_eq!(stdout(&out).lines().count(), 8);
    assert!(
        std::fs::read(&unique).unwrap() == pick(&[1, 6, 8]),
        "--unique"
    );
}

#[test]
fn keep_picks_the_copy_with_the_most_tags_or_bytes() {
    let games = games_of(&std::fs::read(PLANTED).unwrap());
    // A later copy with one tag more, then the annotated copy (game 7).
    let mut more = games[1].clone();
    let at = more.windows(2).position(|w| w == b"\n\n").unwrap();
    more.splice(at..at, b"\n[Annotator \"x\"]".iter().copied());
    let mut input = games[0].clone();
    input.extend_from_slice(&more);
    input.extend_from_slice(&games[6]);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("three.pgn");
    std::fs::write(&path, &input).unwrap();
    let path = path.to_str().unwrap();
    let kept = |keep: &str| -> u64 {
        let out = run(&["dedupe", "-q", "-f", "csv", "--keep", keep, path], None);
        rows(&out.stdout)
            .into_iter()
            .find(|r| r.1 == "kept")
            .map(|r| r.0)
            .unwrap()
    };
    assert_eq!(kept("first"), 1);
    assert_eq!(kept("most-tags"), 2);
    assert_eq!(kept("longest"), 3);
    // The games kept are written in input order, whichever is kept.
    let out = run(&["dedupe", "-q", "--keep", "most-tags", path], None);
    assert_eq!(out.stdout, more);
}

#[test]
fn the_same_bytes_for_any_thread_count() {
    // Several chunks, every game repeated twice over.
    let once = multi_chunk_pgn(CHUNK);
    let mut twice = once.clone();
    twice.extend_from_slice(&once);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("twice.pgn");
    std::fs::write(&path, &twice).unwrap();
    let path = path.to_str().unwrap();
    for format in ["pgn", "csv", "text"] {
        let one = run(&["dedupe", "-q", "-j1", "-f", format, path], None);
        let three = run(&["dedupe", "-q", "-j3", "-f", format, path], None);
        assert_eq!(code(&one), 1, "{}", stderr(&one));
        assert!(
            one.stdout == three.stdout,
            "-f {format}: -j1 and -j3 differ"
        );
    }
    // Every game of the first copy is kept, or repeats one kept earlier.
    let kept = run(&["dedupe", "-q", path], None);
    assert!(kept.stdout.len() <= once.len());
}

#[test]
fn inputs_that_cannot_be_read_twice_are_refused() {
    let pgn = std::fs::read(PLANTED).unwrap();
    let out = run(&["dedupe", "-"], Some(&pgn));
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("reads its inputs twice"),
        "{}",
        stderr(&out)
    );
    let out = run(&["dedupe", "--unique", "u.pgn", PLANTED], None);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("--unique goes with a report format"));
    assert!(!std::path::Path::new("u.pgn").exists());
}

#[test]
fn places_are_the_games_own_and_compressed_input_reads_alike() {
    let text = std::fs::read(PLANTED).unwrap();
    let out = run(&["dedupe", "-q", "-f", "csv", PLANTED], None);
    let mut reader = csv::Reader::from_reader(out.stdout.as_slice());
    let header = reader.headers().unwrap().clone();
    let at = |name: &str| header.iter().position(|h| h == name).unwrap();
    let (offset, line) = (at("offset"), at("line"));
    for row in reader.records() {
        let row = row.unwrap();
        let offset: usize = row[offset].parse().unwrap();
        assert!(text[offset..].starts_with(b"[Event "), "{row:?}");
        let lines = text[..offset].iter().filter(|&&b| b == b'\n').count() + 1;
        assert_eq!(row[line].parse::<usize>().unwrap(), lines, "{row:?}");
    }
    // The same file gzipped: the same games kept and the same groups.
    let dir = tempfile::tempdir().unwrap();
    let gz = dir.path().join("planted.pgn.gz");
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut encoder, &text).unwrap();
    std::fs::write(&gz, encoder.finish().unwrap()).unwrap();
    let plain = run(&["dedupe", "-q", PLANTED], None);
    let packed = run(&["dedupe", "-q", gz.to_str().unwrap()], None);
    assert_eq!(plain.stdout, packed.stdout);
    let csv = run(&["dedupe", "-q", "-f", "csv", gz.to_str().unwrap()], None);
    let strip = |s: String| s.replace(gz.to_str().unwrap(), PLANTED);
    assert_eq!(strip(stdout(&csv)), stdout(&out));
}

#[test]
fn transpositions_join_their_group_when_asked() {
    let out = run(
        &["dedupe", "-q", "-f", "csv", "--transpositions", PLANTED],
        None,
    );
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let mut reader = csv::Reader::from_reader(out.stdout.as_slice());
    let header = reader.headers().unwrap().clone();
    let at = |name: &str| header.iter().position(|h| h == name).unwrap();
    let (game, kind, key) = (at("game"), at("kind"), at("key"));
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    let transposed: Vec<&csv::StringRecord> =
        rows.iter().filter(|r| &r[kind] == "transposed").collect();
    assert_eq!(transposed.len(), 1);
    assert_eq!(&transposed[0][game], "6");
    // Its key is its own: another move order is another game.
    assert_ne!(&transposed[0][key], &rows[0][key]);
    // The truncated copy (game 5) is there as a prefix, not a transposition.
    let five = rows.iter().find(|r| &r[game] == "5").unwrap();
    assert_eq!(&five[kind], "prefix");
}

#[test]
fn against_an_archive_leaves_out_the_games_it_holds() {
    // The TWIC excerpt's first two games are in the planted archive.
    let twic = "fixtures/pgn/twic1599_excerpt.pgn";
    let games = games_of(&std::fs::read(twic).unwrap());
    assert_eq!(games.len(), 12);
    for keep in ["first", "most-tags"] {
        let out = run(
            &["dedupe", "-q", "--keep", keep, "--against", PLANTED, twic],
            None,
        );
        assert_eq!(code(&out), 1, "{}", stderr(&out));
        let rest: Vec<u8> = games[2..].concat();
        assert_eq!(
            out.stdout, rest,
            "--keep {keep}: the archive's copy is the one kept"
        );
    }
    let report = run(
        &["dedupe", "-q", "-f", "csv", "--against", PLANTED, twic],
        None,
    );
    let rows = rows(&report.stdout);
    let roles: Vec<(u64, &str)> = rows.iter().map(|r| (r.0, r.1.as_str())).collect();
    assert_eq!(
        roles,
        [(1, "kept"), (1, "repeat"), (8, "kept"), (2, "repeat")],
        "only the groups that hold an input's game, the archive's copy kept"
    );
    // Nothing of the archive is repeated in it alone: no input, no report.
    let out = run(&["dedupe", "-q", "--against", PLANTED, PLANTED], None);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("both an input and an archive"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_prefix_needs_the_same_pairing_so_a_shared_opening_is_no_repeat() {
    let games = games_of(&std::fs::read(PLANTED).unwrap());
    // A game of other players that is the first 28 plies of this one: it
    // only shares the opening; then the truncated copy with a name spelt
    // another way.
    let other = String::from_utf8(games[4].clone())
        .unwrap()
        .replace("Praggnanandhaa,R", "Someone,Else");
    let cut = other.find(" 15. ").unwrap();
    let other = format!("{} *\n\n", &other[..cut]);
    let respelt = String::from_utf8(games[4].clone())
        .unwrap()
        .replace("Praggnanandhaa,R", "Praggnanandhaa, Rameshbabu");
    let mut input = games[0].clone();
    input.extend_from_slice(other.as_bytes());
    input.extend_from_slice(respelt.as_bytes());
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("opening.pgn");
    std::fs::write(&path, &input).unwrap();
    let out = run(&["dedupe", "-q", "-f", "csv", path.to_str().unwrap()], None);
    let got: Vec<(u64, String)> = rows(&out.stdout).into_iter().map(|r| (r.0, r.2)).collect();
    assert_eq!(got, [(1, String::new()), (3, "prefix".to_owned())]);
}

/// `validate`'s findings of code `duplicate-game` in CSV `report`: (game,
/// message).
fn duplicate_findings(report: &[u8]) -> Vec<(u64, String)> {
    let mut reader = csv::Reader::from_reader(report);
    let header = reader.headers().unwrap().clone();
    let at = |name: &str| header.iter().position(|h| h == name).unwrap();
    let (game, code, message) = (at("game"), at("code"), at("message"));
    reader
        .records()
        .map(Result::unwrap)
        .filter(|r| &r[code] == "duplicate-game")
        .map(|r| (r[game].parse().unwrap(), r[message].to_owned()))
        .collect()
}

#[test]
fn validate_names_the_first_copy_of_each_repeat() {
    // Every game dedupe puts in a group by its own key (not a truncated
    // copy, not another move order) is a duplicate-game beside the first.
    let report = run(&["dedupe", "-q", "-f", "csv", PLANTED], None);
    let same_key: Vec<u64> = rows(&report.stdout)
        .into_iter()
        .filter(|(_, role, kind, _)| role == "repeat" && kind != "prefix" && kind != "transposed")
        .map(|(game, ..)| game)
        .collect();
    let out = run(&["validate", "-q", "-f", "csv", PLANTED], None);
    assert_eq!(code(&out), 0, "warnings alone: {}", stderr(&out));
    let found = duplicate_findings(&out.stdout);
    assert_eq!(found.iter().map(|(g, _)| *g).collect::<Vec<_>>(), same_key);
    assert!(
        found
            .iter()
            .all(|(_, m)| m.starts_with("a repeat of game 1 (line 1):")),
        "{found:?}"
    );
    // Games without moves (here two placeholders of one pairing) record no
    // game: neither command groups them.
    let empty = "fixtures/pgn/bom.pgn";
    let out = run(&["dedupe", "-f", "csv", empty], None);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out).lines().count(), 1, "the header only");
    assert!(stderr(&out).contains("2 without moves"), "{}", stderr(&out));
    let out = run(&["validate", "-q", "-f", "csv", empty], None);
    assert!(duplicate_findings(&out.stdout).is_empty());
    // --ignore leaves them out, as for every code; --fail-on makes them fail.
    let ignored = run(
        &[
            "validate",
            "-q",
            "-f",
            "csv",
            "--ignore",
            "duplicate-game",
            PLANTED,
        ],
        None,
    );
    assert!(duplicate_findings(&ignored.stdout).is_empty());
    let failing = run(
        &["validate", "-q", "--fail-on", "duplicate-game", PLANTED],
        None,
    );
    assert_eq!(code(&failing), 1, "{}", stderr(&failing));

    // A second file: each of its games is a repeat of the first file's.
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("again.pgn");
    std::fs::copy(PLANTED, &copy).unwrap();
    let out = run(
        &[
            "validate",
            "-q",
            "-f",
            "csv",
            PLANTED,
            copy.to_str().unwrap(),
        ],
        None,
    );
    let mut reader = csv::Reader::from_reader(&out.stdout[..]);
    let header = reader.headers().unwrap().clone();
    let file = header.iter().position(|h| h == "file").unwrap();
    let message = header.iter().position(|h| h == "message").unwrap();
    let second: Vec<String> = reader
        .records()
        .map(Result::unwrap)
        .filter(|r| r[file].ends_with("again.pgn") && r[message].starts_with("a repeat"))
        .map(|r| r[message].to_owned())
        .collect();
    // Ten games, all replayed: each one's first copy is in the first file
    // (the first game, or, for the two of other moves, themselves there).
    assert_eq!(second.len(), 10, "{second:?}");
    assert!(
        second
            .iter()
            .all(|m| m.contains(&format!(" of {PLANTED} (line "))),
        "{second:?}"
    );
}

#[test]
fn validate_shards_leave_duplicates_to_the_whole_run() {
    // A shard sees only its games: it reports none, and its merge reads
    // as one run that ignores the code.
    let dir = tempfile::tempdir().unwrap();
    let len = std::fs::metadata(PLANTED).unwrap().len();
    let mut shards = Vec::new();
    for (i, range) in [format!("0..{}", len / 2), format!("{}..", len / 2)]
        .iter()
        .enumerate()
    {
        let out = dir.path().join(format!("s{i}.csv"));
        let stats = dir.path().join(format!("s{i}.csv.stats.json"));
        let shard = run(
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
                PLANTED,
            ],
            None,
        );
        assert_eq!(code(&shard), 0, "{}", stderr(&shard));
        shards.push(out.to_str().unwrap().to_owned());
    }
    let mut args = vec!["merge"];
    args.extend(shards.iter().map(String::as_str));
    let merged = run(&args, None);
    assert_eq!(code(&merged), 0, "{}", stderr(&merged));
    let whole = run(
        &[
            "validate",
            "-q",
            "-f",
            "csv",
            "--ignore",
            "duplicate-game",
            PLANTED,
        ],
        None,
    );
    assert!(merged.stdout == whole.stdout, "{}", stdout(&merged));
    for flag in ["--only", "--fail-on"] {
        let refused = run(
            &[
                "validate",
                flag,
                "duplicate-game",
                "--byte-range",
                "0..",
                PLANTED,
            ],
            None,
        );
        assert_eq!(code(&refused), 2, "{flag}");
        assert!(
            stderr(&refused).contains("--byte-range"),
            "{}",
            stderr(&refused)
        );
    }
}

#[test]
fn no_prefix_groups_only_games_with_one_key() {
    let all = rows(&run(&["dedupe", "-q", "-f", "csv", PLANTED], None).stdout);
    let out = run(&["dedupe", "-f", "csv", "--no-prefix", PLANTED], None);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let without: Vec<_> = all.into_iter().filter(|r| r.2 != "prefix").collect();
    assert_eq!(rows(&out.stdout), without);
    assert!(
        stderr(&out).contains("6 repeats left out"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn the_report_names_each_game_as_convert_does() {
    // Every fixture, then all of them again in one file: each game that
    // replays has a repeat, so the report names every such game; its
    // players, event, round and offset are convert's (a blank line inside
    // the tags, a glued tag, Latin-1 and all).
    let mut files: Vec<String> = std::fs::read_dir("fixtures/pgn")
        .unwrap()
        .map(|e| e.unwrap().path().to_str().unwrap().to_owned())
        .filter(|p| p.ends_with(".pgn"))
        .collect();
    files.sort();
    let dir = tempfile::tempdir().unwrap();
    let all = dir.path().join("all.pgn");
    let mut bytes = Vec::new();
    for f in &files {
        bytes.extend(std::fs::read(f).unwrap());
        bytes.extend_from_slice(b"\n\n");
    }
    std::fs::write(&all, bytes).unwrap();
    let mut args: Vec<&str> = vec!["dedupe", "-q", "-f", "jsonl"];
    args.extend(files.iter().map(String::as_str));
    args.push(all.to_str().unwrap());
    let report = run(&args, None);
    assert!(matches!(code(&report), 0 | 1), "{}", stderr(&report));
    args[0] = "convert";
    let games = run(&args, None);
    type Names = (
        Option<String>,
        Option<String>,
        Option<String>,
        Option<String>,
    );
    let mut want: std::collections::HashMap<(String, u64), Names> = Default::default();
    for line in stdout(&games).lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let tag = |n: &str| v["tags"][n].as_str().map(str::to_owned);
        let place = (
            v["file"].as_str().unwrap().to_owned(),
            v["game"].as_u64().unwrap(),
        );
        let white = tag("White").or(Some("?".into()));
        let black = tag("Black").or(Some("?".into()));
        want.insert(place, (white, black, tag("Event"), tag("Round")));
    }
    let mut named = 0;
    for line in stdout(&report).lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let place = (
            v["file"].as_str().unwrap().to_owned(),
            v["game"].as_u64().unwrap(),
        );
        let field = |n: &str| v[n].as_str().map(str::to_owned);
        let got = (
            field("white"),
            field("black"),
            field("event"),
            field("round"),
        );
        assert_eq!(Some(&got), want.get(&place), "{place:?}");
        named += 1;
    }
    assert!(named > 40, "{named} games named");
}
