//! Helpers shared by the integration tests: run the binary, locate fixtures.

#![allow(dead_code)]

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

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
pub fn run(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut cmd = pgnkit();
    cmd.args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("pgnkit binary runs");
    {
        let mut child_stdin = child.stdin.take().expect("stdin is piped");
        if let Some(bytes) = stdin {
            child_stdin.write_all(bytes).expect("write to pgnkit stdin");
        }
    }
    child.wait_with_output().expect("pgnkit finishes")
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
