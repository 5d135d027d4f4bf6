//! pgnkit: validate, annotate, count and convert chess games and positions.
//!
//! Call it through [`api`]: one function per subcommand, typed options,
//! inputs that are files or readers, records as bytes or Arrow batches, and
//! diagnostics to a sink of your own (`examples/validate_bytes.rs`).
//! [`cli`] and [`cmd`] are the command line over it, [`rules`] the pure
//! rules core, [`schema`] the columns of every record kind.
//!
//! The crate is layered so that dependencies point inward:
//! `cmd` (the command line's glue) uses `api`, which uses `stream` (games and lines
//! from all inputs, in order, in parallel, with the progress bar),
//! `output` (results → bytes, each record kind written by its one
//! definition in `schema`) and `tasks` (what each subcommand asks of the
//! rules: validate's checks, annotate-outcome's outcome, convert's replay);
//! `stream` uses `input` (bytes → games and lines) and `pipeline` (ordered
//! parallel map, knows no chess); and all of them use `rules`, the pure
//! rules core, one module per chess concept. `tasks` and `rules` know no
//! I/O: `tasks` uses `rules` only, and `rules` uses nothing of the crate
//! above it.

pub mod api;
pub mod cli;
pub mod cmd;
pub mod error;
pub mod exit;
mod format;
pub mod rules;
pub mod schema;

// Internals: public for the binary's tests, the benches, the doctests and
// the Python package (until it calls `api` alone), not for other callers.
#[doc(hidden)]
#[doc(hidden)]
pub mod input;
#[doc(hidden)]
pub mod output;
#[doc(hidden)]
pub mod pipeline;
#[doc(hidden)]
pub mod shards;
#[doc(hidden)]
pub mod stream;
#[doc(hidden)]
pub mod tasks;

pub use error::{Error, ErrorKind};

/// Whether the long test cases run (`PGNKIT_LONG_TESTS=1`, which `.ci/run`
/// sets): without it, `cargo test` runs a smaller sample of each, so the
/// inner loop stays fast.
#[cfg(test)]
pub(crate) fn long_tests() -> bool {
    std::env::var_os("PGNKIT_LONG_TESTS").is_some_and(|v| !v.is_empty() && v != "0")
}
