//! Messages for people, on standard error: `pgnkit: <file>: <message>`
//! diagnostics and the one-line summary. The only place besides `main`
//! allowed to write to standard error directly.

#![allow(clippy::print_stderr)]

use std::fmt::Display;
use std::time::Duration;

/// Prints `pgnkit: {message}` on standard error.
pub fn error(message: impl Display) {
    eprintln!("pgnkit: {message}");
}

/// Prints `pgnkit: warning: {message}` on standard error.
pub fn warning(message: impl Display) {
    eprintln!("pgnkit: warning: {message}");
}

/// Prints `message` as it is on standard error (timings, notes).
pub fn note(message: impl Display) {
    eprintln!("{message}");
}

/// Prints the end-of-run summary line and the time taken.
pub fn summary(line: impl Display, elapsed: Duration) {
    eprintln!("{line} ({:.2} s)", elapsed.as_secs_f64());
}

/// `1 game` or `N games`, for summaries.
pub fn games(n: u64) -> String {
    format!("{n} game{}", if n == 1 { "" } else { "s" })
}
