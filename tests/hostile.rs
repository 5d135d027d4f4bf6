//! Hostile surroundings rather than hostile games: an output that is an
//! input, a standard error that cannot be written, an absurd thread count,
//! inputs that can be read only once, and input bytes that would drive the
//! terminal if echoed as they are.

use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
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

/// A scratch directory holding `games.pgn` (a copy of a fixture) and
/// `symlink.pgn` (a link to it): the directory, the input, its bytes and
/// the link.
fn input_and_link() -> (tempfile::TempDir, PathBuf, Vec<u8>, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("games.pgn");
    let original = std::fs::read(fixture("pgn/twic1599_excerpt.pgn")).unwrap();
    std::fs::write(&input, &original).unwrap();
    let symlink = dir.path().join("symlink.pgn");
    std::os::unix::fs::symlink(&input, &symlink).unwrap();
    (dir, input, original, symlink)
}

#[test]
fn a_stats_file_that_is_an_input_or_another_output_is_refused() {
    let (dir, input, original, symlink) = input_and_link();
    let product = dir.path().join("product.txt");
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    // The product file, not created yet, spelled another way.
    let respelled = dir.path().join("sub").join("..").join("product.txt");
    let refused = |out: &std::process::Output, what: &str| {
        assert_eq!(code(out), 2, "{what}");
        let err = stderr(out);
        assert!(
            err.starts_with("pgnkit: refusing to write the statistics to "),
            "{what}: {err}"
        );
        assert!(out.stdout.is_empty(), "{what}");
        assert_eq!(std::fs::read(&input).unwrap(), original, "{what}");
    };
    for sub in SUBCOMMANDS {
        for stats in [&input, &symlink] {
            let out = pgnkit()
                .args(sub)
                .arg("--stats")
                .arg(stats)
                .arg(&input)
                .output();
            refused(&out.unwrap(), &format!("{sub:?} --stats {stats:?}"));
        }
        for stats in [&product, &respelled] {
            let _ = std::fs::remove_file(&product);
            let out = pgnkit()
                .args(sub)
                .arg("--stats")
                .arg(stats)
                .arg("-o")
                .arg(&product)
                .arg(&input)
                .output();
            refused(
                &out.unwrap(),
                &format!("{sub:?} --stats {stats:?} -o product"),
            );
            assert!(!product.exists(), "{sub:?}: nothing is written");
        }
        // Standard output redirected to the --stats file: nothing is
        // written to it (neither the product nor the statistics).
        let out = pgnkit()
            .args(sub)
            .arg("--stats")
            .arg(&product)
            .arg(&input)
            .stdout(File::create(&product).unwrap())
            .output();
        refused(&out.unwrap(), &format!("{sub:?} --stats FILE > FILE"));
        assert_eq!(std::fs::read(&product).unwrap(), b"", "{sub:?}");
        // A dangling link to the product file, not created yet.
        let _ = std::fs::remove_file(&product);
        let link = dir.path().join("link.json");
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink("product.txt", &link).unwrap();
        let out = pgnkit()
            .args(sub)
            .arg("--stats")
            .arg(&link)
            .arg("-o")
            .arg(&product)
            .arg(&input)
            .output();
        refused(&out.unwrap(), &format!("{sub:?} --stats LINK -o FILE"));
    }
    // A refused --stats leaves the -o file as it was.
    std::fs::write(&product, "precious").unwrap();
    let bad = dir.path().join("bad.pgn");
    let out = pgnkit()
        .arg("validate")
        .arg("-o")
        .arg(&product)
        .arg("--bad-games")
        .arg(&bad)
        .arg("--stats")
        .arg(&bad)
        .arg(&input)
        .output();
    refused(&out.unwrap(), "--stats BAD --bad-games BAD -o FILE");
    assert_eq!(std::fs::read_to_string(&product).unwrap(), "precious");
    for flag in ["--bad-games", "--good-games"] {
        let _ = std::fs::remove_file(&product);
        let out = pgnkit()
            .args(["validate", "--stats"])
            .arg(&respelled)
            .arg(flag)
            .arg(&product)
            .arg(&input)
            .output();
        refused(&out.unwrap(), flag);
    }
    // A --stats file of its own is written.
    let stats = dir.path().join("stats.json");
    let out = pgnkit()
        .args(["validate", "-q", "--stats"])
        .arg(&stats)
        .arg("-o")
        .arg(&product)
        .arg(&input)
        .output()
        .unwrap();
    // Its one finding (played-on) is a warning.
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        std::fs::read_to_string(&stats)
            .unwrap()
            .contains("\"games\"")
    );
}

#[test]
fn an_output_that_is_an_input_is_refused_before_anything_is_read() {
    let (dir, input, original, symlink) = input_and_link();
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
    assert_eq!(err.lines().count(), 4, "{err}");
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
    assert!(err.contains("without a CSV column"), "{err}");
    assert!(err.lines().all(|l| l.chars().count() < 600), "{err}");
    assert!(!stdout(&out).is_empty());
}

// The hostile-input matrix (issue 10), scaled down: every case runs through
// validate, annotate-outcome and convert, and must give a clear report, the
// documented exit code, and every good game around the damage.

/// A complete, legal game with every tag of the Seven Tag Roster.
const GOOD: &str = "[Event \"e\"]\n[Site \"s\"]\n[Date \"2024.01.01\"]\n[Round \"1\"]\n\
                    [White \"w\"]\n[Black \"b\"]\n[Result \"1-0\"]\n\n\
                    1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n";

/// `bad` between two good games.
fn around(bad: &[u8]) -> Vec<u8> {
    let mut pgn = GOOD.as_bytes().to_vec();
    pgn.extend_from_slice(bad);
    pgn.extend_from_slice(b"\n\n");
    pgn.extend_from_slice(GOOD.as_bytes());
    pgn
}

/// `n` good games told apart by their Round, so they do not compress to
/// nothing.
fn good_games(n: usize) -> Vec<u8> {
    (0..n)
        .flat_map(|i| GOOD.replace("\"1\"]", &format!("\"{i}\"]")).into_bytes())
        .collect()
}

/// The game count of the summary line on standard error.
fn games_read(out: &Output) -> u64 {
    let err = stderr(out);
    // The summary is the last line that starts with a count: validate's
    // per-code table follows it.
    let summary = err
        .lines()
        .rev()
        .find(|l| {
            l.split(' ')
                .next()
                .is_some_and(|w| w.parse::<u64>().is_ok())
        })
        .unwrap_or_default();
    let count = summary.split(' ').next().unwrap_or_default();
    count
        .parse()
        .unwrap_or_else(|_| panic!("no summary in {err:?}"))
}

/// Runs every PGN subcommand on `bytes` written to a file called `name`;
/// the outputs in the order of [`SUBCOMMANDS`]. Nothing may panic.
fn on_all(name: &str, bytes: &[u8], extra: &[&str]) -> Vec<Output> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).unwrap();
    SUBCOMMANDS
        .iter()
        .map(|sub| {
            let mut cmd = pgnkit();
            cmd.args(*sub)
                .args(extra)
                .arg(&path)
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
            let out = finish(&mut cmd, &format!("{sub:?} on {name}"));
            assert!(
                !stderr(&out).contains("panicked"),
                "{sub:?}: {}",
                stderr(&out)
            );
            out
        })
        .collect()
}

#[test]
fn truncated_and_corrupt_archives_keep_the_games_before_the_damage() {
    use std::io::Write as _;
    let pgn = good_games(4000);
    let gz = {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(&pgn).unwrap();
        e.finish().unwrap()
    };
    let bz2 = {
        // Blocks of 100 kB, so that whole blocks come before the damage.
        let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
        e.write_all(&pgn).unwrap();
        e.finish().unwrap()
    };
    let zst = {
        // With the checksum the command-line tool writes, so that damage
        // that still decodes is caught too.
        let mut e = zstd::stream::Encoder::new(Vec::new(), 3).unwrap();
        e.include_checksum(true).unwrap();
        e.write_all(&pgn).unwrap();
        e.finish().unwrap()
    };
    for (ext, packed) in [("gz", gz), ("bz2", bz2), ("zst", zst)] {
        let cut = packed.len() * 3 / 4;
        let mut corrupt = packed.clone();
        for b in &mut corrupt[cut..cut + 40] {
            *b ^= 0x55;
        }
        for (how, bytes) in [("truncated", &packed[..cut]), ("corrupt", &corrupt[..])] {
            let name = format!("{how}.pgn.{ext}");
            let outs = on_all(&name, bytes, &[]);
            let counts: Vec<u64> = outs.iter().map(games_read).collect();
            for (sub, out) in SUBCOMMANDS.iter().zip(&outs) {
                assert_eq!(code(out), 2, "{sub:?} {name}: {}", stderr(out));
                let err = stderr(out);
                assert!(err.contains(&format!("{name}: read failed: ")), "{err}");
            }
            // Every subcommand saw the same games, most of the file's.
            assert!(counts.iter().all(|&c| c == counts[0]), "{name}: {counts:?}");
            assert!(counts[0] >= 1000, "{name}: only {counts:?} games");
            let converted = String::from_utf8_lossy(&outs[2].stdout);
            assert!(converted.starts_with("[Event \"e\"]"), "{name}");
        }
    }
}

#[test]
fn random_bytes_are_reported_not_crashed_on() {
    // A fixed linear congruential generator: the same 200 kB every run.
    let mut x: u32 = 12345;
    let noise: Vec<u8> = (0..200_000)
        .map(|_| {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            (x >> 16) as u8
        })
        .collect();
    let outs = on_all("noise.pgn", &around(&noise), &[]);
    for (sub, out) in SUBCOMMANDS.iter().zip(&outs) {
        assert_eq!(code(out), 1, "{sub:?}: {}", stderr(out));
    }
    let counts: Vec<u64> = outs.iter().map(games_read).collect();
    assert!(
        counts.iter().all(|&c| c == counts[0] && c >= 2),
        "{counts:?}"
    );
    // The good game before the noise is written; the report stays text.
    assert!(String::from_utf8_lossy(&outs[2].stdout).starts_with(GOOD));
    let report = stdout(&outs[0]);
    assert!(!report.chars().any(|c| c.is_control() && c != '\n'));
}

#[test]
fn nul_and_invalid_utf8_stay_out_of_the_reports() {
    let bad = b"[Event \"x\0y\xff\"]\n[White \"\x1b[2J\xc3\"]\n[Black \"\xff\xfe\"]\n\n\
                1. e4 {co\0mm\xffent} e5 2. Nf3\0 Nc6 3. Q\xffz9 *";
    let pgn = around(bad);
    let outs = on_all("nul.pgn", &pgn, &[]);
    assert_eq!(code(&outs[0]), 1);
    assert!(outs.iter().all(|o| games_read(o) == 3));
    let report = stdout(&outs[0]);
    assert!(
        !report.chars().any(|c| c.is_control() && c != '\n'),
        "{report:?}"
    );
    assert!(report.contains("game 2 (\\u{1b}[2J"), "{report}");
    assert!(report.contains("layout: 1 NUL byte skipped"), "{report}");
    // Control characters inside tag values and comments are reported too
    // (PGN permits only tab, line feed, vertical tab and carriage return).
    for (line, what) in [
        (11, "0x00 in a tag value"),
        (12, "0x1B in a tag value"),
        (15, "0x00 in a comment"),
    ] {
        let at = format!("nul.pgn:{line}: game 2 ");
        let said = format!("layout: control character {what}: ");
        assert!(
            report.lines().any(|l| l.contains(&at) && l.contains(&said)),
            "{at} {said}\n{report}"
        );
    }

    // CSV and JSON Lines stay valid: every JSON line parses.
    let out = run(&["validate", "-f", "jsonl", "-"], Some(&pgn));
    assert_eq!(code(&out), 1);
    for line in stdout(&out).lines() {
        let record: serde_json::Value = serde_json::from_str(line).expect("valid JSON");
        assert!(record["code"].is_string());
    }
    let out = run(&["validate", "-f", "csv", "-"], Some(&pgn));
    assert!(String::from_utf8(out.stdout).is_ok());
}

#[test]
fn a_huge_token_and_a_huge_name_are_cut_in_the_text_report() {
    let (name, token) = ("W".repeat(1_000_000), "z".repeat(1_000_000));
    let bad = format!("[White \"{name}\"]\n\n1. e4 Q{token} *");
    let pgn = around(bad.as_bytes());
    let out = run(&["validate", "-"], Some(&pgn));
    assert_eq!(code(&out), 1);
    assert_eq!(games_read(&out), 3);
    let report = stdout(&out);
    assert!(
        report.lines().all(|l| l.chars().count() < 1000),
        "a long line"
    );
    assert!(report.contains("WWW…"), "{}", &report[..500]);
    // The machine formats keep the values whole.
    let out = run(&["validate", "-f", "jsonl", "-"], Some(&pgn));
    assert!(stdout(&out).lines().any(|l| l.len() > 1_000_000));
}

#[test]
fn one_huge_line_and_a_long_game_take_linear_time() {
    // 40,000 plies of knight moves out and back, on one line: a finding for
    // the repetition, then every ply scanned once.
    let line = "Nf3 Nf6 Ng1 Ng8 ".repeat(10_000);
    let bad = format!("[Event \"long\"]\n\n{line}*");
    let started = Instant::now();
    let outs = on_all("line.pgn", &around(bad.as_bytes()), &[]);
    assert!(started.elapsed() < Duration::from_secs(30));
    assert!(outs.iter().all(|o| games_read(o) == 3));
    assert_eq!(code(&outs[0]), 1, "{}", stdout(&outs[0]));
    assert_eq!(code(&outs[2]), 0, "{}", stderr(&outs[2]));
    let converted = stdout(&outs[2]);
    assert_eq!(converted.matches("[Event \"e\"]").count(), 2);
}

#[test]
fn a_comment_that_never_closes_keeps_the_game_before_it() {
    let mut bad = b"[Event \"c\"]\n\n1. e4 {never closed ".to_vec();
    bad.extend(b"words ".repeat(200_000));
    let outs = on_all("comment.pgn", &around(&bad), &[]);
    // The comment runs to the end of the input and swallows the last game.
    assert!(outs.iter().all(|o| games_read(o) == 2));
    assert_eq!(code(&outs[0]), 1);
    assert!(
        stdout(&outs[0]).contains("syntax: comment not closed"),
        "{}",
        stdout(&outs[0])
    );
    assert_eq!(code(&outs[1]), 1);
    assert!(stdout(&outs[2]).starts_with(GOOD));
}

#[test]
fn unclosed_variations_then_good_games() {
    let n = 20_000;
    let bad = format!("[Event \"v\"]\n\n1. e4 {}1. d4 e5 *", "(".repeat(n));
    let outs = on_all("variations.pgn", &around(bad.as_bytes()), &[]);
    assert!(outs.iter().all(|o| games_read(o) == 3));
    assert_eq!(code(&outs[0]), 1);
    assert_eq!(code(&outs[1]), 1);
    let converted = stdout(&outs[2]);
    assert!(converted.starts_with(GOOD), "{converted}");
    assert!(converted.ends_with(GOOD), "{converted}");
}

#[test]
fn tiny_games_with_and_without_blank_lines_are_all_counted() {
    for (name, game) in [
        ("blank.pgn", "[Event \"x\"]\n\n*\n"),
        ("packed.pgn", "[Event \"x\"]\n*\n"),
    ] {
        let pgn = game.repeat(20_000);
        let out = run(&["validate", "-j2", "-"], Some(pgn.as_bytes()));
        assert_eq!(code(&out), 1);
        assert_eq!(games_read(&out), 20_000, "{name}");
        let out = run(
            &["convert", "--to", "uci", "-j2", "-"],
            Some(pgn.as_bytes()),
        );
        assert_eq!(code(&out), 0);
        assert_eq!(games_read(&out), 20_000, "{name}");
        // annotate-outcome asks the solver about every game: fewer.
        let few = game.repeat(1000);
        let out = run(&["annotate-outcome", "-j2", "-"], Some(few.as_bytes()));
        assert_eq!(code(&out), 0);
        assert_eq!(games_read(&out), 1000, "{name}");
    }
}

#[test]
fn games_without_blank_lines_between_them() {
    let packed: String = GOOD.replace("\n\n", "\n").repeat(50);
    let outs = on_all("packed.pgn", packed.as_bytes(), &[]);
    assert!(outs.iter().all(|o| games_read(o) == 50));
    assert!(outs.iter().all(|o| code(o) == 0));
    assert_eq!(stdout(&outs[2]), GOOD.repeat(50));
}

#[test]
fn utf16_input_is_refused_with_a_clear_message() {
    // UTF-16 little endian with its byte order mark, as Windows tools write.
    let mut utf16 = vec![0xff, 0xfe];
    utf16.extend(GOOD.encode_utf16().flat_map(u16::to_le_bytes));
    let outs = on_all("utf16.pgn", &utf16, &[]);
    for (sub, out) in SUBCOMMANDS.iter().zip(&outs) {
        assert_eq!(code(out), 2, "{sub:?}");
        let err = stderr(out);
        assert!(
            err.contains(
                "utf16.pgn: cannot open: UTF-16 input is not supported, convert it to UTF-8"
            ),
            "{err}"
        );
        assert_eq!(games_read(out), 0);
    }
    // A good file beside it is still read.
    let dir = tempfile::tempdir().unwrap();
    let (bad, good) = (dir.path().join("u.pgn"), dir.path().join("g.pgn"));
    std::fs::write(&bad, &utf16).unwrap();
    std::fs::write(&good, GOOD).unwrap();
    let out = pgnkit()
        .args(["convert", "--to", "pgn"])
        .args([&bad, &good])
        .output()
        .unwrap();
    assert_eq!(code(&out), 2);
    assert_eq!(stdout(&out), GOOD);
}

#[test]
fn lines_read_before_a_read_error_are_converted() {
    use std::io::Write as _;
    let fens: String = (0..3000)
        .map(|i| format!("8/8/8/8/8/8/8/K1k5 w - - 0 {}\n", i + 1))
        .collect();
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(fens.as_bytes()).unwrap();
    let packed = e.finish().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cut.fen.gz");
    std::fs::write(&path, &packed[..packed.len() * 3 / 4]).unwrap();
    let out = pgnkit()
        .args(["convert", "--to", "fen"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("cut.fen.gz: read failed: "),
        "{}",
        stderr(&out)
    );
    let written = stdout(&out).lines().count();
    assert!(written > 100, "{written} lines");
    assert_eq!(games_read(&out), written as u64);
}

#[test]
fn standard_output_onto_an_input_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("games.pgn");
    std::fs::write(&input, GOOD).unwrap();
    for sub in SUBCOMMANDS {
        // `>> games.pgn`: the input is whole, and stays so.
        let appended = std::fs::OpenOptions::new()
            .append(true)
            .open(&input)
            .unwrap();
        let out = pgnkit()
            .args(sub)
            .arg(&input)
            .stdout(appended)
            .output()
            .unwrap();
        assert_eq!(code(&out), 2, "{sub:?}");
        let err = stderr(&out);
        assert!(
            err.contains("refusing to write the output to standard output: it is the input"),
            "{err}"
        );
        assert!(!err.contains("truncated"), "{err}");
        assert_eq!(std::fs::read_to_string(&input).unwrap(), GOOD);
    }
    // `> games.pgn`: the shell has emptied it already; say so.
    let truncated = File::create(&input).unwrap();
    let out = pgnkit()
        .args(["convert", "--to", "pgn"])
        .arg(&input)
        .stdout(truncated)
        .output()
        .unwrap();
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("the shell truncated it"),
        "{}",
        stderr(&out)
    );
    // Standard input onto itself too (`< games.pgn >> games.pgn`).
    std::fs::write(&input, GOOD).unwrap();
    let out = pgnkit()
        .args(["validate"])
        .stdin(File::open(&input).unwrap())
        .stdout(
            std::fs::OpenOptions::new()
                .append(true)
                .open(&input)
                .unwrap(),
        )
        .output()
        .unwrap();
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("it is the input <stdin>"),
        "{}",
        stderr(&out)
    );
}

/// Issue 43, defect 2: a file name holding terminal controls (`ESC ] 0 ;
/// … BEL` retitles a terminal, `ESC [ 2 J` clears it) is escaped in every
/// text output and every message on standard error; CSV keeps its bytes.
#[test]
fn file_names_reach_the_terminal_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let name = "a\x1b]0;owned\x07b\x1b[2J.pgn";
    let game = b"[Event \"x\"]\n\n1. e4 e5 2. Ke3 *\n";
    std::fs::write(dir.path().join(name), game).unwrap();
    let walked = dir.path().to_str().unwrap();
    let missing = dir.path().join("gone\x1b[2J.pgn");
    let missing = missing.to_str().unwrap();
    let raw = |bytes: &[u8]| bytes.iter().any(|&b| b == 0x1b || b == 0x07);
    for args in [
        vec!["validate", walked, missing],
        vec!["validate", "-f", "text", "--tags", "Event", walked],
        vec!["annotate-outcome", "-f", "text", walked, missing],
        vec!["convert", "-f", "uci", walked, missing],
        vec!["merge", missing],
    ] {
        let out = run(&args, None);
        assert!(!raw(&out.stdout), "{args:?}: {}", stdout(&out));
        assert!(!raw(&out.stderr), "{args:?}: {}", stderr(&out));
        assert!(
            stdout(&out).contains("\\u{1b}") || stderr(&out).contains("\\u{1b}"),
            "{args:?} names the file, escaped: {}{}",
            stdout(&out),
            stderr(&out)
        );
    }
    // CSV is data: the name's bytes as they are.
    let out = run(&["validate", "-f", "csv", walked], None);
    assert!(stdout(&out).contains(name), "{}", stdout(&out));
}

/// A game, then `filler` bytes of `byte` in one stretch with no place a
/// game could start, then two more games: what a decompression bomb with
/// games around it expands to.
fn around_a_stretch(byte: u8, filler: usize) -> Vec<u8> {
    let mut pgn = b"[Event \"before\"]\n\n1. e4 e5 *\n\n".to_vec();
    pgn.extend(std::iter::repeat_n(byte, filler));
    pgn.extend_from_slice(b"\n\n[Event \"after\"]\n\n1. d4 d5 *\n\n");
    pgn.extend_from_slice(b"[Event \"last\"]\n\n1. c4 Ke3 *\n");
    pgn
}

/// Issue 43, defect 3: a `.zst` or `.gz` that expands to gigabytes without
/// a newline was held whole (7.8 GB of memory for a 4 GB bomb) and the run
/// exited 0. The stretch is skipped past `--max-game-bytes`, reported with
/// its byte range in every subcommand, the games after it are read, and the
/// run exits 1.
#[test]
fn decompression_bombs_are_skipped_and_reported_not_held() {
    let dir = tempfile::tempdir().unwrap();
    let filler = 3 << 20;
    let pgn = around_a_stretch(b'a', filler);
    let zst = dir.path().join("bomb.pgn.zst");
    std::fs::write(&zst, zstd::encode_all(&pgn[..], 19).unwrap()).unwrap();
    let gz = dir.path().join("bomb.pgn.gz");
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    encoder.write_all(&pgn).unwrap();
    std::fs::write(&gz, encoder.finish().unwrap()).unwrap();
    let range = format!("bytes 30..{} ", 32 + filler);
    for file in [&zst, &gz] {
        let file = file.to_str().unwrap();
        let out = run(&["validate", "-j2", "--max-game-bytes", "1M", file], None);
        assert_eq!(code(&out), 1, "{}", stderr(&out));
        let report = stdout(&out);
        assert!(report.contains(&range), "{report}");
        assert!(
            report.contains("--max-game-bytes (1048576 bytes)"),
            "{report}"
        );
        assert!(
            report.contains("Ke3"),
            "the games after it are read: {report}"
        );
        assert!(stderr(&out).contains("3 games"), "{}", stderr(&out));
        assert!(
            stderr(&out).contains("1 stretch skipped"),
            "{}",
            stderr(&out)
        );
        // A row (or a line) for each of the three games around it.
        for (args, lines) in [
            (
                vec![
                    "annotate-outcome",
                    "-f",
                    "csv",
                    "--max-game-bytes",
                    "1M",
                    file,
                ],
                4,
            ),
            (
                vec!["convert", "-f", "uci", "--max-game-bytes", "1M", file],
                3,
            ),
        ] {
            let out = run(&args, None);
            assert_eq!(code(&out), 1, "{args:?}: {}", stderr(&out));
            assert!(stderr(&out).contains(&range), "{args:?}: {}", stderr(&out));
            assert_eq!(stdout(&out).lines().count(), lines, "{}", stdout(&out));
        }
    }
    // Under the limit (the default is 32 MiB), the same stretch is read as
    // text between games, as before.
    let out = run(&["validate", zst.to_str().unwrap()], None);
    assert!(!stdout(&out).contains("skipped"), "{}", stdout(&out));
}

/// Issue 43, defect 3, the other shape of a bomb: a comment that never
/// closes, with blank lines and tag lines inside it, was joined chunk
/// after chunk without end. Past `--max-game-bytes` it is read as it
/// stands, and memory stays bounded; every game is still counted.
#[test]
fn an_unclosed_comment_is_not_joined_without_end() {
    let mut pgn = b"[Event \"open\"]\n\n1. e4 { never closed\n".to_vec();
    for i in 0..20_000 {
        pgn.extend_from_slice(format!("\n[Event \"inside {i}\"]\n\n1. d4 d5\n").as_bytes());
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("open.pgn");
    std::fs::write(&path, &pgn).unwrap();
    let path = path.to_str().unwrap();
    let whole = run(&["validate", "-f", "csv", "-j1", path], None);
    let bounded = run(
        &[
            "validate",
            "-f",
            "csv",
            "-j1",
            "--max-game-bytes",
            "64K",
            path,
        ],
        None,
    );
    assert_eq!(code(&bounded), 1, "{}", stderr(&bounded));
    // Under the limit: one game whose comment never closes. Past it, the
    // pieces are read as they stand: more games, every one reported.
    assert!(stderr(&whole).contains("1 game,"), "{}", stderr(&whole));
    let games: u64 = stderr(&bounded)
        .split(" games,")
        .next()
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("{}", stderr(&bounded)));
    assert!(games > 1, "{}", stderr(&bounded));
    // The run is the same for any thread count.
    let j2 = run(
        &[
            "validate",
            "-f",
            "csv",
            "-j2",
            "--max-game-bytes",
            "64K",
            path,
        ],
        None,
    );
    assert_eq!(j2.stdout, bounded.stdout);
}

/// Issue 43, defect 3: shards of a file whose skipped stretch crosses a
/// shard boundary still tile it: `merge` gives the one-run output, and the
/// statistics count the skipped bytes.
#[test]
fn a_skipped_stretch_across_shards_merges_into_one_run() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("stretch.pgn");
    let pgn = around_a_stretch(b'x', 600_000);
    std::fs::write(&path, &pgn).unwrap();
    let input = path.to_str().unwrap();
    let limit = ["--max-game-bytes", "256K"];
    let mut whole_args = vec!["validate", "-f", "csv", "-q", "-j1"];
    whole_args.extend(limit);
    whole_args.push(input);
    let whole = run(&whole_args, None);
    assert_eq!(code(&whole), 1, "{}", stderr(&whole));
    let mut shards = Vec::new();
    for (i, range) in ["0..300000", "300000.."].iter().enumerate() {
        let out = dir.path().join(format!("shard{i}.csv"));
        let stats = dir.path().join(format!("shard{i}.csv.stats.json"));
        let mut args = vec!["validate", "-f", "csv", "-q", "-j1", "--no-header"];
        if i == 0 {
            args.pop();
        }
        args.extend(limit);
        args.extend(["--byte-range", range, "--stats", stats.to_str().unwrap()]);
        args.extend(["-o", out.to_str().unwrap(), input]);
        let shard = run(&args, None);
        assert!(matches!(code(&shard), 0 | 1), "{}", stderr(&shard));
        shards.push(out.to_str().unwrap().to_owned());
    }
    let mut args = vec!["merge"];
    args.extend(shards.iter().map(String::as_str));
    let merged = run(&args, None);
    assert_eq!(code(&merged), 0, "{}", stderr(&merged));
    assert_eq!(stdout(&merged), stdout(&whole));
    assert!(stdout(&whole).contains("skipped"), "{}", stdout(&whole));
}

/// Issue 43, defect 3, in a FEN input: a line longer than
/// `--max-game-bytes` is skipped and reported with its line and byte
/// range, never held; the lines around it are read.
#[test]
fn an_overlong_line_of_a_fen_input_is_skipped_and_reported() {
    let fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n";
    let mut input = fen.as_bytes().to_vec();
    input.extend(std::iter::repeat_n(b'x', 2 << 20));
    input.push(b'\n');
    input.extend_from_slice(fen.as_bytes());
    let start = fen.len();
    let end = start + (2 << 20) + 1;
    let out = run(
        &[
            "convert",
            "--from",
            "fen",
            "-f",
            "fen",
            "--max-game-bytes",
            "1M",
            "-",
        ],
        Some(&input),
    );
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert_eq!(stdout(&out).lines().count(), 2, "{}", stdout(&out));
    let said = format!("bytes {start}..{end} ");
    assert!(stderr(&out).contains(&said), "{}", stderr(&out));
}
