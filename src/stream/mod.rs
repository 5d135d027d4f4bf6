//! Games and lines from inputs, in input order, processed in parallel: the
//! streaming spine every subcommand that reads inputs shares.
//!
//! All the inputs of a run go through ONE [`crate::pipeline::ordered`]:
//! a reader thread opens each input once (`source`), tells its format
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
pub mod spool;

use std::io;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};

use self::progress::Progress;
use self::source::{Item, Span};
pub use self::spool::Spooled;
use crate::input::lines::{Line, LineFormat};
use crate::input::range::{ByteRange, LOOK_BACK, is_cut_point};
use crate::input::scan::{Movetext, scan_with};
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
    /// Byte offset of the game's first byte in the (uncompressed) input;
    /// `None` for a record line.
    pub offset: Option<u64>,
    /// The game's bytes as read, up to where the next game starts (what
    /// lies between two games goes with the first, and what precedes a
    /// file's first game with none): every game of an input, once each.
    /// Empty for a record line.
    pub raw: &'n [u8],
    /// Byte offset of `raw`'s first byte in the (uncompressed) input (0 for
    /// a record line): where a later read finds the same bytes.
    pub raw_offset: u64,
}

impl<'n> GameCtx<'n> {
    /// The game's file, number and offset: a record's place.
    pub fn place(&self) -> (&'n str, u64, Option<u64>) {
        (self.file, self.game, self.offset)
    }
}

/// An input that could not be read to its end: its name and why.
pub type FailedInput = (String, io::Error);

/// A stretch of an input skipped for its length rather than held: no game
/// can start in more than `--max-game-bytes` bytes of it (a giant game, a
/// decompression bomb, text that is no PGN), or a line of a line-based
/// input is longer than that.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Skipped {
    /// The (uncompressed) byte offset of its first byte.
    pub start: u64,
    /// The byte offset just past its last byte.
    pub end: u64,
    /// The line it starts on.
    pub line: u64,
    /// What it is.
    pub what: SkippedKind,
    /// The limit it passed (`--max-game-bytes`).
    pub max: usize,
}

/// What a [`Skipped`] stretch is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkippedKind {
    /// It starts with a tag: one game, too long to be held, is lost.
    Game,
    /// Text where no game starts.
    Text,
    /// A line of a line-based input.
    Line,
}

impl Skipped {
    /// What a report says of it.
    pub fn message(&self) -> String {
        let max = self.max;
        let what = match self.what {
            SkippedKind::Game => "a game longer than",
            SkippedKind::Text => "text holding no game start in more than",
            SkippedKind::Line => "a line longer than",
        };
        format!(
            "bytes {}..{} ({} bytes) skipped, not read: {what} --max-game-bytes ({max} bytes)",
            self.start,
            self.end,
            self.end - self.start
        )
    }
}

/// What the sink receives, in input order.
pub enum Event<'n, R> {
    /// One game's result.
    Game(GameCtx<'n>, R),
    /// A finding that belongs to no game (a file holding no game at all);
    /// its line is already file-relative.
    Loose(&'n str, Finding),
    /// A stretch skipped for its length ([`Skipped`]); the games before
    /// and after it are delivered as usual.
    Skipped(&'n str, Skipped),
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
    /// Stretches skipped for their length ([`Skipped`]).
    pub skipped: u64,
    /// What each input that was opened gave, in input order.
    pub inputs: Vec<InputTotals>,
}

/// What one input gave: enough for a merge of byte-range shards to check
/// that they tile the file and to renumber games and lines file-wide.
#[derive(Debug, Clone, Default)]
pub struct InputTotals {
    /// The input's name as reports show it.
    pub file: String,
    /// Its path as given (`-` for standard input).
    pub path: PathBuf,
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
    /// For a `--byte-range` run, the digest of the bytes from
    /// `first_byte` to `end_byte`: what a rerun of the shard checks the
    /// file against.
    pub region: Option<crate::output::stats::Digest>,
}

/// One input of a run: a file (`-` is standard input), or bytes from a
/// reader the caller owns, under a name of its choosing (`<bytes>`), which
/// every diagnostic and record then shows.
pub enum Input {
    /// A file, a directory (walked for PGN files) or `-`.
    Path(PathBuf),
    /// A reader and the name reports give it; read once, in turn.
    Reader(NamedReader),
}

/// A caller's reader and its name ([`Input::Reader`]).
pub struct NamedReader {
    name: String,
    reader: std::sync::Mutex<Option<Box<dyn io::Read + Send>>>,
}

impl Input {
    /// The file (or directory, or `-`) at `path`.
    pub fn path(path: impl Into<PathBuf>) -> Input {
        Input::Path(path.into())
    }

    /// The bytes `reader` gives (compressed or not, as a file's), named
    /// `name` in every diagnostic and record.
    pub fn reader(name: impl Into<String>, reader: impl io::Read + Send + 'static) -> Input {
        Input::Reader(NamedReader {
            name: name.into(),
            reader: std::sync::Mutex::new(Some(Box::new(reader))),
        })
    }

    /// The input's path, when it is one (`-` included).
    pub fn as_path(&self) -> Option<&std::path::Path> {
        match self {
            Input::Path(p) => Some(p),
            Input::Reader(_) => None,
        }
    }

    /// The input's name as reports show it (`<stdin>` for `-`).
    pub fn name(&self) -> String {
        match self {
            Input::Path(p) => crate::input::open::input_name(p),
            Input::Reader(r) => r.name.clone(),
        }
    }

    /// The path its statistics record: the path, or the reader's name.
    pub(crate) fn stats_path(&self) -> PathBuf {
        match self {
            Input::Path(p) => p.clone(),
            Input::Reader(r) => PathBuf::from(&r.name),
        }
    }

    /// Whether it is standard input, or a reader (neither can be read twice
    /// nor cut into byte ranges).
    pub fn is_stream(&self) -> bool {
        self.as_path()
            .is_none_or(|p| p == std::path::Path::new("-"))
    }
}

impl NamedReader {
    /// The reader, taken: an input is read once.
    pub(crate) fn take(&self) -> Option<Box<dyn io::Read + Send>> {
        self.reader.lock().ok()?.take()
    }
}

impl std::fmt::Debug for Input {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Input::Path(p) => f.debug_tuple("Path").field(p).finish(),
            Input::Reader(r) => f.debug_tuple("Reader").field(&r.name).finish(),
        }
    }
}

/// The size of the inputs on disk, when every one is a file.
fn total_size(inputs: &[Input]) -> Option<u64> {
    inputs
        .iter()
        .map(|i| {
            let p = i.as_path()?;
            crate::input::open::total_size(std::slice::from_ref(&p.to_path_buf()))
        })
        .sum()
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
    let files: Vec<Input> = files.iter().cloned().map(Input::Path).collect();
    let inputs = Inputs {
        files: &files,
        range: None,
        threads,
        quiet,
        spool: None,
        max_game_bytes: crate::input::chunk::MAX_GAME_BYTES,
        movetext: Movetext::Tokens,
    };
    inputs.for_each_game(work, sink)
}

/// The inputs of a run and how to read them.
#[derive(Clone, Copy)]
pub struct Inputs<'f, 's> {
    /// `-` is standard input; none means standard input.
    pub files: &'f [Input],
    /// Only the games of this `--byte-range` of the one file.
    pub range: Option<ByteRange>,
    pub threads: usize,
    pub quiet: bool,
    /// Set when the sink writes through this writer: then several inputs
    /// may be read at once, and the writer puts what the sink writes for
    /// each in input order.
    pub spool: Option<&'f Spooled<'s>>,
    /// A stretch of this many bytes where no game starts (or a line this
    /// long) is skipped and reported, not held (`--max-game-bytes`).
    pub max_game_bytes: usize,
    /// What the games handed to the work keep of their movetext
    /// ([`Movetext::Skipped`]: a run that reads only tags).
    pub movetext: Movetext,
}

impl<'f, 's> Inputs<'f, 's> {
    /// Runs `work` on every game and feeds `sink` in input order.
    ///
    /// # Errors
    ///
    /// The first error of `sink` (a write failure), which stops the run.
    pub fn for_each_game<R: Send>(
        &self,
        work: impl Fn(&RawGame<'_>) -> R + Sync,
        sink: impl FnMut(Event<'_, R>) -> anyhow::Result<()>,
    ) -> anyhow::Result<Totals> {
        let no_lines = |_: &Line, _: LineFormat| -> R { unreachable!("PGN inputs hold no lines") };
        self.job(InputFormat::Pgn).for_each(&work, &no_lines, sink)
    }

    /// Every tag name the games use, in order of first appearance (a
    /// reading pass of its own, for `convert --tags all`), and the first
    /// input that could not be read to its end, if any.
    ///
    /// # Errors
    ///
    /// When the stream itself fails.
    pub fn tag_names(&self) -> anyhow::Result<(Vec<String>, Option<FailedInput>)> {
        let mut names: Vec<String> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut failed = None;
        self.for_each_game(
            |raw| -> Vec<String> {
                let mut own: Vec<String> = Vec::new();
                let mut seen = std::collections::HashSet::new();
                for tag in &raw.tags {
                    if seen.insert(tag.name) {
                        own.push(crate::rules::game::decode_text(tag.name).into_owned());
                    }
                }
                own
            },
            |event| {
                match event {
                    Event::Game(_, own) => {
                        for name in own {
                            if seen.insert(name.clone()) {
                                names.push(name);
                            }
                        }
                    }
                    Event::Failed(file, err) if failed.is_none() => {
                        failed = Some((file.to_owned(), err));
                    }
                    _ => {}
                }
                Ok(())
            },
        )?;
        Ok((names, failed))
    }

    /// Runs `game` on every PGN game and `line` on every record line, each
    /// input read as `format` says, and feeds `sink` in input order. The
    /// game number of a [`GameCtx`] counts games or record lines in their
    /// file.
    ///
    /// # Errors
    ///
    /// The first error of `sink` (a write failure), which stops the run.
    pub fn for_each_record<R: Send>(
        &self,
        format: InputFormat,
        game: impl Fn(&RawGame<'_>) -> R + Sync,
        line: impl Fn(&Line, LineFormat) -> R + Sync,
        sink: impl FnMut(Event<'_, R>) -> anyhow::Result<()>,
    ) -> anyhow::Result<Totals> {
        self.job(format).for_each(&game, &line, sink)
    }

    fn job(&self, format: InputFormat) -> StreamJob<'f, 's> {
        StreamJob {
            spool: self.spool,
            files: self.files,
            format,
            range: self.range,
            threads: self.threads,
            quiet: self.quiet,
            max: self.max_game_bytes,
            movetext: self.movetext,
        }
    }
}

/// One streaming run over all its inputs, each read as `format` says.
struct StreamJob<'f, 's> {
    spool: Option<&'f Spooled<'s>>,
    files: &'f [Input],
    format: InputFormat,
    range: Option<ByteRange>,
    threads: usize,
    quiet: bool,
    /// `--max-game-bytes`.
    max: usize,
    movetext: Movetext,
}

/// A worker's result for one [`Item`].
enum ItemResult<R> {
    Opened { name: String, span: Span },
    Chunk(ChunkResult<R>),
    Lines(Vec<R>),
    SkippedLine(crate::input::lines::SkippedLine),
    Failed { name: String, error: io::Error },
}

struct ChunkResult<R> {
    data: Vec<u8>,
    at_end: bool,
    /// A piece of a stretch skipped for its length: never scanned.
    skipped: bool,
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
    movetext: Movetext,
    work: &(impl Fn(&RawGame<'_>) -> R + Sync),
) -> Option<Scanned<R>> {
    let scan = scan_with(data, at_end, movetext);
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

/// Where the current input stands, as the calling thread hands its results
/// to the sink in order.
#[derive(Default)]
struct InputState {
    name: String,
    /// Games (or record lines) of the current input delivered so far.
    game: u64,
    line_offset: u64,
    /// A chunk that ended in an unclean state, waiting for the next one
    /// (and the chunks after it, while the join is not clean).
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
    stats: InputTotals,
    /// The length of `held` when it was last scanned.
    held_scanned: usize,
    /// `--max-game-bytes`: `held` is scanned as it stands past this.
    max: usize,
    /// What the games keep of their movetext.
    movetext: Movetext,
    /// The stretch being skipped, until its last piece.
    skip: Option<Skipped>,
    totals: Totals,
}

impl InputState {
    fn opened(&mut self, name: String, span: Span) {
        self.close();
        self.name.clone_from(&name);
        self.game = 0;
        self.line_offset = 0;
        self.held.clear();
        self.tail.clear();
        self.skip = None;
        self.base = span.first_byte;
        self.complete = false;
        self.stats = InputTotals {
            file: name,
            path: span.path.clone(),
            region: span.range.map(|_| crate::output::stats::Digest::default()),
            range: span.range,
            first_byte: span.first_byte,
            limit: span.limit,
            end_byte: span.first_byte,
            ..InputTotals::default()
        };
        self.span = Some(span);
    }

    /// Ends the current input's record, if one is open.
    fn close(&mut self) {
        if self.span.take().is_some() {
            if !self.complete {
                if let Some(region) = &mut self.stats.region {
                    region.update(&self.held);
                }
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
        if name == self.name {
            self.end_skip(sink)?;
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
        (raw, raw_offset): (&[u8], u64),
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
            raw,
            raw_offset,
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
            .try_for_each(|result| self.deliver(result, None, (&[], 0), sink))
    }

    fn chunk<R>(
        &mut self,
        chunk: ChunkResult<R>,
        work: &(impl Fn(&RawGame<'_>) -> R + Sync),
        sink: &mut impl FnMut(Event<'_, R>) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        if self.complete {
            return Ok(());
        }
        let limit = self.span.as_ref().and_then(|s| s.limit);
        if !chunk.skipped || limit.is_some_and(|l| self.base == l) {
            self.end_skip(sink)?;
        }
        if let Some(limit) = limit
            && self.held.is_empty()
            && self.base == limit
        {
            // The region ended where a game starts, between games: the next
            // shard begins exactly here.
            self.complete(limit, self.line_offset);
            return Ok(());
        }
        let ChunkResult {
            data,
            at_end,
            skipped,
            scanned,
        } = chunk;
        if skipped {
            return self.skipped(data, at_end, work, sink);
        }
        let (data, scanned) = if self.held.is_empty() {
            (data, scanned)
        } else {
            // The previous split was wrong: scan both as one. While the
            // join stays unclean (a comment that never closes), it is
            // scanned again only when it has doubled, so the scans of a
            // long unclean stretch add up to linear time, not quadratic;
            // past `--max-game-bytes` it is scanned as it stands, its end
            // taken as the end of its last game, so memory stays bounded.
            let mut joined = std::mem::take(&mut self.held);
            joined.extend_from_slice(&data);
            let whole = at_end || joined.len() >= self.max;
            if !whole && joined.len() < 2 * self.held_scanned {
                self.held = joined;
                return Ok(());
            }
            let scanned = scan_chunk(&joined, whole, self.movetext, work);
            (joined, scanned)
        };
        let Some(scanned) = scanned else {
            self.held_scanned = data.len();
            self.held = data;
            return Ok(());
        };
        self.scanned(data, scanned, sink)
    }

    /// Hands the games of a scanned chunk to `sink`, up to the end of the
    /// shard's region.
    fn scanned<R>(
        &mut self,
        data: Vec<u8>,
        scanned: Scanned<R>,
        sink: &mut impl FnMut(Event<'_, R>) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        let limit = self.span.as_ref().and_then(|s| s.limit);
        let past = limit.filter(|&l| self.base + data.len() as u64 > l);
        let first_chunk = self.game == 0;
        let offsets = scanned.offsets;
        for (j, result) in scanned.results.into_iter().enumerate() {
            let offset = offsets[j];
            let end = offsets.get(j + 1).copied().unwrap_or(data.len());
            // What opens a later chunk before its first game goes with
            // that game; what precedes a file's first game, with none.
            let start = if j == 0 && !first_chunk { 0 } else { offset };
            let at = self.base + offset as u64;
            if let Some(limit) = past
                && at >= limit
                && self.starts_cut(&data, offset)
            {
                // The first game past the region that starts at a cut point,
                // with the parse between games: the shard ends here.
                let lines = memchr::memchr_iter(b'\n', &data[..offset]).count() as u64;
                if let Some(region) = &mut self.stats.region {
                    region.update(&data[..offset]);
                }
                self.complete(at, self.line_offset + lines);
                return Ok(());
            }
            let raw = (&data[start..end], self.base + start as u64);
            self.deliver(result, Some(at), raw, sink)?;
        }
        for mut finding in scanned.loose {
            finding.line += self.line_offset;
            sink(Event::Loose(&self.name, finding))?;
        }
        self.line_offset += scanned.lines;
        self.advance(&data);
        Ok(())
    }

    /// One piece of a stretch skipped for its length: counted, its bytes in
    /// the region's digest, never scanned; the stretch is reported with its
    /// last piece. A held unclean chunk before it is scanned as it stands.
    fn skipped<R>(
        &mut self,
        data: Vec<u8>,
        at_end: bool,
        work: &(impl Fn(&RawGame<'_>) -> R + Sync),
        sink: &mut impl FnMut(Event<'_, R>) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        if !self.held.is_empty() {
            let held = std::mem::take(&mut self.held);
            if let Some(scanned) = scan_chunk(&held, true, self.movetext, work) {
                self.scanned(held, scanned, sink)?;
            }
            if self.complete {
                return Ok(());
            }
        }
        let lines = memchr::memchr_iter(b'\n', &data).count() as u64;
        let skip = self.skip.get_or_insert(Skipped {
            start: self.base,
            end: self.base,
            line: self.line_offset + 1,
            what: if data.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[') {
                SkippedKind::Game
            } else {
                SkippedKind::Text
            },
            max: self.max,
        });
        skip.end += data.len() as u64;
        self.line_offset += lines;
        self.advance(&data);
        if at_end {
            self.end_skip(sink)?;
        }
        Ok(())
    }

    /// Reports the stretch being skipped, if there is one.
    fn end_skip<R>(
        &mut self,
        sink: &mut impl FnMut(Event<'_, R>) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        match self.skip.take() {
            Some(skip) => {
                self.totals.skipped += 1;
                sink(Event::Skipped(&self.name, skip))
            }
            None => Ok(()),
        }
    }

    /// Moves past `data`, which the stream has dealt with: the region's
    /// digest, the offset of the next chunk and the bytes before it.
    fn advance(&mut self, data: &[u8]) {
        let limit = self.span.as_ref().and_then(|s| s.limit);
        if let Some(region) = &mut self.stats.region {
            region.update(data);
        }
        self.base += data.len() as u64;
        if limit.is_some() {
            let keep = data.len().min(LOOK_BACK + 1);
            if keep < LOOK_BACK + 1 {
                self.tail.extend_from_slice(data);
                let extra = self.tail.len().saturating_sub(LOOK_BACK + 1);
                self.tail.drain(..extra);
            } else {
                self.tail = data[data.len() - keep..].to_vec();
            }
        }
    }

    /// The in-order part of one worker result: hands what it holds to
    /// `sink` and moves the progress bar.
    fn handle<R>(
        &mut self,
        done: ItemResult<R>,
        feed: &ProgressFeed<'_>,
        game: &(impl Fn(&RawGame<'_>) -> R + Sync),
        sink: &mut impl FnMut(Event<'_, R>) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        let before = self.totals.games;
        match done {
            ItemResult::Opened { name, span } => {
                if feed.files.len() > 1 {
                    feed.progress.set_file(&name);
                }
                self.opened(name, span);
            }
            ItemResult::Failed { name, error } => self.failed(&name, error, sink)?,
            ItemResult::Chunk(chunk) => self.chunk(chunk, game, sink)?,
            ItemResult::Lines(results) => self.results(results, sink)?,
            ItemResult::SkippedLine(line) => {
                self.totals.skipped += 1;
                let skip = Skipped {
                    start: line.start,
                    end: line.end,
                    line: line.number,
                    what: SkippedKind::Line,
                    max: self.max,
                };
                sink(Event::Skipped(&self.name, skip))?;
            }
        }
        let added = self.totals.games - before;
        let games = feed.games.fetch_add(added, Ordering::Relaxed) + added;
        feed.progress
            .update(feed.counter.load(Ordering::Relaxed), games);
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

impl StreamJob<'_, '_> {
    fn for_each<R: Send>(
        &self,
        game: &(impl Fn(&RawGame<'_>) -> R + Sync),
        line: &(impl Fn(&Line, LineFormat) -> R + Sync),
        mut sink: impl FnMut(Event<'_, R>) -> anyhow::Result<()>,
    ) -> anyhow::Result<Totals> {
        let stdin = [Input::path("-")];
        let files: &[Input] = if self.files.is_empty() {
            &stdin
        } else {
            self.files
        };
        let progress = Progress::bytes(total_size(files), self.quiet);
        let counter = Arc::new(AtomicU64::new(0));
        let readers = match &self.spool {
            Some(_) => (self.threads / WORKERS_PER_READER).clamp(1, files.len()),
            None => 1,
        };
        let totals = if readers == 1 {
            let games = AtomicU64::new(0);
            let feed = ProgressFeed {
                files,
                counter: &counter,
                progress: &progress,
                games: &games,
            };
            self.read(&feed, self.threads, game, line, &mut sink)?
        } else {
            let spool = self.spool.as_ref().expect("several readers need the spool");
            self.read_concurrently(files, readers, spool, &counter, &progress, game, line, sink)?
        };
        progress.finish();
        Ok(totals)
    }

    /// Reads `files` one after another through one pipeline of `workers`.
    fn read<R: Send>(
        &self,
        feed: &ProgressFeed<'_>,
        workers: usize,
        game: &(impl Fn(&RawGame<'_>) -> R + Sync),
        line: &(impl Fn(&Line, LineFormat) -> R + Sync),
        sink: &mut impl FnMut(Event<'_, R>) -> anyhow::Result<()>,
    ) -> anyhow::Result<Totals> {
        let movetext = self.movetext;
        let mut state = InputState {
            max: self.max,
            movetext,
            ..InputState::default()
        };
        let counter = feed.counter;
        pipeline::ordered_within(
            source::items(
                feed.files,
                self.format,
                self.range,
                self.max,
                Arc::clone(counter),
            ),
            workers,
            budget(workers),
            |item| work_on(item, movetext, game, line),
            |done| state.handle(done, feed, game, sink),
        )?;
        state.close();
        Ok(state.totals)
    }

    /// Reads up to `readers` inputs at once, each through its own pipeline
    /// with its share of the workers, on threads of their own; the calling
    /// thread hands each input's results to the sink in that input's order,
    /// and `spool` puts what the sink writes in input order.
    #[allow(clippy::too_many_arguments)]
    fn read_concurrently<R: Send>(
        &self,
        files: &[Input],
        readers: usize,
        spool: &Spooled<'_>,
        counter: &Arc<AtomicU64>,
        progress: &Progress,
        game: &(impl Fn(&RawGame<'_>) -> R + Sync),
        line: &(impl Fn(&Line, LineFormat) -> R + Sync),
        mut sink: impl FnMut(Event<'_, R>) -> anyhow::Result<()>,
    ) -> anyhow::Result<Totals> {
        /// What a reader thread sends the calling thread.
        enum Msg<R> {
            ItemResult(ItemResult<R>),
            /// The input's pipeline ended (with the error that stopped it).
            End(Option<anyhow::Error>),
        }
        let workers = (self.threads / readers).max(1);
        let (format, range, max, movetext) = (self.format, self.range, self.max, self.movetext);
        let next = AtomicUsize::new(0);
        let games = AtomicU64::new(0);
        let feed = ProgressFeed {
            files,
            counter,
            progress,
            games: &games,
        };
        let mut states: Vec<InputState> = Vec::new();
        states.resize_with(files.len(), || InputState {
            max,
            movetext,
            ..InputState::default()
        });
        let mut result = Ok(());
        std::thread::scope(|scope| {
            let (tx, rx) = mpsc::sync_channel::<(usize, Msg<R>)>(4 * self.threads);
            for _ in 0..readers {
                let tx = tx.clone();
                let next = &next;
                scope.spawn(move || {
                    loop {
                        let index = next.fetch_add(1, Ordering::Relaxed);
                        if index >= files.len() {
                            break;
                        }
                        let ended = pipeline::ordered_within(
                            source::items(
                                &files[index..=index],
                                format,
                                range,
                                max,
                                Arc::clone(counter),
                            ),
                            workers,
                            budget(workers),
                            |item| work_on(item, movetext, game, line),
                            |done| tx.send((index, Msg::ItemResult(done))),
                        );
                        let error = ended.err().map(|_| anyhow::anyhow!("stopped"));
                        if tx.send((index, Msg::End(error))).is_err() {
                            break;
                        }
                    }
                });
            }
            drop(tx);
            for (index, msg) in &rx {
                spool.enter(index);
                let state = &mut states[index];
                let step = match msg {
                    Msg::ItemResult(done) => state.handle(done, &feed, game, &mut sink),
                    Msg::End(None) => {
                        state.close();
                        spool.finished(index).map_err(anyhow::Error::from)
                    }
                    Msg::End(Some(error)) => Err(error),
                };
                if let Err(error) = step {
                    result = Err(error);
                    // Dropping the receiver stops every reader.
                    break;
                }
            }
            drop(rx);
        });
        result?;
        let mut totals = Totals::default();
        for state in states {
            totals.games += state.totals.games;
            totals.failed += state.totals.failed;
            totals.skipped += state.totals.skipped;
            totals.inputs.extend(state.totals.inputs);
        }
        Ok(totals)
    }
}

/// What the pipeline of `workers` may hold in flight: [`BYTES_PER_THREAD`]
/// of input per worker.
fn budget(workers: usize) -> pipeline::Budget<fn(&Item) -> usize> {
    pipeline::Budget {
        bytes: BYTES_PER_THREAD.saturating_mul(workers),
        weigh: Item::weight,
    }
}

/// A worker's part: scans a chunk and runs the per-game work on its games,
/// or runs the per-line work on a batch of lines.
fn work_on<R>(
    item: Item,
    movetext: Movetext,
    game: &(impl Fn(&RawGame<'_>) -> R + Sync),
    line: &(impl Fn(&Line, LineFormat) -> R + Sync),
) -> ItemResult<R> {
    match item {
        Item::Opened { name, span } => ItemResult::Opened { name, span },
        Item::Failed { name, error } => ItemResult::Failed { name, error },
        Item::Chunk {
            data,
            at_end,
            skipped,
        } => {
            let scanned = if skipped {
                None
            } else {
                scan_chunk(&data, at_end, movetext, game)
            };
            ItemResult::Chunk(ChunkResult {
                data,
                at_end,
                skipped,
                scanned,
            })
        }
        Item::SkippedLine(line) => ItemResult::SkippedLine(line),
        Item::Lines { lines, format } => ItemResult::Lines(
            lines
                .iter()
                .filter(|l| format.is_record(l))
                .map(|l| line(l, format))
                .collect(),
        ),
    }
}

/// Workers one reader keeps busy: decompressing zstd runs several times
/// faster than validating what it gives, so a run starts one reader (one
/// input read at a time) per this many workers.
pub const WORKERS_PER_READER: usize = 4;

/// What the pipelines of a run share: the inputs they read, and what they
/// feed the progress bar (raw bytes read, games delivered).
struct ProgressFeed<'r> {
    files: &'r [Input],
    counter: &'r Arc<AtomicU64>,
    progress: &'r Progress,
    /// Games delivered by all pipelines, for the progress bar.
    games: &'r AtomicU64,
}
