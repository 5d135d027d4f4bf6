//! The run's side of [`crate::rules::tournament`]: what each game added
//! is in the run (its file, number, offset and line), so that a finding
//! about it can be reported once every game is read, and how `validate`
//! counts those findings beside the game's own.

use crate::output::report::GameLabel;
use crate::rules::finding::Finding;
use crate::rules::tournament::{Event, Games, OwnedTags};

/// Where a game added stands in the run, and what its own findings made of
/// it (a tournament finding counts a game once).
#[derive(Debug, Clone, Copy)]
struct GameRef {
    file: u32,
    game: u64,
    offset: Option<u64>,
    line: u64,
    /// Whether its own findings hold a warning, and fail the run.
    warned: bool,
    failing: bool,
}

/// The games of a run, for the tournament checks and crosstables.
#[derive(Debug, Default)]
pub(crate) struct Tracker {
    pub games: Games,
    refs: Vec<GameRef>,
    files: Vec<String>,
    /// The `--tags` values of each game added (only when there are
    /// `--tags`).
    tag_values: Vec<Vec<Option<String>>>,
}

/// A game a tournament finding is about, named as a report names it.
pub(crate) struct Named<'a> {
    pub file: &'a str,
    pub game: u64,
    pub offset: Option<u64>,
    pub label: GameLabel,
    pub tags: &'a [Option<String>],
    pub result: Option<&'a str>,
    pub warned: bool,
    pub failing: bool,
}

impl Tracker {
    /// Adds a game of `file` (its `game`th, at `offset`, first line
    /// `line`), whose own findings `warned` and are `failing`.
    #[allow(clippy::too_many_arguments)]
    pub fn add(
        &mut self,
        tags: &OwnedTags,
        file: &str,
        game: u64,
        offset: Option<u64>,
        line: u64,
        (warned, failing): (bool, bool),
        tag_values: Option<Vec<Option<String>>>,
    ) {
        let Ok(number) = u32::try_from(self.refs.len()) else {
            return;
        };
        if !self.games.add(&tags.tags(), number) {
            return;
        }
        if self.files.last().is_none_or(|f| f != file) {
            self.files.push(file.to_owned());
        }
        self.refs.push(GameRef {
            file: (self.files.len() - 1) as u32,
            game,
            offset,
            line,
            warned,
            failing,
        });
        if let Some(values) = tag_values {
            self.tag_values.push(values);
        }
    }

    /// How a finding names the game numbered `n`: `game 12 (line 340)`,
    /// with its file when the run read more than one.
    pub fn describe(&self, n: u32) -> String {
        let Some(r) = self.refs.get(n as usize) else {
            return format!("game {n}");
        };
        if self.files.len() > 1 {
            format!(
                "game {} of {} (line {})",
                r.game,
                crate::output::diag::escaped(&self.files[r.file as usize]),
                r.line
            )
        } else {
            format!("game {} (line {})", r.game, r.line)
        }
    }

    /// The events of the run.
    pub fn events(&self) -> Vec<Event> {
        self.games.events()
    }

    /// Every tournament finding, by game (the games in input order), each
    /// a finding about the game as a whole on its first line; `keep` says
    /// which codes are reported.
    pub fn findings(
        &self,
        events: &[Event],
        keep: impl Fn(crate::rules::finding::Code) -> bool,
    ) -> Vec<(u32, Vec<Finding>)> {
        let mut all: Vec<(u32, Finding)> = events
            .iter()
            .flat_map(|e| e.findings(&|n| self.describe(n)))
            .filter(|f| keep(f.code))
            .map(|f| {
                let line = self.refs.get(f.game as usize).map_or(0, |r| r.line);
                (f.game, Finding::game(f.code, line, f.message))
            })
            .collect();
        // Stable: each game's findings in the order the event gave them.
        all.sort_by_key(|(n, _)| *n);
        let mut out: Vec<(u32, Vec<Finding>)> = Vec::new();
        for (n, f) in all {
            match out.last_mut() {
                Some((m, list)) if *m == n => list.push(f),
                _ => out.push((n, vec![f])),
            }
        }
        out
    }

    /// What names the game numbered `n` in a report.
    pub fn named(&self, n: u32) -> Option<Named<'_>> {
        let r = self.refs.get(n as usize)?;
        let i = n as usize;
        let tag = |name: &str| self.games.tag(i, name).map(str::to_owned);
        Some(Named {
            file: &self.files[r.file as usize],
            game: r.game,
            offset: r.offset,
            label: GameLabel::of(tag, r.line),
            tags: self.tag_values.get(i).map_or(&[], Vec::as_slice),
            result: self.games.tag(i, "Result"),
            warned: r.warned,
            failing: r.failing,
        })
    }
}
