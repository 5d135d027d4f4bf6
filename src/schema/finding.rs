//! `validate`'s record: one finding, where it stands and what it says; and
//! the columns a finding lends to other records (the `error` struct).

use shakmaty::Color;

use super::arrow::{ArrowRow, ArrowRows};
use super::{Cells, Column, CsvRow, Format, JsonObject, Schema, Type, common};
use crate::rules::finding::{Code, Finding, Severity};
use crate::rules::notation::move_name;

/// The ply a finding is about.
pub const PLY: Column = Column::new(
    "ply",
    Type::UInt32,
    "1-based ply of the move the finding is about",
);

/// That move as written.
pub const SAN: Column =
    Column::new("san", Type::Str, "that move as written in the input").null_when("`ply` is null");

/// The move a finding is about, as the scoresheet names it.
pub const MOVE: Column = Column::new(
    "move",
    Type::Str,
    "that move as the scoresheet names it: its number, `.` for White or `...` for Black, and the move as written (`54...Nxg2`)",
)
.null_when("`ply` is null");

/// The repairs proposed for a move that could not be played.
pub const SUGGESTION: Column = Column::new(
    "suggestion",
    Type::Str,
    "the moves that were probably meant, each verified by replaying the rest of the recorded game, best first (at most three, `; or ` between them): `23...Nbd7 (the remaining 45 plies replay)`; full repairs (every later move replays and the result agrees) before partial ones",
)
.null_when("the finding is not about a move that could not be played, or no repair replays further than the record");

/// The finding's code.
pub const CODE: Column = Column::new(
    "code",
    Type::Vocab(|| Code::ALL.iter().map(|c| c.as_str()).collect()),
    "the finding's code (`illegal-move`, `layout`, …; see `validate --help`)",
);

/// The line of a finding.
pub const LINE: Column = Column::new(
    "line",
    Type::UInt64,
    "1-based line of the finding in its input",
);

/// The finding's text.
pub const MESSAGE: Column = Column::new("message", Type::Str, "what is wrong, for people");

/// A finding.
pub const FINDING: Schema = Schema {
    name: "finding",
    doc: "`pgnkit validate -f csv` and `-f jsonl`: one record per finding.",
    columns: &[
        common::FILE,
        common::GAME
            .null_when("the finding belongs to no game (text in a file that holds no game)"),
        common::OFFSET.null_when("`game` is null"),
        LINE,
        PLY.null_when("the finding is about no move (a tag, the layout, the result)"),
        MOVE,
        SAN,
        Column::new(
            "severity",
            Type::Vocab(|| Severity::ALL.iter().map(|s| s.as_str()).collect()),
            "`error` (makes `validate` exit 1) or `warning`",
        ),
        CODE,
        MESSAGE,
        SUGGESTION,
        common::WHITE,
        common::BLACK,
        common::EVENT.null_when("the game has no `Event` tag, or the finding belongs to no game"),
        common::ROUND.null_when("the game has no `Round` tag, or the finding belongs to no game"),
        common::NAMED_TAGS,
    ],
};

/// What stopped a replay: a finding without its place, as a struct column
/// of other records (`error`).
pub const ERROR: Schema = Schema {
    name: "error",
    doc: "Where and why a game's main line could not be replayed.",
    // In CSV the struct is one cell ([`ERROR_COLUMN`]), not these.
    columns: &[
        PLY.null_when("the game could not be set up (bad FEN, unsupported variant)")
            .jsonl_only(),
        SAN.jsonl_only(),
        CODE.jsonl_only(),
        MESSAGE.jsonl_only(),
    ],
};

/// The `error` column of a record, of type [`ERROR`].
pub const ERROR_COLUMN: Column = Column::new(
    ERROR.name,
    Type::Struct(&ERROR),
    "where and why the game's main line could not be replayed; in CSV as `code at ply N: message` (`code: message` without a ply)",
);

/// How a format writes the `error` column ([`ERROR_COLUMN`]): an object in
/// JSON, `code at ply N: message` in CSV.
pub trait ErrorCell {
    fn error(&mut self, error: Option<&Finding>);
}

/// The `error` column's text in CSV (and in a `PgnkitError` tag):
/// `code at ply N: message`, or `code: message` without a ply.
pub fn error_text(error: Option<&Finding>) -> Option<String> {
    error.map(|e| match e.ply {
        Some(ply) => format!("{} at ply {ply}: {}", e.code, e.message),
        None => format!("{}: {}", e.code, e.message),
    })
}

impl ErrorCell for CsvRow<'_> {
    fn error(&mut self, error: Option<&Finding>) {
        self.opt_str(error_text(error).as_deref());
    }
}

impl ErrorCell for JsonObject<'_> {
    fn error(&mut self, error: Option<&Finding>) {
        self.object(
            &ERROR,
            error.map(|e| {
                |o: &mut JsonObject<'_>| {
                    o.uint(e.ply.map(u64::from));
                    o.opt_str(e.san.as_deref());
                    o.word(Some(e.code.as_str()));
                    o.str(&e.message);
                }
            }),
        );
    }
}

impl ErrorCell for ArrowRow<'_> {
    fn error(&mut self, error: Option<&Finding>) {
        self.object(
            &ERROR,
            error.map(|e| {
                |o: &mut ArrowRow<'_>| {
                    o.uint(e.ply.map(u64::from));
                    o.opt_str(e.san.as_deref());
                    o.word(Some(e.code.as_str()));
                    o.str(&e.message);
                }
            }),
        );
    }
}

/// Where a finding stands: file, game, players, and how moves are numbered.
#[derive(Debug, Clone, Copy)]
pub struct FindingPlace<'a> {
    pub file: &'a str,
    /// `None` for a finding outside any game.
    pub game: Option<u64>,
    /// Byte offset of the game's first byte in the input.
    pub offset: Option<u64>,
    pub white: &'a str,
    pub black: &'a str,
    /// Fullmove number and side to move at the game's start.
    pub first_move: (u32, Color),
    /// The `Event` and `Round` tags, as an arbiter files a finding.
    pub event: Option<&'a str>,
    pub round: Option<&'a str>,
    /// The `Board` tag, which the text report and the page show beside the
    /// round (not a column: `--tags Board` makes one).
    pub board: Option<&'a str>,
    /// The tags `--tags` names, and each one's value in the game.
    pub tag_names: &'a [String],
    pub tags: &'a [Option<String>],
}

impl<'a> FindingPlace<'a> {
    /// The place with the game's event and round, and the `--tags` values.
    pub fn with_tags(
        self,
        (event, round): (Option<&'a str>, Option<&'a str>),
        tag_names: &'a [String],
        tags: &'a [Option<String>],
    ) -> FindingPlace<'a> {
        FindingPlace {
            event,
            round,
            tag_names,
            tags,
            ..self
        }
    }

    /// The place with the game's `Board` tag.
    pub fn with_board(self, board: Option<&'a str>) -> FindingPlace<'a> {
        FindingPlace { board, ..self }
    }

    /// The place of a finding in game `game` (at `offset`) of `file`
    /// between `white` and `black`, whose moves start at `first_move`.
    pub fn in_game(
        (file, game, offset): (&'a str, u64, Option<u64>),
        (white, black): (&'a str, &'a str),
        first_move: (u32, Color),
    ) -> FindingPlace<'a> {
        FindingPlace {
            file,
            game: Some(game),
            offset,
            white,
            black,
            first_move,
            event: None,
            round: None,
            board: None,
            tag_names: &[],
            tags: &[],
        }
    }

    /// The place of a finding in `file` outside any game.
    pub fn outside_games(file: &'a str) -> FindingPlace<'a> {
        FindingPlace {
            file,
            game: None,
            offset: None,
            white: "",
            black: "",
            first_move: (1, Color::White),
            event: None,
            round: None,
            board: None,
            tag_names: &[],
            tags: &[],
        }
    }
}

/// A finding and its place: one record of [`FINDING`].
#[derive(Debug, Clone, Copy)]
pub struct FindingRecord<'a> {
    pub place: &'a FindingPlace<'a>,
    pub finding: &'a Finding,
}

impl FindingRecord<'_> {
    fn cells<C: Cells>(&self, c: &mut C, tags_column: bool) {
        let (p, f) = (self.place, self.finding);
        c.str(p.file);
        c.uint(p.game);
        c.uint(p.offset);
        c.uint(Some(f.line));
        c.uint(f.ply.map(u64::from));
        let name = f
            .ply
            .map(|ply| move_name(ply, p.first_move, f.san.as_deref().unwrap_or("")));
        c.opt_str(name.as_deref());
        c.opt_str(f.san.as_deref());
        c.word(Some(f.severity().as_str()));
        c.word(Some(f.code.as_str()));
        c.str(&f.message);
        c.opt_str(f.suggestion.as_deref());
        c.str(p.white);
        c.str(p.black);
        c.opt_str(p.event);
        c.opt_str(p.round);
        if tags_column {
            let values: Vec<Option<&str>> = p.tags.iter().map(Option::as_deref).collect();
            c.tags(p.tag_names, &values);
        }
    }

    /// Appends the record in `format`.
    pub fn write(&self, format: Format, out: &mut Vec<u8>) {
        match format {
            Format::Csv => {
                let mut row = CsvRow::new(out, &FINDING);
                self.cells(&mut row, !self.place.tag_names.is_empty());
                row.finish();
            }
            Format::Jsonl => {
                let with_tags = !self.place.tag_names.is_empty();
                let mut o = JsonObject::new(out, &FINDING, with_tags);
                self.cells(&mut o, with_tags);
                o.finish();
            }
            Format::Arrow => unreachable!("the columnar form is written by `columnar`"),
        }
    }

    /// Adds the record to `rows` (the columnar form, whose `tags` map is
    /// always there, empty without `--tags`).
    pub fn columnar(&self, rows: &mut ArrowRows) {
        let mut row = rows.row();
        self.cells(&mut row, true);
        row.finish();
    }
}
