//! Hostile sizes and limits (issue 10): work that must stay linear or
//! bounded whatever the input, and `perft` options that must end with a
//! clear answer, never a panic or a hang.

use crate::util;

/// One game of `plies` knight moves out and back, on one line.
fn shuffle_game(plies: usize) -> String {
    let mut pgn = String::from("[Event \"x\"]\n\n");
    for i in 0..plies / 4 {
        let n = 2 * i + 1;
        pgn.push_str(&format!("{n}. Nf3 Nf6 {}. Ng1 Ng8 ", n + 1));
    }
    pgn.push_str("*\n");
    pgn
}

/// The finding codes of a `validate` report, one per finding.
fn codes(report: &str) -> Vec<&str> {
    report
        .lines()
        .filter_map(|l| l.split("): ").nth(1))
        .filter_map(|rest| rest.split(':').next())
        .collect()
}

#[test]
fn plies_after_the_end_are_reported_once() {
    // 40,000 plies: fivefold repetition at ply 16, one move-after-end.
    let pgn = shuffle_game(40_000);
    let out = util::run(&["validate", "-"], Some(pgn.as_bytes()));
    assert_eq!(util::code(&out), 1);
    let report = util::stdout(&out);
    let after: Vec<&str> = report
        .lines()
        .filter(|l| l.contains("move-after-end"))
        .collect();
    assert_eq!(after.len(), 1, "{report}");
    assert!(
        after[0].contains("ended by fivefold repetition after 8...Ng8"),
        "{report}"
    );

    let out = util::run(&["annotate-outcome", "-q", "-"], Some(pgn.as_bytes()));
    let csv = util::stdout(&out);
    let row = csv.lines().nth(1).expect("one row");
    assert!(row.contains(",40000,fivefold-repetition,16,"), "{row}");
}

#[test]
fn a_hundred_thousand_tags_in_one_game() {
    let mut pgn = String::new();
    for i in 0..100_000 {
        pgn.push_str(&format!("[T{i} \"v\"]\n"));
    }
    pgn.push_str("[T99999 \"again\"]\n\n1. e4 *\n");
    let out = util::run(&["validate", "-"], Some(pgn.as_bytes()));
    assert_eq!(util::code(&out), 1);
    let report = util::stdout(&out);
    let dup: Vec<&str> = codes(&report)
        .into_iter()
        .filter(|c| *c == "duplicate-tag")
        .collect();
    assert_eq!(dup.len(), 1, "{report}");
    assert!(report.contains(":100001: game 1"), "{report}");

    // JSON Lines keeps the first value of a repeated tag, one key per name.
    let out = util::run(
        &["convert", "-q", "--to", "jsonl", "-"],
        Some(pgn.as_bytes()),
    );
    assert_eq!(util::code(&out), 0);
    let record: serde_json::Value =
        serde_json::from_str(util::stdout(&out).trim_end()).expect("one JSON record");
    let tags = record["tags"].as_object().expect("a tags object");
    assert_eq!(tags.len(), 100_000);
    assert_eq!(tags["T99999"], "v");
}

#[test]
fn seventy_thousand_nested_variations() {
    let n = 70_000;
    let balanced = format!(
        "[Event \"x\"]\n\n1. e4 {}1. d4{} e5 *\n",
        "(".repeat(n),
        ")".repeat(n)
    );
    let out = util::run(&["validate", "-"], Some(balanced.as_bytes()));
    let report = util::stdout(&out);
    assert!(!report.contains("syntax"), "{report}");

    // Unclosed, then the next game: one finding, and the next game is read.
    let unclosed = format!(
        "[Event \"x\"]\n\n1. e4 {}1. d4 e5\n\n[Event \"y\"]\n\n1. d4 *\n",
        "(".repeat(n)
    );
    let out = util::run(&["validate", "-"], Some(unclosed.as_bytes()));
    assert_eq!(util::code(&out), 1);
    let report = util::stdout(&out);
    let syntax: Vec<&str> = report.lines().filter(|l| l.contains("syntax")).collect();
    assert_eq!(syntax.len(), 1, "{report}");
    assert!(
        syntax[0].contains("variation not closed before the next game"),
        "{report}"
    );
    assert!(
        util::stderr(&out).starts_with("2 games"),
        "{}",
        util::stderr(&out)
    );
}

#[test]
fn no_panic_message_reaches_stderr() {
    // A game the solver is asked about; whatever it answers, stderr holds
    // the summary only.
    let pgn = "[Result \"0-1\"]\n[SetUp \"1\"]\n[FEN \"8/8/8/8/8/5k2/8/4K2q w - - 0 1\"]\n\
               [Termination \"Time forfeit\"]\n\n0-1\n";
    let out = util::run(&["annotate-outcome", "-"], Some(pgn.as_bytes()));
    assert!(!util::stderr(&out).contains("panicked"));
}

/// Runs `pgnkit perft <args>`: exit code, stdout, stderr.
fn perft(args: &[&str]) -> (i32, String, String) {
    let mut full = vec!["perft"];
    full.extend_from_slice(args);
    let out = util::run(&full, None);
    (util::code(&out), util::stdout(&out), util::stderr(&out))
}

/// Writes `bytes` to a suite file in `dir`, returns its path.
fn suite_file(dir: &tempfile::TempDir, name: &str, bytes: &[u8]) -> String {
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).unwrap();
    path.to_str().unwrap().to_owned()
}

const START_EPD: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";

#[test]
fn max_nodes_bounds_the_real_count_not_the_claim() {
    let dir = tempfile::tempdir().unwrap();
    let path = suite_file(
        &dir,
        "deep.epd",
        format!("{START_EPD} ;D1 20 ;D32 1 ;D3 9000\n").as_bytes(),
    );
    let (code, out, err) = perft(&["--suite", &path, "--max-nodes", "1000"]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(
        out,
        format!(
            "ok   line=1 depth=1 expected=20 got=20 fen={START_EPD}\n\
             FAIL line=1 depth=32 expected=1 got=>1000 fen={START_EPD}\n"
        )
    );
    assert!(err.contains("2 checks, 1 failed, 1 skipped"), "{err}");
}

#[test]
fn thousands_of_threads_are_capped() {
    let (code, out, err) = perft(&["-d", "1", "-j", "16000"]);
    assert_eq!((code, out.as_str()), (0, "20\n"), "{err}");
    assert!(err.contains("-j 16000 lowered to"), "{err}");
}

#[test]
fn zero_threads_and_a_huge_hash_are_usage_errors() {
    let (code, out, err) = perft(&["-d", "1", "-j", "0"]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(
        err.contains("invalid value '0' for '--threads <N>'"),
        "{err}"
    );

    for mib in ["1000000000", "18446744073709551615"] {
        let (code, out, err) = perft(&["-d", "1", "--hash", mib]);
        assert_eq!((code, out.as_str()), (2, ""));
        assert!(err.contains("hash table"), "{err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

#[test]
fn empty_and_latin1_suites() {
    let dir = tempfile::tempdir().unwrap();
    let empty = suite_file(&dir, "empty.epd", b"");
    let (code, out, err) = perft(&["--suite", &empty]);
    assert_eq!((code, out.as_str()), (0, ""), "{err}");
    assert!(err.contains("0 checks, 0 failed, 0 skipped"), "{err}");

    let latin1 = suite_file(
        &dir,
        "latin1.perft",
        format!("id caf\u{e9}\nepd {START_EPD}\nperft 1 20\n")
            .chars()
            .map(|c| c as u8)
            .collect::<Vec<u8>>()
            .as_slice(),
    );
    let (code, out, err) = perft(&["--suite", &latin1]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        format!("ok   line=3 depth=1 expected=20 got=20 fen={START_EPD}\n")
    );
}
