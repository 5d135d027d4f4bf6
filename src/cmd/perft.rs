//! `pgnkit perft`: count the move tree of one position, or verify a suite.
//!
//! This module turns the flags into a position (or a parsed suite), runs the
//! count on a rayon pool and writes the result. The tree is split over
//! threads at the root moves and, from depth 4, again at the second ply so
//! that two cores stay busy even with few root moves; every subtree is
//! counted by the sequential `rules::perft::perft`, and all of them share
//! one transposition table. Counts are exact, so stdout is the same for any
//! `--threads` and `--hash`. Timing goes to stderr through
//! [`crate::output::diag`], and the progress bar is the shared
//! [`crate::stream::progress`] one.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use rayon::prelude::*;
use shakmaty::{Chess, Position};

use crate::cli::PerftArgs;
use crate::exit::ExitStatus;
use crate::output::diag;
use crate::rules::perft::{self, SuiteCheck, SuiteRecord, Table};
use crate::stream::progress::Progress;

const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// Suite records evaluated in parallel before their lines are written, so
/// output streams in file order with bounded memory.
const SUITE_BATCH: usize = 256;

/// Stack of each worker thread (address space; touched only when used).
const WORKER_STACK: usize = 16 << 20;

/// The settings of one run, from the arguments, checked once.
struct Settings {
    job: Job,
    chess960: bool,
    /// Worker threads; 0 lets rayon choose (every core).
    threads: usize,
    hash_mib: usize,
    quiet: bool,
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
fn settings(args: &PerftArgs) -> anyhow::Result<Settings> {
    let job = match &args.suite {
        Some(path) => {
            if args.fen.is_some() || args.moves.is_some() || args.divide {
                bail!("--suite cannot be combined with a FEN, --moves or --divide");
            }
            Job::Suite {
                path: path.clone(),
                depth: args.depth,
                max_nodes: args.max_nodes,
            }
        }
        None => {
            let Some(depth) = args.depth else {
                bail!("--depth is required (unless --suite is given)");
            };
            if args.max_nodes.is_some() {
                bail!("--max-nodes only applies to --suite");
            }
            Job::Position {
                fen: args.fen.as_deref().unwrap_or(START_FEN).to_owned(),
                moves: args.moves.clone(),
                depth,
                divide: args.divide,
            }
        }
    };
    Ok(Settings {
        job,
        chess960: args.chess960,
        threads: capped_threads(args.threads, args.quiet),
        hash_mib: args.hash,
        quiet: args.quiet,
    })
}

/// `-j` capped as every subcommand caps it ([`super::thread_count`]), with
/// a note on standard error when it was lowered.
fn capped_threads(threads: Option<u16>, quiet: bool) -> usize {
    let n = super::thread_count(threads);
    if let Some(asked) = threads.map(usize::from)
        && asked > n
        && !quiet
    {
        diag::note(format!(
            "perft: -j {asked} lowered to {n} ({} per core)",
            super::THREADS_PER_CORE
        ));
    }
    n
}

/// Runs the subcommand.
///
/// # Errors
///
/// Conflicting or missing flags, a bad FEN or `--moves`, an unreadable or
/// malformed suite file, a hash table that cannot be allocated, or a failed
/// write. Suite checks that do not match are findings (exit 1), not errors.
pub fn run(args: &PerftArgs, out: &mut dyn Write) -> anyhow::Result<ExitStatus> {
    let settings = settings(args)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(settings.threads)
        // The recursion keeps a move list per ply: room for deep forced
        // lines (a suite asks for depth 32).
        .stack_size(WORKER_STACK)
        .build()
        .context("failed to start worker threads")?;
    let table = Table::with_mib(settings.hash_mib)?;
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
            run_suite(&settings, path, &limits, table.as_ref(), &pool, out)
        }
        Job::Position {
            fen,
            moves,
            depth,
            divide,
        } => {
            let mut pos = perft::parse_position(fen, settings.chess960)
                .with_context(|| format!("invalid fen {fen:?}"))?;
            if let Some(moves) = moves {
                pos = perft::play_uci(pos, moves).context("cannot play --moves")?;
            }
            run_position(&settings, &pos, *depth, *divide, table.as_ref(), &pool, out)
        }
    }
}

fn run_position(
    settings: &Settings,
    pos: &Chess,
    depth: u32,
    divide: bool,
    table: Option<&Table>,
    pool: &rayon::ThreadPool,
    out: &mut dyn Write,
) -> anyhow::Result<ExitStatus> {
    let progress = Meter::new(settings.quiet, "root moves");
    let start = Instant::now();
    let (counts, total) = pool.install(|| count_divide(pos, depth, table, &progress));
    let elapsed = start.elapsed();
    progress.finish();

    if divide {
        for (uci, count) in &counts {
            writeln!(out, "{uci}: {count}")?;
        }
        writeln!(out)?;
    }
    writeln!(out, "{total}")?;

    if !settings.quiet {
        diag::note(format!(
            "perft: depth {depth}: {total} nodes in {} ({})",
            seconds(elapsed),
            rate(total, elapsed)
        ));
    }
    Ok(ExitStatus::Ok)
}

/// Counts per root move (sorted by UCI) and the total, in parallel.
fn count_divide(
    pos: &Chess,
    depth: u32,
    table: Option<&Table>,
    progress: &Meter,
) -> (Vec<(String, u64)>, u64) {
    if depth == 0 {
        return (Vec::new(), 1);
    }
    let roots = perft::root_moves(pos);
    progress.set_len(roots.len() as u64);
    let counts: Vec<(String, u64)> = roots
        .into_par_iter()
        .map(|root| {
            let count = count_subtree(&root.pos, depth - 1, table, progress);
            progress.inc(1);
            (root.uci, count)
        })
        .collect();
    let total = counts.iter().map(|(_, n)| n).sum();
    (counts, total)
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

/// What one check of a suite counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Counted {
    /// The FEN does not parse.
    NoPosition,
    Nodes(u64),
    /// Stopped once the count passed `--max-nodes`.
    Over(u64),
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

/// What became of one suite record.
struct RecordOutcome {
    /// Why the FEN could not be used, if it could not.
    fen_error: Option<String>,
    /// Each check that was run, with what it counted.
    results: Vec<(SuiteCheck, Counted)>,
}

fn run_suite(
    settings: &Settings,
    path: &Path,
    limits: &Limits<'_, impl Fn(&SuiteCheck) -> bool + Sync>,
    table: Option<&Table>,
    pool: &rayon::ThreadPool,
    out: &mut dyn Write,
) -> anyhow::Result<ExitStatus> {
    let bytes = fs::read(path).with_context(|| format!("failed to read {}", path.display()))?;
    // A suite's comments may be Latin-1: read as such rather than refused.
    let text = crate::rules::game::decode_text(&bytes);
    let selected = limits.selected;
    // The error quotes the file's bytes: cut, so a giant token is not echoed.
    let records = perft::parse_suite(&text)
        .map_err(|e| anyhow::anyhow!("{}", diag::clipped(&e.to_string(), 2 * diag::SHOWN)))
        .with_context(|| format!("invalid perft suite {}", path.display()))?;

    let planned: u64 = records
        .iter()
        .flat_map(|r| &r.checks)
        .filter(|c| selected(c))
        .count() as u64;
    let listed: u64 = records.iter().map(|r| r.checks.len() as u64).sum();

    let progress = Meter::new(settings.quiet, "checks");
    progress.set_len(planned);
    let start = Instant::now();
    let (mut failed, mut nodes) = (0u64, 0u64);

    for batch in records.chunks(SUITE_BATCH) {
        let outcomes: Vec<RecordOutcome> = pool.install(|| {
            batch
                .par_iter()
                .map(|record| check_record(record, settings.chess960, limits, table, &progress))
                .collect()
        });
        for (record, outcome) in batch.iter().zip(outcomes) {
            if let Some(err) = &outcome.fen_error {
                diag::error(format!(
                    "{}:{}: invalid fen {:?}: {err}",
                    path.display(),
                    record.line,
                    record.fen
                ));
            }
            for (check, got) in outcome.results {
                let ok = got == Counted::Nodes(check.nodes);
                failed += u64::from(!ok);
                let got = match got {
                    Counted::NoPosition => "-".to_owned(),
                    Counted::Nodes(n) => {
                        nodes += n;
                        n.to_string()
                    }
                    Counted::Over(max) => format!(">{max}"),
                };
                writeln!(
                    out,
                    "{:<4} line={} depth={} expected={} got={got} fen={}",
                    if ok { "ok" } else { "FAIL" },
                    check.line,
                    check.depth,
                    check.nodes,
                    record.fen
                )?;
            }
        }
    }
    let elapsed = start.elapsed();
    progress.finish();

    if !settings.quiet {
        diag::note(format!(
            "perft: {}: {planned} checks, {failed} failed, {} skipped, {nodes} nodes in {} ({})",
            path.display(),
            listed - planned,
            seconds(elapsed),
            rate(nodes, elapsed)
        ));
    }
    Ok(if failed > 0 {
        ExitStatus::Problems
    } else {
        ExitStatus::Ok
    })
}

fn check_record(
    record: &SuiteRecord,
    chess960: bool,
    limits: &Limits<'_, impl Fn(&SuiteCheck) -> bool + Sync>,
    table: Option<&Table>,
    progress: &Meter,
) -> RecordOutcome {
    let checks: Vec<SuiteCheck> = record
        .checks
        .iter()
        .copied()
        .filter(limits.selected)
        .collect();
    if checks.is_empty() {
        return RecordOutcome {
            fen_error: None,
            results: Vec::new(),
        };
    }
    match perft::parse_position(&record.fen, chess960) {
        Err(err) => {
            progress.inc(checks.len() as u64);
            RecordOutcome {
                fen_error: Some(err.to_string()),
                results: checks
                    .into_iter()
                    .map(|c| (c, Counted::NoPosition))
                    .collect(),
            }
        }
        Ok(pos) => RecordOutcome {
            fen_error: None,
            results: checks
                .into_iter()
                .map(|check| {
                    let count = match limits.max_nodes {
                        None => Counted::Nodes(count_subtree(&pos, check.depth, table, progress)),
                        Some(max) => {
                            let used = AtomicU64::new(0);
                            match count_bounded(&pos, check.depth, table, max, &used) {
                                Some(n) => Counted::Nodes(n),
                                None => Counted::Over(max),
                            }
                        }
                    };
                    progress.inc(1);
                    (check, count)
                })
                .collect(),
        },
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

fn seconds(elapsed: Duration) -> String {
    format!("{:.3} s", elapsed.as_secs_f64())
}

fn rate(nodes: u64, elapsed: Duration) -> String {
    let secs = elapsed.as_secs_f64().max(1e-9);
    format!("{:.1} Mnodes/s", nodes as f64 / secs / 1e6)
}
