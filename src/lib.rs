//! pgnkit: validate, annotate, count and convert chess games and positions.
//!
//! The crate is layered so that dependencies point inward:
//! `cmd` (one thin module per subcommand) uses `stream` (games and lines
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
pub mod embed;
pub mod error;
pub mod exit;
pub mod format;
pub mod input;
pub mod output;
pub mod pipeline;
pub mod rules;
pub mod schema;
pub mod shards;
pub mod stream;
pub mod tasks;

pub use error::{Error, ErrorKind};

/// Whether the long test cases run (`PGNKIT_LONG_TESTS=1`, which `.ci/run`
/// sets): without it, `cargo test` runs a smaller sample of each, so the
/// inner loop stays fast.
#[cfg(test)]
pub(crate) fn long_tests() -> bool {
    std::env::var_os("PGNKIT_LONG_TESTS").is_some_and(|v| !v.is_empty() && v != "0")
}
