//! pgnkit: validate, annotate, count and convert chess games and positions.
//!
//! The crate is layered so that dependencies point inward:
//! `cmd` (one thin module per subcommand) uses `stream` (games and lines
//! from all inputs, in order, in parallel, with the progress bar) and
//! `output` (results → bytes); `stream` uses `input` (bytes → games and
//! lines) and `pipeline` (ordered parallel map, knows no chess); and all of
//! them use `rules`, the pure rules core, which knows no I/O.

pub mod cli;
pub mod cmd;
pub mod error;
pub mod exit;
pub mod input;
pub mod output;
pub mod pipeline;
pub mod rules;
pub mod schema;
pub mod stream;

pub use error::{Error, ErrorKind};
