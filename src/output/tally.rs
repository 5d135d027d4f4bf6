//! [`Tally`]: records per [`Code`] in a run, the one count behind both the
//! table `validate` ends with and the `findings` of `--stats`.
//!
//! It counts; what a code means is [`crate::rules::finding`]'s, and how
//! the table looks is [`crate::output::report::code_table`]'s.

use std::collections::BTreeMap;

use crate::output::report::{self, CodeCount};
use crate::rules::finding::{Code, Finding};

/// Records (findings, or rows such as a game not replayed) and the games
/// holding them, per code.
#[derive(Debug, Clone)]
pub struct Tally {
    counts: [CodeCount; Code::TALLIED.len()],
}

impl Default for Tally {
    fn default() -> Tally {
        Tally::new()
    }
}

impl Tally {
    /// Nothing counted.
    pub fn new() -> Tally {
        Tally {
            counts: Code::TALLIED.map(|code| CodeCount {
                code,
                findings: 0,
                games: 0,
            }),
        }
    }

    /// Counts the findings of one game, and the game once per code.
    pub fn add_game<'f>(&mut self, findings: impl IntoIterator<Item = &'f Finding>) {
        let mut seen = [false; Code::TALLIED.len()];
        for finding in findings {
            let i = finding.code.index();
            self.counts[i].findings += 1;
            if !seen[i] {
                seen[i] = true;
                self.counts[i].games += 1;
            }
        }
    }

    /// Counts one record of `code` outside a game's table (a loose finding,
    /// a game annotate-outcome gives no outcome): the games are left as
    /// they are.
    pub fn add(&mut self, code: Code) {
        self.counts[code.index()].findings += 1;
    }

    /// The records of `code`.
    pub fn count(&self, code: Code) -> u64 {
        self.counts[code.index()].findings
    }

    /// The codes counted at least once, by name, for `--stats`.
    pub fn by_name(&self) -> BTreeMap<String, u64> {
        self.rows()
            .map(|c| (c.code.as_str().to_owned(), c.findings))
            .collect()
    }

    /// The codes counted at least once, in [`Code::TALLIED`] order.
    /// The codes with findings, in code order.
    pub fn rows(&self) -> impl Iterator<Item = CodeCount> + '_ {
        self.counts.iter().copied().filter(|c| c.findings > 0)
    }

    /// Hands the table of codes to `diag`, line by line, when there is a
    /// record.
    pub fn print(&self, diag: &dyn crate::output::diag::Diagnostics) {
        let rows: Vec<CodeCount> = self.rows().collect();
        if !rows.is_empty() {
            for line in report::code_table(&rows) {
                diag.line(crate::output::diag::Level::Note, &line);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn findings_count_each_and_games_once_per_code() {
        let mut tally = Tally::new();
        let f = |code| Finding::game(code, 1, "m");
        tally.add_game(&[f(Code::Layout), f(Code::Layout), f(Code::Syntax)]);
        tally.add(Code::Layout);
        tally.add(Code::NotReplayed);
        assert_eq!(tally.count(Code::Layout), 3);
        assert_eq!(tally.counts[Code::Layout.index()].games, 1);
        let names: Vec<(String, u64)> = tally.by_name().into_iter().collect();
        assert_eq!(
            names,
            [
                ("layout".to_owned(), 3),
                ("not-replayed".to_owned(), 1),
                ("syntax".to_owned(), 1)
            ]
        );
    }
}
