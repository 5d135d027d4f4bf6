//! Helpers shared by the integration tests: run the binary, locate fixtures,
//! build inputs too large to commit.

#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::thread;

/// Path of a file under `fixtures/`.
pub fn fixture(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(rel)
}

/// A `Command` for the built `pgnkit` binary, run from the crate root so
/// relative fixture paths in reports stay stable.
pub fn pgnkit() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_pgnkit"));
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"));
    cmd
}

/// Runs pgnkit with `args`, feeding `stdin` (empty when `None`).
///
/// Standard input is written from its own thread while this one collects
/// stdout and stderr: writing it all first would deadlock once pgnkit
/// blocks on a full stdout pipe before it has read all of its input.
pub fn run(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut cmd = pgnkit();
    cmd.args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("pgnkit binary runs");
    let mut child_stdin = child.stdin.take().expect("stdin is piped");
    let bytes = stdin.unwrap_or_default().to_vec();
    let feeder = thread::spawn(move || {
        // pgnkit may exit before reading everything (a usage error, a
        // failed read): a broken pipe here is its answer, not a test failure.
        match child_stdin.write_all(&bytes) {
            Err(err) if err.kind() == std::io::ErrorKind::BrokenPipe => {}
            other => other.expect("write to pgnkit stdin"),
        }
        // Dropping `child_stdin` closes the pipe: pgnkit sees end of input.
    });
    let out = child.wait_with_output().expect("pgnkit finishes");
    feeder.join().expect("stdin feeder thread");
    out
}

/// Standard output of a run, as UTF-8.
pub fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).expect("stdout is UTF-8")
}

/// Standard error of a run, as UTF-8.
pub fn stderr(out: &Output) -> String {
    String::from_utf8(out.stderr.clone()).expect("stderr is UTF-8")
}

/// Exit code of a run (panics if killed by a signal).
pub fn code(out: &Output) -> i32 {
    out.status.code().expect("pgnkit exited normally")
}

/// A size at least that at which pgnkit's reader cuts its input into
/// chunks (`input::chunk::TARGET`, 256 kB since issue 10; chunks are parsed
/// in parallel): an input of a few of these spans many chunks.
pub const CHUNK: usize = 1 << 20;

/// At least `min_len` bytes of PGN made of the real games and damage of
/// `fixtures/pgn/`, repeated: an input that spans several chunks, so that
/// `-j1` and `-j8` runs really split the work differently.
pub fn multi_chunk_pgn(min_len: usize) -> Vec<u8> {
    let mut all = Vec::new();
    for name in [
        "twic1599_excerpt.pgn",
        "illegal_move_ply_61.pgn",
        "layout_damage.pgn",
        "nul_glued_tag.pgn",
        "dropped_tokens.pgn",
        "chess960.pgn",
        "latin1.pgn",
        "fivefold_then_move.pgn",
    ] {
        let path = fixture(&format!("pgn/{name}"));
        let bytes =
            std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        all.extend(bytes);
        all.extend_from_slice(b"\n\n");
    }
    let mut big = Vec::new();
    while big.len() < min_len {
        big.extend_from_slice(&all);
    }
    big
}

/// The movetext of every game of PGN `text`, each on one line.
pub fn movetexts(text: &str) -> Vec<String> {
    text.split("\n\n")
        .filter(|s| s.starts_with("1."))
        .map(|s| s.replace('\n', " "))
        .collect()
}

/// `fixtures/convert/damaged_movetext.pgn` as convert and annotate-outcome
/// write it back: without what could not be read.
pub const DAMAGED_REPAIRED: [&str; 4] = [
    "1. e4 d6 2. d4 Nf6 3. Nc3 g6 4. Be3 Bg7 5. Qd2 c6 6. f3 b5 7. Nge2 Nbd7 8. Bh6 \
     Bxh6 9. Qxh6 Bb7 10. a3 e5 11. O-O-O Qe7 12. Kb1 a6 1-0",
    "1. e4 e5 2. Nf3 Nf6 3. Nxe5 d6 4. Nf3 Nxe4 5. d4 d5 6. Bd3 Be7 1/2-1/2",
    "1. Nf3 Nf6 2. c4 g6 3. Nc3 d5 4. cxd5 Nxd5 5. Qa4+ Bd7 6. Qb3 Nb6 1/2-1/2",
    "1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nf6 5. Nc3 a6 6. Be3 e5 0-1",
];

/// Makes a FIFO at `path`.
pub fn mkfifo(path: &Path) {
    let made = Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs");
    assert!(made.success(), "mkfifo {}", path.display());
}

/// Waits for `child`; after a minute it is killed and the test fails with
/// `hang` (what it means that the run did not end).
pub fn wait_or_fail(child: &mut Child, hang: &str) -> ExitStatus {
    let started = std::time::Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("the child can be waited for") {
            return status;
        }
        if started.elapsed().as_secs() > 60 {
            let _ = child.kill();
            panic!("{hang}");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// The temporary files (`.pgnkit-*.part`) a run left in `dir`.
pub fn part_files(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .expect("the directory is readable")
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().ends_with(".part"))
        .map(|e| e.path())
        .collect()
}

/// What `/proc` says of a running child: the bytes it has read (`rchar`),
/// its threads, and its CPU time in clock ticks (user and system).
fn proc_state(pid: u32) -> Option<(u64, u64, u64)> {
    let io = std::fs::read_to_string(format!("/proc/{pid}/io")).ok()?;
    let rchar = io
        .lines()
        .find_map(|l| l.strip_prefix("rchar: "))?
        .trim()
        .parse()
        .ok()?;
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name (which may hold spaces), from field 3.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    let threads = fields.get(17)?.parse().ok()?;
    Some((rchar, threads, ticks))
}

/// Waits until `child` has read at least `read` bytes, runs more than one
/// thread (its workers started), and has then used no CPU for 200 ms: it
/// has done all it can and waits for its input (a FIFO held open). The
/// readiness signal of the FIFO tests, instead of a fixed sleep. Fails the
/// test after a minute.
pub fn wait_idle(child: &Child, read: u64) {
    let started = std::time::Instant::now();
    let mut last = None;
    let mut still = 0;
    loop {
        assert!(
            started.elapsed().as_secs() < 60,
            "the run never settled waiting for its input"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
        let Some((rchar, threads, ticks)) = proc_state(child.id()) else {
            return; // It ended: nothing more to wait for.
        };
        if rchar < read || threads < 2 || last != Some(ticks) {
            last = Some(ticks);
            still = 0;
            continue;
        }
        still += 1;
        if still >= 10 {
            return;
        }
    }
}
