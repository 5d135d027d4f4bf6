//! One module per subcommand, all of the same shape:
//! `run(&Args, &mut dyn Write) -> anyhow::Result<ExitStatus>`. Each turns
//! its clap arguments into settings once, hands the work to
//! [`crate::stream`] (or `rules::perft`) and the writing to
//! [`crate::output`], and ends with the same tail ([`Streaming::finish`]):
//! glue only, no chess and no formatting.

pub mod annotate_outcome;
pub mod convert;
pub mod perft;
pub mod validate;

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;

use crate::cli::InputArgs;
use crate::exit::ExitStatus;
use crate::output::diag;
use crate::rules::game::RawGame;
use crate::stream::{self, Event, Totals};

/// The worker count: `--threads`, or every core.
pub(crate) fn thread_count(threads: Option<u16>) -> usize {
    threads.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        usize::from,
    )
}

/// The settings every streaming subcommand shares, from [`InputArgs`].
#[derive(Debug, Clone)]
pub(crate) struct Streaming {
    pub files: Vec<PathBuf>,
    pub threads: usize,
    pub output: Option<PathBuf>,
    pub quiet: bool,
    started: Instant,
}

impl Streaming {
    /// The settings of `args`; the run's clock starts here.
    pub fn new(args: &InputArgs) -> Streaming {
        Streaming {
            files: args.files.clone(),
            threads: thread_count(args.threads),
            output: args.output.clone(),
            quiet: args.quiet,
            started: Instant::now(),
        }
    }

    /// The writer for the product: `-o FILE`, or the `stdout` handed to `run`.
    ///
    /// # Errors
    ///
    /// When the output file cannot be created.
    pub fn writer<'a>(&self, stdout: &'a mut dyn Write) -> anyhow::Result<Box<dyn Write + 'a>> {
        match self.output.as_deref() {
            Some(p) if p != Path::new("-") => {
                let file =
                    File::create(p).with_context(|| format!("cannot create {}", p.display()))?;
                Ok(Box::new(BufWriter::with_capacity(1 << 16, file)))
            }
            _ => Ok(Box::new(stdout)),
        }
    }

    /// Runs `work` on every game of the inputs and feeds `sink` in order
    /// ([`stream::for_each_game`]).
    ///
    /// # Errors
    ///
    /// The first error of `sink`.
    pub fn for_each_game<R: Send>(
        &self,
        work: impl Fn(&RawGame<'_>) -> R + Sync,
        sink: impl FnMut(Event<'_, R>) -> anyhow::Result<()>,
    ) -> anyhow::Result<Totals> {
        stream::for_each_game(&self.files, self.threads, self.quiet, work, sink)
    }

    /// The tail every streaming subcommand shares: flushes the product
    /// (`what` names it in the error), prints `N games, {summary}` on
    /// standard error unless `--quiet`, and gives the exit status of a run
    /// that found `problems`.
    ///
    /// # Errors
    ///
    /// When the product cannot be flushed.
    pub fn finish(
        &self,
        out: &mut dyn Write,
        what: &str,
        totals: Totals,
        problems: u64,
        summary: &str,
    ) -> anyhow::Result<ExitStatus> {
        out.flush()
            .with_context(|| format!("failed to write the {what}"))?;
        if !self.quiet {
            diag::summary(
                format!("{}, {summary}", diag::games(totals.games)),
                self.started.elapsed(),
            );
        }
        Ok(ExitStatus::of_run(problems, totals.failed))
    }
}
