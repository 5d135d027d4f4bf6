//! Integration tests for `pgnkit convert`: one concern each, on fixtures
//! (`fixtures/convert/README.md`) and real games from `fixtures/pgn/`.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::util::{DAMAGED_REPAIRED, code, movetexts, pgnkit, run, stderr, stdout};

/// Runs `pgnkit convert -q ARGS`, expecting exit status `want`.
fn convert(args: &[&str], stdin: Option<&[u8]>, want: i32) -> String {
    let mut all = vec!["convert", "-q"];
    all.extend_from_slice(args);
    let out = run(&all, stdin);
    assert_eq!(code(&out), want, "{all:?}: {}", stderr(&out));
    stdout(&out)
}

/// Writes `bytes` to a temporary file: large inputs cannot go through
/// `run`'s standard input, which is written whole before stdout is read.
fn temp_input(bytes: &[u8]) -> tempfile::NamedTempFile {
    let mut file = tempfile::NamedTempFile::new().unwrap();
    std::io::Write::write_all(&mut file, bytes).unwrap();
    file
}

const TWIC: &str = "fixtures/pgn/twic1599_excerpt.pgn";

#[test]
fn uci_san_and_lan_lines() {
    let pgn = b"1. e4 e5 2. Ng1f3 Nc6 3. Bb5 a6 4. Bxc6 dxc6 5. O-O Qd4 6. Nxe5 Qxe4 *\n\n*\n";
    assert_eq!(
        convert(&["--to", "uci"], Some(pgn), 0),
        "e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5c6 d7c6 e1g1 d8d4 f3e5 d4e4\n\n"
    );
    // SAN is normalised (Ng1f3 → Nf3) and gets its check suffix.
    assert_eq!(
        convert(&["--to", "san"], Some(pgn), 0),
        "e4 e5 Nf3 Nc6 Bb5 a6 Bxc6 dxc6 O-O Qd4 Nxe5 Qxe4\n\n"
    );
    assert_eq!(
        convert(&["--to", "lan"], Some(pgn), 0),
        "e2-e4 e7-e5 Ng1-f3 Nb8-c6 Bf1-b5 a7-a6 Bb5xc6 d7xc6 O-O Qd8-d4 Nf3xe5 Qd4xe4\n\n"
    );
}

#[test]
fn move_numbers_go_past_the_largest_fullmove_a_fen_holds() {
    let pgn = b"[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/8/R3K3 b - - 0 4294967295\"]\n\
                [Result \"*\"]\n\n4294967295... Kd7 4294967296. Ra7+ Kc6 *\n";
    let moves = "4294967295... Kd7 4294967296. Ra7+ Kc6 *";
    let out = convert(&["--to", "pgn"], Some(pgn), 0);
    assert!(out.contains(moves), "{out}");
    let out = run(&["annotate-outcome", "-q", "-f", "pgn"], Some(pgn));
    assert!(stdout(&out).contains(moves), "{}", stdout(&out));
}

#[test]
fn a_game_from_a_fen_uses_the_uci_position_syntax() {
    let pgn = b"[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/8/4K2R w K - 0 1\"]\n\n1. O-O Kd7 *\n\
                [SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/8/4K2R w K - 0 1\"]\n\n*\n";
    assert_eq!(
        convert(&["--to", "uci"], Some(pgn), 0),
        "fen 4k3/8/8/8/8/8/8/4K2R w K - 0 1 moves e1g1 e8d7\n\
         fen 4k3/8/8/8/8/8/8/4K2R w K - 0 1 moves\n"
    );
}

#[test]
fn chess960_keeps_shredder_fen_and_king_to_rook() {
    let uci = convert(&["--to", "uci", "fixtures/pgn/chess960.pgn"], None, 0);
    let first = uci.lines().next().unwrap();
    assert!(
        first.starts_with(
            "fen nbbrknrq/pppppppp/8/8/8/8/PPPPPPPP/NBBRKNRQ w GDgd - 0 1 moves d2d4 d7d5"
        ),
        "{first}"
    );
    // 9... O-O: the king on e8 takes the rook on g8 (king to rook).
    assert_eq!(first.split(' ').nth(8 + 17), Some("e8g8"), "{first}");
    let san = convert(&["--to", "san", "fixtures/pgn/chess960.pgn"], None, 0);
    assert!(
        san.lines().next().unwrap().contains(" h4 O-O Be3 "),
        "{san}"
    );
    // Read back, the Shredder-FEN says Chess960 again: same SAN, same end.
    assert_eq!(convert(&["--to", "san"], Some(uci.as_bytes()), 0), san);
    assert_eq!(
        convert(&["--to", "fen"], Some(uci.as_bytes()), 0),
        convert(&["--to", "fen", "fixtures/pgn/chess960.pgn"], None, 0)
    );
}

#[test]
fn pgn_to_uci_and_back_gives_the_same_moves_and_final_fen() {
    let uci = convert(&["--to", "uci", TWIC], None, 0);
    assert_eq!(uci.lines().count(), 12);
    for format in ["uci", "san", "fen"] {
        let direct = convert(&["--to", format, TWIC], None, 0);
        let via_uci = convert(&["--from", "uci", "--to", format], Some(uci.as_bytes()), 0);
        assert_eq!(via_uci, direct, "--to {format}");
    }
}

#[test]
fn invalid_games_are_reported_and_get_an_empty_record() {
    let file = "fixtures/pgn/illegal_move_ply_61.pgn";
    let out = run(&["convert", "--to", "uci", file, TWIC], None);
    assert_eq!(code(&out), 1);
    // One line per game (issue 22): the invalid game's is empty.
    assert_eq!(stdout(&out).lines().count(), 13);
    assert_eq!(stdout(&out).lines().next(), Some(""));
    let err = stderr(&out);
    let mut lines = err.lines();
    assert_eq!(
        lines.next(),
        Some(
            "pgnkit: fixtures/pgn/illegal_move_ply_61.pgn:16: game 1 (Gelfand,B - Gareev,T; World \
             Blitz 2019, round 11.16), ply 61 (31.Qxe1): illegal-move: `Qxe1` is not a legal move"
        )
    );
    assert!(
        lines
            .next()
            .unwrap()
            .starts_with("13 games, 1 could not be replayed (an empty line each)"),
        "{err}"
    );

    // Bad FEN and unsupported variants are invalid games too.
    for (file, what) in [
        ("fixtures/pgn/bad_fen.pgn", "invalid-fen"),
        ("fixtures/pgn/crazyhouse.pgn", "unsupported-variant"),
    ] {
        let out = run(&["convert", "-q", "--to", "san", file], None);
        assert_eq!(code(&out), 1, "{file}");
        assert!(stderr(&out).contains(what), "{}", stderr(&out));
    }

    // Other findings (here a wrong result and a move after the end) do not
    // stop a game: the moves after a fivefold repetition are written.
    for file in [
        "fixtures/pgn/wrong_result_mate.pgn",
        "fixtures/pgn/fivefold_then_move.pgn",
    ] {
        let out = convert(&["--to", "uci", file], None, 0);
        assert!(!out.trim().is_empty(), "{file}");
    }
}

#[test]
fn keep_invalid_writes_the_legal_prefix_and_says_where_it_broke() {
    let file = "fixtures/pgn/illegal_move_ply_61.pgn";
    let san = convert(&["--to", "san", "--keep-invalid", file], None, 1);
    assert_eq!(san.split_whitespace().count(), 60);
    let json = convert(&["--to", "jsonl", "--keep-invalid", file], None, 1);
    let v: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["moves"].as_array().unwrap().len(), 60);
    assert_eq!(v["error"]["ply"], 61);
    assert_eq!(v["error"]["san"], "Qxe1");
    assert_eq!(v["error"]["code"], "illegal-move");
    let csv_text = convert(&["--to", "csv", "--keep-invalid", file], None, 1);
    let mut reader = csv::Reader::from_reader(csv_text.as_bytes());
    let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    assert_eq!(
        header[header.len() - 3..],
        ["error", "error_code", "match_ply"]
    );
    let row = reader.records().next().unwrap().unwrap();
    assert_eq!(row.iter().nth_back(1), Some("illegal-move"));
    assert_eq!(
        row.iter().nth_back(2),
        // The `error` struct's CSV text, as in annotate-outcome (issue 21).
        Some("illegal-move at ply 61: `Qxe1` is not a legal move")
    );
}

#[test]
fn jsonl_keeps_every_tag_and_comment() {
    let file = "fixtures/convert/annotated.pgn";
    let v: Value = serde_json::from_str(&convert(&["--to", "jsonl", file], None, 0)).unwrap();
    let tags = v["tags"].as_object().unwrap();
    assert_eq!(tags.len(), 9);
    assert_eq!(tags["Event"], "Annotated \"quoted\" event");
    assert_eq!(tags["Site"], "Café hall");
    assert_eq!(v["comments"][0], "A game with every kind of annotation.");
    let moves = v["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 17);
    assert_eq!(moves[0]["nags"][0], 1);
    assert_eq!(moves[0]["comments"][0], "King's pawn");
    assert_eq!(
        moves[3]["variations"][0],
        "(d6 {Philidor} d4 (Bc4 Be7) exd4)"
    );
    assert_eq!(moves[4]["comments"][0], " the Spanish");
    assert_eq!(moves[8]["comments"][0], "castles; note the semicolon");
    assert_eq!(moves[9]["nags"][0], 6);
    assert_eq!(moves[16]["comments"][0], "and so on");
    assert_eq!(
        moves[16]["fen_after"],
        "r1bq1rk1/2p1bppp/p1np1n2/1p2p3/4P3/1BP2N1P/PP1P1PP1/RNBQR1K1 b - - 0 9"
    );
    assert_eq!(v["result"], "1-0");

    let bare = convert(
        &[
            "--to",
            "jsonl",
            "--no-comments",
            "--no-nags",
            "--no-variations",
            file,
        ],
        None,
        0,
    );
    // Dropped annotations are null, as every absent value (issue 12).
    let bare: Value = serde_json::from_str(&bare).unwrap();
    for v in std::iter::once(&bare).chain(bare["moves"].as_array().unwrap()) {
        for key in ["comments", "nags", "variations"] {
            assert_eq!(v.get(key), Some(&Value::Null), "{key} in {v}");
        }
    }

    // Every game of a real file: valid JSON, every tag kept.
    for line in convert(&["--to", "jsonl", TWIC], None, 0).lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        assert!(v["tags"].as_object().unwrap().len() >= 7, "{line}");
    }
}

#[test]
fn csv_header_from_the_first_games_or_from_tags() {
    let csv_text = convert(&["--to", "csv", TWIC], None, 0);
    let mut reader = csv::Reader::from_reader(csv_text.as_bytes());
    let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    assert_eq!(
        header[..11],
        [
            "file",
            "game",
            "offset",
            "start_fen",
            "Event",
            "Site",
            "Date",
            "Round",
            "White",
            "Black",
            "Result"
        ]
    );
    assert_eq!(
        header[header.len() - 16..],
        [
            "eco",
            "opening",
            "opening_ply",
            "time_control",
            "plies",
            "uci",
            "clock",
            "time_spent",
            "eval_cp",
            "eval_mate",
            "final_fen",
            "final_zobrist",
            "key",
            "error",
            "error_code",
            "match_ply"
        ]
    );
    assert_eq!(reader.records().count(), 12);

    let chosen = convert(&["--to", "csv", "--tags", "ECO,White,Nope", TWIC], None, 0);
    assert!(
        chosen
            .starts_with("file,game,offset,start_fen,Event,Site,Date,Round,White,Black,Result,ECO,Nope,eco,opening,opening_ply,time_control,plies,uci,clock,time_spent,eval_cp,eval_mate,final_fen,final_zobrist,key,error,error_code,match_ply\n"),
        "{chosen}"
    );
}

#[test]
fn csv_warns_once_about_a_tag_first_seen_after_the_header_is_fixed() {
    let mut pgn = String::new();
    for i in 0..1005 {
        let extra = if i >= 1001 {
            "[Late \"x\"]\n[Later \"y\"]\n"
        } else {
            ""
        };
        pgn.push_str(&format!("[Event \"g{i}\"]\n{extra}\n1. e4 *\n\n"));
    }
    let input = temp_input(pgn.as_bytes());
    let out = run(
        &[
            "convert",
            "--to",
            "csv",
            "-j2",
            input.path().to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(code(&out), 0);
    let text = stdout(&out);
    assert!(text.starts_with(
        "file,game,offset,start_fen,Event,Site,Date,Round,White,Black,Result,eco,opening,opening_ply,time_control,plies,uci,clock,time_spent,eval_cp,eval_mate,final_fen,final_zobrist,key,error,error_code,match_ply\n"
    ));
    assert_eq!(text.lines().count(), 1006);
    let err = stderr(&out);
    let warnings: Vec<&str> = err.lines().filter(|l| l.contains("warning")).collect();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    // One warning at the end, naming each tag left out and how often.
    assert!(
        warnings[0].contains("the first in")
            && warnings[0].contains("game 1002")
            && warnings[0].ends_with(": Late (4 games), Later (4 games)"),
        "{}",
        warnings[0]
    );
}

#[test]
fn fen_and_epd_positions() {
    let all = convert(
        &["--to", "fen", "--positions", "all"],
        Some(b"1. e4 e5 *"),
        0,
    );
    assert_eq!(
        all,
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\n\
         rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n\
         rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2\n"
    );
    let epd = convert(&["--to", "epd"], Some(b"1. e4 a6 2. e5 d5 *\n\n1. d4 *"), 0);
    assert_eq!(
        epd,
        "rnbqkbnr/1pp1pppp/p7/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 id \"1:4\";\n\
         rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - id \"2:1\";\n"
    );
}

#[test]
fn fen_input_is_normalised() {
    let out = run(
        &[
            "convert",
            "-q",
            "--to",
            "fen",
            "fixtures/convert/positions.fen",
        ],
        None,
    );
    assert_eq!(code(&out), 1);
    assert_eq!(
        stdout(&out),
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n\
         rnbqkbnr/1pp1pppp/p7/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3\n\
         8/8/8/8/8/8/8/K1k5 w - - 0 1\n\
         bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9\n"
    );
    assert!(
        stderr(&out).starts_with(
            "pgnkit: fixtures/convert/positions.fen:6: game 5 (? - ?): invalid-fen: illegal position"
        ),
        "{}",
        stderr(&out)
    );
    let epd = convert(&["--to", "epd", "fixtures/convert/puzzles.epd"], None, 0);
    assert_eq!(
        epd,
        "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - id \"1:0\";\n\
         6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - id \"2:0\";\n"
    );
    let uci = convert(&["--to", "uci", "fixtures/convert/puzzles.epd"], None, 0);
    assert_eq!(
        uci.lines().nth(1),
        Some("fen 6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1 moves")
    );
}

#[test]
fn uci_input_forms_and_detection() {
    let file = "fixtures/convert/games.uci";
    let out = run(&["convert", "-q", "--to", "san", file], None);
    assert_eq!(code(&out), 1);
    assert_eq!(
        stdout(&out),
        // The sixth line's game cannot be replayed: an empty line, so
        // that lines match the records (issue 22).
        "e4 e5 Nf3 Nc6 Bb5\nd4 d5 c4\n\nO-O-O Kf7\nf3 e5 g4 Qh4#\n\n"
    );
    assert_eq!(
        stderr(&out),
        "pgnkit: fixtures/convert/games.uci:6: game 6 (? - ?), ply 2 (1...e2e4): \
         illegal-move: `e2e4` is not a legal move\n"
    );
    // The same from standard input, detected by content.
    let bytes = std::fs::read(file).unwrap();
    let piped = run(&["convert", "-q", "--to", "san"], Some(&bytes));
    assert_eq!(stdout(&piped), stdout(&out));
    // A mate gets its result.
    let json = convert(
        &["--to", "jsonl", "--from", "uci"],
        Some(b"f2f3 e7e5 g2g4 d8h4\n"),
        0,
    );
    let v: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["result"], "0-1");
}

#[test]
fn output_is_identical_for_any_thread_count() {
    // Enough games to fill several chunks and batches: 3.6 MB with
    // PGNKIT_LONG_TESTS (CI), 0.8 MB (three chunks and more) without.
    let copies = if crate::merge::long_tests() { 300 } else { 70 };
    let pgn = temp_input(&std::fs::read(TWIC).unwrap().repeat(copies));
    let pgn = pgn.path().to_str().unwrap();
    let uci = convert(&["--to", "uci", "-j1", pgn], None, 0);
    let mut seen = BTreeSet::new();
    for format in ["uci", "san", "lan", "fen", "epd", "csv", "jsonl"] {
        let one = convert(&["--to", format, "-j1", pgn], None, 0);
        let many = convert(&["--to", format, "-j4", pgn], None, 0);
        assert!(one == many, "--to {format} differs between -j1 and -j4");
        assert!(
            seen.insert(one),
            "--to {format} wrote the same as another format"
        );
    }
    let uci = temp_input(uci.as_bytes());
    let uci = uci.path().to_str().unwrap();
    let lines_one = convert(&["--to", "fen", "-j1", uci], None, 0);
    let lines_many = convert(&["--to", "fen", "-j3", uci], None, 0);
    assert_eq!(lines_one, lines_many);
}

#[test]
fn conflicting_flags_fail_with_status_2() {
    for args in [
        &["convert", "--to", "uci", "--tags", "ECO", TWIC][..],
        &["convert", "--to", "uci", "--positions", "all", TWIC],
    ] {
        let out = run(args, None);
        assert_eq!(code(&out), 2, "{args:?}");
        assert!(stderr(&out).starts_with("pgnkit: "), "{}", stderr(&out));
    }
    let out = run(&["convert", "--to", "uci", "no/such/file.pgn"], None);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("no/such/file.pgn: cannot open"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn pgn_output_is_a_fixed_point_after_the_first_pass() {
    for file in [
        TWIC,
        "fixtures/convert/annotated.pgn",
        "fixtures/pgn/chess960.pgn",
        "fixtures/pgn/latin1.pgn",
        "fixtures/pgn/hoover_parsertest.pgn",
        "fixtures/pgn/nul_glued_tag.pgn",
    ] {
        let once = convert(&["--to", "pgn", file], None, 0);
        assert!(once.starts_with("[Event "), "{file}");
        let twice = convert(&["--to", "pgn"], Some(once.as_bytes()), 0);
        assert_eq!(once, twice, "{file}: pgn -> pgn is not a fixed point");
        // Export format: LF only, lines of at most 80 characters.
        assert!(!once.contains('\r'));
        assert!(once.lines().all(|l| l.chars().count() <= 80), "{file}");
        // The same moves as the input, in UCI.
        let uci_in = convert(&["--to", "uci", file], None, 0);
        let uci_out = convert(&["--to", "uci"], Some(once.as_bytes()), 0);
        assert_eq!(uci_in, uci_out, "{file}");
    }
}

#[test]
fn pgn_output_normalises_san_and_keeps_annotations_unless_told() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("loose.pgn");
    std::fs::write(
        &path,
        "[White \"A\"]\n\n1. e2e4 {open} e5 2. Ng1f3 $1 (2. Bc4 Nf6) Nc6 3. Bb5 a6 4. Bxc6 dxc6 5. O-O f6 6. d4 exd4 7. Nxd4 c5 8. Nb3 Qxd1 9. Rxd1 *\n",
    )
    .unwrap();
    let path = path.to_str().unwrap();
    let pgn = convert(&["--to", "pgn", path], None, 0);
    assert!(
        pgn.contains("1. e4 {open} 1... e5 2. Nf3 $1 (2. Bc4 Nf6) 2... Nc6"),
        "{pgn}"
    );
    assert!(
        pgn.contains("[Event \"?\"]\n[Site \"?\"]\n[Date \"????.??.??\"]"),
        "{pgn}"
    );
    let bare = convert(
        &[
            "--to",
            "pgn",
            "--no-comments",
            "--no-nags",
            "--no-variations",
            path,
        ],
        None,
        0,
    );
    assert!(bare.contains("1. e4 e5 2. Nf3 Nc6 3. Bb5 a6"), "{bare}");
    assert!(
        !bare.contains('{') && !bare.contains('$') && !bare.contains('('),
        "{bare}"
    );
}

#[test]
fn pgn_from_positions_and_uci_lines() {
    // The fixture holds one invalid position on purpose: exit 1.
    let pgn = convert(
        &[
            "--to",
            "pgn",
            "--from",
            "fen",
            "fixtures/convert/positions.fen",
        ],
        None,
        1,
    );
    assert!(pgn.contains("[SetUp \"1\"]"), "{pgn}");
    assert!(
        pgn.contains("[FEN \"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\"]"),
        "{pgn}"
    );
    // uci -> pgn -> uci gives the same moves.
    let uci = std::fs::read_to_string("fixtures/convert/games.uci").unwrap();
    // Its last line holds an illegal move on purpose: exit 1.
    let pgn = convert(&["--to", "pgn", "--from", "uci"], Some(uci.as_bytes()), 1);
    assert!(pgn.contains("1. e4 e5 2. Nf3 Nc6 3. Bb5 *"), "{pgn}");
    let back = convert(&["--to", "uci"], Some(pgn.as_bytes()), 0);
    assert!(
        back.starts_with("e2e4 e7e5 g1f3 b8c6 f1b5\nd2d4 d7d5 c2c4\n"),
        "{back}"
    );
}

#[test]
fn pgn_output_of_an_invalid_game() {
    let file = "fixtures/pgn/illegal_move_ply_61.pgn";
    let out = run(&["convert", "-q", "--to", "pgn", file], None);
    assert_eq!(code(&out), 1);
    assert_eq!(stdout(&out), "");
    assert!(stderr(&out).contains("illegal-move"), "{}", stderr(&out));
    let kept = convert(&["--to", "pgn", "--keep-invalid", file], None, 1);
    assert!(!kept.contains("31. Qxe1"), "{kept}");
    assert!(kept.contains("ply 61"), "{kept}");
}

#[test]
fn pgn_output_is_identical_for_any_thread_count() {
    let mut big = Vec::new();
    let one = std::fs::read(TWIC).unwrap();
    while big.len() < 3 << 20 {
        big.extend_from_slice(&one);
        big.extend_from_slice(b"\n\n");
    }
    let input = temp_input(&big);
    let path = input.path().to_str().unwrap();
    let a = convert(&["--to", "pgn", "-j1", path], None, 0);
    let b = convert(&["--to", "pgn", "-j8", path], None, 0);
    assert!(a == b, "pgn output differs between -j1 and -j8");
}

/// How a test hands `pgnkit convert` its input.
#[derive(Debug, Clone, Copy)]
enum Feed {
    File,
    Stdin,
    /// A named pipe, as `<(zstdcat x.pgn.zst)` gives.
    #[cfg(unix)]
    Fifo,
}

/// Runs `pgnkit convert -q --to TO` on `bytes` fed as `feed`. Standard input
/// and the FIFO are written from threads and stdout is read while the
/// process runs, so large inputs and outputs cannot deadlock; a run that
/// has not finished after a minute is killed and fails the test (an input
/// opened twice hangs on a FIFO).
fn convert_fed(to: &str, bytes: &[u8], feed: Feed) -> std::process::Output {
    use std::io::{Read, Write};
    use std::process::Stdio;
    use std::time::{Duration, Instant};

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("input");
    let mut cmd = pgnkit();
    cmd.args(["convert", "-q", "--to", to])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut writer = None;
    match feed {
        Feed::File => {
            std::fs::write(&path, bytes).unwrap();
            cmd.arg(&path);
        }
        Feed::Stdin => {
            cmd.stdin(Stdio::piped());
        }
        #[cfg(unix)]
        Feed::Fifo => {
            let made = std::process::Command::new("mkfifo")
                .arg(&path)
                .status()
                .expect("mkfifo runs");
            assert!(made.success(), "mkfifo failed");
            cmd.arg(&path);
            let (path, bytes) = (path.clone(), bytes.to_vec());
            writer = Some(std::thread::spawn(move || std::fs::write(path, bytes)));
        }
    }
    let mut child = cmd.spawn().expect("pgnkit binary runs");
    if let Some(mut stdin) = child.stdin.take() {
        let bytes = bytes.to_vec();
        writer = Some(std::thread::spawn(move || stdin.write_all(&bytes)));
    }
    let drain = |mut from: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut all = Vec::new();
            from.read_to_end(&mut all).map(|_| all)
        })
    };
    let out = drain(Box::new(child.stdout.take().unwrap()));
    let err = drain(Box::new(child.stderr.take().unwrap()));
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("convert --to {to} from {feed:?} did not finish");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    if let Some(writer) = writer {
        writer.join().unwrap().expect("the whole input was read");
    }
    std::process::Output {
        status,
        stdout: out.join().unwrap().unwrap(),
        stderr: err.join().unwrap().unwrap(),
    }
}

/// Every input is opened once: the bytes read to tell its format are fed
/// back, so a FIFO and standard input convert exactly like the file, for
/// PGN (several chunks) and for FEN and UCI lines (several batches).
#[test]
fn fifo_and_stdin_convert_like_the_file() {
    let cases = [
        (std::fs::read(TWIC).unwrap().repeat(100), "uci"),
        (
            std::fs::read("fixtures/convert/positions.fen")
                .unwrap()
                .repeat(1000),
            "epd",
        ),
        (
            std::fs::read("fixtures/convert/games.uci")
                .unwrap()
                .repeat(500),
            "san",
        ),
    ];
    for (bytes, to) in &cases {
        let file = convert_fed(to, bytes, Feed::File);
        assert!(!file.stdout.is_empty(), "--to {to}: no output");
        let mut feeds = vec![Feed::Stdin];
        #[cfg(unix)]
        feeds.push(Feed::Fifo);
        for feed in feeds {
            let fed = convert_fed(to, bytes, feed);
            assert_eq!(
                fed.status.code(),
                file.status.code(),
                "--to {to} from {feed:?}"
            );
            assert!(
                fed.stdout == file.stdout,
                "--to {to} from {feed:?} differs from the file"
            );
        }
    }
}

/// Every `.pgn` file under `fixtures/`, found when the test runs (so a
/// fixture added later is covered), sorted.
pub(crate) fn pgn_fixtures() -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    let mut dirs = vec![crate::util::fixture("")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "pgn") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// The two properties `convert --to pgn` promises for any input whatever
/// (issue 10): its output re-read by `validate` has no `syntax` finding,
/// and converting the output again gives the same bytes (and finds
/// nothing to report). Checked on every PGN fixture, hostile ones
/// included.
#[test]
fn pgn_output_reads_back_clean_and_is_a_fixed_point_for_every_fixture() {
    let fixtures = pgn_fixtures();
    assert!(fixtures.len() >= 30, "{fixtures:?}");
    for path in fixtures {
        let file = path.to_str().unwrap();
        let once = run(&["convert", "-q", "--to", "pgn", file], None);
        assert!(
            matches!(code(&once), 0 | 1),
            "{file}: exit {}: {}",
            code(&once),
            stderr(&once)
        );
        let validated = run(&["validate", "-q", "-f", "jsonl"], Some(&once.stdout));
        for line in stdout(&validated).lines() {
            let finding: Value = serde_json::from_str(line).unwrap();
            assert_ne!(finding["code"], "syntax", "{file}: {line}");
            assert_ne!(finding["code"], "result-mismatch", "{file}: {line}");
        }
        let twice = run(&["convert", "-q", "--to", "pgn"], Some(&once.stdout));
        assert_eq!(code(&twice), 0, "{file}: {}", stderr(&twice));
        assert!(
            once.stdout == twice.stdout,
            "{file}: pgn -> pgn is not a fixed point:\n{}\n---\n{}",
            String::from_utf8_lossy(&once.stdout),
            String::from_utf8_lossy(&twice.stdout)
        );
        // With --keep-invalid too, what is kept reads back as it is.
        let keep = ["convert", "-q", "--to", "pgn", "--keep-invalid"];
        let once = run(&[&keep[..], &[file]].concat(), None);
        let validated = run(&["validate", "-q", "-f", "csv"], Some(&once.stdout));
        assert!(!stdout(&validated).contains(",syntax,"), "{file}");
        let twice = run(&keep, Some(&once.stdout));
        assert!(once.stdout == twice.stdout, "{file}: --keep-invalid");
    }
}

/// The lines of standard error of a `-q` run, with the `pgnkit: ` prefix.
fn reports(out: &std::process::Output) -> Vec<String> {
    stderr(out).lines().map(str::to_owned).collect()
}

// See: issue 10, "convert writes what it has not replayed".
#[test]
fn variations_are_replayed_and_those_that_do_not_replay_are_left_out() {
    let pgn = b"[Event \"a\"]\n[Result \"*\"]\n\n1. e4 (1. Qh5xh8 Kxe1 Zz9) 1... c5 *\n";
    let out = run(&["convert", "-q", "--to", "pgn"], Some(pgn));
    assert_eq!(code(&out), 1);
    assert!(
        stdout(&out).ends_with("[Result \"*\"]\n\n1. e4 c5 *\n\n"),
        "{}",
        stdout(&out)
    );
    assert_eq!(
        reports(&out),
        [
            "pgnkit: <stdin>:4: game 1 (? - ?; a) (Qh5xh8): illegal-move: `Qh5xh8` is not a legal move: \
          the variation on 1.e4 is left out"
        ]
    );

    let file = "fixtures/convert/invalid_variations.pgn";
    let out = run(&["convert", "-q", "--to", "pgn", file], None);
    assert_eq!(code(&out), 1);
    let text = stdout(&out);
    let movetext: Vec<&str> = text.split("\n\n").filter(|s| !s.starts_with('[')).collect();
    assert_eq!(
        movetext,
        [
            "1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nf6 5. Nc3 a6 (5... g6 6. Be3 Bg7 7. f3\n\
             O-O 8. Qd2 Nc6 9. Bc4 (9. O-O-O d5) 9... Bd7 10. O-O-O) 6. Be3 e5 7. Nb3 Be6\n\
             8. f3 Be7 9. Qd2 O-O 10. O-O-O Nbd7 *",
            "{A variation before the first move replaces nothing.} 1. d4 Nf6 2. c4 e6 3. Nc3\n\
             Bb4 4. Qc2 O-O 5. a3 Bxc3+ 6. Qxc3 b6 (6... d5 7. Nf3 (7. Nh3 Ne4 8. Nf4 {a ) in\n\
             a line comment}) 7... c5) 7. Bg5 Bb7 8. f3 h6 9. Bh4 d5 10. e3 Nbd7 11. cxd5\n\
             Nxd5 12. Bxd8 Nxc3 13. Bh4 Nd5 14. Bf2 c5 15. e4 Ne7 16. Ne2 1/2-1/2",
            "1. Nf3 d5 2. Nc3 d4 3. e3 (3. Nb1 e5 (3... c5 4. e3 (4. c3) 4... Nc6)) 3... Nc6\n\
             4. Bb5 *",
            "",
        ]
    );
    let at = |line: u32, game: &str| format!("pgnkit: {file}:{line}: game {game}");
    let (jansen, bakker) = (
        "1 (Jansen, Pieter - de Vries, Anna; Club championship, round 4)",
        "2 (Bakker, Joost - Visser, Lotte; Rapid open, round 7)",
    );
    assert_eq!(
        reports(&out),
        [
            format!(
                "{} (Qh5xh8): illegal-move: `Qh5xh8` is not a legal move: the variation on \
                 1.e4 is left out",
                at(9, jansen)
            ),
            // Legal first moves then an illegal one: the whole variation.
            format!(
                "{} (Ke3): illegal-move: `Ke3` is not a legal move: the variation on 2...d6 \
                 is left out",
                at(11, jansen)
            ),
            format!(
                "{} (Nb3..): syntax: `Nb3..` is not a move in SAN: the variation on 6.Be3 is \
                 left out",
                at(13, jansen)
            ),
            format!(
                "{} (--): null-move: a null move is not a legal move: the variation on 6.Be3 \
                 is left out",
                at(13, jansen)
            ),
            format!(
                "{}: syntax: a variation before the first move of its line replaces no move: \
                 the variation before the first move is left out",
                at(24, bakker)
            ),
            format!(
                "{} (Nf4): illegal-move: `Nf4` is not a legal move: the variation on \
                 11...Nxd5 is left out",
                at(28, bakker)
            ),
            format!(
                "{} (Ng5): ambiguous-move: `Ng5` matches several legal moves: the variation on \
                 3.e3 is left out",
                at(39, "3 (kasparov_fan - nimzo77; Blitz, round -)")
            ),
        ]
    );
    // JSON Lines carries the same replayed variations, in normalised SAN.
    let jsonl = convert(&["--to", "jsonl", file], None, 1);
    let games: Vec<Value> = jsonl
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        games[1]["moves"][11]["variations"],
        serde_json::json!(["(d5 Nf3 (Nh3 Ne4 Nf4 { a ) in a line comment}) c5)"])
    );
    assert_eq!(
        games[2]["moves"][4]["variations"],
        serde_json::json!(["(Nb1 e5 (c5 e3 (c3) Nc6))"])
    );
    assert_eq!(games[0]["moves"][0].get("variations"), Some(&Value::Null));
}

#[test]
fn keep_invalid_keeps_a_variation_that_does_not_replay_as_a_comment() {
    let pgn = b"1. e4 (1. Qh5xh8 {mate?} Kxe1) (1. d4 d5 (1... Zz9 ; }\n) 2. c4) e5 *\n";
    let out = run(
        &["convert", "-q", "--to", "pgn", "--keep-invalid"],
        Some(pgn),
    );
    assert_eq!(code(&out), 1);
    let once = stdout(&out);
    assert!(
        once.ends_with(
            "\n\n1. e4 {pgnkit: variation on 1.e4 not replayed (illegal-move: `Qh5xh8` is not a\n\
             legal move): (Qh5xh8 <mate?> Kxe1)} (1. d4 d5 {pgnkit: a variation not replayed\n\
             (syntax: `Zz9` is not a move in SAN): (Zz9 <)>)} 2. c4) 1... e5 *\n\n"
        ),
        "{once}"
    );
    assert_eq!(
        reports(&out)[1],
        "pgnkit: <stdin>:1: game 1 (? - ?) (Zz9): syntax: `Zz9` is not a move in SAN: a variation \
         inside the variation on 1.e4 is kept as a comment"
    );
    // The comments are comments: the output reads back as it is.
    assert_eq!(convert(&["--to", "pgn"], Some(once.as_bytes()), 0), once);

    // The comment of a game kept despite its error goes before the
    // variations of its last legal move, where it reads back.
    let pgn = b"1. e4 e5 (1... c5) 2. Ke3 Nc6 *\n";
    let once = convert(&["--to", "pgn", "--keep-invalid"], Some(pgn), 1);
    assert!(
        once.ends_with(
            "\n\n1. e4 e5 {pgnkit: not replayed from ply 3 (Ke3): illegal-move: `Ke3` is not a\n\
             legal move} (1... c5) *\n\n"
        ),
        "{once}"
    );
    let twice = convert(&["--to", "pgn", "--keep-invalid"], Some(once.as_bytes()), 0);
    assert_eq!(twice, once);
}

// See: issue 10, "an unclosed comment or variation".
#[test]
fn damaged_movetext_is_reported_and_the_game_written_repaired() {
    let file = "fixtures/convert/damaged_movetext.pgn";
    let out = run(&["convert", "-q", "--to", "pgn", file], None);
    assert_eq!(code(&out), 1);
    // No termination marker in the first game: the Result tag's is written;
    // the variation still open at the next game is dropped, and so is the
    // one whose comment runs to the end of the input.
    assert_eq!(movetexts(&stdout(&out)), DAMAGED_REPAIRED);
    let marker = "result-mismatch: the movetext has no termination marker (1-0, 0-1, \
                  1/2-1/2 or *)";
    let expected = [
        format!(
            "{file}:10: game 1 (Kasparov, Garry - Topalov, Veselin; Hoogovens, round 4): {marker}"
        ),
        format!(
            "{file}:20: game 2 (Anand, Viswanathan - Kramnik, Vladimir; Hoogovens, round 5): syntax: variation \
             not closed before the next game"
        ),
        format!(
            "{file}:21: game 2 (Anand, Viswanathan - Kramnik, Vladimir; Hoogovens, round 5): {marker}"
        ),
        format!(
            "{file}:41: game 4 (Topalov, Veselin - Anand, Viswanathan; Hoogovens, round 7): syntax: comment not \
             closed before the end of the input"
        ),
        format!(
            "{file}:41: game 4 (Topalov, Veselin - Anand, Viswanathan; Hoogovens, round 7): {marker}"
        ),
    ];
    let with_prefix: Vec<String> = expected.iter().map(|l| format!("pgnkit: {l}")).collect();
    assert_eq!(reports(&out), with_prefix);
    // As validate reports them.
    let validate = run(&["validate", "-q", file], None);
    assert_eq!(code(&validate), 1);
    assert_eq!(stdout(&validate).lines().collect::<Vec<_>>(), expected);
    // Every format reports them; the main lines are all written.
    let out = run(&["convert", "-q", "--to", "uci", file], None);
    assert_eq!((code(&out), stdout(&out).lines().count()), (1, 4));
    assert_eq!(reports(&out), with_prefix);
    // With --keep-invalid, the open variation is kept as a comment.
    let kept = convert(&["--to", "pgn", "--keep-invalid", file], None, 1);
    assert!(
        kept.contains(
            "6. Bd3 Be7 {pgnkit:\nvariation on 6...Be7 not closed: (Nc6 O-O Be7 c4 Nb4 (Be6} \
             1/2-1/2\n"
        ),
        "{kept}"
    );
}

/// A position file as people write them (issue 12): a `#` header, blank
/// lines, an indented comment, a FEN with trailing junk, an EPD record.
const COMMENTED_POSITIONS: &str = "\
# mates in one, from the club's training sheet

rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1
  # the next one has junk after its clocks
6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1 Rd8#

r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - bm Bb5;
";

#[test]
fn from_fen_and_epd_skip_comments_and_keep_source_lines() {
    let input = temp_input(COMMENTED_POSITIONS.as_bytes());
    let path = input.path().to_str().unwrap();
    // As EPD: every position, named in its id by its source line.
    let epd = convert(&["--from", "epd", "-t", "epd", path], None, 0);
    assert_eq!(
        epd,
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - id \"3:0\";\n\
         6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - id \"5:0\";\n\
         r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - id \"7:0\";\n"
    );
    // Detected as positions although the first line is a comment.
    assert_eq!(convert(&["-t", "epd", path], None, 0), epd);

    // As FEN: what follows a FEN's six fields is refused, as perft refuses
    // it, and the message names the source line.
    let out = run(&["convert", "-q", "--from", "fen", "-t", "epd", path], None);
    assert_eq!(code(&out), 1);
    assert_eq!(
        stdout(&out),
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - id \"3:0\";\n"
    );
    let err = stderr(&out);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 2, "{err}");
    assert!(
        lines[0].starts_with(&format!("pgnkit: {path}:5: game 2 (? - ?): invalid-fen: ")),
        "{err}"
    );
    assert!(
        lines[0].ends_with("\"6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1 Rd8#\""),
        "{err}"
    );
    assert!(
        lines[1].starts_with(&format!("pgnkit: {path}:7: game 3 (? - ?): invalid-fen: ")),
        "{err}"
    );
}

#[test]
fn t_is_short_for_to() {
    let pgn = b"1. e4 e5 *\n";
    assert_eq!(convert(&["-t", "uci"], Some(pgn), 0), "e2e4 e7e5\n");
}

/// A lichess-like export (issue 12): 1,001 standard games fix the CSV
/// header, then a "From Position" game, one that cannot be replayed, one
/// of an unsupported variant and a Chess960 game.
fn lichess_like() -> String {
    let mut pgn = String::new();
    for i in 1..=1001 {
        pgn.push_str(&format!(
            "[Event \"Rated blitz\"]\n[Site \"https://lichess.org/g{i}\"]\n[Result \"*\"]\n\n1. e4 e5 *\n\n"
        ));
    }
    pgn.push_str(
        "[Event \"From Position\"]\n[Site \"https://lichess.org/fp\"]\n[Result \"1-0\"]\n\
         [Variant \"From Position\"]\n[FEN \"4k3/8/8/8/8/8/8/R3K3 w Q - 0 1\"]\n[SetUp \"1\"]\n\n\
         1. O-O-O Kf7 2. Rd7+ 1-0\n\n",
    );
    pgn.push_str("[Event \"Broken\"]\n[Result \"*\"]\n\n1. e4 e5 2. Ke3 *\n\n");
    pgn.push_str("[Event \"House\"]\n[Variant \"Crazyhouse\"]\n\n1. e4 *\n\n");
    pgn.push_str("[Event \"960\"]\n[Variant \"Chess960\"]\n\n1. e4 *\n\n");
    pgn
}

#[test]
fn csv_keeps_the_start_position_and_a_row_for_every_game() {
    let input = temp_input(lichess_like().as_bytes());
    let path = input.path().to_str().unwrap();
    let out = run(&["convert", "-q", "-t", "csv", "-j2", path], None);
    // Two games could not be converted: reported, exit 1, rows kept.
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let csv_text = stdout(&out);
    let mut reader = csv::Reader::from_reader(csv_text.as_bytes());
    let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    // The header was fixed by the first 1,000 games: no FEN column.
    assert!(!header.iter().any(|h| h == "FEN"), "{header:?}");
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    // One row per game, in input order.
    assert_eq!(rows.len(), 1005);
    let games: Vec<u64> = rows
        .iter()
        .map(|r| r[col("game")].parse().unwrap())
        .collect();
    assert_eq!(games, (1..=1005).collect::<Vec<u64>>());

    let standard = &rows[0];
    assert_eq!(
        (&standard[col("start_fen")], &standard[col("error")]),
        ("", "")
    );

    let from_position = &rows[1001];
    assert_eq!(&from_position[col("Event")], "From Position");
    assert_eq!(
        &from_position[col("start_fen")],
        "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1"
    );
    assert_eq!(&from_position[col("uci")], "e1c1 e8f7 d1d7");
    assert_eq!(&from_position[col("error")], "");
    // start_fen and uci are all a replay needs: the UCI position syntax
    // gives back the same final position.
    let uci_line = format!(
        "fen {} moves {}\n",
        &from_position[col("start_fen")],
        &from_position[col("uci")]
    );
    let replayed = convert(
        &["--from", "uci", "-t", "fen"],
        Some(uci_line.as_bytes()),
        0,
    );
    assert_eq!(replayed.trim_end(), &from_position[col("final_fen")]);

    let broken = &rows[1002];
    assert_eq!(&broken[col("Event")], "Broken");
    assert_eq!(
        (
            &broken[col("plies")],
            &broken[col("uci")],
            &broken[col("final_fen")]
        ),
        ("", "", "")
    );
    assert!(
        broken[col("error")].starts_with("illegal-move at ply 3: "),
        "{broken:?}"
    );

    let house = &rows[1003];
    assert!(
        house[col("error")].contains("unsupported-variant"),
        "{house:?}"
    );

    let chess960 = &rows[1004];
    assert_eq!(
        &chess960[col("start_fen")],
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1"
    );

    // The same rows with --keep-invalid, except that the broken game keeps
    // its legal moves.
    let kept = run(
        &["convert", "-q", "-t", "csv", "--keep-invalid", path],
        None,
    );
    let kept_text = stdout(&kept);
    let mut kept_reader = csv::Reader::from_reader(kept_text.as_bytes());
    let kept_rows: Vec<csv::StringRecord> = kept_reader.records().map(Result::unwrap).collect();
    assert_eq!(kept_rows.len(), 1005);
    assert_eq!(&kept_rows[1002][col("uci")], "e2e4 e7e5");
    assert_eq!(&kept_rows[1002][col("error")], &broken[col("error")]);
    assert_eq!(kept_rows[1001], rows[1001]);
}

/// The parts of the JSON object or array `text` (members or elements), as
/// written: split at the commas outside strings and nested values.
fn json_parts(text: &str) -> Vec<&str> {
    let inner = text.trim();
    let inner = &inner[1..inner.len() - 1];
    let bytes = inner.as_bytes();
    let (mut parts, mut depth, mut start, mut i) = (Vec::new(), 0usize, 0usize, 0usize);
    while i < bytes.len() {
        match bytes[i] {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth -= 1,
            b'"' => {
                i += 1;
                while bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            b',' if depth == 0 => {
                parts.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    if !inner.trim().is_empty() {
        parts.push(&inner[start..]);
    }
    parts
}

/// The members of the JSON object `text` as written, key and value text,
/// in their order (`serde_json::Map` sorts them).
pub(crate) fn json_members(text: &str) -> Vec<(String, &str)> {
    json_parts(text)
        .into_iter()
        .map(|part| {
            let part = part.trim();
            let end = (1..part.len())
                .find(|&i| {
                    part.as_bytes()[i] == b'"'
                        && part[..i].bytes().rev().take_while(|&b| b == b'\\').count() % 2 == 0
                })
                .expect("a key");
            let key = serde_json::from_str(&part[..=end]).expect("a JSON string");
            let value = part[end + 1..]
                .trim_start()
                .strip_prefix(':')
                .expect("a colon");
            (key, value.trim())
        })
        .collect()
}

/// The keys of the JSON object `line`, in the order they are written.
pub(crate) fn json_keys(line: &str) -> Vec<String> {
    json_members(line).into_iter().map(|(k, _)| k).collect()
}

/// The elements of the JSON array `text`, as written.
pub(crate) fn json_elements(text: &str) -> Vec<&str> {
    json_parts(text).into_iter().map(str::trim).collect()
}

#[test]
fn json_keys_keeps_the_written_order() {
    assert_eq!(
        json_keys(r#"{"b":1,"a":{"z":[1,{"y":2}]},"c\"d":"e:f,g","e":null}"#),
        ["b", "a", "c\"d", "e"]
    );
    assert_eq!(
        json_elements(r#"[{"a":"],"}, 2 ,"x\\"]"#),
        [r#"{"a":"],"}"#, "2", r#""x\\""#]
    );
    assert!(json_elements("[]").is_empty());
}

/// Issue 22: no tag is lost without saying so. A tag first seen after the
/// first 1,000 games has no default CSV column; the warning names every
/// such tag with its count, and `--tags all` (two passes over a regular
/// file) gives every tag a column.
#[test]
fn tags_all_keeps_every_tag_and_the_warning_names_each_dropped_one() {
    let mut pgn = b"[Event \"x\"]\n[ECO \"B00\"]\n\n1. e4 *\n\n".repeat(1000);
    pgn.extend(b"[Event \"late\"]\n[WhiteTitle \"GM\"]\n[Opening \"Sicilian\"]\n\n1. e4 c5 *\n\n");
    pgn.extend(b"[Event \"later\"]\n[Opening \"French\"]\n\n1. e4 e6 *\n");
    let file = temp_input(&pgn);
    let path = file.path().to_str().unwrap();

    let out = run(&["convert", "--to", "csv", path], None);
    assert_eq!(code(&out), 0);
    let err = stderr(&out);
    assert!(
        err.contains("WhiteTitle (1 game), Opening (2 games)"),
        "{err}"
    );
    assert!(err.contains("game 1001"), "{err}");
    let header = stdout(&out).lines().next().unwrap().to_owned();
    assert!(
        header.contains(",ECO,") && !header.contains("Opening"),
        "{header}"
    );

    let all = convert(&["--to", "csv", "--tags", "all", path], None, 0);
    let mut reader = csv::Reader::from_reader(all.as_bytes());
    let names: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    let at = |n: &str| names.iter().position(|c| c == n).unwrap();
    assert!(at("ECO") < at("WhiteTitle") && at("WhiteTitle") < at("Opening"));
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 1002);
    assert_eq!(
        (&rows[1000][at("WhiteTitle")], &rows[1000][at("Opening")]),
        ("GM", "Sicilian")
    );
    assert_eq!(
        (&rows[1001][at("WhiteTitle")], &rows[1001][at("Opening")]),
        ("", "French")
    );
    assert_eq!(&rows[0][at("ECO")], "B00");

    // A pipe cannot be read twice: refused, with the reason.
    let piped = run(&["convert", "--to", "csv", "--tags", "all"], Some(&pgn));
    assert_eq!(code(&piped), 2);
    assert!(
        stderr(&piped).contains("regular files"),
        "{}",
        stderr(&piped)
    );
    assert!(stdout(&piped).is_empty());
    let star = run(&["convert", "--to", "csv", "--tags", "*", path], None);
    assert_eq!(code(&star), 2);
    assert!(stderr(&star).contains("--tags all"), "{}", stderr(&star));
}

/// Issue 22: `--no-fen` leaves each move's `fen_after` null and changes
/// nothing else.
#[test]
fn no_fen_leaves_out_the_positions_only() {
    let file = "fixtures/convert/annotated.pgn";
    let with: Vec<Value> = convert(&["--to", "jsonl", file], None, 0)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let without_text = convert(&["--to", "jsonl", "--no-fen", file], None, 0);
    let without: Vec<Value> = without_text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(with.len(), without.len());
    let mut moves = 0;
    for (mut a, b) in with.into_iter().zip(without) {
        for m in a["moves"].as_array_mut().unwrap() {
            assert!(m["fen_after"].is_string());
            m["fen_after"] = Value::Null;
            moves += 1;
        }
        assert_eq!(a, b);
    }
    assert!(moves > 0);
    let refused = run(&["convert", "--to", "csv", "--no-fen", file], None);
    assert_eq!(code(&refused), 2);
}

/// Issue 22: every record format has one record per game, the same games in
/// the same order, whatever could not be converted: CSV rows, JSON Lines
/// records and UCI/SAN/LAN lines line up, and the record of a game that
/// could not be replayed holds its error and no moves.
#[test]
fn every_record_format_has_one_record_per_game() {
    let mut inputs: Vec<String> = pgn_fixtures()
        .iter()
        .map(|p| p.to_str().unwrap().to_owned())
        .collect();
    inputs.sort();
    let with = |args: &[&str]| -> String {
        let mut all: Vec<&str> = vec!["convert", "-q"];
        all.extend_from_slice(args);
        all.extend(inputs.iter().map(String::as_str));
        let out = run(&all, None);
        assert_ne!(code(&out), 2, "{args:?}: {}", stderr(&out));
        stdout(&out)
    };
    let csv_text = with(&["--to", "csv"]);
    let mut reader = csv::Reader::from_reader(csv_text.as_bytes());
    let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    let col = |n: &str| header.iter().position(|c| c == n).unwrap();
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    let jsonl: Vec<Value> = with(&["--to", "jsonl"])
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), jsonl.len());
    let broken = rows.iter().filter(|r| !r[col("error")].is_empty()).count();
    assert!(broken >= 5, "{broken}");
    for (row, record) in rows.iter().zip(&jsonl) {
        assert_eq!(row[col("file")], *record["file"].as_str().unwrap());
        assert_eq!(row[col("game")], record["game"].to_string());
        let moves = record["moves"].as_array().unwrap();
        if row[col("error")].is_empty() {
            assert!(record["error"].is_null());
            assert_eq!(row[col("plies")], moves.len().to_string());
        } else {
            assert_eq!(
                row[col("error")].split([' ', ':']).next(),
                record["error"]["code"].as_str()
            );
            assert!(moves.is_empty() && row[col("uci")].is_empty());
        }
    }
    for to in ["uci", "san", "lan"] {
        let lines: Vec<String> = with(&["--to", to]).lines().map(String::from).collect();
        assert_eq!(lines.len(), rows.len(), "--to {to}");
        for (line, row) in lines.iter().zip(&rows) {
            if !row[col("error")].is_empty() {
                assert!(line.is_empty(), "--to {to}: {line}");
            }
        }
    }
}

/// The `key` column of every game of `file` (CSV), in input order, with
/// the game's `start_fen` and `uci` (a plain second way to tell games
/// apart).
fn keys_of(file: &str) -> Vec<(String, String, String)> {
    let out = run(&["convert", "-f", "csv", "-q", "-j2", file], None);
    assert!(matches!(code(&out), 0 | 1), "{}", stderr(&out));
    let mut reader = csv::Reader::from_reader(out.stdout.as_slice());
    let header = reader.headers().unwrap().clone();
    let at = |name: &str| header.iter().position(|h| h == name).unwrap();
    let (key, start, uci) = (at("key"), at("start_fen"), at("uci"));
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            (r[key].to_owned(), r[start].to_owned(), r[uci].to_owned())
        })
        .collect()
}

/// Issue 44: one game has one key whatever its notation, tags and result
/// (`0-0`, `Ng1e2`, a missing `+`, comments, variations, another spelling,
/// Latin-1), and a truncated copy, another move order reaching the same
/// game, and another game have others.
#[test]
fn key_names_the_game_whatever_its_notation() {
    let keys: Vec<String> = keys_of("fixtures/dedupe/planted.pgn")
        .into_iter()
        .map(|k| k.0)
        .collect();
    assert_eq!(keys.len(), 10);
    assert!(
        keys.iter()
            .all(|k| k.len() == 32 && k.bytes().all(|b| b.is_ascii_hexdigit()))
    );
    for same in [1, 2, 3, 6, 8, 9] {
        assert_eq!(keys[same], keys[0], "game {} is game 1", same + 1);
    }
    let others: BTreeSet<&String> = [&keys[0], &keys[4], &keys[5], &keys[7]]
        .into_iter()
        .collect();
    assert_eq!(others.len(), 4, "{keys:?}");
    // The same key in JSON Lines.
    let jsonl = convert(&["-f", "jsonl", "fixtures/dedupe/planted.pgn"], None, 0);
    let first: Value = serde_json::from_str(jsonl.lines().next().unwrap()).unwrap();
    assert_eq!(first["key"], keys[0].as_str());
}

/// Issue 44: on every fixture, two games have one key exactly when they
/// have one start position and one move list; a game not replayed to its
/// end has none.
#[test]
fn keys_group_games_as_their_moves_do() {
    let mut by_key = std::collections::HashMap::new();
    let mut by_moves = std::collections::HashMap::new();
    let mut games = 0;
    for entry in std::fs::read_dir("fixtures/pgn").unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "pgn") {
            continue;
        }
        for (key, start, uci) in keys_of(path.to_str().unwrap()) {
            games += 1;
            if key.is_empty() {
                continue;
            }
            let n = by_key.len();
            let k = *by_key.entry(key).or_insert(n);
            let m = by_moves.len();
            let g = *by_moves.entry((start, uci)).or_insert(m);
            assert_eq!(k, g, "the nth key and the nth move list go together");
        }
    }
    assert!(games > 50, "{games}");
    assert_eq!(by_key.len(), by_moves.len());
    // An illegal game has no key.
    let out = convert(
        &["-f", "csv", "fixtures/pgn/illegal_move_ply_61.pgn"],
        None,
        1,
    );
    let mut reader = csv::Reader::from_reader(out.as_bytes());
    let key = reader
        .headers()
        .unwrap()
        .iter()
        .position(|h| h == "key")
        .unwrap();
    let row = reader.records().next().unwrap().unwrap();
    assert_eq!(&row[key], "", "{out}");
    assert_eq!(row.iter().nth_back(1), Some("illegal-move"));
}
