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
use self::source::{Item, Span};
use crate::input::lines::{Line, LineFormat};
use crate::input::range::{ByteRange, LOOK_BACK, is_cut_point};
use crate::input::scan::scan;
use crate::pipeline;
use crate::rules::finding::Finding;
use crate::rules::game::RawGame;

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
    /// Byte offset of the game's first byte in the (uncompressed) input;
    /// `None` for a record line.
    pub offset: Option<u64>,
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
#[derive(Debug, Clone, Default)]
pub struct Totals {
    pub games: u64,
    /// Inputs that could not be opened or read to the end.
    pub failed: u64,
    /// What each input that was opened gave, in input order.
    pub inputs: Vec<InputStats>,
}

/// What one input gave: enough for a merge of byte-range shards to check
/// that they tile the file and to renumber games and lines file-wide.
#[derive(Debug, Clone, Default)]
pub struct InputStats {
    /// The input's name as reports show it.
    pub file: String,
    /// The `--byte-range` asked for.
    pub range: Option<ByteRange>,
    /// Offset of the first byte read: the first cut point of the range.
    pub first_byte: u64,
    /// Offset where the shard's region ends (`None` without a range, or when
    /// the region reaches the end of the file).
    pub limit: Option<u64>,
    /// Offset just past the last byte whose games were processed: the next
    /// shard is exact when it begins here.
    pub end_byte: u64,
    /// Games (or record lines) processed.
    pub games: u64,
    /// Newlines between `first_byte` and `end_byte`.
    pub lines: u64,
    pub first_offset: Option<u64>,
    pub last_offset: Option<u64>,
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
    for_each_game_in(files, None, threads, quiet, work, sink)
}

/// [`for_each_game`] on the games of one `--byte-range` shard of a file
/// (all games when `range` is `None`).
///
/// # Errors
///
/// The first error of `sink` (a write failure), which stops the run.
pub fn for_each_game_in<R: Send>(
    files: &[PathBuf],
    range: Option<ByteRange>,
    threads: usize,
    quiet: bool,
    work: impl Fn(&RawGame<'_>) -> R + Sync,
    sink: impl FnMut(Event<'_, R>) -> anyhow::Result<()>,
) -> anyhow::Result<Totals> {
    let no_lines = |_: &Line, _: LineFormat| -> R { unreachable!("PGN inputs hold no lines") };
    let run = Run {
        files,
        format: InputFormat::Pgn,
        range,
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
    range: Option<ByteRange>,
    threads: usize,
    quiet: bool,
    game: impl Fn(&RawGame<'_>) -> R + Sync,
    line: impl Fn(&Line, LineFormat) -> R + Sync,
    sink: impl FnMut(Event<'_, R>) -> anyhow::Result<()>,
) -> anyhow::Result<Totals> {
    let run = Run {
        files,
        format,
        range,
        threads,
        quiet,
    };
    run.for_each(&game, &line, sink)
}

/// One streaming run over all its inputs.
struct Run<'f> {
    files: &'f [PathBuf],
    format: InputFormat,
    range: Option<ByteRange>,
    threads: usize,
    quiet: bool,
}

/// A worker's result for one [`Item`].
enum Done<R> {
    Opened { name: String, span: Span },
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
    /// The chunk-relative byte offset of each result's game.
    offsets: Vec<usize>,
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
        offsets: scan.games.iter().map(|g| g.offset).collect(),
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
    /// A chunk that ended in an unclean state, waiting for the next one.
    held: Vec<u8>,
    /// Where the current input is read from and what of it is the run's.
    span: Option<Span>,
    /// Byte offset of the next chunk (or of `held`) in the input.
    base: u64,
    /// The last bytes before `base`: what tells whether a game at `base` is
    /// at a cut point.
    tail: Vec<u8>,
    /// The input has every game it owns (its shard ended); what the reader
    /// still sends of it is dropped.
    complete: bool,
    stats: InputStats,
    totals: Totals,
}

impl InOrder {
    fn opened(&mut self, name: String, span: Span) {
        self.close();
        self.name.clone_from(&name);
        self.game = 0;
        self.line_offset = 0;
        self.held.clear();
        self.tail.clear();
        self.base = span.first_byte;
        self.complete = false;
        self.stats = InputStats {
            file: name,
            range: span.range,
            first_byte: span.first_byte,
            limit: span.limit,
            end_byte: span.first_byte,
            ..InputStats::default()
        };
        self.span = Some(span);
    }

    /// Ends the current input's record, if one is open.
    fn close(&mut self) {
        if self.span.take().is_some() {
            if !self.complete {
                self.stats.end_byte = self.base + self.held.len() as u64;
                self.stats.lines = self.line_offset;
            }
            self.totals.inputs.push(std::mem::take(&mut self.stats));
        }
    }

    /// The run has every game of the current input that it owns, up to
    /// `end_byte`: stop its reader.
    fn complete(&mut self, end_byte: u64, lines: u64) {
        self.complete = true;
        self.stats.end_byte = end_byte;
        self.stats.lines = lines;
        self.held.clear();
        if let Some(span) = &self.span {
            span.stop.store(true, Ordering::Release);
        }
    }

    fn failed<R>(
        &mut self,
        name: &str,
        error: io::Error,
        sink: &mut impl FnMut(Event<'_, R>) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        if self.complete && name == self.name {
            // Past what the shard needed: the failure costs it nothing.
            return Ok(());
        }
        self.totals.failed += 1;
        self.held.clear();
        sink(Event::Failed(name, error))
    }

    /// Hands one result to `sink`.
    fn deliver<R>(
        &mut self,
        result: R,
        offset: Option<u64>,
        sink: &mut impl FnMut(Event<'_, R>) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        self.game += 1;
        self.totals.games += 1;
        self.stats.games += 1;
        if offset.is_some() {
            self.stats.first_offset = self.stats.first_offset.or(offset);
            self.stats.last_offset = offset;
        }
        let ctx = GameCtx {
            file: &self.name,
            game: self.game,
            line_offset: self.line_offset,
            offset,
        };
        sink(Event::Game(ctx, result))
    }

    /// Hands the results of one batch of record lines to `sink`.
    fn results<R>(
        &mut self,
        results: Vec<R>,
        sink: &mut impl FnMut(Event<'_, R>) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        results
            .into_iter()
            .try_for_each(|result| self.deliver(result, None, sink))
    }

    fn chunk<R>(
        &mut self,
        chunk: ChunkDone<R>,
        work: &(impl Fn(&RawGame<'_>) -> R + Sync),
        sink: &mut impl FnMut(Event<'_, R>) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        if self.complete {
            return Ok(());
        }
        let limit = self.span.as_ref().and_then(|s| s.limit);
        if let Some(limit) = limit
            && self.held.is_empty()
            && self.base == limit
        {
            // The region ended where a game starts, between games: the next
            // shard begins exactly here.
            self.complete(limit, self.line_offset);
            return Ok(());
        }
        let ChunkDone {
            data,
            at_end,
            scanned,
        } = chunk;
        let (data, scanned) = if self.held.is_empty() {
            (data, scanned)
        } else {
            // The previous split was wrong: scan both as one.
            let mut joined = std::mem::take(&mut self.held);
            joined.extend_from_slice(&data);
            let scanned = scan_chunk(&joined, at_end, work);
            (joined, scanned)
        };
        let Some(scanned) = scanned else {
            self.held = data;
            return Ok(());
        };
        let past = limit.filter(|&l| self.base + data.len() as u64 > l);
        for (result, offset) in scanned.results.into_iter().zip(scanned.offsets) {
            let at = self.base + offset as u64;
            if let Some(limit) = past
                && at >= limit
                && self.starts_cut(&data, offset)
            {
                // The first game past the region that starts at a cut point,
                // with the parse between games: the shard ends here.
                let lines = memchr::memchr_iter(b'\n', &data[..offset]).count() as u64;
                self.complete(at, self.line_offset + lines);
                return Ok(());
            }
            self.deliver(result, Some(at), sink)?;
        }
        for mut finding in scanned.loose {
            finding.line += self.line_offset;
            sink(Event::Loose(&self.name, finding))?;
        }
        self.line_offset += scanned.lines;
        self.base += data.len() as u64;
        if limit.is_some() {
            let keep = data.len().min(LOOK_BACK + 1);
            if keep < LOOK_BACK + 1 {
                self.tail.extend_from_slice(&data);
                let extra = self.tail.len().saturating_sub(LOOK_BACK + 1);
                self.tail.drain(..extra);
            } else {
                self.tail = data[data.len() - keep..].to_vec();
            }
        }
        Ok(())
    }

    /// Whether the game at `offset` in `data` (which follows `self.tail`)
    /// starts at a cut point.
    fn starts_cut(&self, data: &[u8], offset: usize) -> bool {
        if data.get(offset) != Some(&b'[') {
            return false;
        }
        if offset > LOOK_BACK {
            return is_cut_point(&data[..offset]);
        }
        let mut before = self.tail.clone();
        before.extend_from_slice(&data[..offset]);
        is_cut_point(&before)
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
        pipeline::ordered(
            source::items(files, self.format, self.range, Arc::clone(&counter)),
            self.threads,
            |item| match item {
                Item::Opened { name, span } => Done::Opened { name, span },
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
                    Done::Opened { name, span } => state.opened(name, span),
                    Done::Failed { name, error } => state.failed(&name, error, &mut sink)?,
                    Done::Chunk(chunk) => state.chunk(chunk, game, &mut sink)?,
                    Done::Lines(results) => state.results(results, &mut sink)?,
                }
                progress.update(counter.load(Ordering::Relaxed), state.totals.games);
                Ok::<(), anyhow::Error>(())
            },
        )?;
        progress.finish();
        state.close();
        Ok(state.totals)
    }
}
