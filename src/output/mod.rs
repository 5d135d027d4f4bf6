//! Bytes out: report writers (text, CSV, JSON Lines, PGN), diagnostics and
//! the progress bar on standard error.

pub mod annotate;
pub mod convert;
pub mod diag;
pub mod json;
pub mod pgn;
pub mod progress;
pub mod report;
