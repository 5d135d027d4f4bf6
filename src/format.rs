//! The subcommands as a type, and the one output format enum every
//! subcommand takes its `-f/--format` from, each accepting its own subset
//! ([`Format::of`]) through [`FormatParser`].

use std::ffi::OsStr;

use clap::ValueEnum;
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};

/// A subcommand of pgnkit: what help, examples, record kinds and
/// statistics are keyed by, instead of its name as a string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Subcommand {
    Validate,
    AnnotateOutcome,
    Perft,
    Convert,
    Dedupe,
    Crosstable,
    Select,
    Merge,
    Schema,
    Completions,
}

impl Subcommand {
    /// Every subcommand, in the order `--help` lists them.
    pub const ALL: [Subcommand; 10] = [
        Subcommand::Validate,
        Subcommand::AnnotateOutcome,
        Subcommand::Perft,
        Subcommand::Convert,
        Subcommand::Dedupe,
        Subcommand::Crosstable,
        Subcommand::Select,
        Subcommand::Merge,
        Subcommand::Schema,
        Subcommand::Completions,
    ];

    /// Its name on the command line (`annotate-outcome`).
    pub fn name(self) -> &'static str {
        match self {
            Subcommand::Validate => "validate",
            Subcommand::AnnotateOutcome => "annotate-outcome",
            Subcommand::Perft => "perft",
            Subcommand::Convert => "convert",
            Subcommand::Dedupe => "dedupe",
            Subcommand::Crosstable => "crosstable",
            Subcommand::Select => "select",
            Subcommand::Merge => "merge",
            Subcommand::Schema => "schema",
            Subcommand::Completions => "completions",
        }
    }

    /// The subcommand named `name` on the command line.
    pub fn from_name(name: &str) -> Option<Subcommand> {
        Subcommand::ALL.into_iter().find(|s| s.name() == name)
    }
}

/// Every output format of every subcommand; each subcommand accepts its
/// subset ([`Format::of`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, ValueEnum)]
pub enum Format {
    Text,
    Csv,
    Jsonl,
    Parquet,
    Arrow,
    Html,
    Pgn,
    Uci,
    San,
    Lan,
    Fen,
    Epd,
}

impl Format {
    /// Every format.
    pub const ALL: [Format; 12] = [
        Format::Text,
        Format::Csv,
        Format::Jsonl,
        Format::Parquet,
        Format::Arrow,
        Format::Html,
        Format::Pgn,
        Format::Uci,
        Format::San,
        Format::Lan,
        Format::Fen,
        Format::Epd,
    ];

    /// Its name on the command line (`jsonl`): the variant's, as clap
    /// spells it (the column-name test counts literals, and `fen`, `san`
    /// and `uci` are columns too).
    pub fn name(self) -> String {
        self.to_possible_value()
            .expect("every format has a name")
            .get_name()
            .to_owned()
    }

    /// The format named `name`.
    pub fn from_name(name: &str) -> Option<Format> {
        <Format as ValueEnum>::from_str(name, false).ok()
    }

    /// Whether it is a columnar format (Parquet, Arrow).
    pub fn is_columnar(self) -> bool {
        matches!(self, Format::Parquet | Format::Arrow)
    }

    /// The formats `command` writes, in the order its help lists them, each
    /// with what it means there (`None`: no help of its own).
    pub fn of(command: Subcommand) -> &'static [(Format, Option<&'static str>)] {
        match command {
            Subcommand::Validate => VALIDATE,
            Subcommand::AnnotateOutcome => ANNOTATE,
            Subcommand::Convert => CONVERT,
            Subcommand::Dedupe => DEDUPE,
            Subcommand::Crosstable => CROSSTABLE,
            Subcommand::Select => SELECT,
            Subcommand::Merge => MERGE,
            Subcommand::Perft | Subcommand::Schema | Subcommand::Completions => &[],
        }
    }

    /// Whether `command` writes this format.
    pub fn is_of(self, command: Subcommand) -> bool {
        Format::of(command).iter().any(|(f, _)| *f == self)
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name())
    }
}

const VALIDATE: &[(Format, Option<&str>)] = &[
    (
        Format::Text,
        Some(
            "`FILE:LINE: game G (White - Black; Event, round R), ply P (12...Nf3): code: message`, then `; did you mean …?` with the repairs",
        ),
    ),
    (
        Format::Csv,
        Some("A header row, then one row per finding (see the report columns)"),
    ),
    (
        Format::Jsonl,
        Some("One JSON object per finding, with the CSV fields"),
    ),
    (
        Format::Parquet,
        Some(
            "The CSV columns, typed, as a Parquet file (give -o FILE, or redirect standard output: never a terminal)",
        ),
    ),
    (
        Format::Arrow,
        Some(
            "The CSV columns, typed, as an Arrow IPC stream (for pipes: `pyarrow.ipc.open_stream`)",
        ),
    ),
    (
        Format::Html,
        Some(
            "The arbiter's page: one self-contained HTML file (give -o FILE) with the counts per code, and for each game with findings, the position before each move found wrong on a board, with the suggested repairs (docs/validate.md \"The arbiter's page\")",
        ),
    ),
];

const ANNOTATE: &[(Format, Option<&str>)] = &[
    (Format::Csv, Some("One row per game")),
    (
        Format::Pgn,
        Some(
            "Every game written back, with outcome tags and comments (damaged movetext without what could not be read)",
        ),
    ),
    (
        Format::Jsonl,
        Some(
            "One JSON object per game: the CSV columns, `error` as a struct and `helpmate` as a list (docs/records.md)",
        ),
    ),
    (
        Format::Parquet,
        Some(
            "The JSON Lines columns, typed, as a Parquet file (give -o FILE, or redirect standard output: never a terminal); `tags` is a map",
        ),
    ),
    (
        Format::Arrow,
        Some("The JSON Lines columns, typed, as an Arrow IPC stream"),
    ),
    (
        Format::Text,
        Some(
            "One line per game whose outcome an arbiter must look at: `FILE:LINE: game G (White - Black; Event, round R): RESULT: what`",
        ),
    ),
    (
        Format::Html,
        Some(
            "The arbiter's page: one self-contained HTML file (give -o FILE) with the counts, and for each game to look at, the position it is about on a board (docs/validate.md \"The arbiter's page\")",
        ),
    ),
];

const CONVERT: &[(Format, Option<&str>)] = &[
    (Format::Pgn, None),
    (Format::Uci, None),
    (Format::San, None),
    (Format::Lan, None),
    (Format::Fen, None),
    (Format::Epd, None),
    (Format::Csv, None),
    (Format::Jsonl, None),
    (
        Format::Parquet,
        Some(
            "A row per game, typed: the Seven Tag Roster and well-known tags as columns (`date`, `white_elo`, …), every tag in the `tags` map, `uci` (and `san` with `--san`) as lists, as a Parquet file (give -o FILE, or redirect standard output: never a terminal)",
        ),
    ),
    (
        Format::Arrow,
        Some("The Parquet columns as an Arrow IPC stream (for pipes)"),
    ),
];

const CROSSTABLE: &[(Format, Option<&str>)] = &[
    (
        Format::Text,
        Some(
            "Each event's standings and crosstable: a grid of results in a round-robin, the rounds (opponent, colour, score) in a Swiss or knockout",
        ),
    ),
    (
        Format::Csv,
        Some(
            "A header row, then one row per player of each event, in the order of the standings (see the report columns)",
        ),
    ),
    (
        Format::Jsonl,
        Some("One JSON object per player of each event, with the CSV fields"),
    ),
    (
        Format::Parquet,
        Some(
            "The CSV columns, typed, as a Parquet file (give -o FILE, or redirect standard output: never a terminal)",
        ),
    ),
    (
        Format::Arrow,
        Some("The CSV columns, typed, as an Arrow IPC stream"),
    ),
    (
        Format::Html,
        Some("One self-contained page of the events' standings and crosstables (give -o FILE)"),
    ),
];

const DEDUPE: &[(Format, Option<&str>)] = &[
    (
        Format::Pgn,
        Some(
            "The games kept (the first copy of each game, or the one --keep picks, and every game that repeats none), byte for byte as they were read, in input order",
        ),
    ),
    (
        Format::Text,
        Some(
            "The groups of repeats: for each, the copy kept and every repeat, with its kind and the tags that differ",
        ),
    ),
    (
        Format::Csv,
        Some("A header row, then one row per game of a group of repeats (see the report columns)"),
    ),
    (
        Format::Jsonl,
        Some("One JSON object per game of a group of repeats, with the CSV fields"),
    ),
    (
        Format::Parquet,
        Some(
            "The CSV columns, typed, as a Parquet file (give -o FILE, or redirect standard output: never a terminal)",
        ),
    ),
    (
        Format::Arrow,
        Some("The CSV columns, typed, as an Arrow IPC stream"),
    ),
];

const SELECT: &[(Format, Option<&str>)] = &[
    (
        Format::Pgn,
        Some("The games selected, byte for byte as they were read, in input order"),
    ),
    (
        Format::Text,
        Some(
            "One line per game selected: `FILE:LINE: game G (White - Black; Event, round R)`, then `: ply P (12...Nf3)` where a position or move matched",
        ),
    ),
    (
        Format::Csv,
        Some("The game records of `convert --to csv`, of the games selected, with `match_ply`"),
    ),
    (
        Format::Jsonl,
        Some("The game records of `convert --to jsonl`, of the games selected"),
    ),
    (
        Format::Parquet,
        Some(
            "The game records of `convert --to parquet`, of the games selected (give -o FILE, or redirect standard output: never a terminal)",
        ),
    ),
    (Format::Arrow, Some("The same as an Arrow IPC stream")),
];

const MERGE: &[(Format, Option<&str>)] = &[
    (Format::Csv, None),
    (Format::Jsonl, None),
    (Format::Parquet, None),
    (Format::Arrow, None),
];

/// The value parser of `-f/--format` for one subcommand: only its formats,
/// each with its help.
#[derive(Debug, Clone, Copy)]
pub struct FormatParser(pub Subcommand);

impl FormatParser {
    fn values(self) -> impl Iterator<Item = PossibleValue> {
        Format::of(self.0).iter().map(|(format, help)| {
            let value = format.to_possible_value().expect("every format has a name");
            match help {
                Some(help) => value.help(*help),
                None => value,
            }
        })
    }
}

impl TypedValueParser for FormatParser {
    type Value = Format;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<Format, clap::Error> {
        let name = PossibleValuesParser::new(self.values()).parse_ref(cmd, arg, value)?;
        Ok(Format::from_name(&name).expect("every possible value names a format"))
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(self.values()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for f in Format::ALL {
            assert_eq!(Format::from_name(&f.name()), Some(f));
        }
        for s in Subcommand::ALL {
            assert_eq!(Subcommand::from_name(s.name()), Some(s));
        }
    }
}
