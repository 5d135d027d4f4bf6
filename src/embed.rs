//! The library embedded in another program (the Python package), through
//! `cmd::*::run` and process-wide switches: adapters over [`crate::api`],
//! kept until the Python package calls the API itself (its record and
//! diagnostics sinks say all this per run). The command line never calls
//! them; `cmd` reads them to choose the run's record sink.
//!
//! - [`set_embedded`]: the writer handed to `run` is the embedder's own,
//!   never standard output, so the checks made for standard output (a
//!   binary format refused onto a terminal, an output that is an input)
//!   do not apply to it.
//! - [`Tap`]: the diagnostic lines a run prints on standard error
//!   (`pgnkit: <file>: <message>`), read back, so that the embedder can
//!   name an unreadable input in the error it raises. They are still
//!   printed, as the command line prints them.
//! - [`hand_batches`]: the record batches of a run's `-f arrow` product
//!   handed to the embedder as they are made, instead of being encoded as
//!   an Arrow IPC stream into the writer (which the embedder would only
//!   decode again).

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

static EMBEDDED: AtomicBool = AtomicBool::new(false);

/// Says that the library runs embedded: from now on, the writer given to
/// a subcommand's `run` is never taken for standard output.
pub fn set_embedded() {
    EMBEDDED.store(true, Ordering::Relaxed);
}

/// Whether [`set_embedded`] was called.
pub fn is_embedded() -> bool {
    EMBEDDED.load(Ordering::Relaxed)
}

/// Where the record batches of an `-f arrow` product go, given to
/// [`hand_batches`]: [`crate::api::BatchSink`], under its old name.
pub use crate::output::columnar::BatchSink as Batches;

thread_local! {
    static HANDOFF: RefCell<Option<Box<dyn Batches>>> = const { RefCell::new(None) };
}

/// Hands the batches of the next `-f arrow` product made on this thread
/// (by a subcommand's `run` called on it) to `to`, instead of writing them
/// as an Arrow IPC stream; the writer given to `run` then gets nothing.
pub fn hand_batches(to: Box<dyn Batches>) {
    HANDOFF.with(|h| *h.borrow_mut() = Some(to));
}

/// The hand-off given on this thread, taken (once).
pub(crate) fn take_handoff() -> Option<Box<dyn Batches>> {
    HANDOFF.with(|h| h.borrow_mut().take())
}

/// The most lines a tap keeps (a run with a warning per game must not
/// grow without bound); later ones are counted, not kept.
pub const TAP_LINES: usize = 1000;

type Lines = Arc<Mutex<TapLines>>;

#[derive(Default)]
struct TapLines {
    kept: Vec<String>,
    dropped: u64,
}

static TAPS: Mutex<Vec<(u64, Lines)>> = Mutex::new(Vec::new());
static TAP_COUNT: AtomicUsize = AtomicUsize::new(0);
static NEXT_TAP: AtomicU64 = AtomicU64::new(0);

/// A copy of every diagnostic line printed on standard error while it
/// lives, by any run of the process (runs side by side see each other's
/// lines: tell yours by the file names they start with).
pub struct Tap {
    id: u64,
    lines: Lines,
}

impl Tap {
    /// Starts copying the lines.
    pub fn new() -> Tap {
        let id = NEXT_TAP.fetch_add(1, Ordering::Relaxed);
        let lines = Lines::default();
        let mut taps = TAPS.lock().unwrap_or_else(|e| e.into_inner());
        taps.push((id, Arc::clone(&lines)));
        TAP_COUNT.store(taps.len(), Ordering::Release);
        Tap { id, lines }
    }

    /// The lines copied so far (at most [`TAP_LINES`]), and how many more
    /// were printed.
    pub fn lines(&self) -> (Vec<String>, u64) {
        let lines = self.lines.lock().unwrap_or_else(|e| e.into_inner());
        (lines.kept.clone(), lines.dropped)
    }
}

impl Default for Tap {
    fn default() -> Tap {
        Tap::new()
    }
}

impl Drop for Tap {
    fn drop(&mut self) {
        let mut taps = TAPS.lock().unwrap_or_else(|e| e.into_inner());
        taps.retain(|(id, _)| *id != self.id);
        TAP_COUNT.store(taps.len(), Ordering::Release);
    }
}

/// Hands a line printed on standard error to every tap.
pub(crate) fn publish(line: &dyn std::fmt::Display) {
    if TAP_COUNT.load(Ordering::Acquire) == 0 {
        return;
    }
    let line = line.to_string();
    let taps = TAPS.lock().unwrap_or_else(|e| e.into_inner());
    for (_, lines) in taps.iter() {
        let mut lines = lines.lock().unwrap_or_else(|e| e.into_inner());
        if lines.kept.len() < TAP_LINES {
            lines.kept.push(line.clone());
        } else {
            lines.dropped += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tap_sees_the_lines_of_its_life_only() {
        publish(&"before");
        let tap = Tap::new();
        publish(&"pgnkit: x.pgn: unreadable");
        let (lines, dropped) = tap.lines();
        assert!(lines.iter().any(|l| l == "pgnkit: x.pgn: unreadable"));
        assert!(!lines.iter().any(|l| l == "before"));
        assert_eq!(dropped, 0);
        drop(tap);
        publish(&"after");
        assert!(
            TAPS.lock()
                .unwrap()
                .iter()
                .all(|(_, l)| { !l.lock().unwrap().kept.iter().any(|k| k == "after") })
        );
    }
}
