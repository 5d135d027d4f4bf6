//! The progress bar on standard error: bytes read of the total, games per
//! second, ETA. Drawn only when standard error is a terminal and the run is
//! not `--quiet`; otherwise every call is a no-op.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Progress of a streaming run.
pub struct Progress {
    bar: Option<ProgressBar>,
    started: Instant,
}

impl Progress {
    /// A bar over `total` input bytes (`None` when unknown, e.g. stdin).
    pub fn new(total: Option<u64>, quiet: bool) -> Progress {
        let visible = !quiet && std::io::stderr().is_terminal();
        let bar = visible.then(|| {
            let bar = match total {
                Some(total) => {
                    ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr())
                }
                None => ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()),
            };
            let template = if total.is_some() {
                "{wide_bar} {bytes}/{total_bytes} {msg} ETA {eta}"
            } else {
                "{spinner} {bytes} {msg}"
            };
            bar.set_style(
                ProgressStyle::with_template(template)
                    .expect("progress template is valid")
                    .progress_chars("=> "),
            );
            bar.enable_steady_tick(Duration::from_millis(200));
            bar
        });
        Progress {
            bar,
            started: Instant::now(),
        }
    }

    /// Reports `bytes` read so far and `games` done.
    pub fn update(&self, bytes: u64, games: u64) {
        if let Some(bar) = &self.bar {
            bar.set_position(bytes);
            let secs = self.started.elapsed().as_secs_f64().max(1e-3);
            bar.set_message(format!("{games} games, {:.0} games/s", games as f64 / secs));
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
