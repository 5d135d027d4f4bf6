//! `--bad-games` and `--good-games` (issue 20): written from the one read of
//! the inputs, so pipes, FIFOs, `<(…)` and standard input work, and the two
//! files together hold every game read, once each.

use std::ffi::OsStr;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::Stdio;

use crate::util::{code, fixture, mkfifo, pgnkit, stderr, wait_or_fail};

/// The games of PGN `bytes`, each from its `[Event` to the next.
fn games(bytes: &[u8]) -> Vec<Vec<u8>> {
    let starts: Vec<usize> = memchr::memmem::find_iter(bytes, b"[Event ")
        .filter(|&i| i == 0 || bytes[i - 1] == b'\n')
        .collect();
    starts
        .iter()
        .enumerate()
        .map(|(k, &s)| {
            let end = starts.get(k + 1).copied().unwrap_or(bytes.len());
            bytes[s..end].trim_ascii_end().to_vec()
        })
        .collect()
}

/// Asserts that `bad` and `good` together are the games of `input`, each
/// once, and that each file is not empty.
fn split_is_whole(input: &[u8], bad: &Path, good: &Path, what: &str) {
    let (bad, good) = (std::fs::read(bad).unwrap(), std::fs::read(good).unwrap());
    assert!(!bad.is_empty() && !good.is_empty(), "{what}: an empty file");
    let mut together = games(&bad);
    together.extend(games(&good));
    let mut all = games(input);
    together.sort();
    all.sort();
    assert_eq!(together.len(), all.len(), "{what}: games lost or doubled");
    assert!(together == all, "{what}: the games differ");
}

#[test]
fn standard_input_pipes_and_fifos_are_split_from_the_one_read() {
    let dir = tempfile::tempdir().unwrap();
    // Twelve good games (one played on after its end, a warning) and a
    // real scoresheet error.
    let mut input = std::fs::read(fixture("pgn/twic1599_excerpt.pgn")).unwrap();
    input.extend(std::fs::read(fixture("pgn/illegal_move_ply_61.pgn")).unwrap());
    let (bad, good) = (dir.path().join("b.pgn"), dir.path().join("g.pgn"));
    // `-` and `/dev/stdin`, fed through a pipe.
    for name in ["-", "/dev/stdin"] {
        let mut child = pgnkit()
            .args(["validate", "-q", "--bad-games"])
            .arg(&bad)
            .arg("--good-games")
            .arg(&good)
            .arg(name)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(&input).unwrap();
        let out = child.wait_with_output().unwrap();
        assert_eq!(code(&out), 1, "{name}: {}", stderr(&out));
        split_is_whole(&input, &bad, &good, name);
    }
    // A FIFO: read once, never opened twice (that blocked for ever).
    let fifo = dir.path().join("games.fifo");
    mkfifo(&fifo);
    let writer = {
        let (fifo, input) = (fifo.clone(), input.clone());
        std::thread::spawn(move || std::fs::write(fifo, input).unwrap())
    };
    let mut child = pgnkit()
        .args(["validate", "-q", "--bad-games"])
        .arg(&bad)
        .arg("--good-games")
        .arg(&good)
        .arg(&fifo)
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let status = wait_or_fail(&mut child, "validate hangs on a FIFO with --bad-games");
    writer.join().unwrap();
    assert_eq!(status.code(), Some(1));
    split_is_whole(&input, &bad, &good, "a FIFO");
}

#[test]
fn inputs_whose_names_display_alike_keep_their_own_games() {
    let dir = tempfile::tempdir().unwrap();
    let mut one = std::fs::read(fixture("pgn/twic1599_excerpt.pgn")).unwrap();
    one.extend(std::fs::read(fixture("pgn/ambiguous_move.pgn")).unwrap());
    let two = std::fs::read(fixture("pgn/illegal_move_ply_61.pgn")).unwrap();
    let a = dir.path().join(OsStr::from_bytes(b"a\xff.pgn"));
    let b = dir.path().join(OsStr::from_bytes(b"a\xfe.pgn"));
    std::fs::write(&a, &one).unwrap();
    std::fs::write(&b, &two).unwrap();
    let (bad, good) = (dir.path().join("bad.pgn"), dir.path().join("good.pgn"));
    let out = pgnkit()
        .args(["validate", "-q", "-j4", "--bad-games"])
        .arg(&bad)
        .arg("--good-games")
        .arg(&good)
        .arg(&a)
        .arg(&b)
        .output()
        .unwrap();
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let mut both = one.clone();
    both.extend_from_slice(&two);
    split_is_whole(&both, &bad, &good, "two inputs");
    // In input order: the first input's bad game before the second's.
    let bad_games = games(&std::fs::read(&bad).unwrap());
    assert_eq!(bad_games.len(), 2);
    assert!(String::from_utf8_lossy(&bad_games[0]).contains("3. Nd2"));
    assert!(String::from_utf8_lossy(&bad_games[1]).contains("Gelfand"));
}

#[test]
fn a_games_file_that_is_standard_output_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let x = dir.path().join("x.pgn");
    std::fs::write(&x, b"the old games\n").unwrap();
    for flag in ["--bad-games", "--good-games"] {
        let out = pgnkit()
            .args(["validate", "-q", flag])
            .arg(&x)
            .arg(fixture("pgn/twic1599_excerpt.pgn"))
            .stdout(std::fs::OpenOptions::new().append(true).open(&x).unwrap())
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        assert_eq!(code(&out), 2, "{flag}");
        assert!(stderr(&out).contains("standard output"), "{}", stderr(&out));
        assert_eq!(std::fs::read(&x).unwrap(), b"the old games\n", "{flag}");
    }
}

/// Review of issue 20: standard output as a games file, whatever it is (a
/// pipe here), and `-`, are refused: the games would mix with the report.
#[test]
fn games_written_to_standard_output_are_refused() {
    let t = fixture("pgn/twic1599_excerpt.pgn");
    for name in ["/dev/stdout", "-"] {
        let out = pgnkit()
            .args(["validate", "-q", "--bad-games", name])
            .arg(&t)
            .output()
            .unwrap();
        assert_eq!(code(&out), 2, "{name}");
        assert!(out.stdout.is_empty(), "{name}: wrote to standard output");
        assert!(
            stderr(&out).contains("standard output"),
            "{name}: {}",
            stderr(&out)
        );
    }
}

/// Issue 43, defect 12: with `--fail-on played-on` the games that make the
/// run exit 1 are the games `--bad-games` holds (the twelve TWIC games:
/// one played on after its dead position, no error).
#[test]
fn fail_on_played_on_puts_those_games_in_bad_games() {
    let dir = tempfile::tempdir().unwrap();
    let (bad, good) = (dir.path().join("bad.pgn"), dir.path().join("good.pgn"));
    let input = fixture("pgn/twic1599_excerpt.pgn");
    let out = pgnkit()
        .args(["validate", "-q", "--fail-on", "played-on", "--bad-games"])
        .arg(&bad)
        .arg("--good-games")
        .arg(&good)
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let bad_games = games(&std::fs::read(&bad).unwrap());
    assert_eq!(bad_games.len(), 1, "the one game that failed the run");
    assert!(String::from_utf8_lossy(&bad_games[0]).contains("Erigaisi"));
    split_is_whole(
        &std::fs::read(&input).unwrap(),
        &bad,
        &good,
        "--fail-on played-on",
    );
    // Without --fail-on, a warning leaves the game good: exit 0, no bad game.
    let out = pgnkit()
        .args(["validate", "-q", "--bad-games"])
        .arg(&bad)
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(std::fs::read(&bad).unwrap().is_empty());
}
