//! The selection stage of the pipeline: which games a run takes
//! ([`crate::rules::select`]), shared by `select`, `convert` and
//! `annotate-outcome`. A worker judges each game before its subcommand's
//! work ([`Stage::judge`]); the in-order writer admits it or not
//! ([`Picked::admit`]), so that `--limit` takes the first N selected in
//! input order whatever the threads, and counts what it saw for the
//! summary.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use super::options::{RunOptions, Selection};
use crate::error::Error;
use crate::rules::game::RawGame;
use crate::rules::openings::OpeningTable;
use crate::rules::select::{Criteria, Judged, Verdict};

/// The criteria of a run, checked once.
pub(crate) struct Stage {
    criteria: Criteria,
    /// The table `--eco` and `--opening` classify by.
    openings: Option<&'static OpeningTable>,
    limit: Option<u64>,
    /// Set by the writer once `--limit` games are written: the workers stop
    /// judging (what they judge after it is never written).
    full: AtomicBool,
}

impl Stage {
    /// The stage of `selection`, or `None` when it selects every game.
    ///
    /// # Errors
    ///
    /// `--limit` with `--byte-range` (a shard cannot know how many games
    /// the shards before it took), or an openings table that cannot be
    /// read.
    pub fn new(
        selection: &Selection,
        openings: Option<&Path>,
        run: &RunOptions,
    ) -> Result<Option<Stage>, Error> {
        if !selection.is_set() {
            return Ok(None);
        }
        if selection.limit.is_some() && run.byte_range.is_some() {
            return Err(Error::usage(
                "--limit applies to a whole run, not to a --byte-range shard (which cannot know what the shards before it took): take the first N of the merged output instead",
            ));
        }
        let criteria = selection.criteria();
        let openings = if criteria.needs_openings() {
            Some(super::openings::table(openings)?)
        } else {
            None
        };
        Ok(Some(Stage {
            criteria,
            openings,
            limit: selection.limit,
            full: AtomicBool::new(false),
        }))
    }

    /// A worker's judgement of `game`; `None` once `--limit` is reached.
    pub fn judge(&self, game: &RawGame<'_>) -> Option<Judged> {
        if self.full.load(Ordering::Relaxed) {
            return None;
        }
        Some(self.criteria.judge(game, self.openings))
    }

    /// Whether judging a game reads its moves (a criterion needs a replay).
    pub fn needs_moves(stage: Option<&Stage>) -> bool {
        stage.is_some_and(|s| s.criteria.needs_replay())
    }

    /// Whether the inputs must reach the writer one after another (not
    /// spooled side by side): `--limit` takes the first games in input
    /// order.
    pub fn ordered(stage: Option<&Stage>) -> bool {
        stage.is_some_and(|s| s.limit.is_some())
    }

    /// The criteria as flags (what a shard's rerun is given).
    pub fn flags(&self) -> Vec<String> {
        let mut flags = crate::rules::select::flags(&self.criteria);
        if let Some(n) = self.limit {
            flags.extend(["--limit".to_owned(), n.to_string()]);
        }
        flags
    }
}

/// What the writer saw of the selection, in input order.
#[derive(Debug, Default)]
pub(crate) struct Picked {
    pub selected: u64,
    pub rejected: u64,
    pub unjudged: u64,
    /// Of the selected, those a partial date let in.
    pub partial_date: u64,
    /// Games after the `--limit`th selected one.
    pub beyond: u64,
}

/// What the writer does with a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Admit {
    /// Write it; the ply that matched, if a criterion is about one.
    Write(Option<u32>),
    /// Leave it out: not selected, or after the limit.
    Skip,
    /// Leave it out: a replay criterion could not be decided.
    Unjudged,
}

impl Picked {
    /// Whether the game judged `judged` (by `stage`, if any) is written.
    pub fn admit(&mut self, stage: Option<&Stage>, judged: Option<Judged>) -> Admit {
        let Some(stage) = stage else {
            return Admit::Write(None);
        };
        if stage.limit.is_some_and(|n| self.selected >= n) {
            self.beyond += 1;
            return Admit::Skip;
        }
        let Some(judged) = judged else {
            // Judged by no worker: only after the limit.
            self.beyond += 1;
            return Admit::Skip;
        };
        match judged.verdict {
            Verdict::Selected { ply } => {
                self.selected += 1;
                self.partial_date += u64::from(judged.partial_date);
                if stage.limit.is_some_and(|n| self.selected >= n) {
                    stage.full.store(true, Ordering::Relaxed);
                }
                Admit::Write(ply)
            }
            Verdict::Rejected => {
                self.rejected += 1;
                Admit::Skip
            }
            Verdict::Unjudged => {
                self.unjudged += 1;
                Admit::Unjudged
            }
        }
    }

    /// The summary's words for the selection (after `N games, `), when a
    /// run selects.
    pub fn summary(&self, stage: Option<&Stage>) -> Option<String> {
        stage?;
        let mut s = format!("{} selected, {} not", self.selected, self.rejected);
        if self.partial_date > 0 {
            s.push_str(&format!(
                " ({} selected by a partial date that may fall in the --date range)",
                self.partial_date
            ));
        }
        if self.unjudged > 0 {
            s.push_str(&format!(
                ", {} not judged (the main line stops before a criterion on its moves is decided)",
                self.unjudged
            ));
        }
        if self.beyond > 0 {
            s.push_str(&format!(", {} after the --limit not judged", self.beyond));
        }
        Some(s)
    }
}
