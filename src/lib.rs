//! pgnkit: validate, annotate, count and convert chess games and positions.
//!
//! The crate is layered so that dependencies point inward:
//! `cmd` (one thin module per subcommand) uses `input` (bytes → games),
//! `output` (results → bytes) and `pipeline` (ordered parallel streaming),
//! and all of them use `rules`, the pure rules core, which knows no I/O.

pub mod cli;
pub mod cmd;
pub mod exit;
pub mod input;
pub mod output;
pub mod pipeline;
pub mod rules;
pub mod stream;
