//! The command line's glue, one module per subcommand, all of the same
//! shape: `run(&Args, &mut dyn Write) -> Result<ExitStatus, Error>` hands
//! the parsed options and inputs to [`crate::api`], with standard output
//! as the record sink and standard error ([`Stderr`]) as the diagnostics.
//! No chess, no formatting and no checks of their own.

pub mod annotate_outcome;
pub mod convert;
pub mod merge;
pub mod perft;
pub mod schema;
pub mod validate;

use std::io::Write;

#[doc(inline)]
pub use crate::api::Stderr;
use crate::api::{Format, RecordSink};

/// The most workers a run starts per core (see [`crate::api::RunOptions`]).
pub const THREADS_PER_CORE: usize = crate::api::streaming::THREADS_PER_CORE;

/// The record sink of a run writing `format` to `out`: the process's
/// standard output, unless an embedder said otherwise through the
/// adapters of [`crate::embed`] (its own writer, or its batch sink for
/// `-f arrow`).
fn records(out: &mut dyn Write, format: Format) -> RecordSink<'_> {
    let handoff = crate::embed::take_handoff();
    match handoff {
        Some(batches) if format == Format::Arrow => RecordSink::Batches(batches),
        _ if crate::embed::is_embedded() => RecordSink::Writer(out),
        _ => RecordSink::Stdout(out),
    }
}
