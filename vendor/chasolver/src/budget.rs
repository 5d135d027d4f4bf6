//! A deterministic bound on the work of one query (pgnkit patch; see
//! `PATCHES.md`).
//!
//! Every search spends one unit per position it visits, and the static
//! analysis one unit per square a piece is examined from in each round of
//! its fixpoint. Once a query's budget is spent, every search and analysis
//! returns at once; the query's answer is then worthless (a static analysis
//! cut before its fixpoint may rule out a mate that exists), and
//! [`Bounded::limit_reached`] says so. The budget is per thread and counted
//! in units, never in time, so the same query gives the same answer and the
//! same count on any machine and any thread.

use std::cell::Cell;

thread_local! {
    /// Units the query running on this thread may spend.
    static LIMIT: Cell<u64> = const { Cell::new(u64::MAX) };
    /// Units spent by the query running on this thread.
    static SPENT: Cell<u64> = const { Cell::new(0) };
}

/// The answer of a query run under a work bound.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bounded<T> {
    /// The query's answer; not to be trusted when `limit_reached`.
    pub answer: T,
    /// Work units the query spent (a deterministic measure of its cost).
    pub units: u64,
    /// Whether the query ran out of units.
    pub limit_reached: bool,
}

/// Runs `query` with `limit` units on this thread.
pub(crate) fn run<T>(limit: u64, query: impl FnOnce() -> T) -> Bounded<T> {
    LIMIT.with(|max| max.set(limit));
    SPENT.with(|spent| spent.set(0));
    let answer = query();
    let units = SPENT.with(Cell::get);
    // An unbounded query on this thread later must not inherit the limit.
    LIMIT.with(|max| max.set(u64::MAX));
    Bounded { answer, units, limit_reached: units > limit }
}

/// Spends `units`; `false` once the query's budget is exhausted (then and
/// on every later call), when the caller must stop searching.
#[inline]
pub(crate) fn spend(units: u64) -> bool {
    let spent = SPENT.with(|spent| {
        let total = spent.get().saturating_add(units);
        spent.set(total);
        total
    });
    spent <= LIMIT.with(Cell::get)
}
