//! Runs one subcommand of the library on its own thread, as the command
//! line would run it (the same argument parser, `--quiet`, `-f arrow`),
//! its batches handed to a [`ChannelWriter`].

use std::ffi::OsString;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc::sync_channel;

use clap::Parser;
use pgnkit::Error;
use pgnkit::cli::{Cli, Command};
use pgnkit::cmd;
use pgnkit::exit::ExitStatus;

use crate::channel::{BATCHES, ChannelReader, ChannelWriter};
use crate::inputs::Inputs;

/// The command line `argv` (without the program's name) parsed as the
/// binary parses it.
///
/// # Errors
///
/// clap's message, when the arguments are refused.
pub fn parse(argv: Vec<OsString>) -> Result<Cli, String> {
    let argv = std::iter::once(OsString::from("pgnkit")).chain(argv);
    Cli::try_parse_from(argv).map_err(|e| e.render().to_string().trim_end().to_owned())
}

/// What a run's thread does besides the subcommand: perft's rows are made
/// from its text.
pub enum Job {
    Subcommand(Cli),
    Perft(Cli),
}

/// Starts `job` on its own thread; `inputs` (and their temporary files)
/// live until it ends.
///
/// # Errors
///
/// When the thread cannot be started.
pub fn spawn(job: Job, inputs: Option<Inputs>) -> std::io::Result<ChannelReader> {
    let (tx, rx) = sync_channel(BATCHES);
    std::thread::Builder::new()
        .name("pgnkit-run".to_owned())
        .spawn(move || {
            let mut out = ChannelWriter::new(tx);
            pgnkit::embed::hand_batches(Box::new(out.clone()));
            let result =
                catch_unwind(AssertUnwindSafe(|| run(&job, &mut out))).unwrap_or_else(|_| {
                    Err(Error::internal(std::io::Error::other(
                        "the run panicked (a bug; its message is on standard error)",
                    )))
                });
            out.end(result);
            drop(inputs);
        })?;
    Ok(ChannelReader::new(rx))
}

fn run(job: &Job, out: &mut ChannelWriter) -> Result<ExitStatus, Error> {
    match job {
        Job::Subcommand(cli) => match &cli.command {
            Command::Validate(args) => cmd::validate::run(args, out),
            Command::AnnotateOutcome(args) => cmd::annotate_outcome::run(args, out),
            Command::Convert(args) => cmd::convert::run(args, out),
            _ => Err(Error::usage("not a subcommand the package runs")),
        },
        Job::Perft(cli) => match &cli.command {
            Command::Perft(args) => crate::perft_rows::run(args, out),
            _ => Err(Error::usage("not perft")),
        },
    }
}
