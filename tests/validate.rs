//! Integration tests for `pgnkit validate`: one concern per fixture.

use std::io::{Read, Write};
use std::process::{Command, Stdio};

use crate::util::{CHUNK, code, fixture, multi_chunk_pgn, run, stderr, stdout};

/// `(game, line, ply, san, code)` of every finding, from the CSV report.
fn findings(path: &str) -> Vec<(String, String, String, String, String)> {
    let out = run(&["validate", "-q", "-f", "csv", path], None);
    assert_ne!(code(&out), 2, "{}", stderr(&out));
    rows(&stdout(&out))
}

/// [`findings`] with `--laws LAWS`.
fn findings_under(laws: &str, path: &str) -> Vec<(String, String, String, String, String)> {
    let out = run(&["validate", "-q", "-f", "csv", "--laws", laws, path], None);
    assert_ne!(code(&out), 2, "{}", stderr(&out));
    rows(&stdout(&out))
}

/// Each game is judged by the Laws in force when it was played (issue 25):
/// the automatic draws of 9.6 exist only from 1 July 2014.
#[test]
fn each_game_is_judged_by_the_laws_of_its_date() {
    let old = "fixtures/annotate/fivefold_before_2014.pgn";
    let today = [
        row("1", "7", "", "", "wrong-result"),
        row("1", "15", "58", "Kf8", "move-after-end"),
    ];
    // 1886: a fifth repetition ended nothing, the game went on, Black won.
    let out = run(&["validate", old], None);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out), "");
    assert_eq!(findings(old), []);
    assert_eq!(findings_under("date", old), []);
    assert_eq!(findings_under("current", old), today);
    assert_eq!(findings_under("2014-07-01", old), today);
    assert_eq!(findings_under("2014-06-30", old), []);
    // Under --laws current the messages are today's, word for word.
    let out = run(&["validate", "-q", "--laws", "current", old], None);
    assert_eq!(code(&out), 1);
    let text = stdout(&out);
    assert!(
        text.contains(
            "wrong-result: the game ended by fivefold repetition after 29.Qh5+, which gives 1/2-1/2, but the result is 0-1\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("move-after-end: the game had ended by fivefold repetition after 29.Qh5+\n"),
        "{text}"
    );
    // 2017: 9.6 was in force; the same finding whatever --laws says.
    let new = "fixtures/annotate/fivefold_after_2014.pgn";
    // Drawn, as the fivefold repetition says: the moves after it are
    // played on, a warning.
    let now = [row("1", "19", "98", "Kc8", "played-on")];
    for laws in ["date", "current"] {
        assert_eq!(findings_under(laws, new), now, "{laws}");
    }
    let by_date = run(&["validate", "-q", new], None);
    let current = run(&["validate", "-q", "--laws", "current", new], None);
    assert_eq!(stdout(&by_date), stdout(&current));
    assert_eq!(findings_under("2010-01-01", new), []);
    // The same 1886 game without its dates follows today's Laws.
    let text = std::fs::read_to_string(fixture("annotate/fivefold_before_2014.pgn")).unwrap();
    let undated = text.replace("[Date \"1886.??.??\"]", "[Date \"????.??.??\"]");
    assert_ne!(undated, text);
    let out = run(
        &["validate", "-q", "-f", "csv", "-"],
        Some(undated.as_bytes()),
    );
    assert_eq!(rows(&stdout(&out)), today);
    // An EventDate stands in for a missing Date.
    let event = text.replace("[Date \"1886.??.??\"]", "[EventDate \"1886.01.11\"]");
    let out = run(
        &[
            "validate",
            "-q",
            "-f",
            "csv",
            "--only",
            "wrong-result,move-after-end",
            "-",
        ],
        Some(event.as_bytes()),
    );
    assert_eq!(rows(&stdout(&out)), []);
}

#[test]
fn a_later_end_names_the_laws_that_judged_it() {
    // Knights out and back in 2010 (no 9.6): the fifth repetition at ply
    // 16 ends nothing; the mate that follows does, and a move after it is
    // reported under the Laws of the game's date.
    let pgn = "[Date \"2010.05.01\"]\n[Result \"1/2-1/2\"]\n\n1.Nf3 Nf6 2.Ng1 Ng8 3.Nf3 Nf6 \
               4.Ng1 Ng8 5.Nf3 Nf6 6.Ng1 Ng8 7.Nf3 Nf6 8.Ng1 Ng8 9.e4 e5 10.Bc4 Nc6 11.Qh5 Nf6 \
               12.Qxf7# Ke7 1/2-1/2\n";
    let out = run(
        &[
            "validate",
            "-q",
            "--only",
            "wrong-result,move-after-end",
            "-",
        ],
        Some(pgn.as_bytes()),
    );
    let text = stdout(&out);
    let note = "(under the Laws in force on 2010.05.01, fivefold repetition after 8...Ng8 did not end the game)";
    assert!(
        text.contains(&format!(
            "wrong-result: the game ended by checkmate after 12.Qxf7#, which gives 1-0, but the result is 1/2-1/2 {note}\n"
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "move-after-end: the game had ended by checkmate after 12.Qxf7# {note}; did you mean 12.Qxf7# as the last move (the ply after it dropped)?\n"
        )),
        "{text}"
    );
    // Under today's Laws the game ended at ply 16, a draw.
    let out = run(
        &[
            "validate",
            "-q",
            "--laws",
            "current",
            "--only",
            "wrong-result,move-after-end,played-on",
            "-",
        ],
        Some(pgn.as_bytes()),
    );
    let text = stdout(&out);
    // The draw the fivefold repetition gives is the recorded result: the
    // moves after it are played on.
    assert!(
        text.contains("played-on: the game had ended by fivefold repetition after 8...Ng8, and the result 1/2-1/2 is the one it gives\n"),
        "{text}"
    );
    assert!(!text.contains("wrong-result"), "{text}");
}

#[test]
fn laws_that_are_no_date_are_refused() {
    for bad in ["yesterday", "2010-02-30", "2010"] {
        let out = run(
            &["validate", "--laws", bad, "fixtures/pgn/chess960.pgn"],
            None,
        );
        assert_eq!(code(&out), 2, "{bad}");
        assert!(stderr(&out).contains("--laws"), "{}", stderr(&out));
    }
}

fn rows(csv_text: &str) -> Vec<(String, String, String, String, String)> {
    let mut reader = csv::Reader::from_reader(csv_text.as_bytes());
    let headers = reader.headers().expect("csv header").clone();
    assert!(
        headers.iter().collect::<Vec<_>>().starts_with(&[
            "file",
            "game",
            "offset",
            "line",
            "ply",
            "move",
            "san",
            "severity",
            "code",
            "message",
            "suggestion"
        ]),
        "{headers:?}"
    );
    reader
        .records()
        .map(|r| {
            let r = r.expect("csv row");
            (
                r[1].to_owned(),
                r[3].to_owned(),
                r[4].to_owned(),
                r[6].to_owned(),
                r[8].to_owned(),
            )
        })
        .collect()
}

fn row(
    game: &str,
    line: &str,
    ply: &str,
    san: &str,
    code: &str,
) -> (String, String, String, String, String) {
    (
        game.into(),
        line.into(),
        ply.into(),
        san.into(),
        code.into(),
    )
}

#[test]
fn illegal_move_in_a_real_game() {
    assert_eq!(
        findings("fixtures/pgn/illegal_move_ply_61.pgn"),
        [row("1", "16", "61", "Qxe1", "illegal-move")]
    );
    let out = run(&["validate", "fixtures/pgn/illegal_move_ply_61.pgn"], None);
    assert_eq!(code(&out), 1);
    assert_eq!(
        stdout(&out),
        "fixtures/pgn/illegal_move_ply_61.pgn:16: game 1 (Gelfand,B - Gareev,T; World Blitz 2019, round 11.16), ply 61 (31.Qxe1): \
         illegal-move: `Qxe1` is not a legal move; did you mean 31.Qd1 (the remaining ply replays); \
         or 31.Qf1 (the remaining ply replays); or 31.Qf2 (the remaining ply replays) (a tie)?\n"
    );
    assert!(
        stderr(&out).starts_with("1 game, 1 with errors, 0 with warnings"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn ambiguous_move() {
    assert_eq!(
        findings("fixtures/pgn/ambiguous_move.pgn"),
        [row("1", "9", "5", "Nd2", "ambiguous-move")]
    );
}

#[test]
fn dropped_tokens_are_named_not_the_move_after_them() {
    assert_eq!(
        findings("fixtures/pgn/dropped_tokens.pgn"),
        [
            row("1", "9", "9", "bxa8Q", "syntax"),
            row("2", "19", "3", "Nf3++", "syntax"),
            row("3", "29", "5", "exd6e.p.", "syntax"),
            row("4", "39", "3", "♘f3", "syntax"),
            row("5", "49", "7", "o-o", "syntax"),
        ]
    );
}

#[test]
fn moves_after_the_end() {
    assert_eq!(
        findings("fixtures/pgn/move_after_mate.pgn"),
        [row("1", "9", "8", "Ke7", "played-on")]
    );
    // A real game of 2009 that went on after its fifth repetition (CRLF
    // lines): no move after the end under the Laws of its date, which had
    // no 9.6; one under today's.
    assert_eq!(findings("fixtures/pgn/fivefold_then_move.pgn"), []);
    assert_eq!(
        findings_under("current", "fixtures/pgn/fivefold_then_move.pgn"),
        [row("1", "18", "98", "Bf7", "played-on")]
    );
    // A real game that went on in K+B v K, drawn as the dead position says:
    // played on, a warning, and the archive is clean.
    let twic = findings("fixtures/pgn/twic1599_excerpt.pgn");
    assert_eq!(twic, [row("2", "51", "115", "Ke4", "played-on")]);
    let out = run(
        &["validate", "-q", "fixtures/pgn/twic1599_excerpt.pgn"],
        None,
    );
    assert_eq!(code(&out), 0);
    let out = run(
        &[
            "validate",
            "-q",
            "--fail-on",
            "played-on",
            "fixtures/pgn/twic1599_excerpt.pgn",
        ],
        None,
    );
    assert_eq!(code(&out), 1);
    // The same game with the result changed to a win: an error.
    let text = std::fs::read_to_string(fixture("pgn/twic1599_excerpt.pgn")).unwrap();
    let game = text.split("\n\n[Event ").nth(1).unwrap();
    let won = format!("[Event {}", game.replace("1/2-1/2", "1-0"));
    let out = run(&["validate", "-q", "-f", "csv", "-"], Some(won.as_bytes()));
    assert_eq!(code(&out), 1);
    assert!(
        stdout(&out).contains(",move-after-end,"),
        "{}",
        stdout(&out)
    );
    assert!(stdout(&out).contains(",wrong-result,"), "{}", stdout(&out));
}

#[test]
fn wrong_results() {
    assert_eq!(
        findings("fixtures/pgn/wrong_result_mate.pgn"),
        [
            row("1", "7", "", "", "wrong-result"),
            row("1", "17", "78", "Bf6+", "check-suffix")
        ]
    );
    assert_eq!(
        findings("fixtures/pgn/stalemate_scored_win.pgn"),
        [row("1", "7", "", "", "wrong-result")]
    );
}

#[test]
fn bad_fen_tags() {
    let f = findings("fixtures/pgn/bad_fen.pgn");
    assert_eq!(
        f,
        [
            row("1", "9", "", "", "invalid-fen"),
            row("2", "21", "", "", "invalid-fen")
        ]
    );
    let out = run(&["validate", "-q", "fixtures/pgn/bad_fen.pgn"], None);
    assert!(
        stdout(&out).contains("invalid fullmove part in fen"),
        "{}",
        stdout(&out)
    );
    assert!(stdout(&out).contains("missing king"), "{}", stdout(&out));
}

#[test]
fn chess960_games_replay_with_chess960_castling() {
    let out = run(&["validate", "fixtures/pgn/chess960.pgn"], None);
    assert_eq!(code(&out), 0, "{}", stdout(&out));
    assert_eq!(stdout(&out), "");
    assert!(
        stderr(&out).starts_with("4 games, 0 with errors"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn unsupported_variant_is_reported_once() {
    assert_eq!(
        findings("fixtures/pgn/crazyhouse.pgn"),
        [
            row("1", "1", "", "", "missing-tag"),
            row("1", "10", "", "", "unsupported-variant")
        ]
    );
}

#[test]
fn check_suffixes() {
    assert_eq!(
        findings("fixtures/pgn/check_suffix.pgn"),
        [
            row("1", "9", "5", "Bxf7", "check-suffix"),
            row("1", "9", "9", "Qxe5#", "check-suffix")
        ]
    );
    // Warnings alone exit 0.
    assert_eq!(
        code(&run(
            &["validate", "-q", "fixtures/pgn/check_suffix.pgn"],
            None
        )),
        0
    );
}

#[test]
fn layout_damage_is_reported_once_without_phantom_games() {
    assert_eq!(
        findings("fixtures/pgn/layout_damage.pgn"),
        [
            row("2", "11", "", "", "layout"),
            row("2", "13", "", "", "layout"),
            row("3", "15", "", "", "layout"),
            row("4", "33", "", "", "layout"),
        ]
    );
    let out = run(&["validate", "fixtures/pgn/layout_damage.pgn"], None);
    assert!(stderr(&out).starts_with("4 games,"), "{}", stderr(&out));
    assert_eq!(
        findings("fixtures/pgn/blank_line_in_movetext.pgn"),
        [row("1", "10", "", "", "layout")]
    );
    let out = run(
        &["validate", "fixtures/pgn/blank_line_in_movetext.pgn"],
        None,
    );
    assert!(stderr(&out).starts_with("2 games,"), "{}", stderr(&out));
    assert_eq!(
        findings("fixtures/pgn/blank_line_in_tags.pgn"),
        [
            row("1", "1", "", "", "missing-tag"),
            row("1", "2", "", "", "layout")
        ]
    );
}

#[test]
fn nul_bytes_and_a_tag_glued_to_a_result_line() {
    // Real damage from the pgnmentor corpus.
    assert_eq!(
        findings("fixtures/pgn/nul_glued_tag.pgn"),
        [
            row("4", "44", "", "", "layout"),
            row("4", "44", "", "", "layout")
        ]
    );
    let out = run(&["validate", "fixtures/pgn/nul_glued_tag.pgn"], None);
    assert!(stderr(&out).starts_with("4 games,"), "{}", stderr(&out));
}

#[test]
fn bom_crlf_latin1_and_uci_movetext() {
    assert_eq!(findings("fixtures/pgn/bom.pgn"), []);
    assert_eq!(findings("fixtures/pgn/latin1.pgn"), []);
    assert_eq!(
        findings("fixtures/pgn/uci_moves.pgn"),
        [row("1", "9", "1", "g1f3", "syntax")]
    );
    let out = run(&["validate", "-q", "fixtures/pgn/uci_moves.pgn"], None);
    assert!(stdout(&out).contains("UCI"), "{}", stdout(&out));
}

#[test]
fn latin1_names_are_reported_as_utf8() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("latin1.pgn");
    std::fs::write(
        &path,
        b"[Event \"?\"]\n[Site \"?\"]\n[Date \"1923.??.??\"]\n[Round \"?\"]\n[White \"R\xe9ti\"]\n[Black \"Gr\xfcnfeld\"]\n[Result \"*\"]\n\n1. Nf3 d5 2. Ke3 *\n",
    )
    .unwrap();
    let out = run(&["validate", "-q", path.to_str().unwrap()], None);
    assert_eq!(code(&out), 1);
    assert!(
        stdout(&out).contains("game 1 (Réti - Grünfeld), ply 3 (2.Ke3): illegal-move"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn empty_and_whitespace_only_inputs() {
    for path in ["fixtures/pgn/empty.pgn", "fixtures/pgn/whitespace_only.pgn"] {
        let out = run(&["validate", path], None);
        assert_eq!(code(&out), 0);
        assert_eq!(stdout(&out), "");
        assert!(
            stderr(&out).starts_with("0 games, 0 with errors, 0 with warnings"),
            "{}",
            stderr(&out)
        );
    }
}

#[test]
fn standard_input() {
    let pgn = std::fs::read(fixture("pgn/ambiguous_move.pgn")).unwrap();
    for args in [&["validate", "-q"][..], &["validate", "-q", "-"][..]] {
        let out = run(args, Some(&pgn));
        assert_eq!(code(&out), 1);
        assert_eq!(
            stdout(&out),
            "<stdin>:9: game 1 (White - Black; pgnkit fixture, round 1), ply 5 (3.Nd2): ambiguous-move: `Nd2` matches several legal moves; \
             did you mean 3.Nbd2 (the remaining ply replays); or 3.Nfd2 (the remaining ply replays) (a tie)?\n"
        );
    }
}

#[test]
fn unreadable_file_exits_2_after_reporting_the_others() {
    let out = run(
        &[
            "validate",
            "-q",
            "fixtures/pgn/no_such_file.pgn",
            "fixtures/pgn/ambiguous_move.pgn",
        ],
        None,
    );
    assert_eq!(code(&out), 2);
    assert!(stdout(&out).contains("ambiguous-move"));
    assert!(
        stderr(&out).contains("fixtures/pgn/no_such_file.pgn: cannot open"),
        "{}",
        stderr(&out)
    );
}

/// A few megabytes of real games and damage, so runs span many chunks.
fn big_input() -> Vec<u8> {
    multi_chunk_pgn(3 * CHUNK)
}

#[test]
fn output_is_identical_for_any_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.pgn");
    std::fs::write(&path, big_input()).unwrap();
    let path = path.to_str().unwrap();
    for format in ["text", "csv", "jsonl"] {
        let one = run(&["validate", "-q", "-j1", "-f", format, path], None);
        let eight = run(&["validate", "-q", "-j8", "-f", format, path], None);
        assert_eq!(code(&one), 1);
        assert!(one.stdout.len() > 10_000);
        assert!(
            one.stdout == eight.stdout,
            "{format} output differs between -j1 and -j8"
        );
    }
}

#[test]
fn compressed_input_is_detected_by_content() {
    let pgn = std::fs::read(fixture("pgn/illegal_move_ply_61.pgn")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let zst = zstd::encode_all(&pgn[..], 3).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&pgn).unwrap();
    let gz = gz.finish().unwrap();
    let mut bz = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default());
    bz.write_all(&pgn).unwrap();
    let bz = bz.finish().unwrap();
    // Names that say nothing: detection is by magic bytes.
    for (name, bytes) in [("a.pgn", zst), ("b.data", gz), ("c", bz)] {
        let path = dir.path().join(name);
        std::fs::write(&path, &bytes).unwrap();
        let out = run(
            &["validate", "-q", "-f", "csv", path.to_str().unwrap()],
            None,
        );
        assert_eq!(code(&out), 1, "{name}: {}", stderr(&out));
        assert_eq!(
            rows(&stdout(&out)),
            [row("1", "16", "61", "Qxe1", "illegal-move")],
            "{name}"
        );
        // And through standard input.
        let out = run(&["validate", "-q", "-f", "csv"], Some(&bytes));
        assert_eq!(
            rows(&stdout(&out)),
            [row("1", "16", "61", "Qxe1", "illegal-move")],
            "{name} on stdin"
        );
    }
}

#[test]
fn truncated_compressed_file_reports_what_it_read_then_exits_2() {
    let big = big_input();
    let zst = zstd::encode_all(&big[..], 3).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("truncated.pgn.zst");
    // The input repeats itself, so most of it decodes from the first blocks;
    // cutting the tail leaves a frame that fails after megabytes of output.
    std::fs::write(&path, &zst[..zst.len() - 64]).unwrap();
    let out = run(&["validate", "-f", "csv", path.to_str().unwrap()], None);
    assert_eq!(code(&out), 2);
    let err = stderr(&out);
    assert!(err.contains("truncated.pgn.zst: read failed"), "{err}");
    let reported = rows(&stdout(&out));
    assert!(
        reported.len() > 100,
        "findings before the failure are reported"
    );
    // The same findings as the whole file has, up to the game it broke in.
    let whole = dir.path().join("whole.pgn");
    std::fs::write(&whole, &big).unwrap();
    let all = rows(&stdout(&run(
        &["validate", "-q", "-f", "csv", whole.to_str().unwrap()],
        None,
    )));
    let last_game = &reported.last().unwrap().0;
    let before: Vec<_> = reported.iter().filter(|r| &r.0 != last_game).collect();
    assert!(before.len() > 100);
    assert!(
        before.iter().zip(&all).all(|(a, b)| *a == b),
        "findings before the failure differ from the whole file's"
    );
}

#[test]
fn a_comment_across_a_chunk_boundary_makes_no_phantom_games() {
    // Every game carries a comment holding a blank line and a fake tag, the
    // pattern the chunker splits at; the scanner must repair each wrong split.
    let game = "[Event \"e\"]\n[Site \"?\"]\n[Date \"2024.01.01\"]\n[Round \"1\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"*\"]\n\n1. e4 {a comment\n\n[Event \"not a tag\"]\n\n} e5 *\n\n";
    let n = (3 << 20) / game.len() + 1;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("comments.pgn");
    std::fs::write(&path, game.repeat(n)).unwrap();
    for threads in ["-j1", "-j2"] {
        let out = run(
            &[
                "validate",
                threads,
                "--ignore",
                "duplicate-game",
                path.to_str().unwrap(),
            ],
            None,
        );
        assert_eq!(code(&out), 0, "{}", stdout(&out));
        assert_eq!(stdout(&out), "");
        assert!(
            stderr(&out).starts_with(&format!("{n} games, 0 with errors")),
            "{}",
            stderr(&out)
        );
    }
}

#[test]
fn formats_and_output_file() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("report.jsonl");
    let out = run(
        &[
            "validate",
            "-q",
            "-f",
            "jsonl",
            "-o",
            target.to_str().unwrap(),
            "fixtures/pgn/ambiguous_move.pgn",
        ],
        None,
    );
    assert_eq!(code(&out), 1);
    assert_eq!(stdout(&out), "");
    assert_eq!(
        std::fs::read_to_string(&target).unwrap(),
        "{\"file\":\"fixtures/pgn/ambiguous_move.pgn\",\"game\":1,\"offset\":0,\"line\":9,\"ply\":5,\"move\":\"3.Nd2\",\
         \"san\":\"Nd2\",\"severity\":\"error\",\"code\":\"ambiguous-move\",\"message\":\"`Nd2` matches several legal moves\",\
         \"suggestion\":\"3.Nbd2 (the remaining ply replays); or 3.Nfd2 (the remaining ply replays) (a tie)\",\
         \"white\":\"White\",\"black\":\"Black\",\"event\":\"pgnkit fixture\",\"round\":\"1\"}\n"
    );
    let out = run(
        &["validate", "-q", "-f", "csv", "fixtures/pgn/empty.pgn"],
        None,
    );
    assert_eq!(
        stdout(&out),
        "file,game,offset,line,ply,move,san,severity,code,message,suggestion,white,black,event,round\n"
    );
}

#[test]
fn quiet_silences_the_summary() {
    let out = run(
        &["validate", "-q", "fixtures/pgn/twic1599_excerpt.pgn"],
        None,
    );
    assert_eq!(stderr(&out), "");
    let out = run(&["validate", "fixtures/pgn/twic1599_excerpt.pgn"], None);
    assert!(
        stderr(&out).starts_with("12 games, 0 with errors, 1 with warnings ("),
        "{}",
        stderr(&out)
    );
}

#[test]
fn broken_pipe_exits_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.pgn");
    std::fs::write(&path, big_input()).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_pgnkit"))
        .args(["validate", "-q", path.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 16];
    child
        .stdout
        .as_mut()
        .unwrap()
        .read_exact(&mut first)
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

/// What a game is, for comparing two scans of it: tags, tokens, the result
/// marker and the codes of its findings.
fn game_summary(
    g: &pgnkit::rules::game::RawGame<'_>,
) -> (usize, usize, Option<String>, Vec<String>) {
    (
        g.tags.len(),
        g.tokens.len(),
        g.marker.map(|m| m.result.to_string()),
        g.findings.iter().map(|f| f.code.to_string()).collect(),
    )
}

#[test]
fn games_without_blank_lines_are_cut_and_read_as_a_whole_scan_reads_them() {
    // See issue 10: games not parted by blank lines were never cut into
    // chunks, so memory grew with the input. Now they are cut before a tag
    // line that follows movetext; the games must be exactly those a scan
    // of the whole input finds.
    let text: Vec<u8> = big_input()
        .split_inclusive(|&b| b == b'\n')
        .filter(|line| !line.iter().all(|b| b.is_ascii_whitespace()))
        .flatten()
        .copied()
        .collect();
    assert!(text.len() > 2 * CHUNK);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("no_blank_lines.pgn");
    std::fs::write(&path, &text).unwrap();

    let whole: Vec<_> = pgnkit::input::scan::scan(&text, true)
        .games
        .iter()
        .map(game_summary)
        .collect();
    let mut chunked = Vec::new();
    pgnkit::stream::for_each_game(&[path], 4, true, game_summary, |event| {
        if let pgnkit::stream::Event::Game(_, summary) = event {
            chunked.push(summary);
        }
        Ok(())
    })
    .unwrap();
    assert!(whole.len() > 1000, "{} games", whole.len());
    assert!(chunked == whole, "chunked scan differs from the whole scan");
}

#[test]
fn a_game_without_roster_tags_gets_one_missing_tag_finding() {
    let out = run(&["validate", "-q"], Some(b"[Result \"*\"]\n\n1. e4 *\n"));
    assert_eq!(code(&out), 0);
    assert_eq!(
        stdout(&out),
        "<stdin>:1: game 1 (? - ?): missing-tag: tags Event, Site, Date, Round, White, Black \
         of the Seven Tag Roster are missing\n"
    );
}

#[test]
fn the_summary_says_when_an_input_could_not_be_read() {
    let out = run(&["validate", "fixtures/pgn/no_such_file.pgn"], None);
    assert_eq!(code(&out), 2);
    let err = stderr(&out);
    assert!(
        err.contains("\n0 games, 0 with errors, 0 with warnings, 1 input could not be read ("),
        "{err}"
    );
    // The same tail for the other subcommands that read games.
    let out = run(
        &[
            "convert",
            "--to",
            "san",
            "fixtures/pgn/no_such_file.pgn",
            "fixtures/pgn/missing_too.pgn",
            "fixtures/pgn/ambiguous_move.pgn",
        ],
        None,
    );
    assert_eq!(code(&out), 2);
    let err = stderr(&out);
    let summary = err.lines().last().unwrap();
    assert!(summary.starts_with("1 game, "), "{err}");
    assert!(summary.contains(", 2 inputs could not be read ("), "{err}");
    let out = run(&["annotate-outcome", "fixtures/pgn/no_such_file.pgn"], None);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains(", 1 input could not be read ("),
        "{}",
        stderr(&out)
    );
}

/// The codes of the CSV report of `path` with the extra `flags`, and the
/// exit status.
fn codes_with(flags: &[&str], path: &str) -> (Vec<String>, i32) {
    let mut args = vec!["validate", "-q", "-f", "csv"];
    args.extend_from_slice(flags);
    args.push(path);
    let out = run(&args, None);
    let codes = rows(&stdout(&out)).into_iter().map(|r| r.4).collect();
    (codes, code(&out))
}

#[test]
fn ignore_and_only_filter_what_is_reported_and_counted() {
    let twic = "fixtures/pgn/twic1599_excerpt.pgn";
    // A real game played on after a dead position: ignored, it is neither
    // reported nor counted, and the run succeeds even when warnings fail it.
    assert_eq!(codes_with(&[], twic), (vec!["played-on".into()], 0));
    assert_eq!(
        codes_with(&["--fail-on", "warning"], twic),
        (vec!["played-on".into()], 1)
    );
    assert_eq!(
        codes_with(&["--fail-on", "warning", "--ignore", "played-on"], twic),
        (vec![], 0)
    );
    let out = run(&["validate", "--ignore", "played-on", twic], None);
    assert!(
        stderr(&out).starts_with("12 games, 0 with errors, 0 with warnings ("),
        "{}",
        stderr(&out)
    );
    let wrong = "fixtures/pgn/wrong_result_mate.pgn";
    assert_eq!(
        codes_with(&["--only", "check-suffix"], wrong),
        (vec!["check-suffix".into()], 0)
    );
    assert_eq!(
        codes_with(&["--only", "check-suffix,wrong-result"], wrong),
        (vec!["wrong-result".into(), "check-suffix".into()], 1)
    );
    // Repeated flags add up, and --ignore drops from --only.
    assert_eq!(
        codes_with(
            &[
                "--only",
                "check-suffix",
                "--only",
                "wrong-result",
                "--ignore",
                "wrong-result"
            ],
            wrong
        ),
        (vec!["check-suffix".into()], 0)
    );
    // --stats counts what was reported.
    let dir = tempfile::tempdir().unwrap();
    let stats = dir.path().join("stats.json");
    let out = run(
        &[
            "validate",
            "-q",
            "--ignore",
            "wrong-result",
            "--stats",
            stats.to_str().unwrap(),
            wrong,
        ],
        None,
    );
    assert_eq!(code(&out), 0);
    let json = std::fs::read_to_string(&stats).unwrap();
    assert!(json.contains("\"findings\":{\"check-suffix\":1}"), "{json}");
}

#[test]
fn fail_on_decides_exit_1() {
    let layout = "fixtures/pgn/layout_damage.pgn";
    let twic = "fixtures/pgn/twic1599_excerpt.pgn";
    // The default is `error`: warnings alone exit 0.
    assert_eq!(codes_with(&[], layout).1, 0);
    assert_eq!(codes_with(&["--fail-on", "error"], layout).1, 0);
    assert_eq!(codes_with(&["--fail-on", "warning"], layout).1, 1);
    assert_eq!(codes_with(&["--fail-on", "layout"], layout).1, 1);
    assert_eq!(codes_with(&["--fail-on", "check-suffix"], layout).1, 0);
    // A code list: only those codes fail the run, whatever their severity.
    assert_eq!(codes_with(&["--fail-on", "illegal-move"], twic).1, 0);
    assert_eq!(
        codes_with(&["--fail-on", "illegal-move,played-on"], twic).1,
        1
    );
    assert_eq!(codes_with(&["--fail-on", "never"], twic).1, 0);
    // An ignored finding cannot fail the run.
    assert_eq!(
        codes_with(&["--fail-on", "warning", "--ignore", "layout"], layout).1,
        0
    );
    // `never` still exits 2 when an input could not be read.
    let out = run(
        &[
            "validate",
            "-q",
            "--fail-on",
            "never",
            twic,
            "fixtures/pgn/no_such_file.pgn",
        ],
        None,
    );
    assert_eq!(code(&out), 2);
}

#[test]
fn unknown_codes_are_refused_with_the_valid_ones() {
    for flag in ["--ignore", "--only", "--fail-on"] {
        let out = run(
            &[
                "validate",
                flag,
                "layout,move-after-the-end",
                "fixtures/pgn/empty.pgn",
            ],
            None,
        );
        assert_eq!(code(&out), 2, "{flag}");
        assert_eq!(stdout(&out), "");
        let err = stderr(&out);
        assert!(
            err.starts_with(&format!(
                "pgnkit: {flag}: unknown finding code `move-after-the-end`; valid: "
            )),
            "{err}"
        );
        assert!(err.contains("move-after-end, invalid-fen"), "{err}");
        assert_eq!(err.contains("never"), flag == "--fail-on", "{err}");
    }
    let out = run(
        &[
            "validate",
            "--fail-on",
            "never,layout",
            "fixtures/pgn/empty.pgn",
        ],
        None,
    );
    assert_eq!(code(&out), 2);
}

#[test]
fn a_per_code_table_ends_the_run() {
    let out = run(
        &[
            "validate",
            "fixtures/pgn/twic1599_excerpt.pgn",
            "fixtures/pgn/layout_damage.pgn",
            "fixtures/pgn/crazyhouse.pgn",
        ],
        None,
    );
    let err = stderr(&out);
    let lines: Vec<&str> = err.lines().collect();
    assert!(
        lines[0].starts_with("17 games, 1 with errors, 5 with warnings ("),
        "{err}"
    );
    assert_eq!(
        lines[1..],
        [
            "code                 severity  findings  games",
            "layout               warning          4      3",
            "unsupported-variant  error            1      1",
            "missing-tag          warning          1      1",
            "played-on            warning          1      1",
        ],
        "{err}"
    );
    // No finding, no table; --quiet hides it.
    let out = run(&["validate", "fixtures/pgn/chess960.pgn"], None);
    assert_eq!(stderr(&out).lines().count(), 1, "{}", stderr(&out));
    let out = run(&["validate", "-q", "fixtures/pgn/layout_damage.pgn"], None);
    assert_eq!(stderr(&out), "");
}

#[test]
fn a_directory_is_walked_for_its_pgn_files_sorted_by_path() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("archive");
    std::fs::create_dir_all(root.join("round2")).unwrap();
    std::fs::create_dir_all(root.join("empty")).unwrap();
    let copy = |from: &str, to: &str| {
        std::fs::copy(fixture(&format!("pgn/{from}")), root.join(to)).unwrap();
    };
    copy("ambiguous_move.pgn", "round2/b.PGN");
    copy("check_suffix.pgn", "a.pgn");
    let pgn = std::fs::read(fixture("pgn/illegal_move_ply_61.pgn")).unwrap();
    std::fs::write(
        root.join("round2/a.pgn.zst"),
        zstd::encode_all(&pgn[..], 3).unwrap(),
    )
    .unwrap();
    // Not PGN by name: skipped, though its content is.
    copy("move_after_mate.pgn", "notes.txt");
    copy("move_after_mate.pgn", "round2/c.pgn.xz");
    let archive = root.to_str().unwrap();
    let out = run(&["validate", "-f", "csv", archive], None);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let mut reader = csv::Reader::from_reader(out.stdout.as_slice());
    let files: Vec<String> = reader.records().map(|r| r.unwrap()[0].to_owned()).collect();
    let name = |rel: &str| format!("{archive}/{rel}");
    assert_eq!(
        files,
        [
            name("a.pgn"),
            name("a.pgn"),
            name("round2/a.pgn.zst"),
            name("round2/b.PGN"),
        ]
    );
    assert!(
        stderr(&out).starts_with("3 games, 2 with errors, 1 with warnings ("),
        "{}",
        stderr(&out)
    );
    // The same expansion for the other subcommands that read games.
    let out = run(&["convert", "--to", "uci", archive], None);
    assert!(
        stderr(&out).contains("\n3 games, 2 could not be replayed"),
        "{}",
        stderr(&out)
    );
    // A dangling symlink with a PGN name is reported, not skipped: the
    // games it should have held are lost, so the run fails (exit 2).
    std::os::unix::fs::symlink(root.join("gone.pgn"), root.join("round2/d.pgn")).unwrap();
    let out = run(&["validate", "-q", "-f", "csv", archive], None);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!("{}: cannot open", name("round2/d.pgn"))),
        "{}",
        stderr(&out)
    );
    let mut reader = csv::Reader::from_reader(out.stdout.as_slice());
    assert_eq!(reader.records().count(), 4, "the other files are read");
    std::fs::remove_file(root.join("round2/d.pgn")).unwrap();
    // A directory holding no PGN file is reported, and fails the run.
    let empty = root.join("empty");
    let out = run(&["validate", empty.to_str().unwrap()], None);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("empty: cannot open: is a directory holding no .pgn"),
        "{}",
        stderr(&out)
    );
}

/// The games of the PGN `bytes` as `validate` cuts them: each from its
/// first byte to the next game's first byte, the last to the end.
fn game_texts(bytes: &[u8]) -> Vec<Vec<u8>> {
    let offsets: Vec<usize> = pgnkit::input::scan::scan(bytes, true)
        .games
        .iter()
        .map(|g| g.offset)
        .collect();
    offsets
        .iter()
        .enumerate()
        .map(|(i, &at)| bytes[at..offsets.get(i + 1).copied().unwrap_or(bytes.len())].to_vec())
        .collect()
}

#[test]
fn bad_and_good_games_are_the_input_games_byte_for_byte() {
    let names = [
        "twic1599_excerpt.pgn",
        "illegal_move_ply_61.pgn",
        "bad_fen.pgn",
        "dropped_tokens.pgn",
        "wrong_result_mate.pgn",
        "check_suffix.pgn",
        "layout_damage.pgn",
        "latin1.pgn",
        "fivefold_then_move.pgn",
    ];
    let dir = tempfile::tempdir().unwrap();
    // One input compressed: its games are copied decompressed.
    let zst = dir.path().join("twic.pgn.zst");
    let twic = std::fs::read(fixture("pgn/twic1599_excerpt.pgn")).unwrap();
    std::fs::write(&zst, zstd::encode_all(&twic[..], 3).unwrap()).unwrap();
    let mut inputs: Vec<String> = names.iter().map(|n| format!("fixtures/pgn/{n}")).collect();
    inputs.push(zst.to_str().unwrap().to_owned());
    let (bad, good) = (dir.path().join("bad.pgn"), dir.path().join("good.pgn"));
    let mut args = vec![
        "validate",
        "-f",
        "csv",
        "--bad-games",
        bad.to_str().unwrap(),
        "--good-games",
        good.to_str().unwrap(),
    ];
    args.extend(inputs.iter().map(String::as_str));
    let out = run(&args, None);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    // The games with an error, from the report.
    let mut reader = csv::Reader::from_reader(out.stdout.as_slice());
    let errors: std::collections::BTreeSet<(String, usize)> = reader
        .records()
        .map(|r| r.unwrap())
        .filter(|r| &r[7] == "error")
        .map(|r| (r[0].to_owned(), r[1].parse().unwrap()))
        .collect();
    assert!(errors.len() >= 8, "{errors:?}");
    // Each file is the input games of its kind, in input order, as they were.
    let (mut want_bad, mut want_good) = (Vec::new(), Vec::new());
    let mut all = Vec::new();
    for input in &inputs {
        let bytes = if input.ends_with(".zst") {
            twic.clone()
        } else {
            std::fs::read(input).unwrap()
        };
        for (i, text) in game_texts(&bytes).into_iter().enumerate() {
            let into = if errors.contains(&(input.clone(), i + 1)) {
                &mut want_bad
            } else {
                &mut want_good
            };
            if into.last().is_some_and(|&b| b != b'\n') {
                into.push(b'\n');
            }
            into.extend_from_slice(&text);
            all.push(text);
        }
    }
    let (got_bad, got_good) = (std::fs::read(&bad).unwrap(), std::fs::read(&good).unwrap());
    assert!(got_bad == want_bad, "{}", String::from_utf8_lossy(&got_bad));
    assert!(
        got_good == want_good,
        "{}",
        String::from_utf8_lossy(&got_good)
    );
    // Good + bad is a permutation of the input's games, and nothing else.
    let mut split: Vec<Vec<u8>> = game_texts(&got_bad);
    split.extend(game_texts(&got_good));
    let trim = |t: &Vec<u8>| t.trim_ascii_end().to_vec();
    let mut split: Vec<_> = split.iter().map(trim).collect();
    let mut all: Vec<_> = all.iter().map(trim).collect();
    split.sort();
    all.sort();
    assert_eq!(split.len(), all.len());
    assert!(split == all, "the games written differ from the input's");
    // The bad games are exactly those with errors: validating them again
    // finds an error in every one, and none in the good ones.
    let again = run(
        &["validate", "-q", "-f", "csv", bad.to_str().unwrap()],
        None,
    );
    let mut reader = csv::Reader::from_reader(again.stdout.as_slice());
    let bad_games: std::collections::BTreeSet<String> = reader
        .records()
        .map(|r| r.unwrap())
        .filter(|r| &r[7] == "error")
        .map(|r| r[1].to_owned())
        .collect();
    assert_eq!(bad_games.len(), errors.len());
    let again = run(&["validate", "-q", good.to_str().unwrap()], None);
    assert_eq!(code(&again), 0, "{}", stdout(&again));
}

#[test]
fn bad_and_good_games_follow_ignore_and_refuse_an_input() {
    let dir = tempfile::tempdir().unwrap();
    let (bad, good) = (dir.path().join("bad.pgn"), dir.path().join("good.pgn"));
    let twic = "fixtures/pgn/twic1599_excerpt.pgn";
    let out = run(
        &[
            "validate",
            "-q",
            "--ignore",
            "move-after-end",
            "--bad-games",
            bad.to_str().unwrap(),
            "--good-games",
            good.to_str().unwrap(),
            twic,
        ],
        None,
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(std::fs::read(&bad).unwrap(), b"");
    assert_eq!(
        std::fs::read(&good).unwrap(),
        std::fs::read(fixture("pgn/twic1599_excerpt.pgn")).unwrap()
    );
    // An input as the games file, by another name: refused before reading.
    let copy = dir.path().join("copy.pgn");
    std::fs::copy(fixture("pgn/twic1599_excerpt.pgn"), &copy).unwrap();
    let link = dir.path().join("link.pgn");
    std::os::unix::fs::symlink(&copy, &link).unwrap();
    let out = run(
        &[
            "validate",
            "--bad-games",
            link.to_str().unwrap(),
            copy.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("refusing to write"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        std::fs::read(&copy).unwrap(),
        std::fs::read(fixture("pgn/twic1599_excerpt.pgn")).unwrap()
    );
    // Standard input is read once, and split as it is read (issue 20).
    let mut twic = std::fs::read(fixture("pgn/twic1599_excerpt.pgn")).unwrap();
    twic.extend(std::fs::read(fixture("pgn/illegal_move_ply_61.pgn")).unwrap());
    let out = run(
        &["validate", "-q", "--good-games", good.to_str().unwrap()],
        Some(&twic),
    );
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let kept = std::fs::read_to_string(&good).unwrap();
    assert_eq!(kept.matches("[Event ").count(), 12);
    // The same bytes as from the file itself.
    let from_file = dir.path().join("from_file.pgn");
    let path = dir.path().join("twic_and_gelfand.pgn");
    std::fs::write(&path, &twic).unwrap();
    let out = run(
        &[
            "validate",
            "-q",
            "--good-games",
            from_file.to_str().unwrap(),
            path.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert_eq!(kept, std::fs::read_to_string(&from_file).unwrap());
}

/// Issue 23: every finding names the event and round, and `--tags` adds
/// the tags an arbiter files it by, in CSV and JSON Lines alike.
#[test]
fn findings_name_the_event_round_and_the_tags_asked_for() {
    let file = "fixtures/pgn/illegal_move_ply_61.pgn";
    let out = run(
        &[
            "validate",
            "-q",
            "-f",
            "csv",
            "--tags",
            "ECO,Board,WhiteElo",
            file,
        ],
        None,
    );
    assert_eq!(code(&out), 1);
    let mut reader = csv::Reader::from_reader(out.stdout.as_slice());
    let headers: Vec<String> = reader
        .headers()
        .unwrap()
        .iter()
        .map(str::to_owned)
        .collect();
    assert_eq!(
        headers[11..],
        [
            "white", "black", "event", "round", "ECO", "Board", "WhiteElo"
        ]
    );
    let row: Vec<String> = reader
        .records()
        .next()
        .unwrap()
        .unwrap()
        .iter()
        .map(str::to_owned)
        .collect();
    // The tags as the file has them; a tag the game lacks is empty.
    assert_eq!(
        row[11..],
        [
            "Gelfand,B",
            "Gareev,T",
            "World Blitz 2019",
            "11.16",
            "A41",
            "",
            "2684"
        ]
    );
    let out = run(
        &["validate", "-q", "-f", "jsonl", "--tags", "ECO,Board", file],
        None,
    );
    let record: serde_json::Value =
        serde_json::from_str(stdout(&out).lines().next().unwrap()).unwrap();
    assert_eq!(record["event"], "World Blitz 2019");
    assert_eq!(record["round"], "11.16");
    assert_eq!(
        record["tags"],
        serde_json::json!({"ECO": "A41", "Board": null})
    );
    // Without --tags, no tags key; the text names event and round.
    let out = run(&["validate", "-q", "-f", "jsonl", file], None);
    assert!(!stdout(&out).contains("\"tags\""));
    let out = run(&["validate", "-q", file], None);
    assert!(
        stdout(&out).contains("game 1 (Gelfand,B - Gareev,T; World Blitz 2019, round 11.16)"),
        "{}",
        stdout(&out)
    );
    // A Board tag is named beside the round, in the text and on the page.
    let text = std::fs::read_to_string(file).unwrap();
    let with_board = text.replacen("[Round ", "[Board \"3\"]\n[Round ", 1);
    let out = run(&["validate", "-q"], Some(with_board.as_bytes()));
    assert!(
        stdout(&out)
            .contains("game 1 (Gelfand,B - Gareev,T; World Blitz 2019, round 11.16, board 3)"),
        "{}",
        stdout(&out)
    );
    let out = run(
        &["validate", "-q", "-f", "html"],
        Some(with_board.as_bytes()),
    );
    assert!(
        stdout(&out).contains("<h2>World Blitz 2019, round 11.16, board 3: Gelfand,B – Gareev,T")
    );
    // A fixed column's name is refused.
    let out = run(&["validate", "--tags", "round", file], None);
    assert_eq!(code(&out), 2);
}

#[test]
fn the_page_draws_the_position_before_each_move_found_wrong() {
    let files = [
        fixture("pgn/illegal_move_ply_61.pgn"),
        fixture("pgn/check_suffix.pgn"),
        fixture("pgn/wrong_result_mate.pgn"),
    ];
    let files: Vec<&str> = files.iter().map(|p| p.to_str().unwrap()).collect();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let page = dir.join("report.html");
    let mut args = vec!["validate", "-q", "-f", "html", "-o", page.to_str().unwrap()];
    args.extend(&files);
    let out = run(&args, None);
    // The exit status is the report's.
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert_eq!(stdout(&out), "");
    let html = std::fs::read_to_string(&page).unwrap();
    let mut csv_args = vec!["validate", "-q", "-f", "csv"];
    csv_args.extend(&files);
    let csv = stdout(&run(&csv_args, None));
    let findings = csv.lines().count() - 1;
    let with_board = csv
        .lines()
        .skip(1)
        .filter(|l| {
            let cells: Vec<&str> = l.split(',').collect();
            !cells[4].is_empty() || l.contains(",wrong-result,") || l.contains(",result-mismatch,")
        })
        .count();
    assert!(with_board >= 3);
    assert_eq!(html.matches("<div class=\"finding\"").count(), findings);
    assert_eq!(html.matches("<svg class=\"board\"").count(), with_board);
    // 31.Qxe1 is drawn from the queen's square, and its repair is named.
    assert!(html.contains("ply 61 (31.Qxe1)"));
    assert!(html.contains("Probably meant: 31.Qd1"));
    assert!(html.contains("data-fen=\"r2k3r/2pPp3/p4n2/3b2B1/1p5P/2qP4/3RQ1P1/4K2R w - - 2 31\""));
    assert!(
        html.contains("<line class=\"arrow\" x1=\"202\" y1=\"292\""),
        "e2 to e1"
    );
    // Each piece drawn once, reused on every board.
    assert_eq!(html.matches("<symbol id=\"pc-").count(), 12);
    // A board limit: the rest in a table, with their FEN.
    let limited = dir.join("limited.html");
    let mut args = vec![
        "validate",
        "-q",
        "-f",
        "html",
        "--html-boards",
        "1",
        "-o",
        limited.to_str().unwrap(),
    ];
    args.extend(&files);
    run(&args, None);
    let html = std::fs::read_to_string(&limited).unwrap();
    assert_eq!(html.matches("<svg class=\"board\"").count(), 1);
    assert_eq!(
        html.matches("<tr><td>").count() - html.matches("<tr><td><code>").count(),
        with_board - 1
    );
}

/// Castling written with zeros in real games: a `notation` warning at each,
/// and at nothing else, the games replayed to their ends.
#[test]
fn zero_castling_is_a_notation_warning_at_each_castling() {
    let path = "fixtures/pgn/zero_castling.pgn";
    // Where the file writes `0-0`, read off its text: (game, ply).
    let text = String::from_utf8_lossy(&std::fs::read(path).unwrap()).into_owned();
    let mut expected = Vec::new();
    let mut game = 0;
    for line in text.lines() {
        let line = line.trim_start_matches('\u{feff}');
        if line.starts_with("[Event ") {
            game += 1;
        }
        if line.starts_with('[') {
            continue;
        }
        let mut ply = 0;
        for token in line.split_whitespace() {
            if let Some(number) = token.strip_suffix('.') {
                ply = 2 * (number.parse::<u32>().unwrap() - 1);
            } else {
                ply += 1;
                if token.starts_with("0-0") {
                    expected.push((game.to_string(), ply.to_string()));
                }
            }
        }
    }
    assert_eq!(expected.len(), 14);
    let out = run(
        &[
            "validate",
            "-q",
            "-f",
            "csv",
            "--only",
            "notation,illegal-move,syntax",
            path,
        ],
        None,
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let found: Vec<(String, String)> = rows(&stdout(&out))
        .into_iter()
        .map(|r| {
            assert_eq!(r.4, "notation");
            (r.0, r.2)
        })
        .collect();
    assert_eq!(found, expected);
    assert!(
        stdout(&out)
            .matches("the export format writes `O-O`")
            .count()
            == 14
    );
}
