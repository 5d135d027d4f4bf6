//! `perft`: count the move tree of one position, or verify a suite, each
//! result a typed [`PerftRow`] handed to a [`PerftSink`] ([`PerftText`]
//! writes the command line's lines).
//!
//! This module turns the options into a position (or a suite read through
//! [`crate::input::open`], so compressed or from `-`, and parsed by
//! [`crate::rules::perft::suite`]), runs the count on a rayon pool and
//! hands the results to [`crate::output::perft`]. The root moves, or the
//! checks of a suite, go through [`crate::pipeline::ordered`], which keeps
//! their order; each is counted on the pool, and a position's tree is
//! split again at the second ply from depth 4 so that two cores stay busy
//! even with few root moves. Every subtree is counted by the sequential
//! `rules::perft::perft`, and all of them share one transposition table.
//! Counts are exact, so stdout is the same for any `--threads` and
//! `--hash`. Timing goes to the [`Diagnostics`], and the progress bar is
//! the shared [`crate::stream::progress`] one.
//!
//! Output streams: each divide line and each suite line is written and
//! flushed as soon as it and every line before it are known, and the
//! summary goes to standard error only after standard output is flushed,
//! so a terminal shows results before it.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use anyhow::Context;
use rayon::prelude::*;
use shakmaty::{Chess, Position};

use super::options::PerftOptions as PerftArgs;
use super::streaming::{THREADS_PER_CORE, thread_count};
use crate::error::{Error, ErrorKind};
use crate::exit::ExitStatus;
use crate::input::open::open;
use crate::output::diag;
use crate::output::diag::{Diagnostics, Level};
use crate::output::perft::{
    position_summary, rate, suite_summary, write_check, write_root_move, write_total,
};
use crate::pipeline;
use crate::rules::game::decode_text;
use crate::rules::perft::suite::{CheckCount, SuiteCheck, parse_suite};
use crate::rules::perft::{self, Table};
use crate::stream::progress::Progress;

const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// The FEN argument that names the standard start position, as UCI's
/// `position startpos` does.
const STARTPOS: &str = "startpos";

/// Stack of each worker thread (address space; touched only when used).
const WORKER_STACK: usize = 16 << 20;

/// One result of a perft run, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PerftRow<'a> {
    /// A legal root move in UCI and the leaf nodes below it (`divide`).
    RootMove { uci: &'a str, nodes: u64 },
    /// The leaf nodes of the position; `divide` says root moves came first.
    Total { nodes: u64, divide: bool },
    /// A check of a suite: the FEN of its record, where the check stands
    /// and what it expects, and what was counted.
    Check {
        fen: &'a str,
        check: SuiteCheck,
        got: CheckCount,
    },
}

/// Where perft's rows go, each as soon as it and every row before it are
/// known.
pub trait PerftSink {
    /// The next row.
    ///
    /// # Errors
    ///
    /// When the sink takes no more (the run then stops).
    fn row(&mut self, row: PerftRow<'_>) -> std::io::Result<()>;
}

/// The command line's perft output: a line per row, each flushed at once.
pub struct PerftText<'a>(pub &'a mut dyn Write);

impl PerftSink for PerftText<'_> {
    fn row(&mut self, row: PerftRow<'_>) -> std::io::Result<()> {
        match row {
            PerftRow::RootMove { uci, nodes } => write_root_move(self.0, uci, nodes)?,
            PerftRow::Total { nodes, divide } => write_total(self.0, nodes, divide)?,
            PerftRow::Check { fen, check, got } => write_check(self.0, &check, fen, got)?,
        }
        self.0.flush()
    }
}

/// The settings of one run, from the arguments, checked once.
struct Settings {
    job: Job,
    chess960: bool,
    /// Worker threads; 0 lets rayon choose (every core).
    threads: usize,
    hash_mib: usize,
    /// No summaries (`--quiet`).
    quiet: bool,
    /// Whether the progress bar may be drawn.
    bar: bool,
}

/// What to count.
enum Job {
    /// One position (a FEN, then `--moves`) to `depth`.
    Position {
        fen: String,
        moves: Option<String>,
        depth: u32,
        divide: bool,
    },
    /// Every check of a suite file, up to `depth` and `max_nodes`.
    Suite {
        path: PathBuf,
        depth: Option<u32>,
        max_nodes: Option<u64>,
    },
}

/// Checks the flags against each other and builds the settings.
///
/// # Errors
///
/// Conflicting or missing flags.
fn settings(
    args: &PerftArgs,
    fen: Option<&str>,
    diagnostics: &dyn Diagnostics,
) -> Result<Settings, Error> {
    let job = match &args.suite {
        Some(path) => {
            if fen.is_some() || args.moves.is_some() || args.divide {
                return Err(Error::usage(
                    "--suite cannot be combined with a FEN, --moves or --divide",
                ));
            }
            Job::Suite {
                path: path.clone(),
                depth: args.depth,
                max_nodes: args.max_nodes,
            }
        }
        None => {
            let Some(depth) = args.depth else {
                return Err(Error::usage(
                    "--depth is required (unless --suite is given)",
                ));
            };
            if args.max_nodes.is_some() {
                return Err(Error::usage("--max-nodes only applies to --suite"));
            }
            Job::Position {
                fen: match fen {
                    None | Some(STARTPOS) => START_FEN,
                    Some(fen) => fen,
                }
                .to_owned(),
                moves: args.moves.clone(),
                depth,
                divide: args.divide,
            }
        }
    };
    Ok(Settings {
        job,
        chess960: args.chess960,
        threads: capped_threads(args.threads, args.quiet, diagnostics),
        hash_mib: args.hash,
        quiet: args.quiet,
        bar: !args.quiet && diagnostics.shows_progress(),
    })
}

/// `-j` capped as every subcommand caps it ([`super::thread_count`]), with
/// a note on standard error when it was lowered.
fn capped_threads(threads: Option<u16>, quiet: bool, diagnostics: &dyn Diagnostics) -> usize {
    let n = thread_count(threads);
    if let Some(asked) = threads.map(usize::from)
        && asked > n
        && !quiet
    {
        let note = format!("perft: -j {asked} lowered to {n} ({THREADS_PER_CORE} per core)");
        diagnostics.line(Level::Note, &note);
    }
    n
}

/// Runs the subcommand ([`super::perft`]).
///
/// # Errors
///
/// Conflicting or missing flags, a bad FEN or `--moves`, an unreadable or
/// malformed suite file, a hash table that cannot be allocated, or a failed
/// write. Suite checks that do not match are findings (exit 1), not errors.
pub(super) fn run(
    args: &PerftArgs,
    fen: Option<&str>,
    out: &mut dyn PerftSink,
    diagnostics: &dyn Diagnostics,
) -> Result<ExitStatus, Error> {
    let settings = settings(args, fen, diagnostics)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(settings.threads)
        // The recursion keeps a move list per ply: room for deep forced
        // lines (a suite asks for depth 32).
        .stack_size(WORKER_STACK)
        .build()
        .context("failed to start worker threads")?;
    let table = Table::with_mib(settings.hash_mib).map_err(Error::internal)?;
    match &settings.job {
        Job::Suite {
            path,
            depth,
            max_nodes,
        } => {
            let selected = |check: &SuiteCheck| {
                depth.is_none_or(|d| check.depth <= d)
                    && max_nodes.is_none_or(|max| check.nodes <= max)
            };
            let limits = Limits {
                selected: &selected,
                max_nodes: *max_nodes,
            };
            let count = Counting {
                settings: &settings,
                table: table.as_ref(),
                pool: &pool,
                diagnostics,
            };
            run_suite(&count, path, &limits, out)
        }
        Job::Position {
            fen,
            moves,
            depth,
            divide,
        } => {
            // A bad FEN or move list is a bad argument value.
            let usage = |e| Error::composed(ErrorKind::Usage, e);
            let mut pos = perft::parse_position(fen, settings.chess960)
                .with_context(|| format!("invalid fen {fen:?}"))
                .map_err(usage)?;
            if let Some(moves) = moves {
                pos = perft::play_uci(pos, moves)
                    .context("cannot play --moves")
                    .map_err(usage)?;
            }
            let count = Counting {
                settings: &settings,
                table: table.as_ref(),
                pool: &pool,
                diagnostics,
            };
            run_position(&count, &pos, *depth, *divide, out)
        }
    }
}

/// What counting needs besides the job: the settings, the shared table,
/// the pool, and where the summaries go.
struct Counting<'a> {
    settings: &'a Settings,
    table: Option<&'a Table>,
    pool: &'a rayon::ThreadPool,
    diagnostics: &'a dyn Diagnostics,
}

fn run_position(
    count: &Counting<'_>,
    pos: &Chess,
    depth: u32,
    divide: bool,
    out: &mut dyn PerftSink,
) -> Result<ExitStatus, Error> {
    let Counting {
        settings,
        table,
        pool,
        diagnostics,
    } = *count;
    let progress = Meter::new(!settings.bar, "root moves");
    let start = Instant::now();
    let total = if depth == 0 {
        1
    } else {
        let roots = perft::root_moves(pos);
        progress.set_len(roots.len() as u64);
        let mut total = 0;
        pipeline::ordered(
            roots.iter(),
            settings.threads,
            |root| {
                let count = pool.install(|| count_subtree(&root.pos, depth - 1, table, &progress));
                progress.inc(1);
                (root, count)
            },
            |(root, count)| -> Result<(), Error> {
                total += count;
                if divide {
                    let row = PerftRow::RootMove {
                        uci: &root.uci,
                        nodes: count,
                    };
                    progress.suspend(|| out.row(row)).map_err(Error::stdout)?;
                }
                Ok(())
            },
        )?;
        total
    };
    let elapsed = start.elapsed();
    progress.finish();

    out.row(PerftRow::Total {
        nodes: total,
        divide,
    })
    .map_err(Error::stdout)?;

    if !settings.quiet {
        diagnostics.line(Level::Note, &position_summary(depth, total, elapsed));
    }
    Ok(ExitStatus::Ok)
}

/// Counts `depth` plies below `pos`, splitting the first ply over threads
/// when the subtrees are worth it.
fn count_subtree(pos: &Chess, depth: u32, table: Option<&Table>, progress: &Meter) -> u64 {
    if depth < 3 {
        let count = perft::perft(pos, depth, table);
        progress.add_nodes(count);
        return count;
    }
    children(pos)
        .into_par_iter()
        .map(|child| {
            let count = perft::perft(&child, depth - 1, table);
            progress.add_nodes(count);
            count
        })
        .sum()
}

/// The position after each legal move of `pos`.
fn children(pos: &Chess) -> Vec<Chess> {
    let moves = pos.legal_moves();
    moves
        .iter()
        .map(|&m| {
            let mut child = pos.clone();
            child.play_unchecked(m);
            child
        })
        .collect()
}

/// Which checks of a suite run, and the node count past which one stops.
struct Limits<'a, F> {
    selected: &'a F,
    /// A check whose real count passes this is stopped there and fails: a
    /// suite's claimed count is not trusted to bound the work.
    max_nodes: Option<u64>,
}

/// Counts `depth` plies below `pos`, giving up (`None`) once more than
/// `budget` nodes are counted. A leaf-less subtree counts as one node of
/// work, so the work stays bounded by the budget whatever the tree.
fn count_bounded(
    pos: &Chess,
    depth: u32,
    table: Option<&Table>,
    budget: u64,
    used: &AtomicU64,
) -> Option<u64> {
    if used.load(Ordering::Relaxed) > budget {
        return None;
    }
    if depth <= 2 {
        let count = perft::perft(pos, depth, table);
        let charged = count.max(1);
        return (used.fetch_add(charged, Ordering::Relaxed) + charged <= budget).then_some(count);
    }
    let children = children(pos);
    if children.is_empty() {
        return (used.fetch_add(1, Ordering::Relaxed) < budget).then_some(0);
    }
    children
        .into_par_iter()
        .map(|child| count_bounded(&child, depth - 1, table, budget, used))
        .try_reduce(|| 0, |a, b| Some(a + b))
}

fn run_suite(
    count: &Counting<'_>,
    path: &Path,
    limits: &Limits<'_, impl Fn(&SuiteCheck) -> bool + Sync>,
    out: &mut dyn PerftSink,
) -> Result<ExitStatus, Error> {
    let Counting {
        settings,
        table,
        pool,
        diagnostics,
    } = *count;
    let (name, bytes) = read_suite(path)?;
    // A suite's comments may be Latin-1: read as such rather than refused
    // (a UTF-8 byte order mark goes first, so that it cannot become `ï»¿`).
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&bytes);
    let text = decode_text(bytes);
    let selected = limits.selected;
    // The error quotes the file's bytes: cut, so a giant token is not echoed.
    let records = parse_suite(&text).map_err(|e| {
        let clipped = anyhow::anyhow!("{}", diag::clipped(&e.to_string(), 2 * diag::SHOWN));
        Error::input(path, format!("invalid perft suite {name}"), clipped)
    })?;

    // Every selected check, in file order, with its record; a record's
    // position is set up once, and only when one of its checks runs.
    let checks: Vec<(usize, SuiteCheck)> = records
        .iter()
        .enumerate()
        .flat_map(|(r, record)| record.checks.iter().map(move |c| (r, *c)))
        .filter(|(_, c)| selected(c))
        .collect();
    let mut positions: Vec<Option<Result<Chess, String>>> = vec![None; records.len()];
    for &(r, _) in &checks {
        positions[r].get_or_insert_with(|| {
            perft::parse_position(&records[r].fen, settings.chess960).map_err(|e| e.to_string())
        });
    }
    let planned = checks.len() as u64;
    let listed: u64 = records.iter().map(|r| r.checks.len() as u64).sum();

    let progress = Meter::new(!settings.bar, "checks");
    progress.set_len(planned);
    let start = Instant::now();
    let (mut failed, mut nodes) = (0u64, 0u64);
    let mut last_record = None;

    pipeline::ordered(
        checks.iter(),
        settings.threads,
        |&(r, check)| {
            let got = match &positions[r] {
                Some(Ok(pos)) => pool
                    .install(|| count_check(pos, check.depth, limits.max_nodes, table, &progress)),
                _ => CheckCount::NoPosition,
            };
            progress.inc(1);
            (r, check, got)
        },
        |(r, check, got)| -> Result<(), Error> {
            let record = &records[r];
            let wrote = progress.suspend(|| {
                if last_record != Some(r) {
                    last_record = Some(r);
                    if let Some(Err(err)) = &positions[r] {
                        let message = format!(
                            "{name}:{}: invalid fen {:?}: {err}",
                            record.line, record.fen
                        );
                        diagnostics.line(Level::Error, &diag::error_line(message));
                    }
                }
                failed += u64::from(!got.is_expected(&check));
                nodes += got.nodes();
                out.row(PerftRow::Check {
                    fen: &record.fen,
                    check,
                    got,
                })
            });
            wrote.map_err(Error::stdout)?;
            Ok(())
        },
    )?;
    let elapsed = start.elapsed();
    progress.finish();

    if !settings.quiet {
        diagnostics.line(
            Level::Note,
            &suite_summary(&name, planned, failed, listed - planned, nodes, elapsed),
        );
    }
    Ok(if failed > 0 {
        ExitStatus::Problems
    } else {
        ExitStatus::Ok
    })
}

/// The name of the suite input and its bytes, decompressed: any input, a
/// file or `-`, plain or compressed, as every subcommand reads them.
///
/// # Errors
///
/// When the input cannot be opened or read.
fn read_suite(path: &Path) -> Result<(String, Vec<u8>), Error> {
    let failed = |e: std::io::Error| {
        let message = if path == Path::new("-") {
            "failed to read the suite from standard input".to_owned()
        } else {
            format!("failed to read {}", path.display())
        };
        Error::input(path, message, e)
    };
    if path.is_dir() {
        // What reading a directory says (`open` speaks of PGN files).
        return Err(failed(std::io::Error::from_raw_os_error(libc::EISDIR)));
    }
    let mut source = open(path, Arc::new(AtomicU64::new(0))).map_err(failed)?;
    let mut bytes = Vec::new();
    source.reader.read_to_end(&mut bytes).map_err(failed)?;
    Ok((source.name, bytes))
}

/// Counts one check of a suite, stopped past `max_nodes` when given.
fn count_check(
    pos: &Chess,
    depth: u32,
    max_nodes: Option<u64>,
    table: Option<&Table>,
    progress: &Meter,
) -> CheckCount {
    match max_nodes {
        None => CheckCount::Nodes(count_subtree(pos, depth, table, progress)),
        Some(max) => {
            let used = AtomicU64::new(0);
            match count_bounded(pos, depth, table, max, &used) {
                Some(n) => CheckCount::Nodes(n),
                None => CheckCount::Over(max),
            }
        }
    }
}

/// The shared progress bar, counting root moves or checks, and the
/// running node count behind its nodes/s (kept only while it is drawn).
struct Meter {
    bar: Progress,
    nodes: AtomicU64,
}

impl Meter {
    fn new(quiet: bool, unit: &str) -> Meter {
        Meter {
            bar: Progress::items(unit, quiet),
            nodes: AtomicU64::new(0),
        }
    }

    fn set_len(&self, len: u64) {
        self.bar.set_len(len);
    }

    fn inc(&self, n: u64) {
        self.bar.inc(n);
    }

    fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        self.bar.suspend(f)
    }

    fn add_nodes(&self, n: u64) {
        if self.bar.is_visible() {
            let total = self.nodes.fetch_add(n, Ordering::Relaxed) + n;
            self.bar.set_message(rate(total, self.bar.elapsed()));
        }
    }

    fn finish(&self) {
        self.bar.finish();
    }
}
