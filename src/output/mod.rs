//! Bytes out: report writers (text, CSV, JSON Lines, PGN), diagnostics and
//! the progress bar on standard error.
