//! Games and lines from inputs, in input order, processed in parallel: the
//! streaming spine every subcommand that reads inputs shares.
//!
//! All the inputs of a run go through ONE [`crate::pipeline::ordered`]:
//! a reader thread opens each input once ([`source`]), tells its format
//! when asked, and cuts it into PGN chunks at game boundaries
//! ([`crate::input::chunk`]) or batches of lines
//! ([`crate::input::lines`]); workers scan each chunk
//! ([`crate::input::scan`]) and run the subcommand's per-game or per-line
//! work; the calling thread receives the results in order, turns
//! chunk-relative game numbers and lines into file-relative ones, and hands
//! them to the subcommand's sink as [`Event`]s. A chunk whose split turns
//! out wrong (it ends inside a comment or variation) is scanned again
//! together with the next one, on the calling thread. The progress bar
//! ([`progress`]) follows the raw bytes read.
//!
//! What a game or a line means, and how results are written, is the
//! caller's business.

pub mod progress;
mod source;

use std::io;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use self::progress::Progress;
use self::source::Item;
use crate::input::lines::{Line, LineFormat};
use crate::input::scan::scan;
use crate::pipeline;
use crate::rules::finding::Finding;
use crate::rules::game::RawGame;

/// The input bytes in flight per worker: two chunks of the usual size.
/// What a chunk's results take follows its bytes (and [`MAX_GAMES`] bounds
/// the games of a chunk of tiny games), so this bounds the memory of a run
/// by its thread count, whatever the input; a chunk heavier than the whole
/// budget (one giant game) is worked on alone.
///
/// [`MAX_GAMES`]: crate::input::chunk::MAX_GAMES
const BYTES_PER_THREAD: usize = 2 * crate::input::chunk::TARGET;

/// Where a game stands in the input.
#[derive(Debug, Clone, Copy)]
pub struct GameCtx<'n> {
    /// The input's name as reports show it (`<stdin>` for standard input).
    pub file: &'n str,
    /// 1-based index of the game (or of the record line) in its file.
    pub game: u64,
    /// Add to a chunk-relative line to get the line in the file (0 for
    /// line-based inputs, whose lines are already absolute).
    pub line_offset: u64,
}

/// What the sink receives, in input order.
pub enum Event<'n, R> {
    /// One game's result.
    Game(GameCtx<'n>, R),
    /// A finding that belongs to no game (a file holding no game at all);
    /// its line is already file-relative.
    Loose(&'n str, Finding),
    /// An input could not be opened or read; everything read before the
    /// failure has been delivered.
    Failed(&'n str, io::Error),
}

/// What a run read.
#[derive(Debug, Clone, Copy, Default)]
pub struct Totals {
    pub games: u64,
    /// Inputs that could not be opened or read to the end.
    pub failed: u64,
}

/// What the inputs of a run hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputFormat {
    /// PGN games.
    Pgn,
    /// One record per line.
    Lines(LineFormat),
    /// Told per input from its first bytes ([`crate::input::lines::detect`]).
    Detect,
}

/// Runs `work` on every game of `files` (`-` is standard input; none means
/// standard input) on `threads` threads and feeds `sink` in input order.
///
/// # Errors
///
/// The first error of `sink` (a write failure), which stops the run.
pub fn for_each_game<R: Send>(
    files: &[PathBuf],
    threads: usize,
    quiet: bool,
    work: impl Fn(&RawGame<'_>) -> R + Sync,
    sink: impl FnMut(Event<'_, R>) -> anyhow::Result<()>,
) -> anyhow::Result<Totals> {
    let no_lines = |_: &Line, _: LineFormat| -> R { unreachable!("PGN inputs hold no lines") };
    let run = Run {
        files,
        format: InputFormat::Pgn,
        threads,
        quiet,
    };
    run.for_each(&work, &no_lines, sink)
}

/// Runs `game` on every PGN game and `line` on every record line of
/// `files` (`-` is standard input; none means standard input), each input
/// read as `format` says, on `threads` threads, and feeds `sink` in input
/// order. The game number of a [`GameCtx`] counts games or record lines in
/// their file.
///
/// # Errors
///
/// The first error of `sink` (a write failure), which stops the run.
pub fn for_each_record<R: Send>(
    files: &[PathBuf],
    format: InputFormat,
    threads: usize,
    quiet: bool,
    game: impl Fn(&RawGame<'_>) -> R + Sync,
    line: impl Fn(&Line, LineFormat) -> R + Sync,
    sink: impl FnMut(Event<'_, R>) -> anyhow::Result<()>,
) -> anyhow::Result<Totals> {
    let run = Run {
        files,
        format,
        threads,
        quiet,
    };
    run.for_each(&game, &line, sink)
}

/// One streaming run over all its inputs.
struct Run<'f> {
    files: &'f [PathBuf],
    format: InputFormat,
    threads: usize,
    quiet: bool,
}

/// A worker's result for one [`Item`].
enum Done<R> {
    Opened { name: String },
    Chunk(ChunkDone<R>),
    Lines(Vec<R>),
    Failed { name: String, error: io::Error },
}

struct ChunkDone<R> {
    data: Vec<u8>,
    at_end: bool,
    /// `None` when the chunk ended in an unclean state.
    scanned: Option<Scanned<R>>,
}

struct Scanned<R> {
    results: Vec<R>,
    loose: Vec<Finding>,
    lines: u64,
}

/// Scans a chunk and runs `work` on its games; `None` when the chunk ends
/// in an unclean state before the end of its input (a wrong split).
fn scan_chunk<R>(
    data: &[u8],
    at_end: bool,
    work: &(impl Fn(&RawGame<'_>) -> R + Sync),
) -> Option<Scanned<R>> {
    let scan = scan(data, at_end);
    if !scan.clean_end && !at_end {
        return None;
    }
    Some(Scanned {
        results: scan.games.iter().map(work).collect(),
        loose: scan.loose,
        lines: scan.lines,
    })
}

/// The state of the calling thread: where the current input stands.
#[derive(Default)]
struct InOrder {
    name: String,
    /// Games (or record lines) of the current input delivered so far.
    game: u64,
    line_offset: u64,
    /// A chunk that ended in an unclean state, waiting for the next one
    /// (and the chunks after it, while the join is not clean).
    held: Vec<u8>,
    /// The length of `held` when it was last scanned.
    held_scanned: usize,
    totals: Totals,
}

impl InOrder {
    fn opened(&mut self, name: String) {
        self.name = name;
        self.game = 0;
        self.line_offset = 0;
        self.held.clear();
    }

    fn failed<R>(
        &mut self,
        name: &str,
        error: io::Error,
        sink: &mut impl FnMut(Event<'_, R>) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        self.totals.failed += 1;
        self.held.clear();
        sink(Event::Failed(name, error))
    }

    /// Hands the results of one chunk or batch to `sink`.
    fn results<R>(
        &mut self,
        results: Vec<R>,
        sink: &mut impl FnMut(Event<'_, R>) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        for result in results {
            self.game += 1;
            self.totals.games += 1;
            let ctx = GameCtx {
                file: &self.name,
                game: self.game,
                line_offset: self.line_offset,
            };
            sink(Event::Game(ctx, result))?;
        }
        Ok(())
    }

    fn chunk<R>(
        &mut self,
        chunk: ChunkDone<R>,
        work: &(impl Fn(&RawGame<'_>) -> R + Sync),
        sink: &mut impl FnMut(Event<'_, R>) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        let ChunkDone {
            data,
            at_end,
            scanned,
        } = chunk;
        let (data, scanned) = if self.held.is_empty() {
            (data, scanned)
        } else {
            // The previous split was wrong: scan both as one. While the
            // join stays unclean (a comment that never closes), it is
            // scanned again only when it has doubled, so the scans of a
            // long unclean stretch add up to linear time, not quadratic.
            let mut joined = std::mem::take(&mut self.held);
            joined.extend_from_slice(&data);
            if !at_end && joined.len() < 2 * self.held_scanned {
                self.held = joined;
                return Ok(());
            }
            let scanned = scan_chunk(&joined, at_end, work);
            (joined, scanned)
        };
        let Some(scanned) = scanned else {
            self.held_scanned = data.len();
            self.held = data;
            return Ok(());
        };
        self.results(scanned.results, sink)?;
        for mut finding in scanned.loose {
            finding.line += self.line_offset;
            sink(Event::Loose(&self.name, finding))?;
        }
        self.line_offset += scanned.lines;
        Ok(())
    }
}

impl Run<'_> {
    fn for_each<R: Send>(
        &self,
        game: &(impl Fn(&RawGame<'_>) -> R + Sync),
        line: &(impl Fn(&Line, LineFormat) -> R + Sync),
        mut sink: impl FnMut(Event<'_, R>) -> anyhow::Result<()>,
    ) -> anyhow::Result<Totals> {
        let stdin = [PathBuf::from("-")];
        let files: &[PathBuf] = if self.files.is_empty() {
            &stdin
        } else {
            self.files
        };
        let progress = Progress::bytes(crate::input::open::total_size(files), self.quiet);
        let counter = Arc::new(AtomicU64::new(0));
        let mut state = InOrder::default();
        let budget = pipeline::Budget {
            bytes: BYTES_PER_THREAD.saturating_mul(self.threads),
            weigh: Item::weight,
        };
        pipeline::ordered_within(
            source::items(files, self.format, Arc::clone(&counter)),
            self.threads,
            budget,
            |item| match item {
                Item::Opened { name } => Done::Opened { name },
                Item::Failed { name, error } => Done::Failed { name, error },
                Item::Chunk { data, at_end } => {
                    let scanned = scan_chunk(&data, at_end, game);
                    Done::Chunk(ChunkDone {
                        data,
                        at_end,
                        scanned,
                    })
                }
                Item::Lines { lines, format } => Done::Lines(
                    lines
                        .iter()
                        .filter(|l| format.is_record(l))
                        .map(|l| line(l, format))
                        .collect(),
                ),
            },
            |done| {
                match done {
                    Done::Opened { name } => state.opened(name),
                    Done::Failed { name, error } => state.failed(&name, error, &mut sink)?,
                    Done::Chunk(chunk) => state.chunk(chunk, game, &mut sink)?,
                    Done::Lines(results) => state.results(results, &mut sink)?,
                }
                progress.update(counter.load(Ordering::Relaxed), state.totals.games);
                Ok::<(), anyhow::Error>(())
            },
        )?;
        progress.finish();
        Ok(state.totals)
    }
}
