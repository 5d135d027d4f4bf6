//! Messages for people, on standard error: `pgnkit: <file>: <message>`
//! diagnostics and the one-line summary. The only place allowed to write to
//! standard error directly.
//!
//! Standard error is for people, not the product: when it cannot be written
//! (`2>/dev/full`, a closed pipe) the message is dropped and the run goes on
//! with the exit status it deserves. Nothing here panics (`eprintln!` does).

use std::borrow::Cow;
use std::fmt::{Display, Write as _};
use std::io::{self, Write};
use std::time::Duration;

/// How serious a diagnostic line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// `pgnkit: …`: an input that could not be read, a finding of a
    /// subcommand whose records say nothing of them.
    Error,
    /// `pgnkit: warning: …`.
    Warning,
    /// Anything else for people: notes, the summary and the table of codes.
    Note,
}

/// Where the lines for people go: the command line prints them on standard
/// error ([`crate::api::Stderr`]); an embedder keeps or forwards them
/// ([`crate::api::Collected`]).
/// Lines come whole and in the order the command line prints them.
pub trait Diagnostics: Sync {
    /// One line, without its newline, as the command line prints it
    /// (`pgnkit: <file>: <message>`).
    fn line(&self, level: Level, line: &str);

    /// Whether a progress bar may be drawn on standard error (it still is
    /// only on a terminal, and never with `--quiet`).
    fn shows_progress(&self) -> bool {
        false
    }
}

/// How many characters of an untrusted text (a move, a tag value) a
/// message shows before cutting it with `…`.
pub const SHOWN: usize = 80;

/// Writes one line on standard error, ignoring failure.
fn line(text: impl Display) {
    let _ = writeln!(io::stderr().lock(), "{text}");
}

/// Prints `pgnkit: {message}` on standard error, control characters escaped.
pub fn error(message: impl Display) {
    line(error_line(message));
}

/// The line [`error`] prints.
pub fn error_line(message: impl Display) -> String {
    format!("pgnkit: {}", escaped(&message.to_string()))
}

/// Prints `pgnkit: warning: {message}` on standard error, control
/// characters escaped.
pub fn warning(message: impl Display) {
    line(warning_line(message));
}

/// The line [`warning`] prints.
pub fn warning_line(message: impl Display) -> String {
    format!("pgnkit: warning: {}", escaped(&message.to_string()))
}

/// Prints `message` as it is on standard error (timings, notes).
pub fn note(message: impl Display) {
    line(message);
}

/// Prints the end-of-run summary line and the time taken.
pub fn summary(text: impl Display, elapsed: Duration) {
    line(summary_line(text, elapsed));
}

/// The line [`summary`] prints.
pub fn summary_line(text: impl Display, elapsed: Duration) -> String {
    format!("{text} ({:.2} s)", elapsed.as_secs_f64())
}

/// `1 game` or `N games`, for summaries.
pub fn games(n: u64) -> String {
    format!("{n} game{}", if n == 1 { "" } else { "s" })
}

/// `text` with every control character (NUL, ESC, a newline…) written as a
/// `\u{…}` escape, so that bytes from the input cannot move the cursor,
/// recolour the terminal or forge a line of their own.
///
/// # Examples
///
/// ```
/// use pgnkit::output::diag::escaped;
/// assert_eq!(escaped("a\u{1b}[2Jb\0"), "a\\u{1b}[2Jb\\0");
/// assert_eq!(escaped("Kasparov, Garry"), "Kasparov, Garry");
/// ```
pub fn escaped(text: &str) -> Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_control() {
            let _ = write!(out, "{}", c.escape_debug());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// An untrusted text as a message shows it: control characters escaped,
/// and cut after `max` characters with `…`.
///
/// # Examples
///
/// ```
/// use pgnkit::output::diag::clipped;
/// assert_eq!(clipped("Nf3", 80), "Nf3");
/// assert_eq!(clipped(&"x".repeat(100), 5), "xxxxx…");
/// assert_eq!(clipped("a\u{1b}b", 80), "a\\u{1b}b");
/// ```
pub fn clipped(text: &str, max: usize) -> Cow<'_, str> {
    match text.char_indices().nth(max) {
        None => escaped(text),
        Some((cut, _)) => Cow::Owned(format!("{}…", escaped(&text[..cut]))),
    }
}
