//! The `pgnkit` binary: parse the command line, run one subcommand, map its
//! outcome to an exit code. Everything else lives in the library.

use std::io::{self, Write};
use std::process::ExitCode;

use clap::{CommandFactory, Parser};
use pgnkit::cli::{Cli, Command};
use pgnkit::cmd;
use pgnkit::exit::ExitStatus;
use pgnkit::output::diag;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let stdout = io::stdout();
    let mut out = io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let result = match &cli.command {
        Command::Validate(args) => cmd::validate::run(args, &mut out),
        Command::AnnotateOutcome(args) => cmd::annotate_outcome::run(args, &mut out),
        Command::Perft(args) => cmd::perft::run(args, &mut out),
        Command::Convert(args) => cmd::convert::run(args, &mut out),
        Command::Merge(args) => cmd::merge::run(args, &mut out),
        Command::Completions(args) => completions(args.shell, &mut out),
    };
    let result = result.and_then(|status| {
        out.flush()?;
        Ok(status)
    });
    match result {
        Ok(status) => status.into(),
        Err(err) if is_broken_pipe(&err) => ExitCode::from(0),
        Err(err) => {
            // Never `eprintln!`: it panics when standard error is unwritable.
            diag::error(format_args!("{err:#}"));
            ExitStatus::Error.into()
        }
    }
}

/// Writes the completion script for `shell`, generated from the same
/// definitions as `--help`.
fn completions(shell: clap_complete::Shell, out: &mut dyn Write) -> anyhow::Result<ExitStatus> {
    // Into a buffer first: the generators panic on a write error (`| head`).
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "pgnkit", &mut script);
    out.write_all(&script)?;
    Ok(ExitStatus::Ok)
}

/// `pgnkit … | head` closes our stdout early: that is not an error.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<io::Error>()
            .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
    })
}
