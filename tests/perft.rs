//! Integration tests for `pgnkit perft`.

use std::io::Write;
use std::path::PathBuf;

use crate::util;

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq -";

/// Node limit for suite checks in the normal test run: keeps the perft part
/// of `cargo test` to a few seconds on two cores.
const NODE_LIMIT: &str = "200000";

/// Runs `pgnkit perft <args>`, asserts the exit code, returns stdout.
fn perft_ok(args: &[&str]) -> String {
    let mut full = vec!["perft"];
    full.extend_from_slice(args);
    let out = util::run(&full, None);
    assert_eq!(util::code(&out), 0, "stderr: {}", util::stderr(&out));
    util::stdout(&out)
}

/// Path of `fixtures/perft/<name>`; panics, naming it, when it is missing.
fn fixture(name: &str) -> String {
    let path = util::fixture(&format!("perft/{name}"));
    assert!(
        path.is_file(),
        "perft fixture {} is missing",
        path.display()
    );
    path.to_str().expect("fixture path is UTF-8").to_owned()
}

#[test]
fn start_position_counts() {
    assert_eq!(perft_ok(&["-d", "0"]), "1\n");
    assert_eq!(perft_ok(&["-d", "1"]), "20\n");
    assert_eq!(perft_ok(&["-d", "2"]), "400\n");
    assert_eq!(perft_ok(&["-d", "3"]), "8902\n");
    assert_eq!(perft_ok(&["-d", "4", START]), "197281\n");
}

#[test]
fn kiwipete_counts() {
    assert_eq!(perft_ok(&["-d", "1", KIWIPETE]), "48\n");
    assert_eq!(perft_ok(&["-d", "3", KIWIPETE]), "97862\n");
}

#[test]
fn timing_goes_to_stderr_unless_quiet() {
    let out = util::run(&["perft", "-d", "2"], None);
    assert_eq!(util::stdout(&out), "400\n");
    let err = util::stderr(&out);
    // One timing line and no progress bar: stderr is not a terminal here.
    assert_eq!(err.lines().count(), 1, "{err:?}");
    assert!(err.starts_with("perft: depth 2: 400 nodes in "), "{err:?}");
    assert!(err.contains("Mnodes/s"), "{err:?}");

    let out = util::run(&["perft", "-q", "-d", "2"], None);
    assert_eq!(util::stdout(&out), "400\n");
    assert_eq!(util::stderr(&out), "");
}

#[test]
fn divide_lists_moves_sorted_then_total() {
    let expected = [
        "a2a3", "a2a4", "b1a3", "b1c3", "b2b3", "b2b4", "c2c3", "c2c4", "d2d3", "d2d4", "e2e3",
        "e2e4", "f2f3", "f2f4", "g1f3", "g1h3", "g2g3", "g2g4", "h2h3", "h2h4",
    ]
    .iter()
    .map(|m| format!("{m}: 20\n"))
    .collect::<String>()
        + "\n400\n";
    assert_eq!(perft_ok(&["-d", "2", "--divide"]), expected);
}

#[test]
fn divide_depth_one_and_zero() {
    let out = perft_ok(&["-d", "1", "--divide", KIWIPETE]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 48 + 2);
    assert!(lines.contains(&"e1g1: 1"), "{out}");
    assert!(lines.contains(&"e1c1: 1"), "{out}");
    assert_eq!(&lines[48..], ["", "48"]);
    assert_eq!(perft_ok(&["-d", "0", "--divide"]), "\n1\n");
}

#[test]
fn partial_fen_defaults_missing_fields() {
    // Board only: white to move, no castling, no en passant.
    assert_eq!(
        perft_ok(&["-d", "3", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"]),
        "8902\n"
    );
    assert_eq!(perft_ok(&["-d", "1", "4k3/8/8/8/8/8/8/4K2R w K"]), "15\n");
    // Without the castling field the king has no castling move.
    assert_eq!(perft_ok(&["-d", "1", "4k3/8/8/8/8/8/8/4K2R w"]), "14\n");
    assert_eq!(perft_ok(&["-d", "1", "4k3/8/8/8/8/8/8/4K2R"]), "14\n");
}

#[test]
fn xfen_and_shredder_fen_agree() {
    // tricky.perft xfen-00: `KQkq` names the outermost rooks (e- and a-file).
    let xfen = "r1k1r2q/p1ppp1pp/8/8/8/8/P1PPP1PP/R1K1R2Q w KQkq -";
    let shredder = "r1k1r2q/p1ppp1pp/8/8/8/8/P1PPP1PP/R1K1R2Q w EAea -";
    assert_eq!(perft_ok(&["-d", "3", xfen]), "12333\n");
    assert_eq!(perft_ok(&["-d", "3", shredder]), "12333\n");
    // Chess960 detected: castling is written king to rook.
    let divide = perft_ok(&["-d", "1", "--divide", shredder]);
    assert!(divide.contains("c1a1: 1\n"), "{divide}");
    assert_eq!(divide, perft_ok(&["-d", "1", "--divide", xfen]));
}

#[test]
fn chess960_shredder_fen_counts() {
    let fen = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9";
    assert_eq!(perft_ok(&["-d", "3", fen]), "12189\n");
    // Castling is king to rook: e1b1 (counts checked against stockfish
    // with UCI_Chess960).
    let fen = "1r2k1r1/8/8/8/8/8/8/1R2K1R1 w GBgb - 0 1";
    let divide = perft_ok(&["-d", "3", "--divide", fen]);
    assert!(divide.contains("\ne1b1: "), "{divide}");
    assert!(!divide.contains("e1c1"), "{divide}");
    assert_eq!(perft_ok(&["-d", "4", fen]), "272627\n");
}

#[test]
fn chess960_flag_changes_castling_notation_only() {
    let fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
    let standard = perft_ok(&["-d", "2", "--divide", fen]);
    let chess960 = perft_ok(&["-d", "2", "--divide", "--chess960", fen]);
    assert!(
        standard.contains("e1g1: ") && standard.contains("e1c1: "),
        "{standard}"
    );
    assert!(
        chess960.contains("e1h1: ") && chess960.contains("e1a1: "),
        "{chess960}"
    );
    assert!(!chess960.contains("e1g1: "), "{chess960}");
    assert!(standard.ends_with("\n568\n"), "{standard}");
    assert!(chess960.ends_with("\n568\n"), "{chess960}");
}

#[test]
fn moves_are_played_before_counting() {
    assert_eq!(perft_ok(&["-d", "1", "--moves", "e2e4 e7e5"]), "29\n");
    assert_eq!(perft_ok(&["-d", "1", "--moves", "e2e4,e7e5"]), "29\n");
    assert_eq!(perft_ok(&["-d", "1", "--moves", " e2e4 ,  e7e5 "]), "29\n");
    // After 1.e4 d5 2.e5 f5 white can take en passant on f6.
    let divide = perft_ok(&["-d", "1", "--divide", "--moves", "e2e4 d7d5 e4e5 f7f5"]);
    assert!(divide.contains("e5f6: 1\n"), "{divide}");
    // Castling in standard UCI.
    let fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
    // Black: 10 a8-rook moves, 9 h8-rook moves, Kd8/Kd7/Ke7 and O-O-O.
    assert_eq!(perft_ok(&["-d", "1", "--moves", "e1g1", fen]), "23\n");
}

#[test]
fn illegal_move_is_an_error() {
    let out = util::run(&["perft", "-d", "1", "--moves", "e2e4 e7e4"], None);
    assert_eq!(util::code(&out), 2);
    assert_eq!(util::stdout(&out), "");
    let err = util::stderr(&out);
    assert!(
        err.starts_with("pgnkit: cannot play --moves: move 2 \"e7e4\" is illegal in rnbqkbnr/"),
        "{err}"
    );

    let out = util::run(&["perft", "-d", "1", "--moves", "e2e4 x"], None);
    assert_eq!(util::code(&out), 2);
    assert!(util::stderr(&out).contains("move 2 \"x\" is not a uci move"));
}

#[test]
fn bad_fen_is_an_error_naming_the_problem() {
    let out = util::run(
        &[
            "perft",
            "-d",
            "1",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX",
        ],
        None,
    );
    assert_eq!(util::code(&out), 2);
    assert_eq!(util::stdout(&out), "");
    let err = util::stderr(&out);
    assert!(err.starts_with("pgnkit: invalid fen \"rnbqkbnr/"), "{err}");
    assert!(err.contains("board"), "{err}");

    let out = util::run(&["perft", "-d", "1", "4k3/8/8/8/8/8/8/8 w - -"], None);
    assert_eq!(util::code(&out), 2);
    assert!(
        util::stderr(&out).contains("missing king"),
        "{}",
        util::stderr(&out)
    );

    let out = util::run(&["perft", "-d", "1", "4k3/8/8/8/8/8/8/4K3 w K -"], None);
    assert_eq!(util::code(&out), 2);
    assert!(
        util::stderr(&out).contains("invalid castling rights"),
        "{}",
        util::stderr(&out)
    );
}

#[test]
fn flag_misuse_is_an_error() {
    let out = util::run(&["perft"], None);
    assert_eq!(util::code(&out), 2);
    assert!(util::stderr(&out).contains("--depth is required"));

    let suite = fixture("standard.epd");
    let out = util::run(&["perft", "--suite", &suite, START], None);
    assert_eq!(util::code(&out), 2);
    assert!(util::stderr(&out).contains("--suite cannot be combined"));

    let out = util::run(&["perft", "-d", "1", "--max-nodes", "5"], None);
    assert_eq!(util::code(&out), 2);
}

#[test]
fn threads_and_hash_do_not_change_output() {
    for (fen, depth) in [(START, "4"), (KIWIPETE, "3")] {
        let reference = perft_ok(&["-d", depth, "--divide", "-j", "1", "--hash", "0", fen]);
        for args in [
            ["-j", "4", "--hash", "0"],
            ["-j", "1", "--hash", "64"],
            ["-j", "4", "--hash", "1"],
            ["-j", "2", "--hash", "64"],
        ] {
            let mut full = vec!["-d", depth, "--divide", fen];
            full.extend_from_slice(&args);
            assert_eq!(perft_ok(&full), reference, "{args:?} on {fen}");
        }
    }
}

#[test]
fn suite_output_does_not_depend_on_threads_or_hash() {
    let path = fixture("standard.epd");
    let reference = perft_ok(&[
        "--suite",
        &path,
        "--max-nodes",
        NODE_LIMIT,
        "-j",
        "1",
        "--hash",
        "0",
    ]);
    assert_eq!(reference.lines().count(), 19);
    for args in [["-j", "4", "--hash", "1"], ["-j", "2", "--hash", "64"]] {
        let mut full = vec!["--suite", &path, "--max-nodes", NODE_LIMIT];
        full.extend_from_slice(&args);
        assert_eq!(perft_ok(&full), reference, "{args:?}");
    }
}

/// Runs a suite; returns (exit code, stdout lines, stderr).
fn suite(args: &[&str]) -> (i32, Vec<String>, String) {
    let mut full = vec!["perft"];
    full.extend_from_slice(args);
    let out = util::run(&full, None);
    let lines = util::stdout(&out).lines().map(str::to_owned).collect();
    (util::code(&out), lines, util::stderr(&out))
}

#[test]
fn suite_epd_format() {
    let (code, lines, err) = suite(&[
        "--suite",
        &fixture("standard.epd"),
        "--max-nodes",
        NODE_LIMIT,
    ]);
    assert_eq!(code, 0, "{err}");
    // 5 positions, 29 counts listed, 19 of them at most 200,000 nodes.
    assert_eq!(lines.len(), 19, "{lines:#?}");
    assert!(
        lines.iter().all(|l| l.starts_with("ok   line=")),
        "{lines:#?}"
    );
    assert_eq!(
        lines[2],
        format!("ok   line=1 depth=3 expected=8902 got=8902 fen={START}")
    );
    assert!(
        lines[3].contains("depth=4 expected=197281 got=197281"),
        "{lines:#?}"
    );
    assert!(err.contains("19 checks, 0 failed, 10 skipped"), "{err}");
}

#[test]
fn suite_block_formats() {
    for (name, checks) in [
        ("tricky.perft", 27),
        ("chess960.perft", 12),
        ("random.perft", 13),
        ("fischer.epd", 6),
        ("whitespace.epd", 4),
    ] {
        let (code, lines, err) = suite(&["--suite", &fixture(name), "--max-nodes", NODE_LIMIT]);
        assert_eq!(code, 0, "{name}: {err}\n{lines:#?}");
        assert_eq!(lines.len(), checks, "{name}: {lines:#?}");
        assert!(
            lines.iter().all(|l| l.starts_with("ok   ")),
            "{name}: {lines:#?}"
        );
    }
}

#[test]
fn suite_failures_exit_1() {
    let (code, lines, _) = suite(&["--suite", &fixture("wrong_count.epd")]);
    assert_eq!(code, 1);
    assert_eq!(
        lines,
        [
            format!("ok   line=2 depth=1 expected=20 got=20 fen={START}"),
            format!("ok   line=2 depth=2 expected=400 got=400 fen={START}"),
            format!("FAIL line=4 depth=3 expected=8903 got=8902 fen={START}"),
        ]
    );

    let (code, lines, err) = suite(&["-q", "--suite", &fixture("wrong_count.perft")]);
    assert_eq!(code, 1);
    assert_eq!(
        lines,
        [
            format!("ok   line=6 depth=1 expected=48 got=48 fen={KIWIPETE}"),
            format!("FAIL line=7 depth=2 expected=2040 got=2039 fen={KIWIPETE}"),
            "FAIL line=11 depth=1 expected=5 got=- fen=4k3/8/8/8/8/8/8/8 w - -".to_owned(),
        ]
    );
    // A bad FEN is reported, even with -q, and does not stop the suite.
    assert!(err.contains("wrong_count.perft:10: invalid fen"), "{err}");
    assert!(err.contains("missing king"), "{err}");
}

#[test]
fn suite_limits_skip_checks() {
    let path = fixture("standard.epd");
    let (code, lines, err) = suite(&["--suite", &path, "--max-nodes", "500"]);
    assert_eq!(code, 0);
    let expected: Vec<u64> = lines
        .iter()
        .map(|l| {
            let field = l.split(' ').find(|f| f.starts_with("expected=")).unwrap();
            field["expected=".len()..].parse().unwrap()
        })
        .collect();
    assert_eq!(expected, [20, 400, 48, 15, 66, 26, 112, 26]);
    assert!(err.contains("8 checks, 0 failed, 21 skipped"), "{err}");

    let (code, lines, _) = suite(&["--suite", &path, "-d", "1"]);
    assert_eq!(code, 0);
    assert_eq!(lines.len(), 5);
    assert!(lines.iter().all(|l| l.contains(" depth=1 ")));

    // A check whose real count passes the limit stops there and fails;
    // the summary counts the nodes it counted.
    let text = format!("{START} ;D3 100\n");
    let out = util::run(
        &["perft", "--suite", "-", "--max-nodes", "1000"],
        Some(text.as_bytes()),
    );
    assert_eq!(util::code(&out), 1);
    assert_eq!(
        util::stdout(&out),
        format!("FAIL line=1 depth=3 expected=100 got=>1000 fen={START}\n")
    );
    let err = util::stderr(&out);
    assert!(
        err.contains("1 checks, 1 failed, 0 skipped, 1000 nodes"),
        "{err}"
    );

    // A failing check above the limit is skipped, not failed.
    let (code, lines, _) = suite(&[
        "--suite",
        &fixture("wrong_count.epd"),
        "--max-nodes",
        "8902",
    ]);
    assert_eq!(code, 0);
    assert_eq!(lines.len(), 2);
}

#[test]
fn malformed_suite_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.perft");
    std::fs::write(&path, "id x\nepd 8/8/8/8/8/8/8/K1k5 w - -\nperft one 3\n").unwrap();
    let out = util::run(&["perft", "--suite", path.to_str().unwrap()], None);
    assert_eq!(util::code(&out), 2);
    let err = util::stderr(&out);
    assert!(err.contains("line 3: invalid depth \"one\""), "{err}");

    let out = util::run(&["perft", "--suite", "no/such/file.epd"], None);
    assert_eq!(util::code(&out), 2);
    assert!(util::stderr(&out).contains("failed to read no/such/file.epd"));

    // A depth past the cap is refused before anything runs (it used to
    // overflow the stack), even when --max-nodes would stop the count.
    std::fs::write(
        &path,
        "epd 4k3/8/8/8/8/8/8/4K3 w - -\nperft 1 5\nperft 4294967295 5\n",
    )
    .unwrap();
    let path = path.to_str().unwrap();
    for extra in [&[][..], &["--max-nodes", "1000"]] {
        let (code, lines, err) = suite(&[&["--suite", path][..], extra].concat());
        assert_eq!(code, 2, "{err}");
        assert!(lines.is_empty(), "{lines:?}");
        assert!(
            err.contains("line 3: depth 4294967295 is deeper than 1000"),
            "{err}"
        );
    }
    // An `epd` block needs a check, as an EPD line does.
    std::fs::write(
        path,
        "epd 4k3/8/8/8/8/8/8/4K3 w - -\nepd 4k3/8/8/8/8/8/8/3K4 w - -\nperft 1 5\n",
    )
    .unwrap();
    let (code, _, err) = suite(&["--suite", path]);
    assert_eq!(code, 2);
    assert!(err.contains("line 1: `epd` line without a `perft"), "{err}");
}

#[test]
fn depth_is_capped_at_1000() {
    let out = util::run(
        &["perft", "-q", "-d", "10000", "4k3/8/8/8/8/8/8/4K3 w - -"],
        None,
    );
    assert_eq!(util::code(&out), 2);
    assert!(
        util::stderr(&out).contains("10000 is not in 0..=1000"),
        "{}",
        util::stderr(&out)
    );
    // The cap itself is accepted: a stalemate has no move at any depth.
    assert_eq!(
        perft_ok(&["-q", "-d", "1000", "k7/8/1Q6/8/8/8/8/7K b - -"]),
        "0\n"
    );
    // And a count that deep runs down its first line (the recursion that
    // overflowed the stack at 10000) until --max-nodes stops it.
    let text = "epd 4k3/8/8/8/8/8/8/R3K3 w - -\nperft 1000 1\n";
    for threads in ["1", "2"] {
        let args = [
            "perft",
            "-j",
            threads,
            "--suite",
            "-",
            "--max-nodes",
            "100000",
        ];
        let out = util::run(&args, Some(text.as_bytes()));
        assert_eq!(util::code(&out), 1, "{}", util::stderr(&out));
        let said = util::stdout(&out);
        assert!(said.contains("depth=1000 expected=1 got=>100000"), "{said}");
    }
}

#[test]
fn a_suite_is_read_from_standard_input_byte_order_mark_and_all() {
    let text = "\u{feff}4k3/8/8/8/8/8/8/4K3 w - - ;D1 5 ;D2 25\n";
    let out = util::run(&["perft", "--suite", "-"], Some(text.as_bytes()));
    assert_eq!(util::code(&out), 0, "{}", util::stderr(&out));
    assert_eq!(
        util::stdout(&out),
        "ok   line=1 depth=1 expected=5 got=5 fen=4k3/8/8/8/8/8/8/4K3 w - -\n\
         ok   line=1 depth=2 expected=25 got=25 fen=4k3/8/8/8/8/8/8/4K3 w - -\n"
    );
    assert!(
        util::stderr(&out).contains("perft: <stdin>: 2 checks"),
        "{}",
        util::stderr(&out)
    );
    // A byte order mark before a Latin-1 comment (read as Latin-1 whole).
    let bytes = b"\xef\xbb\xbf# caf\xe9\nepd 4k3/8/8/8/8/8/8/4K3 w - -\nperft 1 5\n";
    let out = util::run(&["perft", "-q", "--suite", "-"], Some(bytes));
    assert_eq!(util::code(&out), 0, "{}", util::stderr(&out));
}

#[test]
fn hostile_bytes_in_a_suite_are_named_and_escaped() {
    // NUL, ESC and invalid UTF-8 in a count, then a huge token: exit 2,
    // the line named, nothing that drives a terminal, nothing huge echoed.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hostile.epd");
    let mut suite =
        b"8/8/8/8/8/8/8/K1k5 w - - ;D1 3\n8/8/8/8/8/8/8/K1k5 w - - ;D1 \0\x1b[2J\xff\n".to_vec();
    std::fs::write(&path, &suite).unwrap();
    let out = util::run(&["perft", "--suite", path.to_str().unwrap()], None);
    assert_eq!(util::code(&out), 2);
    let err = util::stderr(&out);
    assert!(err.contains("line 2: invalid node count"), "{err}");
    assert!(!err.chars().any(|c| c.is_control() && c != '\n'), "{err:?}");

    suite.truncate(suite.len() - 7);
    suite.extend(b"9".repeat(1_000_000));
    suite.push(b'\n');
    std::fs::write(&path, &suite).unwrap();
    let out = util::run(&["perft", "--suite", path.to_str().unwrap()], None);
    assert_eq!(util::code(&out), 2);
    let err = util::stderr(&out);
    assert!(err.contains("line 2: "), "{err}");
    assert!(err.len() < 1000, "{} bytes of message", err.len());
}

/// The suites of `fixtures/perft/` that hold only correct counts: excerpts
/// and samples of public perft suites (sources in `fixtures/perft/README.md`).
/// The samples sit in a folder of their own so that `benches/compare.sh`,
/// which runs `fixtures/perft/*.perft`, keeps recording the same suites.
const FIXTURE_SUITES: [&str; 9] = [
    "random.perft",
    "tricky.perft",
    "chess960.perft",
    "standard.epd",
    "fischer.epd",
    "samples/random.perft",
    "samples/tricky_rest.perft",
    "samples/chess960.perft",
    "samples/standard_rest.epd",
];

/// Runs every suite in `paths` with the `extra` flags and asserts that each
/// ran checks and that all of them passed. A missing file fails the test,
/// naming it.
fn run_suites(paths: &[PathBuf], extra: &[&str]) {
    for path in paths {
        assert!(
            path.is_file(),
            "perft suite {} is missing: the test cannot run without it",
            path.display()
        );
        let path = path.to_str().expect("UTF-8 path").to_owned();
        let mut args = vec!["perft", "-q", "--suite", &path];
        args.extend_from_slice(extra);
        let out = util::run(&args, None);
        let stdout = util::stdout(&out);
        let failures: Vec<&str> = stdout.lines().filter(|l| !l.starts_with("ok")).collect();
        assert_eq!(
            util::code(&out),
            0,
            "{path}: {failures:#?}\n{}",
            util::stderr(&out)
        );
        assert!(failures.is_empty(), "{path}: {failures:#?}");
        assert!(stdout.lines().count() > 0, "{path}: no checks ran");
    }
}

/// Every correct suite of `fixtures/perft/`, up to a node limit that keeps
/// the debug run short.
#[test]
fn fixture_suites_with_node_limit() {
    let paths: Vec<PathBuf> = FIXTURE_SUITES
        .iter()
        .map(|name| util::fixture(&format!("perft/{name}")))
        .collect();
    run_suites(&paths, &["--max-nodes", "20000"]);
}

/// The whole reference suites the fixtures were copied from (6,838 random,
/// 960 Chess960, 126 standard positions), in full. They live in the
/// project's shared data (`../shared/data/perft/`), which developers have and
/// users do not: the test fails, naming the path, when it is absent. Slow:
/// run it with `cargo test --release -- --ignored shared_suites_full`.
#[test]
#[ignore = "needs ../shared/data/perft and takes minutes even in release"]
fn shared_suites_full() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data/perft");
    let paths: Vec<PathBuf> = [
        "random.perft",
        "tricky.perft",
        "chess960.perft",
        "standard.epd",
        "fischer.epd",
    ]
    .iter()
    .map(|name| dir.join(name))
    .collect();
    run_suites(&paths, &[]);
}

#[test]
fn startpos_names_the_start_position() {
    assert_eq!(perft_ok(&["-d", "2", "startpos"]), "400\n");
    assert_eq!(
        perft_ok(&["-d", "2", "--divide", "startpos", "--moves", "e2e4"]),
        perft_ok(&["-d", "2", "--divide", START, "--moves", "e2e4"])
    );
}

#[test]
fn an_unquoted_fen_is_refused_with_advice_to_quote_it() {
    // See issue 12: the shell splits `perft -d 1 <fen>` into six words.
    let fields: Vec<&str> = START.split(' ').collect();
    let mut args = vec!["perft", "-d", "1"];
    args.extend(&fields);
    let out = util::run(&args, None);
    assert_eq!(util::code(&out), 2);
    assert_eq!(util::stdout(&out), "");
    assert_eq!(
        util::stderr(&out),
        format!(
            "pgnkit: the FEN was given as 6 arguments: quote it, as in pgnkit perft \"{START}\"\n"
        )
    );
    // Some fields only (`w` alone after the board) get the same advice.
    let out = util::run(&["perft", "-d", "1", fields[0], "w"], None);
    assert_eq!(util::code(&out), 2);
    assert!(
        util::stderr(&out).contains("quote it"),
        "{}",
        util::stderr(&out)
    );
}

/// Reads the first line of a perft run that has far more work behind it,
/// then checks the run is still going: the line was flushed as soon as it
/// was known, not at the end.
fn first_line_arrives_while_running(args: &[&str]) -> String {
    use std::io::BufRead;
    let mut child = util::pgnkit()
        .arg("perft")
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    let running = child.try_wait().unwrap().is_none();
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(running, "perft {args:?} had ended when its first line came");
    line
}

#[test]
fn divide_lines_stream_as_they_are_counted() {
    // See issue 12. Depth 6 from the start is 119 million nodes, and a2a3
    // alone is 4.5 million: its line comes long before the total.
    let line = first_line_arrives_while_running(&["-d", "6", "--divide", "-j1", "--hash", "0"]);
    assert_eq!(line, "a2a3: 4463267\n");
}

#[test]
fn suite_lines_stream_as_they_are_checked() {
    // See issue 12: a quick check, then one of 119 million nodes.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("slow.epd");
    std::fs::write(&path, format!("{START} ;D1 20\n{START} ;D6 119060324\n")).unwrap();
    let line = first_line_arrives_while_running(&[
        "--suite",
        path.to_str().unwrap(),
        "-j1",
        "--hash",
        "0",
    ]);
    assert_eq!(
        line,
        format!("ok   line=1 depth=1 expected=20 got=20 fen={START}\n")
    );
}

#[test]
fn a_suite_is_read_compressed_and_from_standard_input_as_every_input() {
    // See issue 21: suites go through `input::open` like every input.
    let text = "4k3/8/8/8/8/8/8/4K3 w - - ;D1 5 ;D2 25\n";
    let expected = "ok   line=1 depth=1 expected=5 got=5 fen=4k3/8/8/8/8/8/8/4K3 w - -\n\
                    ok   line=1 depth=2 expected=25 got=25 fen=4k3/8/8/8/8/8/8/4K3 w - -\n";
    let dir = tempfile::tempdir().unwrap();
    let zst = dir.path().join("suite.epd.zst");
    std::fs::write(&zst, zstd::encode_all(text.as_bytes(), 3).unwrap()).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(text.as_bytes()).unwrap();
    let gz = gz.finish().unwrap();
    let gz_path = dir.path().join("suite.epd.gz");
    std::fs::write(&gz_path, &gz).unwrap();
    for (path, stdin) in [
        (zst.to_str().unwrap(), None),
        (gz_path.to_str().unwrap(), None),
        ("-", Some(&gz[..])),
    ] {
        for threads in ["1", "2"] {
            let out = util::run(&["perft", "-q", "-j", threads, "--suite", path], stdin);
            assert_eq!(util::code(&out), 0, "{path}: {}", util::stderr(&out));
            assert_eq!(util::stdout(&out), expected, "{path} -j{threads}");
        }
    }
}
