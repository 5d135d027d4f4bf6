//! Runs one subcommand of the library on its own thread through the
//! typed API ([`pgnkit::api`]): its batches handed to a
//! [`ChannelWriter`], its diagnostics to a [`Diagnostics`] of the
//! package's.

use std::io::Write;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Mutex;
use std::sync::mpsc::sync_channel;

use pgnkit::Error;
use pgnkit::api::{Diagnostics, Level};
use pgnkit::exit::ExitStatus;

use crate::channel::{BATCHES, ChannelReader, ChannelWriter};

/// The most diagnostic lines a run keeps for its error (a run with a
/// warning per game must not grow without bound).
pub const KEPT: usize = 1000;

/// Where a run's diagnostics go: errors and warnings printed on standard
/// error as the command line prints them (notes and the summary are the
/// command line's `--quiet`-able talk, not printed), errors kept (at most
/// [`KEPT`]) so that the exception can name an unreadable input.
#[derive(Default)]
pub struct Diag {
    errors: Mutex<Vec<String>>,
}

impl Diag {
    /// The error lines kept so far.
    pub fn errors(&self) -> Vec<String> {
        self.errors.lock().map(|e| e.clone()).unwrap_or_default()
    }
}

impl Diagnostics for Diag {
    fn line(&self, level: Level, line: &str) {
        if matches!(level, Level::Note) {
            return;
        }
        let _ = writeln!(std::io::stderr().lock(), "{line}");
        if matches!(level, Level::Error)
            && let Ok(mut errors) = self.errors.lock()
            && errors.len() < KEPT
        {
            errors.push(line.to_owned());
        }
    }
}

/// What a run does, given the channel's writer and the diagnostics.
pub type Job = Box<dyn FnOnce(ChannelWriter, &Diag) -> Result<ExitStatus, Error> + Send>;

/// Starts `job` on its own thread.
///
/// # Errors
///
/// When the thread cannot be started.
pub fn spawn(job: Job, diag: std::sync::Arc<Diag>) -> std::io::Result<ChannelReader> {
    let (tx, rx) = sync_channel(BATCHES);
    std::thread::Builder::new()
        .name("pgnkit-run".to_owned())
        .spawn(move || {
            let out = ChannelWriter::new(tx);
            let end = out.clone();
            let result = catch_unwind(AssertUnwindSafe(|| job(out, &diag))).unwrap_or_else(|_| {
                Err(Error::internal(std::io::Error::other(
                    "the run panicked (a bug; its message is on standard error)",
                )))
            });
            end.end(result);
        })?;
    Ok(ChannelReader::new(rx))
}
