//! The `validate` report: one record per finding, as text, CSV or JSON Lines,
//! and the players' names every report shows. The text report escapes and
//! cuts what it echoes of the input; CSV and JSON Lines keep it whole,
//! quoted and escaped by their own rules.

use std::borrow::Cow;
use std::io::{self, Write};

use super::diag;
use crate::rules::finding::{Code, Finding};
use crate::rules::game::unknown_tag_value;
use crate::rules::notation::move_name;
use crate::schema::{
    self,
    finding::{FINDING, FindingPlace, FindingRecord},
};

/// How many characters of a message the text report shows: a message
/// quotes at most a few untrusted texts, each cut at [`diag::SHOWN`] where
/// it is built or here.
const MESSAGE_SHOWN: usize = 4 * diag::SHOWN;

/// An untrusted text (a name, a move) as the text report shows it.
fn shown(text: &str) -> Cow<'_, str> {
    diag::clipped(text, diag::SHOWN)
}

/// Report formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Text,
    Csv,
    Jsonl,
}

/// The White and Black names of a game, `?` for a missing tag (the Seven
/// Tag Roster's "unknown"); `tag` looks a tag up by name.
///
/// # Examples
///
/// ```
/// use pgnkit::output::report::players;
/// let tag = |name: &str| (name == "White").then_some("Carlsen, M.");
/// assert_eq!(players(tag), ("Carlsen, M.".to_owned(), "?".to_owned()));
/// ```
pub fn players<S: Into<String>>(tag: impl Fn(&str) -> Option<S>) -> (String, String) {
    let name = |name| tag(name).map_or_else(|| unknown_tag_value(name).to_owned(), Into::into);
    (name("White"), name("Black"))
}

/// What names a game wherever it is reported, whatever the subcommand: its
/// players, its `Event`, `Round` and `Board` tags and the line it starts
/// on. Decoded only for games that have something to say.
#[derive(Debug, Clone, Default)]
pub struct GameLabel {
    pub white: String,
    pub black: String,
    pub event: Option<String>,
    pub round: Option<String>,
    pub board: Option<String>,
    /// The game's first line (relative to its chunk, as the scanner gives
    /// it).
    pub line: u64,
}

impl GameLabel {
    /// The label of a game whose tags `tag` reads, starting on `line`.
    pub fn of<S: Into<String>>(tag: impl Fn(&str) -> Option<S>, line: u64) -> GameLabel {
        let (white, black) = players(&tag);
        GameLabel {
            white,
            black,
            event: tag("Event").map(Into::into),
            round: tag("Round").map(Into::into),
            board: tag("Board").map(Into::into),
            line,
        }
    }

    /// The label as a diagnostic shows it: the players' names cut at
    /// [`diag::SHOWN`] characters, and no board.
    pub fn clipped(&self) -> GameLabel {
        GameLabel {
            white: diag::clipped(&self.white, diag::SHOWN).into_owned(),
            black: diag::clipped(&self.black, diag::SHOWN).into_owned(),
            board: None,
            ..self.clone()
        }
    }

    /// Where a finding of the game stands: at `place` (file, game,
    /// offset), its moves starting at `first_move`, with the `--tags`
    /// columns `tags` (names and values).
    pub fn place<'a>(
        &'a self,
        place: (&'a str, u64, Option<u64>),
        first_move: (u32, shakmaty::Color),
        (names, values): (&'a [String], &'a [Option<String>]),
    ) -> FindingPlace<'a> {
        FindingPlace::in_game(place, (&self.white, &self.black), first_move)
            .with_tags(
                (self.event.as_deref(), self.round.as_deref()),
                names,
                values,
            )
            .with_board(self.board.as_deref())
    }
}

/// Writes the header, if the format has one.
///
/// # Errors
///
/// When writing fails.
pub fn write_header(
    out: &mut dyn Write,
    format: Format,
    header: bool,
    tags: &[String],
) -> io::Result<()> {
    if format == Format::Csv && header {
        let tags: Vec<&str> = tags.iter().map(String::as_str).collect();
        super::write_csv_record(out, FINDING.csv_names(&tags))?;
    }
    Ok(())
}

/// A tag value the text report shows: not empty, not `?` (unknown).
fn known(value: Option<&str>) -> Option<&str> {
    value.filter(|v| !matches!(v.trim(), "" | "?"))
}

/// Writes `game 1 (Gelfand,B - Gareev,T; World Blitz 2019, round 11.16)`
/// for the game of `place`: its players, and as an arbiter files it, the
/// event, the round and the board (each left out when unknown). What it echoes of the
/// input is escaped and cut.
///
/// # Errors
///
/// When writing fails.
pub fn write_game_label(out: &mut dyn Write, place: &FindingPlace<'_>) -> io::Result<()> {
    let (white, black) = (shown(place.white), shown(place.black));
    write!(out, "game {} ({white} - {black}", place.game.unwrap_or(0))?;
    // Written piece by piece: a report of many findings allocates nothing
    // for their names.
    let mut sep = "; ";
    for (label, value) in [
        ("", place.event),
        ("round ", place.round),
        ("board ", place.board),
    ] {
        if let Some(v) = known(value) {
            out.write_all(sep.as_bytes())?;
            out.write_all(label.as_bytes())?;
            out.write_all(shown(v).as_bytes())?;
            sep = ", ";
        }
    }
    out.write_all(b")")
}

/// Writes one finding.
///
/// # Errors
///
/// When writing fails.
pub fn write_finding(
    out: &mut dyn Write,
    format: Format,
    place: &FindingPlace<'_>,
    f: &Finding,
) -> io::Result<()> {
    match format {
        Format::Text => {
            // Names, moves and messages echo the input: escaped and cut, as
            // on standard error, so that no byte of it can drive a terminal
            // and no giant token fills the report. The file name is
            // escaped too (not cut): a name in a walked directory is
            // anyone's, and `ESC[2J` in it would clear the terminal.
            write!(out, "{}:{}: ", diag::escaped(place.file), f.line)?;
            if place.game.is_some() {
                write_game_label(out, place)?;
                if let Some(ply) = f.ply {
                    let san = shown(f.san.as_deref().unwrap_or(""));
                    write!(
                        out,
                        ", ply {ply} ({})",
                        move_name(ply, place.first_move, &san)
                    )?;
                } else if let Some(san) = &f.san {
                    write!(out, " ({})", shown(san))?;
                }
                write!(out, ": ")?;
            }
            let message = diag::clipped(&f.message, MESSAGE_SHOWN);
            write!(out, "{}: {message}", f.code)?;
            if let Some(s) = &f.suggestion {
                write!(out, "; did you mean {}?", diag::clipped(s, MESSAGE_SHOWN))?;
            }
            writeln!(out)
        }
        Format::Csv | Format::Jsonl => {
            let format = if format == Format::Csv {
                schema::Format::Csv
            } else {
                schema::Format::Jsonl
            };
            let mut record = Vec::with_capacity(256);
            FindingRecord { place, finding: f }.write(format, &mut record);
            out.write_all(&record)
        }
    }
}

/// The findings of one code in a run, for the table [`code_table`] writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CodeCount {
    pub code: Code,
    pub findings: u64,
    /// Games with at least one finding of the code.
    pub games: u64,
}

/// The per-code table that ends a run on standard error, one line a code
/// (most findings first), columns aligned: `code severity findings games`.
///
/// # Examples
///
/// ```
/// use pgnkit::output::report::{CodeCount, code_table};
/// use pgnkit::rules::finding::Code;
/// let rows = [
///     CodeCount { code: Code::IllegalMove, findings: 4, games: 4 },
///     CodeCount { code: Code::Layout, findings: 1400, games: 1398 },
/// ];
/// assert_eq!(
///     code_table(&rows),
///     [
///         "code          severity  findings  games",
///         "layout        warning       1400   1398",
///         "illegal-move  error            4      4",
///     ]
/// );
/// ```
pub fn code_table(rows: &[CodeCount]) -> Vec<String> {
    let mut rows = rows.to_vec();
    rows.sort_by(|a, b| {
        b.findings
            .cmp(&a.findings)
            .then(a.code.index().cmp(&b.code.index()))
    });
    let code = rows
        .iter()
        .map(|r| r.code.as_str().len())
        .chain([4])
        .max()
        .unwrap_or(4);
    let number = |header: &str, n: fn(&CodeCount) -> u64| {
        rows.iter()
            .map(|r| n(r).to_string().len())
            .chain([header.len()])
            .max()
            .unwrap_or(header.len())
    };
    let findings = number("findings", |r| r.findings);
    let games = number("games", |r| r.games);
    let mut lines = vec![format!(
        "{:code$}  severity  {:>findings$}  {:>games$}",
        "code", "findings", "games"
    )];
    lines.extend(rows.iter().map(|r| {
        format!(
            "{:code$}  {:8}  {:>findings$}  {:>games$}",
            r.code.as_str(),
            r.code.severity().as_str(),
            r.findings,
            r.games
        )
    }));
    lines
}
