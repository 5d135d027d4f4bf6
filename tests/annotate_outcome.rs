//! Integration tests for `pgnkit annotate-outcome`: one concern per fixture.

use std::collections::HashMap;

use crate::util::{
    CHUNK, DAMAGED_REPAIRED, code, fixture, movetexts, multi_chunk_pgn, run, stderr, stdout,
};

const COLUMNS: [&str; 14] = [
    "file",
    "game",
    "offset",
    "white",
    "black",
    "result",
    "plies",
    "termination",
    "termination_ply",
    "threefold_claim_ply",
    "fifty_claim_ply",
    "winner_can_mate",
    "fide_result",
    "result_ok",
];

/// Every row of the CSV output, as column → value.
fn rows(args: &[&str], stdin: Option<&[u8]>) -> (i32, Vec<HashMap<String, String>>) {
    let mut all = vec!["annotate-outcome", "-q"];
    all.extend_from_slice(args);
    let out = run(&all, stdin);
    assert_ne!(code(&out), 2, "{}", stderr(&out));
    let text = stdout(&out);
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let headers = reader.headers().expect("csv header").clone();
    assert!(
        headers.iter().collect::<Vec<_>>().starts_with(&COLUMNS),
        "{headers:?}"
    );
    let rows = reader
        .records()
        .map(|r| {
            let r = r.expect("csv row");
            headers
                .iter()
                .zip(r.iter())
                .map(|(h, v)| (h.to_owned(), v.to_owned()))
                .collect()
        })
        .collect();
    (code(&out), rows)
}

fn pick<'a>(row: &'a HashMap<String, String>, cols: &[&str]) -> Vec<&'a str> {
    cols.iter().map(|c| row[*c].as_str()).collect()
}

/// The plies asserted below are python-chess's, not pgnkit's own: see
/// `fixtures/annotate/oracle.py` (run by hand) and the table in
/// `fixtures/annotate/README.md`. With python-chess 1.11,
/// `can_claim_threefold_repetition()` (FIDE 9.2.1 or 9.2.2) first holds at
/// ply 7, `is_repetition(3)` (9.2.2 alone: the `app` and `online` ply) at 8,
/// and `is_fivefold_repetition()` (9.6.1) at 16.
#[test]
fn knights_out_and_back_in_every_profile() {
    let file = "fixtures/annotate/knights_out_and_back.pgn";
    let cols = [
        "plies",
        "termination",
        "termination_ply",
        "threefold_claim_ply",
        "fifty_claim_ply",
        "fide_result",
        "result_ok",
    ];
    let (status, fide) = rows(&[file], None);
    assert_eq!(status, 0);
    assert_eq!(
        pick(&fide[0], &cols),
        [
            "16",
            "fivefold-repetition",
            "16",
            "7",
            "",
            "1/2-1/2",
            "true"
        ]
    );
    let (_, app) = rows(&["--rules", "app", file], None);
    assert_eq!(
        pick(&app[0], &cols),
        [
            "16",
            "fivefold-repetition",
            "16",
            "8",
            "",
            "1/2-1/2",
            "true"
        ]
    );
    let (_, online) = rows(&["--rules", "online", file], None);
    assert_eq!(
        pick(&online[0], &cols),
        ["16", "threefold-repetition", "8", "", "", "1/2-1/2", "true"]
    );
}

/// Every ply below is python-chess 1.11's answer on the same game
/// (`fixtures/annotate/oracle.py`, table in `fixtures/annotate/README.md`):
/// - fivefold_real: `can_claim_threefold_repetition()` first at ply 27 (FIDE
///   9.2.1: after 14.Kg1, Black's 14...Bh2+ brings a position back for the
///   third time), `is_fivefold_repetition()` at 36 (9.6.1);
/// - seventy_five_moves_real: threefold claim at 207,
///   `can_claim_fifty_moves()` at 201 (9.3.1: the halfmove clock is 99 and
///   the next move can make it 100), `is_seventyfive_moves()` at 252 (9.6.2);
/// - pawn_wall_dead_real: python-chess has no dead-position test beyond
///   `is_insufficient_material()`, which is false throughout; ply 74 (after
///   37...gxh5) is dead by FIDE 5.2.2 because no pawn can ever move or be
///   captured and no check can ever be given: the proof is in the README.
#[test]
fn real_games_with_automatic_ends() {
    let cols = [
        "plies",
        "termination",
        "termination_ply",
        "threefold_claim_ply",
        "fifty_claim_ply",
        "fide_result",
        "result_ok",
    ];
    for (file, want) in [
        (
            "fivefold_real.pgn",
            [
                "36",
                "fivefold-repetition",
                "36",
                "27",
                "",
                "1/2-1/2",
                "true",
            ],
        ),
        (
            "seventy_five_moves_real.pgn",
            [
                "252",
                "seventy-five-moves",
                "252",
                "207",
                "201",
                "1/2-1/2",
                "true",
            ],
        ),
        (
            "pawn_wall_dead_real.pgn",
            ["75", "dead-position", "74", "", "", "1/2-1/2", "true"],
        ),
    ] {
        // python-chess applies today's Laws; fivefold_real is of 2008.
        let path = format!("fixtures/annotate/{file}");
        let (_, rows) = rows(&["--laws", "current", &path], None);
        assert_eq!(pick(&rows[0], &cols), want, "{file}");
    }
    // By the Laws of its date (2008, no 9.6) the fifth repetition of
    // fivefold_real ended nothing: the draw was agreed, the claim stays.
    let (_, by_date) = rows(&["fixtures/annotate/fivefold_real.pgn"], None);
    assert_eq!(
        pick(&by_date[0], &cols),
        ["36", "", "", "27", "", "1/2-1/2", "true"]
    );
    assert_eq!(by_date[0]["laws"], "2008.03.12");
    // Under app and online only the material patterns count: the pawn wall
    // is not a dead position there.
    let (_, app) = rows(
        &[
            "--rules",
            "app",
            "fixtures/annotate/pawn_wall_dead_real.pgn",
        ],
        None,
    );
    assert_eq!(app[0]["termination"], "");
}

#[test]
fn winner_who_cannot_mate_by_date_and_termination() {
    let file = "fixtures/annotate/time_forfeit_walled_in.pgn";
    let cols = ["winner_can_mate", "fide_result", "result_ok", "loss_rule"];
    let (status, fide) = rows(&[file], None);
    assert_eq!(status, 1);
    assert_eq!(pick(&fide[0], &cols), ["no", "1/2-1/2", "false", "6.9"]);
    assert_eq!(
        pick(&fide[1], &cols),
        ["no", "0-1", "true", "5.1.2-before-2023"]
    );
    assert_eq!(pick(&fide[2], &cols), ["no", "1/2-1/2", "false", "5.1.2"]);
    // app keeps every loss; online only flips against a bare king.
    for profile in ["app", "online"] {
        let (status, rows) = rows(&["--rules", profile, file], None);
        assert_eq!(status, 0, "{profile}");
        for row in &rows {
            assert_eq!(pick(row, &cols), ["no", "0-1", "true", ""], "{profile}");
        }
    }
    // A real 2018 game: the winner cannot mate (a bare king at the end:
    // python-chess's `has_insufficient_material(WHITE)` is true), the
    // resignation stands.
    let (_, real) = rows(&["fixtures/annotate/winner_cannot_mate_2018.pgn"], None);
    assert_eq!(
        pick(&real[0], &cols),
        ["no", "1-0", "true", "5.1.2-before-2023"]
    );
}

/// python-chess 1.11 also accepts 60 plies and rejects `31. Qxe1`
/// (`fixtures/annotate/oracle.py`).
#[test]
fn illegal_move_is_annotated_up_to_it() {
    let (status, rows) = rows(&["fixtures/pgn/illegal_move_ply_61.pgn"], None);
    assert_eq!(status, 1);
    assert_eq!(rows[0]["plies"], "60");
    assert_eq!(rows[0]["fide_result"], "");
    assert_eq!(rows[0]["result_ok"], "false");
    assert!(
        rows[0]["error"].starts_with("illegal-move at ply 61"),
        "{}",
        rows[0]["error"]
    );
}

/// Each game is judged by the Laws in force when it was played (issue 25).
#[test]
fn each_game_is_judged_by_the_laws_of_its_date() {
    let old = "fixtures/annotate/fivefold_before_2014.pgn";
    let cols = [
        "plies",
        "termination",
        "termination_ply",
        "threefold_claim_ply",
        "fide_result",
        "result_ok",
        "laws",
    ];
    // 1886: no 9.6; the game went on after its fifth repetition, and
    // Black's win stands. The claim is as it was.
    let (status, by_date) = rows(&[old], None);
    assert_eq!(status, 0);
    assert_eq!(
        pick(&by_date[0], &cols),
        ["84", "", "", "48", "0-1", "true", "1886.??.??"]
    );
    let (status, current) = rows(&["--laws", "current", old], None);
    assert_eq!(status, 1);
    assert_eq!(
        pick(&current[0], &cols),
        [
            "84",
            "fivefold-repetition",
            "57",
            "48",
            "1/2-1/2",
            "false",
            "current"
        ]
    );
    let (_, on) = rows(&["--laws", "2016-02-29", old], None);
    assert_eq!(on[0]["termination"], "fivefold-repetition");
    assert_eq!(on[0]["laws"], "2016.02.29");
    // The other profiles are software: they apply today's rules to every
    // game.
    let (_, app) = rows(&["--rules", "app", old], None);
    assert_eq!(app[0]["termination"], "fivefold-repetition");
    assert_eq!(app[0]["laws"], "current");
    // 2017: unchanged by either, but for the laws column.
    let new = "fixtures/annotate/fivefold_after_2014.pgn";
    let (_, by_date) = rows(&[new], None);
    let (_, current) = rows(&["--laws", "current", new], None);
    assert_eq!(by_date[0]["termination"], "fivefold-repetition");
    assert_eq!(by_date[0]["termination_ply"], "97");
    assert_eq!(by_date[0]["laws"], "2017.12.29");
    let mut same = by_date[0].clone();
    same.insert("laws".into(), "current".into());
    assert_eq!(same, current[0]);
    // JSON Lines carry the same key, always a string.
    let out = run(&["annotate-outcome", "-q", "-f", "jsonl", old], None);
    assert!(
        stdout(&out).contains(",\"laws\":\"1886.??.??\","),
        "{}",
        stdout(&out)
    );
}

#[test]
fn a_game_published_without_moves_is_no_early_agreement() {
    // TWIC publishes some games as a result without movetext: their moves
    // are unknown, not a draw agreed before anyone moved (issue 25).
    // validate says nothing about them, and annotate-outcome agrees.
    let no_moves = b"[Event \"e\"]\n[Site \"s\"]\n[Date \"2025.05.03\"]\n[Round \"1\"]\n\
[White \"w\"]\n[Black \"b\"]\n[Result \"1/2-1/2\"]\n\n1/2-1/2\n";
    let (status, rows_) = rows(&["-"], Some(no_moves));
    assert_eq!(status, 0);
    assert_eq!(
        pick(
            &rows_[0],
            &["plies", "fide_result", "result_ok", "loss_rule"]
        ),
        ["0", "1/2-1/2", "true", ""]
    );
    let out = run(&["validate", "-q", "-"], Some(no_moves));
    assert_eq!((code(&out), stdout(&out)), (0, String::new()));
    // A recorded move is a move: 1. e4 1/2-1/2 is still agreed before
    // Black moved (5.2.3).
    let one = String::from_utf8_lossy(no_moves).replace("\n\n1/2-1/2", "\n\n1. e4 1/2-1/2");
    let (status, rows_) = rows(&["-"], Some(one.as_bytes()));
    assert_eq!(status, 1);
    assert_eq!(
        pick(
            &rows_[0],
            &["plies", "fide_result", "result_ok", "loss_rule"]
        ),
        ["1", "*", "false", "5.2.3"]
    );
}

#[test]
fn validate_and_annotate_agree_on_moves_after_the_end() {
    // validate's move-after-end and annotate's termination come from the
    // same end tracking (material-only dead positions under `app`). python-chess
    // 1.11 agrees (fixtures/annotate/oracle.py): `is_fivefold_repetition()`
    // first at ply 97 of the 98, and `is_insufficient_material()` (K+B v K)
    // first at ply 114 of twic game 2's 115.
    let (_, five) = rows(
        &["--rules", "app", "fixtures/pgn/fivefold_then_move.pgn"],
        None,
    );
    let (_, fide) = rows(
        &["--laws", "current", "fixtures/pgn/fivefold_then_move.pgn"],
        None,
    );
    assert_eq!(fide[0]["termination_ply"], "97");
    assert_eq!(five[0]["termination"], "fivefold-repetition");
    assert_eq!(five[0]["termination_ply"], "97");
    assert_eq!(five[0]["plies"], "98");
    let (_, twic) = rows(
        &["--rules", "app", "fixtures/pgn/twic1599_excerpt.pgn"],
        None,
    );
    assert_eq!(twic[1]["termination"], "dead-position");
    assert_eq!(twic[1]["termination_ply"], "114");
}

#[test]
fn pgn_output_keeps_the_game_and_adds_the_outcome() {
    // The Event tag is the fixture's own, older wording; the rules it
    // illustrates are FIDE 9.2 and 9.6.1.
    let file = "fixtures/annotate/knights_out_and_back.pgn";
    let out = run(&["annotate-outcome", "-q", "-f", "pgn", file], None);
    assert_eq!(code(&out), 0);
    assert_eq!(
        stdout(&out),
        "[Event \"RULES.md §2 example\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n\
         [White \"Knights\"]\n[Black \"Knights\"]\n[Result \"1/2-1/2\"]\n[PgnkitRules \"fide\"]\n\
         [PgnkitResult \"1/2-1/2\"]\n[PgnkitTermination \"fivefold-repetition\"]\n\
         [PgnkitTerminationPly \"16\"]\n[PgnkitThreefoldClaimPly \"7\"]\n\n\
         1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 {threefold repetition: draw claimable}\n\
         4... Ng8 5. Nf3 Nf6 6. Ng1 Ng8 7. Nf3 Nf6 8. Ng1 Ng8 {fivefold repetition: game\n\
         drawn} 1/2-1/2\n\n"
    );
    // Variations and NAGs are kept; --fix-results --pgnkit-tags rewrites the
    // result and keeps the recorded one in a tag.
    let file = "fixtures/annotate/time_forfeit_walled_in.pgn";
    let out = run(
        &[
            "annotate-outcome",
            "-q",
            "-f",
            "pgn",
            "--fix-results",
            "--pgnkit-tags",
            file,
        ],
        None,
    );
    let text = stdout(&out);
    assert!(
        text.contains(
            "1. Ke3 {the winner cannot mate: 5.1.2/6.9 (5.1.2), game drawn} (1. Kf2 $2)\n1/2-1/2\n"
        ),
        "{text}"
    );
    assert!(text.contains("[Result \"1/2-1/2\"]\n"), "{text}");
    assert!(text.contains("[PgnkitRecordedResult \"0-1\"]\n"), "{text}");
    for line in text.lines() {
        assert!(line.chars().count() <= 80, "{line}");
    }
}

#[test]
fn latin1_names_come_out_as_utf8() {
    let out = run(
        &[
            "annotate-outcome",
            "-q",
            "-f",
            "pgn",
            "fixtures/pgn/latin1.pgn",
        ],
        None,
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    // The Event tag holds "Gy\xf6rgy" in Latin-1: it comes out as UTF-8 "ö".
    let text = stdout(&out);
    assert!(
        text.starts_with("[Event \"4th Marx Gy\u{f6}rgy Mem\"]\n[Site \"Paks HUN\"]\n"),
        "{text}"
    );
    assert!(!text.contains('\u{fffd}'), "{text}");
}

#[test]
fn jsonl_has_the_csv_fields_and_the_helpmate() {
    let out = run(
        &[
            "annotate-outcome",
            "-q",
            "-f",
            "jsonl",
            "fixtures/annotate/time_forfeit_walled_in.pgn",
        ],
        None,
    );
    let text = stdout(&out);
    let first = text.lines().next().expect("a line");
    for key in COLUMNS {
        assert!(first.contains(&format!("\"{key}\":")), "{key}: {first}");
    }
    assert!(first.contains("\"helpmate\":null"), "{first}");
    // A 2024 game scored for a side that can mate: its mating line.
    let pgn = b"[Date \"2024.01.01\"]\n[Result \"0-1\"]\n\n1. f3 e5 2. g4 0-1\n";
    let out = run(&["annotate-outcome", "-q", "-f", "jsonl"], Some(pgn));
    let text = stdout(&out);
    assert!(text.contains("\"helpmate\":[\""), "{text}");
    assert!(text.contains("\"winner_can_mate\":\"yes\""), "{text}");
}

#[test]
fn output_is_identical_for_any_thread_count() {
    // Several chunks of real games, then the games with automatic ends and
    // the helpmate cases in the last one.
    let mut input = multi_chunk_pgn(3 * CHUNK);
    for name in [
        "annotate/fivefold_real.pgn",
        "annotate/pawn_wall_dead_real.pgn",
        "annotate/time_forfeit_walled_in.pgn",
    ] {
        input.extend(std::fs::read(fixture(name)).expect("fixture exists"));
        input.extend_from_slice(b"\n\n");
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.pgn");
    std::fs::write(&path, &input).unwrap();
    let path = path.to_str().unwrap();
    for format in ["csv", "jsonl", "pgn"] {
        let one = run(&["annotate-outcome", "-q", "-j1", "-f", format, path], None);
        let eight = run(&["annotate-outcome", "-q", "-j8", "-f", format, path], None);
        assert_eq!(code(&one), 1, "{format}: {}", stderr(&one));
        assert_eq!(code(&eight), 1, "{format}: {}", stderr(&eight));
        // One record per game: the input holds over a hundred copies of some
        // thirty games, so thousands of records, not an empty run.
        let text = String::from_utf8(one.stdout.clone()).expect("UTF-8 output");
        let records = match format {
            "csv" => text.lines().count() - 1,
            "jsonl" => text.lines().count(),
            _ => text.matches("\n[PgnkitRules ").count(),
        };
        assert!(records > 3000, "{format}: {records} records");
        assert!(text.contains("dead-position"), "{format}");
        assert!(
            one.stdout == eight.stdout,
            "{format} output differs between -j1 and -j8"
        );
    }
}

#[test]
fn standard_input_of_several_chunks() {
    // Megabytes in and out through pipes. With -j1 pgnkit holds 4 chunks in
    // flight and writes records while it still reads: a test that wrote all
    // of stdin before draining stdout would deadlock here (`util::run` feeds
    // stdin from a thread).
    let input = multi_chunk_pgn(8 * CHUNK);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.pgn");
    std::fs::write(&path, &input).unwrap();
    let args = ["annotate-outcome", "-q", "-j1", "-f", "pgn"];
    let piped = run(&args, Some(&input));
    let named = run(&[&args[..], &[path.to_str().unwrap()]].concat(), None);
    assert_eq!(code(&piped), 1, "{}", stderr(&piped));
    assert!(piped.stdout.len() > 2 * CHUNK, "{}", piped.stdout.len());
    assert!(
        piped.stdout == named.stdout,
        "stdin and a named file give different output"
    );
}

#[test]
fn the_full_search_settles_what_the_fast_checks_leave_open() {
    // Dead, but chasolver's fast check settles neither side: only the full
    // search proves it.
    let file = "fixtures/annotate/dead_needs_full_search.pgn";
    let cols = ["termination", "termination_ply", "fide_result", "result_ok"];
    let (_, full) = rows(&[file], None);
    assert_eq!(
        pick(&full[0], &cols),
        ["dead-position", "0", "1/2-1/2", "true"]
    );
    assert_eq!(full[0]["dead_reason"], "unwinnable");

    // A 2018 resignation: the answer changes nothing (5.1.2 before 2023),
    // but it is still given.
    let file = "fixtures/annotate/winner_cannot_mate_2018.pgn";
    let (_, full) = rows(&[file], None);
    assert_eq!(full[0]["winner_can_mate"], "no");
    assert_eq!(full[0]["fide_result"], "1-0");
}

// See: issue 10, "an unclosed comment or variation produces `1. e4 e5 (*`".
#[test]
fn damaged_movetext_is_reported_and_written_back_repaired() {
    let file = "fixtures/convert/damaged_movetext.pgn";
    let marker = "result-mismatch: the movetext has no termination marker (1-0, 0-1, \
                  1/2-1/2 or *)";
    let reports = [
        format!("pgnkit: {file}:10: game 1 (Kasparov, Garry - Topalov, Veselin): {marker}"),
        format!(
            "pgnkit: {file}:20: game 2 (Anand, Viswanathan - Kramnik, Vladimir): syntax: \
             variation not closed before the next game"
        ),
        format!("pgnkit: {file}:21: game 2 (Anand, Viswanathan - Kramnik, Vladimir): {marker}"),
        format!(
            "pgnkit: {file}:41: game 4 (Topalov, Veselin - Anand, Viswanathan): syntax: \
             comment not closed before the end of the input"
        ),
        format!("pgnkit: {file}:41: game 4 (Topalov, Veselin - Anand, Viswanathan): {marker}"),
    ];
    let out = run(&["annotate-outcome", "-q", "-f", "pgn", file], None);
    assert_eq!(code(&out), 1);
    assert_eq!(stderr(&out).lines().collect::<Vec<_>>(), reports);
    let text = stdout(&out);
    assert_eq!(movetexts(&text), DAMAGED_REPAIRED);
    // What was written back reads back without a syntax finding.
    let validated = run(&["validate", "-q", "-f", "csv"], Some(text.as_bytes()));
    assert!(
        !stdout(&validated).contains(",syntax,"),
        "{}",
        stdout(&validated)
    );
    assert!(!stdout(&validated).contains(",result-mismatch,"));

    // The table: every game has its row, the damage is reported, exit 1.
    let out = run(&["annotate-outcome", "-q", file], None);
    assert_eq!(code(&out), 1);
    assert_eq!(stderr(&out).lines().collect::<Vec<_>>(), reports);
    let (status, rows) = rows(&[file], None);
    assert_eq!(status, 1);
    let plies: Vec<&str> = rows.iter().map(|r| r["plies"].as_str()).collect();
    assert_eq!(plies, ["24", "12", "12", "12"]);
}

#[test]
fn a_marker_that_disagrees_with_the_result_tag_is_reported() {
    let pgn = b"[White \"w\"]\n[Black \"b\"]\n[Result \"1-0\"]\n\n1. e4 e5 0-1\n";
    let report = "pgnkit: <stdin>:5: game 1 (w - b): result-mismatch: the termination marker 0-1 \
                  disagrees with the Result tag 1-0";
    for args in [
        &["annotate-outcome", "-q"][..],
        &["annotate-outcome", "-q", "-f", "pgn"],
        &["convert", "-q", "--to", "pgn"],
    ] {
        let out = run(args, Some(pgn));
        assert_eq!(code(&out), 1, "{args:?}");
        assert_eq!(stderr(&out).trim_end(), report, "{args:?}");
        // Written back with the Result tag's result, as the row records it;
        // annotate-outcome keeps the marker's in a tag.
        if args.contains(&"pgn") {
            assert!(stdout(&out).contains("1. e4 e5 1-0"), "{}", stdout(&out));
            assert_eq!(
                stdout(&out).contains("[PgnkitMarkerResult \"0-1\"]\n"),
                args[0] == "annotate-outcome",
                "{}",
                stdout(&out)
            );
        }
    }
    // Both results are in the row, and the record is not ok although the
    // rules allow the tag's result.
    let (_, table) = rows(&[], Some(pgn));
    let cols = ["result", "marker_result", "fide_result", "result_ok"];
    assert_eq!(pick(&table[0], &cols), ["1-0", "0-1", "1-0", "false"]);
    // The summary counts it as damaged, not as a wrong result.
    let out = run(&["annotate-outcome"], Some(pgn));
    assert!(
        stderr(&out).contains(
            "0 with a result the rules do not give, 0 not replayed, 1 with damaged movetext"
        ),
        "{}",
        stderr(&out)
    );
    // --fix-results --pgnkit-tags changes nothing the rules allow, and
    // loses neither.
    let tagged = [
        "annotate-outcome",
        "-q",
        "-f",
        "pgn",
        "--fix-results",
        "--pgnkit-tags",
    ];
    let out = run(&tagged, Some(pgn));
    assert!(stdout(&out).contains("[PgnkitMarkerResult \"0-1\"]\n"));
    assert!(!stdout(&out).contains("PgnkitRecordedResult"));
    // --fix-results alone: the marker takes the result the rules allow,
    // and a comment keeps both that were written.
    let minimal = ["annotate-outcome", "-q", "-f", "pgn", "--fix-results"];
    let out = run(&minimal, Some(pgn));
    let text = stdout(&out);
    let input = String::from_utf8_lossy(pgn);
    assert_eq!(
        text.lines()
            .filter(|l| !input.lines().any(|i| i == *l))
            .count(),
        1,
        "{text}"
    );
    assert!(
        text.contains("{pgnkit: the result written was 1-0 (tag) and 0-1 (marker); "),
        "{text}"
    );
    // Where the rules give neither, the tag's goes to PgnkitRecordedResult and
    // the marker's to PgnkitMarkerResult.
    let mate = b"[Result \"1-0\"]\n\n1. f3 e5 2. g4 Qh4# 1/2-1/2\n";
    let out = run(&minimal, Some(mate));
    assert_eq!(
        stdout(&out),
        "[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# {pgnkit: the result written was 1-0 (tag) and \
         1/2-1/2 (marker); the game ended by checkmate after 2...Qh4#} 0-1\n"
    );
    let out = run(&tagged, Some(mate));
    let text = stdout(&out);
    for tag in [
        "[Result \"0-1\"]",
        "[PgnkitRecordedResult \"1-0\"]",
        "[PgnkitMarkerResult \"1/2-1/2\"]",
    ] {
        assert!(text.contains(tag), "{tag} in {text}");
    }
    assert!(text.contains("Qh4# 0-1"), "{text}");
    let (_, table) = rows(&[], Some(mate));
    assert_eq!(pick(&table[0], &cols), ["1-0", "1/2-1/2", "0-1", "false"]);
}

#[test]
fn tags_add_columns_that_join_rows_to_games() {
    // See issue 12. The second game has a GameId, the first has none.
    let pgn = b"[Event \"a\"]\n[Site \"https://lichess.org/x1\"]\n[Round \"1\"]\n\n1. e4 e5 *\n\n\
[Event \"b\"]\n[Site \"s, with comma\"]\n[GameId \"abc\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n";
    let out = run(
        &[
            "annotate-outcome",
            "-q",
            "--tags",
            "Site,Date,Round,GameId,Site",
        ],
        Some(pgn),
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let headers: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    // The fixed columns first, as without --tags, then one per tag.
    let plain = stdout(&run(&["annotate-outcome", "-q"], Some(pgn)));
    let fixed: Vec<&str> = plain.lines().next().unwrap().split(',').collect();
    assert_eq!(headers[..fixed.len()], fixed[..]);
    assert_eq!(headers[fixed.len()..], ["Site", "Date", "Round", "GameId"]);
    let rows: Vec<Vec<String>> = reader
        .records()
        .map(|r| r.unwrap().iter().map(String::from).collect())
        .collect();
    let tags = |i: usize| rows[i][fixed.len()..].to_vec();
    assert_eq!(tags(0), ["https://lichess.org/x1", "", "1", ""]);
    assert_eq!(tags(1), ["s, with comma", "", "", "abc"]);
    // The fixed part of each row is what it is without --tags.
    let mut plain_reader = csv::Reader::from_reader(plain.as_bytes());
    for (row, plain_row) in rows.iter().zip(plain_reader.records()) {
        let plain_row: Vec<String> = plain_row.unwrap().iter().map(String::from).collect();
        assert_eq!(row[..fixed.len()], plain_row[..]);
    }

    // JSON Lines: a `tags` object last, null for a tag the game lacks.
    let out = run(
        &[
            "annotate-outcome",
            "-q",
            "-f",
            "jsonl",
            "--tags",
            "Site,GameId",
        ],
        Some(pgn),
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let records: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        records[0]["tags"],
        serde_json::json!({"Site": "https://lichess.org/x1", "GameId": null})
    );
    assert_eq!(
        records[1]["tags"],
        serde_json::json!({"Site": "s, with comma", "GameId": "abc"})
    );
    let last = stdout(&out).lines().last().map(crate::convert::json_keys);
    assert_eq!(last.unwrap().last().unwrap(), "tags");
}

#[test]
fn flags_that_do_not_apply_to_the_format_are_errors() {
    // See issue 12: --fix-results did nothing with -f csv.
    for format in ["csv", "jsonl"] {
        let out = run(
            &["annotate-outcome", "-f", format, "--fix-results"],
            Some(b"1. e4 *\n"),
        );
        assert_eq!(code(&out), 2);
        assert_eq!(stdout(&out), "");
        assert_eq!(
            stderr(&out),
            "pgnkit: --fix-results applies to -f pgn only (it rewrites the games' results)\n"
        );
    }
    let out = run(
        &["annotate-outcome", "-f", "pgn", "--tags", "Site"],
        Some(b"1. e4 *\n"),
    );
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("--tags applies to -f csv, jsonl, parquet and arrow only"));
    let out = run(
        &["annotate-outcome", "--tags", "Site,game"],
        Some(b"1. e4 *\n"),
    );
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("`game` is the name of a fixed column"));
}

#[test]
fn text_names_each_game_an_arbiter_must_look_at_and_why() {
    let files = [
        "annotate/time_forfeit_walled_in.pgn",
        "pgn/twic1599_excerpt.pgn",
        "pgn/stalemate_scored_win.pgn",
    ];
    let out = run(&["annotate-outcome", "-q", "-f", "text"], None);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let mut args = vec!["annotate-outcome", "-q", "-f", "text"];
    args.extend(files.iter().map(|f| fixture_str(f)));
    let out = run(&args, None);
    assert_eq!(code(&out), 1);
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    let at = |file: &str, line: u32| {
        lines
            .iter()
            .find(|l| l.contains(&format!("{file}:{line}: ")))
            .copied()
            .unwrap_or_else(|| panic!("no line for {file}:{line} in {text}"))
    };
    assert!(
        at("time_forfeit_walled_in.pgn", 1).ends_with(
            "game 1 (Walled - Free; hand-made: chasolver README position): 0-1: recorded 0-1, \
             the rules give 1/2-1/2: a loss on time, and Black could not mate by any series of \
             legal moves (6.9)"
        ),
        "{text}"
    );
    assert!(
        at("time_forfeit_walled_in.pgn", 14)
            .ends_with("under the Laws before 2023 the resignation stands"),
        "{text}"
    );
    assert!(
        at("twic1599_excerpt.pgn", 26).ends_with(
            "round 6.2): 1/2-1/2: a dead position after 57...Kxb3 (too little material to mate): \
             the game was drawn there"
        ),
        "{text}"
    );
    assert!(
        at("twic1599_excerpt.pgn", 81).ends_with(
            "White could claim a draw by threefold repetition after 113...Kg8, by writing \
             114.Rg7+ (the position after it stood after 110.Rg7+ and after 112.Rg7+), and the \
             game went on to 1-0"
        ),
        "{text}"
    );
    assert!(
        at("stalemate_scored_win.pgn", 1).ends_with(
            "1-0: recorded 1-0, the rules give 1/2-1/2: the game ended by stalemate after 10.Qe6"
        ),
        "{text}"
    );
    // Only those games: the clean ones of the excerpt have no line.
    let (_, all) = rows(&files.map(fixture_str), None);
    let games_to_see = all
        .iter()
        .filter(|r| {
            r["result_ok"] == "false"
                || r["termination"] == "dead-position"
                || (r["result"] != "1/2-1/2"
                    && (!r["threefold_claim_ply"].is_empty() || !r["fifty_claim_ply"].is_empty()))
                || r["winner_can_mate"] == "no"
                || r["winner_can_mate"] == "undetermined"
        })
        .count();
    assert_eq!(lines.len(), games_to_see);
    assert!(lines.len() < all.len());
}

/// The path of a fixture, as the tests' working directory sees it.
fn fixture_str(rel: &str) -> &'static str {
    Box::leak(fixture(rel).to_string_lossy().into_owned().into_boxed_str())
}

#[test]
fn problems_keeps_only_the_games_to_look_at_in_every_format() {
    let file = fixture_str("pgn/twic1599_excerpt.pgn");
    let (_, all) = rows(&[file], None);
    let (_, some) = rows(&["--problems", file], None);
    assert!(!some.is_empty() && some.len() < all.len());
    // The same rows as the full table's, game numbers kept.
    for row in &some {
        assert_eq!(&all[row["game"].parse::<usize>().unwrap() - 1], row);
    }
    let text = run(&["annotate-outcome", "-q", "-f", "text", file], None);
    assert_eq!(stdout(&text).lines().count(), some.len());
    let pgn = run(
        &["annotate-outcome", "-q", "-f", "pgn", "--problems", file],
        None,
    );
    assert_eq!(stdout(&pgn).matches("[Event ").count(), some.len());
    let jsonl = run(
        &["annotate-outcome", "-q", "-f", "jsonl", "--problems", file],
        None,
    );
    assert_eq!(stdout(&jsonl).lines().count(), some.len());
}

#[test]
fn the_page_has_a_board_for_each_position_to_look_at() {
    let file = fixture_str("annotate/time_forfeit_walled_in.pgn");
    let out = run(&["annotate-outcome", "-q", "-f", "html", file], None);
    assert_eq!(code(&out), 1);
    let html = stdout(&out);
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert_eq!(html.matches("<article class=\"game\"").count(), 3, "{html}");
    // The three games end in the same position: a board each.
    assert_eq!(html.matches("<svg class=\"board\"").count(), 3);
    assert!(
        html.contains(
            "a loss on time, and Black could not mate by any series of legal moves (6.9)"
        )
    );
    assert!(
        html.contains("<td><code>wrong-result</code></td><td class=\"n\">2</td>"),
        "{html}"
    );
    // --tags has no place on the page.
    let out = run(
        &["annotate-outcome", "-f", "html", "--tags", "Site", file],
        None,
    );
    assert_eq!(code(&out), 2);
}

/// Every `helpmate` line that `annotate-outcome` prints, on the fixtures and
/// the 2 MB pgnmentor corpus, replayed with shakmaty alone: each move legal
/// from the game's final position (convert's `final_fen` of the same game),
/// and the last one checkmating, delivered by the side the recorded result
/// names the winner. Which line the prover finds may change from one
/// version to the next; that it is a mate may not.
#[test]
fn every_helpmate_line_replays_to_mate_by_the_winner() {
    use shakmaty::{CastlingMode, Chess, Color, Position, fen::Fen, uci::UciMove};

    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("pgnmentor-2mb.pgn");
    let packed = std::fs::read(fixture("corpus/pgnmentor-2mb.pgn.zst")).unwrap();
    std::fs::write(&corpus, zstd::decode_all(&packed[..]).unwrap()).unwrap();
    let mut inputs = vec![corpus.to_str().unwrap().to_owned()];
    for sub in ["annotate", "pgn", "convert"] {
        let mut files: Vec<_> = std::fs::read_dir(fixture(sub))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "pgn"))
            .collect();
        files.sort();
        inputs.extend(files.iter().map(|p| p.to_str().unwrap().to_owned()));
    }
    fn args<'a>(head: &[&'a str], inputs: &'a [String]) -> Vec<&'a str> {
        let mut all = head.to_vec();
        all.extend(inputs.iter().map(String::as_str));
        all
    }
    // convert's rows, by (file, game): the final position and the error.
    let converted = stdout(&run(
        &args(&["convert", "-q", "--to", "csv"], &inputs),
        None,
    ));
    let mut finals = HashMap::new();
    let mut reader = csv::Reader::from_reader(converted.as_bytes());
    let headers = reader.headers().unwrap().clone();
    let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let (file, game, fen, error) = (col("file"), col("game"), col("final_fen"), col("error"));
    for row in reader.records() {
        let row = row.unwrap();
        let key = (row[file].to_owned(), row[game].to_owned());
        finals.insert(key, (row[fen].to_owned(), row[error].is_empty()));
    }
    let (code, annotated) = rows(&args(&[], &inputs), None);
    assert!(code == 0 || code == 1);
    let (mut checked, mut plies) = (0, 0);
    for row in &annotated {
        if row["winner_can_mate"] != "yes" {
            assert!(row["helpmate"].is_empty(), "{row:?}");
            continue;
        }
        let key = (row["file"].clone(), row["game"].clone());
        let (fen, clean) = &finals[&key];
        if !clean {
            continue; // convert stops at the error; annotate may not
        }
        let winner = match row["result"].as_str() {
            "1-0" => Color::White,
            "0-1" => Color::Black,
            other => panic!("a winner's line on a {other} game: {row:?}"),
        };
        let fen: Fen = fen.parse().unwrap();
        let mut pos: Chess = match fen.clone().into_position(CastlingMode::Standard) {
            Ok(pos) => pos,
            Err(_) => fen.into_position(CastlingMode::Chess960).unwrap(),
        };
        for word in row["helpmate"].split_ascii_whitespace() {
            let m = word
                .parse::<UciMove>()
                .unwrap()
                .to_move(&pos)
                .unwrap_or_else(|e| panic!("{word} is not legal ({e}): {row:?}"));
            pos.play_unchecked(m);
            plies += 1;
        }
        assert!(pos.is_checkmate(), "the line does not mate: {row:?}");
        assert_eq!(pos.turn(), !winner, "the wrong side mates: {row:?}");
        checked += 1;
    }
    // The corpus alone holds hundreds of decisive games without mate.
    assert!(checked > 500, "only {checked} lines checked");
    assert!(plies > checked, "{plies} plies in {checked} lines");
}

/// `--fix-results` alone is a minimal edit: on every fixture, the output
/// differs from the input only in the `Result` tag and the termination
/// marker (with the comment before it) of the games whose result the rules
/// contradict, and annotating the output finds no such game.
#[test]
fn fix_results_changes_only_the_results_the_rules_contradict() {
    let mut changed_games = 0;
    for dir in ["fixtures/annotate", "fixtures/pgn"] {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "pgn") {
                continue;
            }
            let file = path.to_str().unwrap();
            let input = std::fs::read(&path).unwrap();
            let out = run(
                &["annotate-outcome", "-q", "-f", "pgn", "--fix-results", file],
                None,
            );
            assert!(matches!(code(&out), 0 | 1), "{file}: {}", stderr(&out));
            let fixed = out.stdout.clone();
            // Line by line, each that differs is a Result tag or ends with a
            // marker after pgnkit's comment (a newline is added only where a
            // game did not end with one).
            let before: Vec<&[u8]> = input.split(|&b| b == b'\n').collect();
            let after: Vec<&[u8]> = fixed.split(|&b| b == b'\n').collect();
            let mut differ: Vec<String> = Vec::new();
            // What precedes a file's first game is not a game: not written.
            let first = before
                .iter()
                .position(|l| l.ends_with(after[0]))
                .unwrap_or(0);
            let mut before = before;
            before[first] = after[0];
            let (mut i, mut j) = (first, 0);
            while i < before.len() && j < after.len() {
                if before[i] == after[j] {
                    i += 1;
                } else if after[j].is_empty() {
                    // The newline added between two games.
                } else {
                    differ.push(String::from_utf8_lossy(after[j]).into_owned());
                    i += 1;
                }
                j += 1;
            }
            assert!(
                after[j..].iter().all(|l| l.is_empty()),
                "{file}: more lines written than read"
            );
            if differ.is_empty() {
                continue;
            }
            for line in &differ {
                let line = line.trim_end_matches('\r');
                let result_tag = line.starts_with("[Result \"") && line.ends_with("\"]");
                let marker = line.contains("{pgnkit: the result written was ")
                    && ["1-0", "0-1", "1/2-1/2", "*"]
                        .iter()
                        .any(|m| line.ends_with(m));
                assert!(result_tag || marker, "{file}: {line}");
                changed_games += usize::from(marker);
            }
            // Each game now records the result the rules gave it (read off
            // the records of the input and of the output, game by game).
            let results = |pgn: &[u8], column: &str| -> Vec<String> {
                let out = run(&["annotate-outcome", "-q", "-f", "csv", "-"], Some(pgn));
                let text = stdout(&out);
                let mut reader = csv::Reader::from_reader(text.as_bytes());
                let headers = reader.headers().unwrap().clone();
                let col = headers.iter().position(|h| h == column).unwrap();
                reader
                    .records()
                    .map(|r| r.unwrap()[col].to_owned())
                    .collect()
            };
            let due = results(&input, "fide_result");
            let now = results(&fixed, "result");
            assert_eq!(due.len(), now.len(), "{file}");
            for (game, (due, now)) in due.iter().zip(&now).enumerate() {
                assert!(
                    due.is_empty() || due == now,
                    "{file} game {}: {now} for {due}",
                    game + 1
                );
            }
        }
    }
    assert!(changed_games >= 4, "{changed_games}");
    // A file whose results all stand comes out byte for byte, line breaks,
    // comments, NULs and all, and so do several files in a row.
    let files = [
        "fixtures/pgn/twic1599_excerpt.pgn",
        "fixtures/pgn/nul_glued_tag.pgn",
        "fixtures/pgn/latin1.pgn",
    ];
    let mut args = vec!["annotate-outcome", "-q", "-f", "pgn", "--fix-results"];
    args.extend(files);
    let out = run(&args, None);
    let mut expected = Vec::new();
    for f in files {
        let bytes = std::fs::read(f).unwrap();
        if expected.last().is_some_and(|&b| b != b'\n') {
            expected.push(b'\n');
        }
        expected.extend(bytes);
    }
    assert!(out.stdout == expected, "{}", stdout(&out));
}

#[test]
fn pgnkit_tags_needs_fix_results() {
    let out = run(
        &[
            "annotate-outcome",
            "-f",
            "pgn",
            "--pgnkit-tags",
            "fixtures/pgn/bom.pgn",
        ],
        None,
    );
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("--fix-results"), "{}", stderr(&out));
}

/// A game whose only concern is a claimable draw shows no mating line on
/// the page (the loser's help would read as a forced mate); a game whose
/// winner could not mate shows it, said to be helped.
#[test]
fn the_page_shows_a_mating_line_only_where_mating_is_the_question() {
    let claim_only = run(
        &[
            "annotate-outcome",
            "-q",
            "-f",
            "html",
            "fixtures/annotate/fivefold_before_2014.pgn",
        ],
        None,
    );
    let page = stdout(&claim_only);
    assert!(
        page.contains("White could claim a draw by threefold repetition"),
        "{page}"
    );
    assert!(!page.contains("mating-line"), "{page}");
    // Scored a draw on time, but White's pieces could mate: the line is
    // the question, and is shown.
    let text = std::fs::read_to_string("fixtures/annotate/time_forfeit_walled_in.pgn").unwrap();
    let first = text
        .split("\n\n[")
        .next()
        .unwrap()
        .replace("0-1", "1/2-1/2");
    let loss = run(
        &["annotate-outcome", "-q", "-f", "html", "-"],
        Some(first.as_bytes()),
    );
    let page = stdout(&loss);
    assert!(page.contains("mating-line"), "{page}");
    assert!(
        page.contains("it shows mate was possible, not forced"),
        "{page}"
    );
}

/// A record older than the FIDE Laws is told that their wording judges it;
/// a game of today is not.
#[test]
fn a_record_older_than_the_laws_is_told_so() {
    let out = run(
        &[
            "annotate-outcome",
            "-q",
            "-f",
            "text",
            "fixtures/annotate/fivefold_before_2014.pgn",
            "fixtures/pgn/twic1599_excerpt.pgn",
        ],
        None,
    );
    let text = stdout(&out);
    let old = text.lines().find(|l| l.contains("Zukertort")).unwrap();
    assert!(
        old.ends_with(
            "(the game, of 1886, predates the FIDE Laws, first adopted in 1929: their wording is applied to it)"
        ),
        "{old}"
    );
    assert!(
        text.lines()
            .filter(|l| l.contains("twic1599"))
            .all(|l| !l.contains("predates")),
        "{text}"
    );
}
