//! The progress bar on standard error, one for every long run: bytes read of
//! the total with games per second and ETA for the streaming subcommands,
//! or work items done of a known count for `perft`. Drawn only when
//! standard error is a terminal and the run is not `--quiet`; otherwise
//! every call is a no-op.
//!
//! The byte bar follows the bytes *read*, which run ahead of the games
//! counted by the chunks in flight: once every byte is read, the ETA says
//! `finishing` rather than `0s` while the last games are worked on, and
//! before the first bytes and second it says `…` rather than a guess from
//! nothing. With several inputs, the bar starts with the name of the one
//! whose games are being handed out ([`Progress::set_file`]).

use std::fmt;
use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{HumanDuration, ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

/// Time before an ETA is shown: an estimate from the first chunk alone
/// swings wildly.
const ETA_AFTER: Duration = Duration::from_secs(1);

/// The ETA of a bar at `pos` of `len` after `elapsed`, estimated at `eta`:
/// `…` while there is too little to estimate from, `finishing` once all is
/// read but the run has not finished.
fn eta_text(pos: u64, len: Option<u64>, elapsed: Duration, eta: Duration) -> String {
    match len {
        Some(len) if pos >= len => "finishing".to_owned(),
        _ if pos == 0 || elapsed < ETA_AFTER => "…".to_owned(),
        _ => HumanDuration(eta).to_string(),
    }
}

fn write_eta(state: &ProgressState, w: &mut dyn fmt::Write) {
    let text = eta_text(state.pos(), state.len(), state.elapsed(), state.eta());
    let _ = w.write_str(&text);
}

/// Progress of a run.
pub struct Progress {
    bar: Option<ProgressBar>,
    started: Instant,
}

impl Progress {
    /// A bar over `total` input bytes (`None` when unknown, e.g. stdin).
    pub fn bytes(total: Option<u64>, quiet: bool) -> Progress {
        let template = if total.is_some() {
            "{prefix}{wide_bar} {bytes}/{total_bytes} {msg} ETA {pgnkit_eta}"
        } else {
            "{prefix}{spinner} {bytes} {msg}"
        };
        let progress = Progress::with_template(total, quiet, template);
        if let Some(bar) = &progress.bar {
            // The first frame says what is counted, not an empty message.
            bar.set_message("0 games");
            bar.enable_steady_tick(Duration::from_millis(200));
        }
        progress
    }

    /// A bar over a count of `unit`s, set later with [`Progress::set_len`].
    pub fn items(unit: &str, quiet: bool) -> Progress {
        let template = format!("{{elapsed_precise}} [{{bar:30}}] {{pos}}/{{len}} {unit} {{msg}}");
        Progress::with_template(None, quiet, &template)
    }

    fn with_template(len: Option<u64>, quiet: bool, template: &str) -> Progress {
        let visible = !quiet && std::io::stderr().is_terminal();
        let bar = visible.then(|| {
            let bar = ProgressBar::with_draw_target(len, ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template(template)
                    .expect("progress template is valid")
                    .with_key("pgnkit_eta", write_eta)
                    .progress_chars("=> "),
            );
            bar
        });
        Progress {
            bar,
            started: Instant::now(),
        }
    }

    /// Whether the bar is drawn (a message worth computing).
    pub fn is_visible(&self) -> bool {
        self.bar.is_some()
    }

    /// Reports `bytes` read so far and `games` done.
    pub fn update(&self, bytes: u64, games: u64) {
        if let Some(bar) = &self.bar {
            bar.set_position(bytes);
            let secs = self.started.elapsed().as_secs_f64().max(1e-3);
            bar.set_message(format!("{games} games, {:.0} games/s", games as f64 / secs));
        }
    }

    /// Names the input whose games are being counted, in front of the bar
    /// (for runs over several inputs; the name is cut to a width that
    /// leaves the bar room).
    pub fn set_file(&self, name: &str) {
        if let Some(bar) = &self.bar {
            // A file name is anyone's: no byte of it may drive the terminal.
            let name = crate::output::diag::escaped(name);
            const WIDTH: usize = 32;
            let count = name.chars().count();
            let shown: String = if count > WIDTH {
                let tail: String = name.chars().skip(count - (WIDTH - 1)).collect();
                format!("…{tail}")
            } else {
                name.into_owned()
            };
            bar.set_prefix(format!("{shown} "));
        }
    }

    /// Sets the count the bar runs to.
    pub fn set_len(&self, len: u64) {
        if let Some(bar) = &self.bar {
            bar.set_length(len);
        }
    }

    /// Counts `n` more done.
    pub fn inc(&self, n: u64) {
        if let Some(bar) = &self.bar {
            bar.inc(n);
        }
    }

    /// Shows `message` after the count.
    pub fn set_message(&self, message: String) {
        if let Some(bar) = &self.bar {
            bar.set_message(message);
        }
    }

    /// Runs `f` with the bar taken off the terminal, then draws it again,
    /// so lines written meanwhile (to standard output on the same terminal)
    /// are not drawn over.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        match &self.bar {
            Some(bar) => bar.suspend(f),
            None => f(),
        }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }

    /// Time since the run started.
    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eta_says_finishing_once_all_is_read_and_nothing_before_a_second() {
        // See issue 12: 100 % with ETA 0 while games were still counted.
        let secs = Duration::from_secs;
        assert_eq!(eta_text(100, Some(100), secs(30), secs(0)), "finishing");
        assert_eq!(eta_text(0, Some(100), secs(0), secs(0)), "…");
        assert_eq!(
            eta_text(10, Some(100), Duration::from_millis(300), secs(3)),
            "…"
        );
        assert_eq!(eta_text(50, Some(100), secs(10), secs(10)), "10 seconds");
    }

    #[test]
    fn a_hidden_bar_ignores_every_call() {
        let progress = Progress::bytes(Some(10), true);
        assert!(!progress.is_visible());
        progress.set_file("round1.pgn");
        progress.update(10, 3);
        assert_eq!(progress.suspend(|| 7), 7);
        progress.finish();
    }
}
