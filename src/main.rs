//! The `pgnkit` binary: parse the command line, run one subcommand, map its
//! outcome to an exit code. Everything else lives in the library.

use std::io::{self, Write};
use std::process::ExitCode;

use clap::{CommandFactory, Parser};
use pgnkit::Error;
use pgnkit::cli::{Cli, Command};
use pgnkit::cmd;
use pgnkit::exit::ExitStatus;
use pgnkit::output::diag;

fn main() -> ExitCode {
    tune_malloc();
    let cli = Cli::parse();
    let stdout = io::stdout();
    let mut out = io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let result = match &cli.command {
        Command::Validate(args) => cmd::validate::run(args, &mut out),
        Command::AnnotateOutcome(args) => cmd::annotate_outcome::run(args, &mut out),
        Command::Perft(args) => cmd::perft::run(args, &mut out),
        Command::Convert(args) => cmd::convert::run(args, &mut out),
        Command::Merge(args) => cmd::merge::run(args, &mut out),
        Command::Schema(args) => cmd::schema::run(args, &mut out),
        Command::Completions(args) => completions(args.shell, &mut out),
    };
    let result = result.and_then(|status| {
        out.flush().map_err(Error::stdout)?;
        Ok(status)
    });
    match result {
        Ok(status) => status.into(),
        Err(err) if err.is_broken_pipe() => ExitCode::from(0),
        Err(err) => {
            // Never `eprintln!`: it panics when standard error is unwritable.
            diag::error(format_args!("{err:#}"));
            ExitStatus::Error.into()
        }
    }
}

/// Keeps glibc's malloc from handing every freed chunk buffer back to the
/// kernel. With the defaults, a buffer of a few hundred kilobytes (a chunk
/// of input, the results of a chunk of tiny games) is mapped or grown with
/// fresh pages and returned at once when freed, so each reuse takes page
/// faults: on a million empty games `convert --to uci -j1` spent 2 s of
/// its 4 s in the kernel (1.2 million minor faults). Peak memory is
/// unchanged; what is freed stays in the heap for the next chunk.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn tune_malloc() {
    // SAFETY: mallopt only sets the allocator's parameters, and is called
    // before any other thread exists.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 256 << 20);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn tune_malloc() {}

/// Writes the completion script for `shell`, generated from the same
/// definitions as `--help`.
fn completions(shell: clap_complete::Shell, out: &mut dyn Write) -> Result<ExitStatus, Error> {
    // Into a buffer first: the generators panic on a write error (`| head`).
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "pgnkit", &mut script);
    out.write_all(&script).map_err(Error::stdout)?;
    Ok(ExitStatus::Ok)
}
