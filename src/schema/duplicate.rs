//! `dedupe`'s record: one game of a group of repeats (games with one
//! [`crate::rules::identity`] key), the copy kept or a repeat of it.

use super::arrow::ArrowRows;
use super::{Cells, Column, CsvRow, Format, JsonObject, Schema, Type, common};

/// What a repeat is, beside the copy kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The same moves and the same tags.
    Exact,
    /// The same moves; tags other than `Result` differ.
    TagsDiffer,
    /// The same moves; the recorded result differs (other tags may too).
    ResultDiffers,
    /// Another move order to the same final position in as many plies
    /// (`dedupe --transpositions`).
    Transposed,
    /// The same pairing, and moves that are the start of the kept copy's:
    /// a truncated copy, a broadcast that stopped early.
    Prefix,
}

impl Kind {
    /// Every kind.
    pub const ALL: [Kind; 5] = [
        Kind::Exact,
        Kind::TagsDiffer,
        Kind::ResultDiffers,
        Kind::Transposed,
        Kind::Prefix,
    ];

    /// Its name in records (`tags-differ`).
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Exact => "exact",
            Kind::TagsDiffer => "tags-differ",
            Kind::ResultDiffers => "result-differs",
            Kind::Transposed => "transposed",
            Kind::Prefix => "prefix",
        }
    }
}

/// One game of a group of repeats.
pub const DUPLICATE: Schema = Schema {
    name: "duplicate",
    doc: "`pgnkit dedupe -f csv|jsonl|parquet|arrow`: one record per game of a group of repeats (games that are one game: one `key`), the groups in the order of their first copy, each game of a group in input order.",
    columns: &[
        Column::new(
            "group",
            Type::UInt64,
            "the group's number: 1 for the first game read that has a repeat, and so on",
        ),
        Column::new(
            "role",
            Type::Vocab(|| vec!["kept", "repeat"]),
            "`kept`: the copy `dedupe` writes (`--keep`); `repeat`: a copy it leaves out (`--duplicates` holds them)",
        ),
        Column::new(
            "kind",
            Type::Vocab(|| Kind::ALL.iter().map(|k| k.as_str()).collect()),
            "what the repeat is beside the copy kept: `exact` (the same tags too), `tags-differ` (tags other than Result differ), `result-differs` (the recorded result differs), `transposed` (with `--transpositions`: another move order to the same final position in as many plies; its `key` is its own), `prefix` (the same pairing, White and Black by surname, on the same `Date`, and moves that are the start of the kept copy's: a truncated copy; its `key` is its own)",
        )
        .null_when("the game is the copy kept"),
        Column::new(
            "tags_differ",
            Type::List(&Type::Str),
            "the names of the tags whose values differ from the kept copy's, or that only one of the two has, in the kept copy's order, then the repeat's (in CSV space-separated)",
        )
        .null_when("the game is the copy kept"),
        common::FILE,
        common::GAME,
        common::OFFSET,
        super::finding::LINE.doc("the game's first line in its file"),
        common::WHITE,
        common::BLACK,
        common::EVENT.null_when("the game has no `Event` tag"),
        common::ROUND.null_when("the game has no `Round` tag"),
        common::PLIES.doc("plies of the main line"),
        common::KEY.doc("the game's identity, as `convert`'s `key`: one for the whole group, but for a `transposed` or `prefix` game"),
    ],
};

/// One row of [`DUPLICATE`].
#[derive(Debug, Clone)]
pub struct DuplicateRecord {
    pub group: u64,
    /// `None` for the copy kept.
    pub kind: Option<Kind>,
    /// The tags that differ from the kept copy's (empty for it).
    pub tags_differ: Vec<String>,
    pub file: String,
    pub game: u64,
    pub offset: u64,
    pub line: u64,
    pub white: String,
    pub black: String,
    pub event: Option<String>,
    pub round: Option<String>,
    pub plies: u32,
    pub key: String,
}

/// A tag name as a list item: the symbol characters PGN allows, anything
/// else (in a hostile file) as `?`, so a list item is one ASCII word.
fn word(name: &str) -> Vec<u8> {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "_+#=:-".contains(c) {
                c as u8
            } else {
                b'?'
            }
        })
        .collect()
}

impl DuplicateRecord {
    fn cells<C: Cells>(&self, c: &mut C) {
        c.uint(Some(self.group));
        c.word(Some(if self.kind.is_some() {
            "repeat"
        } else {
            "kept"
        }));
        c.word(self.kind.map(Kind::as_str));
        let names = self.kind.map(|_| self.tags_differ.as_slice());
        c.words(names, |name, out| out.extend_from_slice(&word(name)));
        c.str(&self.file);
        c.uint(Some(self.game));
        c.uint(Some(self.offset));
        c.uint(Some(self.line));
        c.str(&self.white);
        c.str(&self.black);
        c.opt_str(self.event.as_deref());
        c.opt_str(self.round.as_deref());
        c.uint(Some(u64::from(self.plies)));
        c.str(&self.key);
    }

    /// Appends the record in `format` (CSV or JSON Lines).
    pub fn write(&self, format: Format, out: &mut Vec<u8>) {
        match format {
            Format::Csv => {
                let mut row = CsvRow::new(out, &DUPLICATE);
                self.cells(&mut row);
                row.finish();
            }
            Format::Jsonl => {
                let mut o = JsonObject::new(out, &DUPLICATE, false);
                self.cells(&mut o);
                o.finish();
            }
            Format::Arrow => unreachable!("the columnar form is written by `columnar`"),
        }
    }

    /// Adds the record to `rows` (the columnar form).
    pub fn columnar(&self, rows: &mut ArrowRows) {
        let mut row = rows.row();
        self.cells(&mut row);
        row.finish();
    }
}
