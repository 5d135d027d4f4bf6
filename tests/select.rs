//! `pgnkit select` (issue 46): the games asked for, byte for byte, or as
//! records with the ply that matched; the same criteria on `convert` and
//! `annotate-outcome`; refusals that name the flag.

use crate::util::{code, run, stderr, stdout};

const TWIC: &str = "fixtures/pgn/twic1599_excerpt.pgn";
const LICHESS: &str = "fixtures/openings/lichess-2025-05-01.pgn";
const CORPUS: &str = "fixtures/corpus/pgnmentor-2mb.pgn.zst";
/// A game whose main line stops at ply 61 (an illegal move).
const ILLEGAL: &str = "fixtures/pgn/illegal_move_ply_61.pgn";

/// The `[Event ` lines of PGN text: one per game in these fixtures.
fn games(text: &[u8]) -> usize {
    text.split(|&b| b == b'\n')
        .filter(|l| l.starts_with(b"[Event "))
        .count()
}

#[test]
fn every_game_selected_is_the_input_byte_for_byte() {
    let input = std::fs::read(TWIC).unwrap();
    let out = run(&["select", "-q", "--tag", "Event~.", TWIC], None);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(out.stdout, input);
}

#[test]
fn a_selection_and_its_inverse_part_the_games() {
    let all = games(&std::fs::read(LICHESS).unwrap());
    let picked = run(&["select", "-q", "--move", "O-O-O", LICHESS], None);
    let rest = run(
        &["select", "-q", "--invert", "--move", "O-O-O", LICHESS],
        None,
    );
    let (a, b) = (games(&picked.stdout), games(&rest.stdout));
    assert!(a > 0 && b > 0, "{a} {b}");
    assert_eq!(a + b, all);
    // Selecting the selected again changes nothing: each game is copied
    // whole.
    let again = run(
        &["select", "-q", "--move", "O-O-O", "-"],
        Some(&picked.stdout),
    );
    assert_eq!(again.stdout, picked.stdout);
    let none = run(
        &["select", "-q", "--move", "O-O-O", "-"],
        Some(&rest.stdout),
    );
    assert!(none.stdout.is_empty());
}

#[test]
fn the_same_bytes_for_any_thread_count() {
    let args = |j: &'static str| {
        [
            "select",
            "-q",
            j,
            "--sub-fen",
            "8/8/8/8/3PP3/8/8/8",
            "--material",
            "Q*R+B*N*P*q*r+b*n*p*",
            CORPUS,
        ]
    };
    let one = run(&args("-j1"), None);
    assert_eq!(code(&one), 0, "{}", stderr(&one));
    assert!(games(&one.stdout) > 100);
    for j in ["-j2", "-j4"] {
        assert_eq!(run(&args(j), None).stdout, one.stdout, "{j}");
    }
    let csv1 = run(
        &[
            "select", "-q", "-j1", "-f", "csv", "--move", "Qxf7+", CORPUS,
        ],
        None,
    );
    let csv3 = run(
        &[
            "select", "-q", "-j3", "-f", "csv", "--move", "Qxf7+", CORPUS,
        ],
        None,
    );
    assert_eq!(csv1.stdout, csv3.stdout);
}

#[test]
fn text_names_each_game_and_the_ply_that_matched() {
    let out = run(
        &[
            "select",
            "-q",
            "-f",
            "text",
            "--move",
            "black:O-O-O",
            LICHESS,
        ],
        None,
    );
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert!(!lines.is_empty());
    for line in &lines {
        assert!(line.starts_with(&format!("{LICHESS}:")), "{line}");
        assert!(line.contains("...O-O-O)"), "{line}");
    }
    // The ply is Black's: even.
    let ply: u32 = lines[0]
        .split(": ply ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(ply % 2, 0, "{}", lines[0]);
}

/// The `match_ply` of each record of CSV text, by game.
fn match_plies(csv: &[u8]) -> Vec<(u64, String)> {
    let mut reader = csv::Reader::from_reader(csv);
    let header = reader.headers().unwrap().clone();
    let at = |name: &str| header.iter().position(|h| h == name).unwrap();
    let (game, ply) = (at("game"), at("match_ply"));
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            (r[game].parse().unwrap(), r[ply].to_owned())
        })
        .collect()
}

#[test]
fn records_are_converts_with_the_ply_that_matched() {
    // After 1.e4: ply 1 in every game that opens so.
    let after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
    let select = run(
        &["select", "-q", "-f", "csv", "--position", after_e4, TWIC],
        None,
    );
    let convert = run(
        &["convert", "-q", "-f", "csv", "--position", after_e4, TWIC],
        None,
    );
    assert_eq!(select.stdout, convert.stdout);
    let rows = match_plies(&select.stdout);
    assert_eq!(rows.len(), 5, "{}", stdout(&select));
    assert!(rows.iter().all(|(_, p)| p == "1"));
    // Without a criterion on positions or moves, no ply.
    let tags = run(
        &[
            "convert",
            "-q",
            "-f",
            "csv",
            "--player",
            "praggnanandhaa",
            TWIC,
        ],
        None,
    );
    let rows = match_plies(&tags.stdout);
    assert_eq!(rows.len(), 3);
    assert!(rows.iter().all(|(_, p)| p.is_empty()));
    // The start position matches at ply 0.
    let start = run(
        &[
            "select",
            "-q",
            "-f",
            "jsonl",
            "--position",
            "startpos",
            "--limit",
            "1",
            TWIC,
        ],
        None,
    );
    assert!(
        stdout(&start).trim_end().ends_with("\"match_ply\":0}"),
        "{}",
        stdout(&start)
    );
}

#[test]
fn annotate_outcome_rows_only_for_the_games_selected() {
    let out = run(
        &[
            "annotate-outcome",
            "-q",
            "--player",
            "Praggnanandhaa, R",
            TWIC,
        ],
        None,
    );
    let text = stdout(&out);
    let rows: Vec<&str> = text.lines().skip(1).collect();
    assert_eq!(rows.len(), 3, "{text}");
    assert!(rows.iter().all(|r| r.contains("Praggnanandhaa")), "{text}");
    let summary = stderr(&run(&["annotate-outcome", "--player", "pragg", TWIC], None));
    assert!(summary.contains("12 games, 3 selected, 9 not"), "{summary}");
}

#[test]
fn a_game_that_stops_before_the_answer_is_reported_not_judged() {
    // The illegal move is ply 61: a move looked for after it cannot be
    // decided, one before it can.
    let out = run(&["select", "--move", "Kh1", ILLEGAL], None);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(out.stdout.is_empty());
    let err = stderr(&out);
    assert!(err.contains("not judged"), "{err}");
    assert!(err.contains("1 not judged"), "{err}");
    let early = run(
        &["select", "-q", "--plies", "0..", "--move", "e4", ILLEGAL],
        None,
    );
    assert_eq!(
        code(&early),
        1,
        "the length needs the end: {}",
        stderr(&early)
    );
    let found = run(&["select", "-q", "--move", "e4", ILLEGAL], None);
    assert_eq!(code(&found), 0, "{}", stderr(&found));
    assert_eq!(games(&found.stdout), 1);
    // A tag criterion needs no replay: the game is judged.
    let tags = run(&["select", "-q", "--tag", "Event~.", ILLEGAL], None);
    assert_eq!(code(&tags), 0);
    assert_eq!(games(&tags.stdout), 1);
}

#[test]
fn dates_partial_dates_and_ratings() {
    let pgn = b"[Event \"a\"]\n[Date \"2019.??.??\"]\n[WhiteElo \"2500\"]\n[BlackElo \"2400\"]\n\n1. e4 *\n\n\
                [Event \"b\"]\n[Date \"2019.05.17\"]\n[WhiteElo \"2600\"]\n[BlackElo \"2610\"]\n\n1. d4 *\n\n\
                [Event \"c\"]\n[Date \"????.??.??\"]\n\n1. c4 *\n";
    let out = run(
        &["select", "-f", "text", "--date", "2019.05..2019.06", "-"],
        Some(pgn),
    );
    let text = stdout(&out);
    assert!(
        text.contains("; a)") && text.contains("; b)") && !text.contains("; c)"),
        "{text}"
    );
    assert!(
        stderr(&out).contains("1 selected by a partial date"),
        "{}",
        stderr(&out)
    );
    let elo = run(
        &["select", "-q", "-f", "text", "--elo", "2450..", "-"],
        Some(pgn),
    );
    assert_eq!(stdout(&elo).lines().count(), 1, "{}", stdout(&elo));
    assert!(stdout(&elo).contains("; b)"));
}

#[test]
fn limit_takes_the_first_selected_in_input_order() {
    let all = run(&["select", "-q", "-j3", "--move", "O-O", CORPUS], None);
    let three = run(
        &["select", "-j3", "--move", "O-O", "--limit", "3", CORPUS],
        None,
    );
    let err = stderr(&three);
    assert!(err.contains("3 selected"), "{err}");
    assert!(err.contains("after the --limit not judged"), "{err}");
    assert_eq!(games(&three.stdout), 3);
    assert!(all.stdout.starts_with(&three.stdout));
    // Across inputs too, whatever the threads: the first N of the whole
    // run, the later input read while the first is not done.
    let inputs = [TWIC, LICHESS, TWIC];
    let whole = run(
        &[&["select", "-q", "-j4", "--move", "O-O"][..], &inputs].concat(),
        None,
    );
    for (n, j) in [("5", "-j1"), ("15", "-j4"), ("40", "-j2")] {
        let some = run(
            &[
                &[
                    "convert", "-q", j, "-f", "uci", "--move", "O-O", "--limit", n,
                ][..],
                &inputs,
            ]
            .concat(),
            None,
        );
        let picked = run(
            &[
                &["select", "-q", j, "--move", "O-O", "--limit", n][..],
                &inputs,
            ]
            .concat(),
            None,
        );
        assert!(whole.stdout.starts_with(&picked.stdout), "{n} {j}");
        assert_eq!(games(&picked.stdout), n.parse::<usize>().unwrap());
        assert_eq!(stdout(&some).lines().count(), n.parse::<usize>().unwrap());
    }
}

#[test]
fn refusals_name_the_flag_and_touch_no_output() {
    let dir = tempfile::tempdir().unwrap();
    let kept = dir.path().join("kept.pgn");
    std::fs::write(&kept, b"old").unwrap();
    let kept = kept.to_str().unwrap();
    for (args, flag) in [
        (vec!["--elo", "2600..2400"], "--elo"),
        (vec!["--position", "8/8/8/8 w - - 0 1"], "--position"),
        (vec!["--sub-fen", "8/8/8/8/8/8/8/8"], "--sub-fen"),
        (vec!["--material", "KXk"], "--material"),
        (vec!["--date", "2020..2019"], "--date"),
        (vec!["--eco", "F00"], "--eco"),
        (vec!["--move", "Zz9"], "--move"),
        (vec!["--tag", "Round~("], "--tag"),
    ] {
        let mut all = vec!["select", "-o", kept];
        all.extend(&args);
        all.push(TWIC);
        let out = run(&all, None);
        assert_eq!(code(&out), 2, "{args:?}");
        assert!(stderr(&out).contains(flag), "{args:?}: {}", stderr(&out));
        assert_eq!(std::fs::read(kept).unwrap(), b"old", "{args:?}");
    }
    let shard = run(
        &["select", "--limit", "2", "--byte-range", "0..1000", TWIC],
        None,
    );
    assert_eq!(code(&shard), 2);
    assert!(stderr(&shard).contains("--limit"), "{}", stderr(&shard));
    // A tag that no game has is allowed: tags are open.
    let open = run(&["select", "-q", "--tag", "Nonesuch=1", TWIC], None);
    assert_eq!(code(&open), 0);
    assert!(open.stdout.is_empty());
}

#[test]
fn shards_of_a_selection_merge_into_the_whole_run() {
    let dir = tempfile::tempdir().unwrap();
    let input = std::fs::read(CORPUS).unwrap();
    let plain = dir.path().join("corpus.pgn");
    let unzipped = zstd::decode_all(&input[..]).unwrap();
    std::fs::write(&plain, &unzipped).unwrap();
    let plain = plain.to_str().unwrap();
    let criteria = ["--material", "KRP*kr", "--eco", "B"];
    let mut whole_args = vec!["convert", "-q", "-f", "csv"];
    whole_args.extend(criteria);
    whole_args.push(plain);
    let whole = run(&whole_args, None);
    assert!(games_in_csv(&whole.stdout) > 0);
    let half = (unzipped.len() / 2).to_string();
    let mut shards = Vec::new();
    for (i, range) in [format!("..{half}"), format!("{half}..")]
        .iter()
        .enumerate()
    {
        let out = dir.path().join(format!("s{i}.csv"));
        let stats = dir.path().join(format!("s{i}.csv.stats.json"));
        let mut args = vec!["convert", "-q", "-f", "csv", "--byte-range", range];
        args.extend(criteria);
        args.extend([
            "--stats",
            stats.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            plain,
        ]);
        let shard = run(&args, None);
        assert!(matches!(code(&shard), 0 | 1), "{}", stderr(&shard));
        shards.push(out);
    }
    let merged = run(
        &[
            "merge",
            shards[0].to_str().unwrap(),
            shards[1].to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(code(&merged), 0, "{}", stderr(&merged));
    assert_eq!(merged.stdout, whole.stdout);
}

fn games_in_csv(csv: &[u8]) -> usize {
    csv::Reader::from_reader(csv).records().count()
}

#[test]
fn pgn_shards_of_a_selection_concatenate_into_the_whole_run() {
    let dir = tempfile::tempdir().unwrap();
    let unzipped = zstd::decode_all(&std::fs::read(CORPUS).unwrap()[..]).unwrap();
    let plain = dir.path().join("corpus.pgn");
    std::fs::write(&plain, &unzipped).unwrap();
    let plain = plain.to_str().unwrap();
    // A tag criterion (the movetext skipped) and a move criterion (replayed).
    for criteria in [["--player", "an"], ["--move", "black:O-O-O"]] {
        let mut whole_args = vec!["select", "-q"];
        whole_args.extend(criteria);
        whole_args.push(plain);
        let whole = run(&whole_args, None);
        assert_eq!(code(&whole), 0, "{}", stderr(&whole));
        assert!(!whole.stdout.is_empty());
        let mut joined = Vec::new();
        let thirds = [unzipped.len() / 3, 2 * unzipped.len() / 3];
        for range in [
            format!("..{}", thirds[0]),
            format!("{}..{}", thirds[0], thirds[1]),
            format!("{}..", thirds[1]),
        ] {
            let mut args = vec!["select", "-q", "--byte-range", &range];
            args.extend(criteria);
            args.push(plain);
            let shard = run(&args, None);
            assert_eq!(code(&shard), 0, "{}", stderr(&shard));
            joined.extend(shard.stdout);
        }
        assert_eq!(joined, whole.stdout, "{criteria:?}");
    }
}
