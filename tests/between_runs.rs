//! What issue 20 found outside merge and the problem-game files: format
//! detection that length fooled, a FIFO in a walked directory, a missing
//! temporary directory, flags that cancel each other, and diagnostics out
//! of input order.

use std::io::Write;
use std::process::Stdio;

use crate::util::{code, fixture, mkfifo, pgnkit, run, stderr, stdout, wait_idle, wait_or_fail};

#[test]
fn long_comments_or_lines_do_not_make_positions_or_uci_pgn() {
    let comments = "# a test suite's comment line, long enough to matter\n".repeat(120);
    assert!(comments.len() > 4096);
    let fens = "8/8/8/8/8/8/8/K1k5 w - - 0 1\n8/8/8/8/8/8/8/K1k5 b - - 0 1\n";
    let input = format!("{comments}{fens}");
    let out = run(
        &["convert", "-q", "--to", "fen", "-"],
        Some(input.as_bytes()),
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out), fens);
    // A UCI game longer than the old 4 KB sniff window.
    let moves = ["g1f3 g8f6 f3g1 f6g8"; 300].join(" ");
    assert!(moves.len() > 4096);
    let out = run(
        &["convert", "-q", "--to", "uci", "-"],
        Some(format!("{moves}\n").as_bytes()),
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out).trim_end(), moves);
    // `#` lines in UCI input are comments, as the detection takes them.
    let out = run(
        &["convert", "-q", "--to", "san", "-"],
        Some(b"# opening lines\ne2e4 e7e5\n# more\nd2d4\n"),
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out).lines().count(), 2, "{}", stdout(&out));
}

#[test]
fn a_bare_carriage_return_file_of_lines_is_refused_with_a_reason() {
    let input = b"8/8/8/8/8/8/8/K1k5 w - - 0 1\r8/8/8/8/8/8/8/K1k5 b - - 0 1\r";
    for args in [
        &["convert", "-q", "--to", "fen", "-"][..],
        &["convert", "-q", "--from", "fen", "--to", "fen", "-"],
    ] {
        let out = run(args, Some(input));
        assert_eq!(code(&out), 2, "{args:?}");
        assert!(
            stderr(&out).contains("bare carriage return"),
            "{}",
            stderr(&out)
        );
        assert!(stdout(&out).is_empty(), "{}", stdout(&out));
    }
}

#[test]
fn a_fifo_in_a_walked_directory_is_reported_and_skipped() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        fixture("pgn/illegal_move_ply_61.pgn"),
        dir.path().join("a.pgn"),
    )
    .unwrap();
    let fifo = dir.path().join("b.pgn");
    mkfifo(&fifo);
    let mut child = pgnkit()
        .args(["validate", "-q", "-f", "csv"])
        .arg(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_or_fail(&mut child, "a FIFO in a walked directory hangs the run");
    let out = child.wait_with_output().unwrap();
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("b.pgn: skipped: not a regular file"),
        "{}",
        stderr(&out)
    );
    assert!(
        stdout(&out).contains("illegal-move"),
        "the regular file is read"
    );
}

#[test]
fn fail_on_a_code_the_report_leaves_out_is_refused() {
    let t = fixture("pgn/twic1599_excerpt.pgn");
    let t = t.to_str().unwrap();
    for args in [
        &[
            "validate",
            "--fail-on",
            "played-on",
            "--ignore",
            "played-on",
            t,
        ][..],
        &["validate", "--fail-on", "played-on", "--only", "syntax", t],
    ] {
        let out = run(args, None);
        assert_eq!(code(&out), 2, "{args:?}");
        assert!(
            stderr(&out).contains("can never fail the run"),
            "{}",
            stderr(&out)
        );
    }
    // Named and kept: fine.
    let out = run(
        &[
            "validate",
            "-q",
            "--fail-on",
            "played-on",
            "--only",
            "played-on",
            t,
        ],
        None,
    );
    assert_eq!(code(&out), 1, "{}", stderr(&out));
}

/// A FIFO as the first input holds it open while later inputs are read
/// at once: what a later input reports waits for the first one's.
#[test]
fn diagnostics_keep_input_order_at_any_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("first.pgn");
    mkfifo(&fifo);
    let missing = dir.path().join("missing.pgn");
    let damaged = std::fs::read(fixture("convert/damaged_movetext.pgn")).unwrap();
    let child = pgnkit()
        .args(["convert", "-q", "-j8", "--to", "uci"])
        .arg(&fifo)
        .arg(&missing)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Let the second reader fail to open its input first: the run has
    // started its workers and waits, idle, for the FIFO.
    wait_idle(&child, 0);
    std::fs::OpenOptions::new()
        .write(true)
        .open(&fifo)
        .unwrap()
        .write_all(&damaged)
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(code(&out), 2);
    let err = stderr(&out);
    let first = err.find("first.pgn").expect("the FIFO's findings");
    let second = err.find("missing.pgn").expect("the missing input");
    assert!(first < second, "out of input order:\n{err}");
}

/// With the temporary directory missing, a later input's held output
/// fails with a message that names it, and `-o` keeps its old bytes.
#[test]
fn a_missing_temporary_directory_is_named_and_the_output_kept() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("first.pgn");
    mkfifo(&fifo);
    let second = dir.path().join("second.pgn");
    let packed = std::fs::read(fixture("corpus/pgnmentor-2mb.pgn.zst")).unwrap();
    std::fs::write(&second, zstd::decode_all(&packed[..]).unwrap()).unwrap();
    let target = dir.path().join("out.jsonl");
    std::fs::write(&target, b"old\n").unwrap();
    let child = pgnkit()
        .env("TMPDIR", dir.path().join("no-such-dir"))
        .args(["convert", "-q", "-j8", "--to", "jsonl", "-o"])
        .arg(&target)
        .arg(&fifo)
        .arg(&second)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The first input stays open while the second's output outgrows
    // memory: until the run has read the second input and, idle, waits
    // for the first. Then it ends.
    let mut writer = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
    writer.write_all(b"[Event \"x\"]\n\n1. e4 *\n\n").unwrap();
    wait_idle(&child, std::fs::metadata(&second).unwrap().len());
    drop(writer);
    let out = child.wait_with_output().unwrap();
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("no-such-dir"), "{}", stderr(&out));
    assert_eq!(std::fs::read(&target).unwrap(), b"old\n");
}
