//! The progress bar on standard error, one for every long run: bytes read of
//! the total with games per second and ETA for the streaming subcommands,
//! or work items done of a known count for `perft`. Drawn only when
//! standard error is a terminal and the run is not `--quiet`; otherwise
//! every call is a no-op.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Progress of a run.
pub struct Progress {
    bar: Option<ProgressBar>,
    started: Instant,
}

impl Progress {
    /// A bar over `total` input bytes (`None` when unknown, e.g. stdin).
    pub fn bytes(total: Option<u64>, quiet: bool) -> Progress {
        let template = if total.is_some() {
            "{wide_bar} {bytes}/{total_bytes} {msg} ETA {eta}"
        } else {
            "{spinner} {bytes} {msg}"
        };
        let progress = Progress::with_template(total, quiet, template);
        if let Some(bar) = &progress.bar {
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
