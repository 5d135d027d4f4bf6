//! The command line's glue, one module per subcommand, all of the same
//! shape: `run(&Args, &mut dyn Write) -> Result<ExitStatus, Error>` hands
//! the parsed options and inputs to [`crate::api`], with standard output
//! as the record sink and standard error ([`Stderr`]) as the diagnostics.
//! No chess, no formatting and no checks of their own.

pub mod annotate_outcome;
pub mod convert;
pub mod crosstable;
pub mod dedupe;
pub mod merge;
pub mod perft;
pub mod schema;
pub mod select;
pub mod validate;

#[doc(inline)]
pub use crate::api::Stderr;

/// The most workers a run starts per core (see [`crate::api::RunOptions`]).
pub const THREADS_PER_CORE: usize = crate::api::streaming::THREADS_PER_CORE;
