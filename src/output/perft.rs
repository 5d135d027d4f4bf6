//! Perft's lines: on standard output the divide lines and the total of one
//! position and one line per check of a suite, and the figures of its
//! summaries on standard error (seconds, nodes per second). Counting is
//! [`crate::rules::perft`]'s, running the counts in order on the workers
//! `cmd::perft`'s.

use std::io::{self, Write};
use std::time::Duration;

use crate::rules::perft::suite::{CheckCount, SuiteCheck};

/// One `--divide` line: a root move in UCI and the count below it.
///
/// # Errors
///
/// When writing fails.
pub fn write_root_move(out: &mut dyn Write, uci: &str, count: u64) -> io::Result<()> {
    writeln!(out, "{uci}: {count}")
}

/// The total of one position, after a blank line when the divide lines
/// stand above it.
///
/// # Errors
///
/// When writing fails.
pub fn write_total(out: &mut dyn Write, total: u64, divide: bool) -> io::Result<()> {
    if divide {
        writeln!(out)?;
    }
    writeln!(out, "{total}")
}

/// One check of a suite: `ok` or `FAIL`, where it stands, what it expected
/// and what was counted (`-` when the FEN does not parse, `>max` when the
/// count was stopped past `--max-nodes`), and the FEN.
///
/// # Errors
///
/// When writing fails.
pub fn write_check(
    out: &mut dyn Write,
    check: &SuiteCheck,
    fen: &str,
    got: CheckCount,
) -> io::Result<()> {
    let verdict = if got.is_expected(check) { "ok" } else { "FAIL" };
    let got = match got {
        CheckCount::NoPosition => "-".to_owned(),
        CheckCount::Nodes(n) => n.to_string(),
        // Counting stopped once it passed `max`.
        CheckCount::Over(max) => format!(">{max}"),
    };
    writeln!(
        out,
        "{verdict:<4} line={} depth={} expected={} got={got} fen={fen}",
        check.line, check.depth, check.nodes
    )
}

/// The summary of one position's count.
pub fn position_summary(depth: u32, total: u64, elapsed: Duration) -> String {
    format!(
        "perft: depth {depth}: {total} nodes in {} ({})",
        seconds(elapsed),
        rate(total, elapsed)
    )
}

/// The summary of a suite: what ran, failed and was skipped, and the nodes.
pub fn suite_summary(
    name: &str,
    planned: u64,
    failed: u64,
    skipped: u64,
    nodes: u64,
    elapsed: Duration,
) -> String {
    format!(
        "perft: {name}: {planned} checks, {failed} failed, {skipped} skipped, {nodes} nodes in {} ({})",
        seconds(elapsed),
        rate(nodes, elapsed)
    )
}

fn seconds(elapsed: Duration) -> String {
    format!("{:.3} s", elapsed.as_secs_f64())
}

/// Nodes per second, as the progress bar and the summaries show it.
pub fn rate(nodes: u64, elapsed: Duration) -> String {
    let secs = elapsed.as_secs_f64().max(1e-9);
    format!("{:.1} Mnodes/s", nodes as f64 / secs / 1e6)
}
