//! Findings: what the checks say about a game, as data with a stable code.
//!
//! A finding is not an error of pgnkit: it is a record of the report. The
//! codes are part of pgnkit's interface (docs/codes.md) and never
//! change meaning.

use std::fmt;

/// How bad a finding is. Errors make `validate` exit 1, warnings do not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// Said only when asked for: a code off by default.
    Note,
    Warning,
    Error,
}

impl Severity {
    /// Every severity, least severe first.
    pub const ALL: [Severity; 3] = [Severity::Note, Severity::Warning, Severity::Error];

    /// The lowercase name used in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// The stable code of a finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Code {
    Syntax,
    IllegalMove,
    AmbiguousMove,
    NullMove,
    MoveAfterEnd,
    InvalidFen,
    ResultMismatch,
    WrongResult,
    UnsupportedVariant,
    MissingTag,
    InvalidTag,
    DuplicateTag,
    CheckSuffix,
    /// A move written in a form the export format does not use, read as
    /// the move it plainly means: castling with zeros (`0-0`), a pawn
    /// move with its letter (`Pe4`).
    Notation,
    Layout,
    /// A `[%clk …]` or `[%eval …]` command in a comment that cannot be read.
    InvalidCommand,
    /// Moves recorded after the game had ended automatically, with the
    /// recorded result the one that end gives: the record says what
    /// happened, only more.
    PlayedOn,
    /// A game whose moves (from the same start) are those of an earlier
    /// game of the run: a repeat ([`crate::rules::identity`]).
    DuplicateGame,
    /// The clocks of a game do not give the time a move took: a move
    /// without a clock among moves with one, or a clock that went up by
    /// more than the time control adds.
    ClockMismatch,
    /// `ECO` or `Opening` tags that disagree with the game's opening by the
    /// openings table ([`super::openings`]): a note, off by default.
    EcoMismatch,
    /// A player in two games of one round of an event, against different
    /// opponents ([`crate::rules::tournament`], as the next five).
    PairedTwice,
    /// Two games of different pairings on one board of one round.
    BoardTwice,
    /// A round with no game between two rounds that have games.
    RoundMissing,
    /// A game of a round after games of a later round of its event.
    RoundOrder,
    /// One player (one `FideId`, or one name up to case, accents,
    /// punctuation and word order) written two ways in one event.
    NameVariant,
    /// Two players meeting more often than the event's kind allows (once
    /// in a Swiss or a round-robin, once a cycle in a double one).
    PairingRepeated,
    /// A game `annotate-outcome` could not replay to its end, so that it
    /// gives it no outcome: a code of its records, never a finding, and so
    /// not in [`Code::ALL`] (`--only`, `--ignore` and `--fail-on` refuse it).
    NotReplayed,
}

impl Code {
    /// Every code, in the order of the table in docs/codes.md.
    pub const ALL: [Code; 26] = [
        Code::Syntax,
        Code::IllegalMove,
        Code::AmbiguousMove,
        Code::NullMove,
        Code::MoveAfterEnd,
        Code::InvalidFen,
        Code::ResultMismatch,
        Code::WrongResult,
        Code::UnsupportedVariant,
        Code::MissingTag,
        Code::InvalidTag,
        Code::DuplicateTag,
        Code::CheckSuffix,
        Code::Notation,
        Code::Layout,
        Code::InvalidCommand,
        Code::PlayedOn,
        Code::DuplicateGame,
        Code::ClockMismatch,
        Code::EcoMismatch,
        Code::PairedTwice,
        Code::BoardTwice,
        Code::RoundMissing,
        Code::RoundOrder,
        Code::NameVariant,
        Code::PairingRepeated,
    ];

    /// Every code a run counts: [`Code::ALL`] and [`Code::NotReplayed`],
    /// in [`Code::index`] order.
    pub const TALLIED: [Code; 27] = {
        let mut tallied = [Code::NotReplayed; 27];
        let mut i = 0;
        while i < Code::ALL.len() {
            tallied[i] = Code::ALL[i];
            i += 1;
        }
        tallied
    };

    /// The finding code called `name` in reports, if any.
    ///
    /// # Examples
    ///
    /// ```
    /// use pgnkit::rules::finding::Code;
    /// assert_eq!(Code::from_name("move-after-end"), Some(Code::MoveAfterEnd));
    /// assert_eq!(Code::from_name("move_after_end"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<Code> {
        Code::ALL.into_iter().find(|c| c.as_str() == name)
    }

    /// The position of the code in [`Code::TALLIED`] (and so in
    /// [`Code::ALL`]), to index tables by code.
    pub fn index(self) -> usize {
        self as usize
    }

    /// The kebab-case name used in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Code::Syntax => "syntax",
            Code::IllegalMove => "illegal-move",
            Code::AmbiguousMove => "ambiguous-move",
            Code::NullMove => "null-move",
            Code::MoveAfterEnd => "move-after-end",
            Code::InvalidFen => "invalid-fen",
            Code::ResultMismatch => "result-mismatch",
            Code::WrongResult => "wrong-result",
            Code::UnsupportedVariant => "unsupported-variant",
            Code::MissingTag => "missing-tag",
            Code::InvalidTag => "invalid-tag",
            Code::DuplicateTag => "duplicate-tag",
            Code::CheckSuffix => "check-suffix",
            Code::Notation => "notation",
            Code::Layout => "layout",
            Code::InvalidCommand => "invalid-command",
            Code::PlayedOn => "played-on",
            Code::DuplicateGame => "duplicate-game",
            Code::ClockMismatch => "clock-mismatch",
            Code::EcoMismatch => "eco-mismatch",
            Code::PairedTwice => "paired-twice",
            Code::BoardTwice => "board-twice",
            Code::RoundMissing => "round-missing",
            Code::RoundOrder => "round-order",
            Code::NameVariant => "name-variant",
            Code::PairingRepeated => "pairing-repeated",
            Code::NotReplayed => "not-replayed",
        }
    }

    /// The severity every finding of this code has.
    pub fn severity(self) -> Severity {
        match self {
            Code::MissingTag
            | Code::InvalidTag
            | Code::DuplicateTag
            | Code::CheckSuffix
            | Code::Notation
            | Code::Layout
            | Code::InvalidCommand
            | Code::PlayedOn
            | Code::DuplicateGame
            | Code::ClockMismatch
            | Code::PairedTwice
            | Code::BoardTwice
            | Code::RoundMissing
            | Code::RoundOrder
            | Code::NameVariant
            | Code::PairingRepeated => Severity::Warning,
            Code::EcoMismatch => Severity::Note,
            _ => Severity::Error,
        }
    }

    /// Whether the code is reported only when asked for (`validate
    /// --enable`, or named by `--only`): the notes.
    pub fn off_by_default(self) -> bool {
        self.severity() == Severity::Note
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One problem found in one game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The 1-based line of the offending token, or of the game's first line.
    pub line: u64,
    /// The 1-based ply of the offending move, when the finding is about one.
    pub ply: Option<u32>,
    /// The move as written (for move findings), e.g. `Nf3`.
    pub san: Option<String>,
    pub code: Code,
    /// Lowercase, no trailing period.
    pub message: String,
    /// The repairs proposed for a move that could not be played
    /// ([`super::repair`]), as the report writes them.
    pub suggestion: Option<String>,
}

impl Finding {
    /// A finding about the game as a whole (no move to blame).
    pub fn game(code: Code, line: u64, message: impl Into<String>) -> Finding {
        Finding {
            line,
            ply: None,
            san: None,
            code,
            message: message.into(),
            suggestion: None,
        }
    }

    /// A finding about the move `san` at `ply`.
    pub fn at_ply(
        code: Code,
        line: u64,
        ply: u32,
        san: impl Into<String>,
        message: impl Into<String>,
    ) -> Finding {
        Finding {
            line,
            ply: Some(ply),
            san: Some(san.into()),
            code,
            message: message.into(),
            suggestion: None,
        }
    }

    pub fn severity(&self) -> Severity {
        self.code.severity()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_codes_in_index_order_with_distinct_names() {
        for (i, code) in Code::ALL.into_iter().enumerate() {
            assert_eq!(code.index(), i);
            assert_eq!(Code::from_name(code.as_str()), Some(code));
        }
        for (i, code) in Code::TALLIED.into_iter().enumerate() {
            assert_eq!(code.index(), i);
        }
        assert_eq!(Code::TALLIED[..Code::ALL.len()], Code::ALL);
        assert_eq!(Code::from_name("not-replayed"), None);
    }
}
