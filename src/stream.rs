//! Games from files, in input order, processed in parallel: the streaming
//! spine every PGN subcommand shares.
//!
//! Inputs are opened in turn on a reader thread and cut into chunks at game
//! boundaries ([`crate::input::chunk`]); workers scan each chunk and run the
//! subcommand's per-game work; the calling thread receives the results in
//! order, turns chunk-relative game numbers and lines into file-relative
//! ones, and hands them to the subcommand's sink. A chunk whose split turns
//! out wrong (it ends inside a comment or variation) is scanned again
//! together with the next one, on the calling thread.

use std::io;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::input::chunk::{Chunker, TARGET};
use crate::input::open::open;
use crate::input::scan::scan;
use crate::output::progress::Progress;
use crate::pipeline;
use crate::rules::finding::Finding;
use crate::rules::game::RawGame;

/// Where a game stands in the input.
#[derive(Debug, Clone, Copy)]
pub struct GameCtx<'n> {
    /// The input's name as reports show it (`<stdin>` for standard input).
    pub file: &'n str,
    /// 1-based index of the game in its file.
    pub game: u64,
    /// Add to a chunk-relative line to get the line in the file.
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

enum Item {
    Opened { name: String },
    Chunk { data: Vec<u8>, at_end: bool },
    Failed { name: String, error: io::Error },
}

struct ChunkDone<R> {
    data: Vec<u8>,
    at_end: bool,
    /// `None` when the chunk ended in an unclean state.
    scanned: Option<Scanned<R>>,
}

struct Scanned<R> {
    results: Vec<(u64, R)>,
    loose: Vec<Finding>,
    lines: u64,
}

enum Done<R> {
    Opened { name: String },
    Chunk(ChunkDone<R>),
    Failed { name: String, error: io::Error },
}

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
        results: scan.games.iter().map(|g| (g.line, work(g))).collect(),
        loose: scan.loose,
        lines: scan.lines,
    })
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
    mut sink: impl FnMut(Event<'_, R>) -> anyhow::Result<()>,
) -> anyhow::Result<Totals> {
    let stdin = [PathBuf::from("-")];
    let files: &[PathBuf] = if files.is_empty() { &stdin } else { files };
    let progress = Progress::new(crate::input::open::total_size(files), quiet);
    let counter = Arc::new(AtomicU64::new(0));

    let reader_counter = Arc::clone(&counter);
    let source = files.iter().flat_map(move |path| {
        let name = crate::input::open::input_name(path);
        match open(path, Arc::clone(&reader_counter)) {
            Err(error) => {
                let error = io::Error::new(error.kind(), format!("cannot open: {error}"));
                Box::new(std::iter::once(Item::Failed { name, error }))
                    as Box<dyn Iterator<Item = Item> + Send>
            }
            Ok(source) => {
                let opened = std::iter::once(Item::Opened { name: name.clone() });
                let chunks = Chunker::new(source.reader, TARGET).map(move |c| match c {
                    Ok(c) => Item::Chunk {
                        data: c.data,
                        at_end: c.at_end,
                    },
                    Err(error) => Item::Failed {
                        name: name.clone(),
                        error: io::Error::new(error.kind(), format!("read failed: {error}")),
                    },
                });
                Box::new(opened.chain(chunks))
            }
        }
    });

    let work = &work;
    let mut totals = Totals::default();
    // Per-file state on the calling thread.
    let mut name = String::new();
    let mut game_base = 0u64;
    let mut line_offset = 0u64;
    let mut held: Vec<u8> = Vec::new();

    pipeline::ordered(
        source,
        threads,
        |item| match item {
            Item::Opened { name } => Done::Opened { name },
            Item::Failed { name, error } => Done::Failed { name, error },
            Item::Chunk { data, at_end } => {
                let scanned = scan_chunk(&data, at_end, work);
                Done::Chunk(ChunkDone {
                    data,
                    at_end,
                    scanned,
                })
            }
        },
        |done| {
            match done {
                Done::Opened { name: n } => {
                    name = n;
                    game_base = 0;
                    line_offset = 0;
                    held.clear();
                }
                Done::Failed { name: n, error } => {
                    totals.failed += 1;
                    held.clear();
                    sink(Event::Failed(&n, error))?;
                }
                Done::Chunk(chunk) => {
                    let ChunkDone {
                        data,
                        at_end,
                        scanned,
                    } = chunk;
                    let (data, scanned) = if held.is_empty() {
                        (data, scanned)
                    } else {
                        // The previous split was wrong: scan both as one.
                        let mut joined = std::mem::take(&mut held);
                        joined.extend_from_slice(&data);
                        let scanned = scan_chunk(&joined, at_end, work);
                        (joined, scanned)
                    };
                    let Some(scanned) = scanned else {
                        held = data;
                        return Ok::<(), anyhow::Error>(());
                    };
                    for (_, result) in scanned.results {
                        game_base += 1;
                        totals.games += 1;
                        let ctx = GameCtx {
                            file: &name,
                            game: game_base,
                            line_offset,
                        };
                        sink(Event::Game(ctx, result))?;
                    }
                    for mut finding in scanned.loose {
                        finding.line += line_offset;
                        sink(Event::Loose(&name, finding))?;
                    }
                    line_offset += scanned.lines;
                    progress.update(counter.load(Ordering::Relaxed), totals.games);
                }
            }
            Ok(())
        },
    )?;
    progress.finish();
    Ok(totals)
}
