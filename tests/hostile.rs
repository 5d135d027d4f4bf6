//! Hostile surroundings rather than hostile games: an output that is an
//! input, a standard error that cannot be written, an absurd thread count,
//! inputs that can be read only once, and input bytes that would drive the
//! terminal if echoed as they are.

use std::fs::File;
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::util::{CHUNK, code, fixture, multi_chunk_pgn, pgnkit, run, stderr, stdout};

/// A game with an illegal move (validate and convert exit 1).
const FINDINGS: &str = "fixtures/pgn/illegal_move_ply_61.pgn";
/// Games with nothing to report (every subcommand exits 0).
const CLEAN: &str = "fixtures/pgn/chess960.pgn";
/// Twelve real games.
const TWIC: &str = "fixtures/pgn/twic1599_excerpt.pgn";

/// The PGN subcommands, each with the arguments that make it write a
/// product for `-o`.
const SUBCOMMANDS: [&[&str]; 3] = [
    &["validate"],
    &["annotate-outcome"],
    &["convert", "--to", "pgn"],
];

/// Runs `cmd` to its end, reading stdout and stderr while it runs; a run
/// that has not finished after a minute is killed and fails the test (an
/// input opened twice hangs on a FIFO).
fn finish(cmd: &mut Command, what: &str) -> Output {
    let mut child = cmd.spawn().expect("the command runs");
    let drain = |from: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut all = Vec::new();
            if let Some(mut from) = from {
                from.read_to_end(&mut all).expect("read the child's output");
            }
            all
        })
    };
    let out = drain(child.stdout.take().map(|s| Box::new(s) as _));
    let err = drain(child.stderr.take().map(|s| Box::new(s) as _));
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for the child") {
            break status;
        }
        if Instant::now() > deadline {
            child.kill().expect("kill the child");
            panic!("{what} did not finish");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: out.join().expect("stdout reader"),
        stderr: err.join().expect("stderr reader"),
    }
}

#[test]
fn an_output_that_is_an_input_is_refused_before_anything_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("games.pgn");
    let original = std::fs::read(fixture("pgn/twic1599_excerpt.pgn")).unwrap();
    std::fs::write(&input, &original).unwrap();
    let symlink = dir.path().join("symlink.pgn");
    std::os::unix::fs::symlink(&input, &symlink).unwrap();
    let hard_link = dir.path().join("hard-link.pgn");
    std::fs::hard_link(&input, &hard_link).unwrap();
    let respelled = dir.path().join(".").join("games.pgn");
    let other = fixture("pgn/chess960.pgn");
    for sub in SUBCOMMANDS {
        for output in [&input, &symlink, &hard_link, &respelled] {
            // The input is named as given, or among other inputs.
            for inputs in [vec![&input], vec![&other, &respelled]] {
                let out = pgnkit()
                    .args(sub)
                    .arg("-o")
                    .arg(output)
                    .args(&inputs)
                    .output()
                    .unwrap();
                assert_eq!(code(&out), 2, "{sub:?} -o {output:?} {inputs:?}");
                let err = stderr(&out);
                assert!(
                    err.starts_with("pgnkit: refusing to write the output to ")
                        && err.contains(&output.display().to_string()),
                    "{err}"
                );
                assert!(out.stdout.is_empty());
                assert_eq!(std::fs::read(&input).unwrap(), original, "{sub:?}");
            }
        }
        // Standard input that is the output file.
        let out = pgnkit()
            .args(sub)
            .arg("-o")
            .arg(&input)
            .stdin(File::open(&input).unwrap())
            .output()
            .unwrap();
        assert_eq!(code(&out), 2, "{sub:?} -o FILE < FILE");
        assert!(stderr(&out).contains("<stdin>"), "{}", stderr(&out));
        assert_eq!(std::fs::read(&input).unwrap(), original, "{sub:?}");
    }
}

#[test]
fn a_new_output_file_and_dash_are_fine() {
    let dir = tempfile::tempdir().unwrap();
    for sub in SUBCOMMANDS {
        let to_stdout = run(&[sub, &["-q", TWIC]].concat(), None);
        let new = dir.path().join("new.out");
        // New, then existing but no input: written both times.
        for time in ["new", "existing"] {
            let out = pgnkit()
                .args(sub)
                .args(["-q", "-o"])
                .arg(&new)
                .arg(TWIC)
                .output()
                .unwrap();
            assert_eq!(
                code(&out),
                code(&to_stdout),
                "{sub:?} {time}: {}",
                stderr(&out)
            );
            assert_eq!(
                std::fs::read(&new).unwrap(),
                to_stdout.stdout,
                "{sub:?} {time}"
            );
        }
        let dash = run(&[sub, &["-q", "-o", "-", TWIC]].concat(), None);
        assert_eq!(code(&dash), code(&to_stdout), "{sub:?}");
        assert_eq!(dash.stdout, to_stdout.stdout, "{sub:?}");
    }
}

/// How standard error is spoiled.
#[derive(Debug, Clone, Copy)]
enum Spoiled {
    /// `2>/dev/full`: every write fails with "no space left".
    Full,
    /// A pipe whose reader has gone: every write fails with "broken pipe".
    Closed,
}

/// Runs pgnkit with `args` and a standard error that cannot be written.
fn with_spoiled_stderr(args: &[&str], how: Spoiled) -> Output {
    let mut cmd = pgnkit();
    cmd.args(args).stdin(Stdio::null()).stdout(Stdio::piped());
    match how {
        Spoiled::Full => {
            let full = File::options().write(true).open("/dev/full").unwrap();
            cmd.stderr(full);
        }
        Spoiled::Closed => {
            cmd.stderr(Stdio::piped());
        }
    }
    let mut child = cmd.spawn().expect("pgnkit binary runs");
    // Close the reading end before pgnkit writes a byte.
    drop(child.stderr.take());
    child.wait_with_output().expect("pgnkit finishes")
}

#[test]
fn an_unwritable_stderr_changes_nothing_but_the_messages() {
    for how in [Spoiled::Full, Spoiled::Closed] {
        for sub in SUBCOMMANDS {
            for (file, want) in [(FINDINGS, 1), (CLEAN, 0), ("no/such/file.pgn", 2)] {
                let args = [sub, &[file]].concat();
                let spoiled = with_spoiled_stderr(&args, how);
                let normal = run(&args, None);
                assert_eq!(code(&normal), want, "{args:?}: {}", stderr(&normal));
                assert_eq!(code(&spoiled), want, "{args:?} with {how:?} stderr");
                assert!(spoiled.stdout == normal.stdout, "{args:?} with {how:?}");
            }
        }
        // A usage error found after parsing, and a failure in main.
        let args = ["convert", "--to", "uci", "--tags", "ECO", TWIC];
        assert_eq!(code(&with_spoiled_stderr(&args, how)), 2, "{how:?}");
    }
}

#[test]
fn any_thread_count_runs_and_gives_the_same_output() {
    // Several chunks, fed slowly through a pipe by the test's own thread.
    let pgn = multi_chunk_pgn(CHUNK + CHUNK / 2);
    for sub in [
        &["validate"][..],
        &["annotate-outcome"],
        &["convert", "--to", "uci"],
    ] {
        let one = run(&[sub, &["-q", "-j1"]].concat(), Some(&pgn));
        let many = run(&[sub, &["-q", "-j", "20000"]].concat(), Some(&pgn));
        assert_eq!(code(&many), code(&one), "{sub:?}: {}", stderr(&many));
        assert!(stderr(&many) == stderr(&one), "{sub:?}: {}", stderr(&many));
        assert!(
            many.stdout == one.stdout,
            "{sub:?}: -j 20000 differs from -j1"
        );
    }
}

/// How a test hands pgnkit its input.
#[derive(Debug, Clone, Copy)]
enum Feed {
    /// `-`, standard input a pipe.
    Stdin,
    /// `/dev/stdin`, a character device or pipe named by path.
    DevStdin,
    /// A named pipe made by `mkfifo`.
    Fifo,
    /// `<(cat file)`, through bash.
    Substitution,
}

/// Runs `pgnkit ARGS -q INPUT` on the bytes of `file` fed as `feed`; the
/// name the report gives the input is replaced with `file`'s.
fn run_fed(args: &[&str], file: &Path, feed: Feed) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    let mut writer = None;
    let (mut cmd, name) = match feed {
        Feed::Stdin | Feed::DevStdin => {
            let mut cmd = pgnkit();
            let (arg, name) = match feed {
                Feed::Stdin => ("-", "<stdin>"),
                _ => ("/dev/stdin", "/dev/stdin"),
            };
            cmd.args(args).arg("-q").arg(arg).stdin(Stdio::piped());
            (cmd, name.to_owned())
        }
        Feed::Fifo => {
            let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
            assert!(made.success(), "mkfifo failed");
            let (path, bytes) = (fifo.clone(), std::fs::read(file).unwrap());
            // Opening a FIFO twice would block here, or pgnkit, for ever.
            writer = Some(std::thread::spawn(move || std::fs::write(path, bytes)));
            let mut cmd = pgnkit();
            cmd.args(args).arg("-q").arg(&fifo).stdin(Stdio::null());
            (cmd, fifo.display().to_string())
        }
        Feed::Substitution => {
            let mut cmd = Command::new("bash");
            cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
                .arg("-c")
                .arg(r#"bin=$1; file=$2; shift 2; exec "$bin" "$@" -q <(cat "$file")"#)
                .arg("bash")
                .arg(env!("CARGO_BIN_EXE_pgnkit"))
                .arg(file)
                .args(args)
                .stdin(Stdio::null());
            (cmd, "/dev/fd/".to_owned())
        }
    };
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut out = if matches!(feed, Feed::Stdin | Feed::DevStdin) {
        let mut child = cmd.spawn().unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let bytes = std::fs::read(file).unwrap();
        writer = Some(std::thread::spawn(move || stdin.write_all(&bytes)));
        child.wait_with_output().unwrap()
    } else {
        finish(&mut cmd, &format!("{args:?} from {feed:?}"))
    };
    if let Some(writer) = writer {
        writer.join().unwrap().expect("the whole input was read");
    }
    let text = String::from_utf8(out.stdout).unwrap();
    let name = if name == "/dev/fd/" {
        // bash chooses the descriptor: take the name from the report.
        let digits = text.find(&name).map_or_else(String::new, |at| {
            text[at + name.len()..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect()
        });
        format!("{name}{digits}")
    } else {
        name
    };
    out.stdout = text
        .replace(&name, &file.display().to_string())
        .into_bytes();
    out
}

/// Every PGN subcommand reads a pipe, a FIFO, `/dev/stdin` and a process
/// substitution once, from the beginning, exactly as it reads the file.
#[test]
fn every_subcommand_reads_pipes_and_fifos_once_like_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("games.pgn");
    // More than one read buffer and one chunk.
    std::fs::write(&big, multi_chunk_pgn(CHUNK + 1000)).unwrap();
    for sub in [
        &["validate"][..],
        &["annotate-outcome"],
        &["annotate-outcome", "--format", "pgn"],
        &["convert", "--to", "pgn"],
        &["convert", "--to", "uci"],
    ] {
        let file = finish(
            pgnkit()
                .args(sub)
                .arg("-q")
                .arg(&big)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped()),
            "the file",
        );
        assert!(!file.stdout.is_empty(), "{sub:?}");
        for feed in [Feed::Stdin, Feed::DevStdin, Feed::Fifo, Feed::Substitution] {
            let fed = run_fed(sub, &big, feed);
            assert_eq!(code(&fed), code(&file), "{sub:?} from {feed:?}");
            assert!(fed.stdout == file.stdout, "{sub:?} from {feed:?} differs");
        }
    }
}

#[test]
fn input_bytes_in_messages_are_escaped_and_cut() {
    let mut pgn = b"[White \"Ev\x1b[31mil".to_vec();
    pgn.extend(b"W".repeat(5000));
    pgn.extend(b"\"]\n[Black \"b\"]\n\n1. e4 Qz9\x1b[2J");
    pgn.extend(b"x".repeat(5000));
    pgn.extend(b" *\n\n[White \"a\x07\"]\n\n1. e4 Kxe8 *\n");
    let out = run(&["convert", "--to", "pgn"], Some(&pgn));
    assert_eq!(code(&out), 1);
    let err = stderr(&out);
    assert!(!err.chars().any(|c| c.is_control() && c != '\n'), "{err:?}");
    assert!(err.contains("Ev\\u{1b}[31mil"), "{err}");
    assert!(err.contains("game 2 (a\\u{7} - ?)"), "{err}");
    assert!(err.contains('…'), "{err}");
    assert!(err.lines().all(|l| l.chars().count() < 600), "{err}");
    assert_eq!(err.lines().count(), 3, "{err}");
}

#[test]
fn a_long_tag_name_in_the_csv_warning_is_cut() {
    let mut pgn = Vec::new();
    for _ in 0..1000 {
        pgn.extend(b"[White \"a\"]\n\n1. e4 *\n\n");
    }
    pgn.extend(b"[T");
    pgn.extend(b"a".repeat(3000));
    pgn.extend(b" \"x\"]\n\n1. e4 *\n");
    let out = run(&["convert", "--to", "csv"], Some(&pgn));
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("has no CSV column"), "{err}");
    assert!(err.lines().all(|l| l.chars().count() < 600), "{err}");
    assert!(!stdout(&out).is_empty());
}
