//! What every fuzz target shares: run one pgnkit subcommand the way the
//! binary runs it (clap-parsed arguments, the input in a file, `-j1`,
//! stdout captured), and the oracles more than one target asks.
//!
//! The targets drive `pgnkit::cmd::*::run`, the product path itself:
//! format sniffing, decompression detection, the chunker, the scanner, the
//! workers and the writers, not a library shortcut around them. The input
//! goes to a file in `/dev/shm` (memory, not disk) named after the process,
//! so parallel campaigns never share one.

pub mod args;

use std::path::PathBuf;

use clap::Parser;
use pgnkit::cli::{Cli, Command};
use pgnkit::cmd;
use pgnkit::exit::ExitStatus;

/// What one run of a subcommand gave.
#[derive(Debug)]
pub struct Run {
    /// The status, or the error message (exit 2 in the binary).
    pub status: Result<ExitStatus, String>,
    /// Everything written to standard output.
    pub stdout: Vec<u8>,
}

impl Run {
    /// The status of a run that must not fail: a readable input file and
    /// an in-memory output leave no reason to exit 2.
    ///
    /// # Panics
    ///
    /// When the run returned an error (`what` names the run).
    pub fn completed(&self, what: &str) -> ExitStatus {
        match &self.status {
            Ok(status) => *status,
            Err(err) => panic!("{what}: error on a readable input: {err}"),
        }
    }
}

/// A scratch file of this process, `/dev/shm/pgnkit-fuzz-<name>-<pid>`
/// (the system's temporary directory when there is no `/dev/shm`).
pub fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from("/dev/shm");
    let dir = if dir.is_dir() {
        dir
    } else {
        std::env::temp_dir()
    };
    dir.join(format!("pgnkit-fuzz-{name}-{}", std::process::id()))
}

/// A scratch file holding one input, removed when dropped: a campaign
/// runs many processes (one per fork job) and must not leave one file for
/// each in `/dev/shm`.
pub struct InputFile {
    path: String,
}

impl InputFile {
    /// The path, as the command line takes it.
    pub fn path(&self) -> &str {
        &self.path
    }
}

impl Drop for InputFile {
    fn drop(&mut self) {
        // Already gone when a nested use of the same name removed it.
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Writes `data` to the scratch file `name`.
///
/// # Panics
///
/// When the file cannot be written (a full `/dev/shm`).
pub fn input_file(name: &str, data: &[u8]) -> InputFile {
    let path = scratch(name);
    std::fs::write(&path, data).expect("write the fuzz input to /dev/shm");
    InputFile {
        path: path
            .into_os_string()
            .into_string()
            .expect("scratch paths are UTF-8"),
    }
}

/// Runs `pgnkit ARGS…` in this process, stdout into memory.
///
/// # Panics
///
/// When clap refuses the arguments: the targets build only valid ones.
pub fn run(args: &[&str]) -> Run {
    let cli = Cli::try_parse_from(std::iter::once("pgnkit").chain(args.iter().copied()))
        .unwrap_or_else(|err| panic!("bad fuzz arguments {args:?}: {err}"));
    let mut stdout = Vec::new();
    let status = match &cli.command {
        Command::Validate(a) => cmd::validate::run(a, &mut stdout),
        Command::AnnotateOutcome(a) => cmd::annotate_outcome::run(a, &mut stdout),
        Command::Perft(a) => cmd::perft::run(a, &mut stdout),
        Command::Convert(a) => cmd::convert::run(a, &mut stdout),
        // The targets build no arguments for the other subcommands.
        other => panic!("the fuzz targets do not run {other:?}"),
    };
    Run {
        status: status.map_err(|err| format!("{err:#}")),
        stdout,
    }
}

/// The `syntax` findings `validate` reports on `pgn`, as JSON lines; empty
/// when the PGN re-reads without one. `name` names the scratch file.
pub fn syntax_findings(name: &str, pgn: &[u8]) -> Vec<String> {
    let file = input_file(name, pgn);
    let path = file.path();
    let run = run(&["validate", "-j1", "-q", "-f", "jsonl", path]);
    run.completed("validate of convert's output");
    String::from_utf8(run.stdout)
        .expect("validate writes UTF-8")
        .lines()
        // Messages are JSON strings, where a quote is escaped: this field
        // can only be the `code` of the finding itself.
        .filter(|line| line.contains(r#""code":"syntax""#))
        .map(str::to_owned)
        .collect()
}

/// The options of `convert --to pgn` chosen by the bits of `bits`: each
/// combination must keep both of convert's guarantees.
pub fn pgn_options(bits: usize) -> Vec<&'static str> {
    let mut flags = Vec::new();
    if bits & 1 != 0 {
        flags.push("--keep-invalid");
    }
    if bits & 2 != 0 {
        flags.push("--no-comments");
    }
    if bits & 4 != 0 {
        flags.push("--no-variations");
    }
    if bits & 8 != 0 {
        flags.push("--no-nags");
    }
    flags
}

/// Checks convert's two guarantees on its PGN output `out`, written with
/// `flags`: validate re-reads it without a `syntax` finding, and converting
/// it again gives the same bytes. The second conversion keeps only
/// `--keep-invalid` of the flags: what the first dropped is no longer
/// there, `--no-comments` would drop the comment `--keep-invalid` writes
/// where a game broke, and without `--keep-invalid` a game kept whole
/// because it cannot be replayed at all (an unsupported variant, a bad FEN)
/// would be left out.
///
/// # Panics
///
/// When either guarantee does not hold: that is the finding.
pub fn check_pgn_output(name: &str, out: &[u8], flags: &[&str]) {
    let syntax = syntax_findings(name, out);
    assert!(
        syntax.is_empty(),
        "convert --to pgn wrote PGN that validate cannot read:\n{}\n--- output ---\n{}",
        syntax.join("\n"),
        String::from_utf8_lossy(out)
    );
    let file = input_file(name, out);
    let path = file.path();
    let mut args = vec!["convert", "--from", "pgn", "--to", "pgn", "-j1", "-q"];
    if flags.contains(&"--keep-invalid") {
        args.push("--keep-invalid");
    }
    args.push(path);
    let again = run(&args);
    again.completed("convert of convert's output");
    assert!(
        again.stdout == out,
        "convert --to pgn is not a fixed point:\n--- first ---\n{}\n--- second ---\n{}",
        String::from_utf8_lossy(out),
        String::from_utf8_lossy(&again.stdout)
    );
}
