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
    game: u64,
    /// `u64::MAX`: none.
    offset: u64,
    line: u64,
    file: u32,
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

/// A game handed to the tracker: its tags, where it stands in its file
/// (its `game`th, at `offset`, first line `line`), whether its own
/// findings hold a warning and fail the run, and its `--tags` values (only
/// when there are `--tags`).
#[derive(Debug)]
pub(crate) struct Added {
    pub tags: Box<OwnedTags>,
    pub game: u64,
    pub offset: Option<u64>,
    pub line: u64,
    pub warned: bool,
    pub failing: bool,
    pub tag_values: Option<Vec<Option<String>>>,
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

/// Runs `f` on a pool of `threads` threads (the run's `--threads`), or on
/// this thread when one cannot be made.
pub(crate) fn on_threads<R: Send>(threads: usize, f: impl FnOnce() -> R + Send) -> R {
    match rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build()
    {
        Ok(pool) => pool.install(f),
        Err(_) => f(),
    }
}

impl Tracker {
    /// A tracker that keeps games without a round number too (the
    /// crosstable of an event without rounds).
    pub fn with_unrounded() -> Tracker {
        Tracker {
            games: Games::with_unrounded(),
            ..Tracker::default()
        }
    }

    /// Adds a game of `file`.
    pub fn add(&mut self, file: &str, added: Added) {
        let Added {
            tags,
            game,
            offset,
            line,
            warned,
            failing,
            tag_values,
        } = added;
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
            offset: offset.unwrap_or(u64::MAX),
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
        keep: impl Fn(crate::rules::finding::Code) -> bool,
    ) -> Vec<(u32, Vec<Finding>)> {
        let mut all: Vec<(u32, Finding)> = self
            .games
            .judge(&|n| self.describe(n))
            .into_iter()
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
            offset: (r.offset != u64::MAX).then_some(r.offset),
            label: GameLabel::of(tag, r.line),
            tags: self.tag_values.get(i).map_or(&[], Vec::as_slice),
            result: self.games.tag(i, "Result"),
            warned: r.warned,
            failing: r.failing,
        })
    }
}

/// What the writer sends the tracker's thread, in batches (a message a
/// game would wake the thread a game).
enum Msg {
    /// The games that follow are of this input.
    File(String),
    Game(Added),
}

/// Games a batch holds.
const BATCH: usize = 512;

/// A [`Tracker`] on a thread of its own: the writer hands each game over
/// and goes on, so that noting the tournament adds nothing to the one
/// thread every game passes through.
pub(crate) struct Background {
    tx: Option<std::sync::mpsc::SyncSender<Vec<Msg>>>,
    handle: Option<std::thread::JoinHandle<Tracker>>,
    file: Option<String>,
    batch: Vec<Msg>,
}

impl Background {
    /// Starts the thread.
    pub fn spawn() -> Background {
        let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<Msg>>(8);
        let handle = std::thread::spawn(move || {
            let mut tracker = Tracker::default();
            let mut file = String::new();
            for msg in rx.into_iter().flatten() {
                match msg {
                    Msg::File(name) => file = name,
                    Msg::Game(added) => tracker.add(&file, added),
                }
            }
            tracker
        });
        Background {
            tx: Some(tx),
            handle: Some(handle),
            file: None,
            batch: Vec::with_capacity(BATCH),
        }
    }

    /// Hands over a game (as [`Tracker::add`]).
    pub fn add(&mut self, file: &str, added: Added) {
        if self.file.as_deref() != Some(file) {
            self.file = Some(file.to_owned());
            self.batch.push(Msg::File(file.to_owned()));
        }
        self.batch.push(Msg::Game(added));
        if self.batch.len() >= BATCH {
            self.send();
        }
    }

    /// Sends the batch.
    fn send(&mut self) {
        let batch = std::mem::replace(&mut self.batch, Vec::with_capacity(BATCH));
        if let Some(tx) = &self.tx {
            let _ = tx.send(batch);
        }
    }

    /// Every game handed over: the tracker.
    pub fn finish(mut self) -> Tracker {
        self.send();
        drop(self.tx.take());
        self.handle
            .take()
            .and_then(|h| h.join().ok())
            .unwrap_or_default()
    }
}
