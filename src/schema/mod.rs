//! One definition per record kind: each column's name, type, nullability
//! and meaning, in one place ([`Schema`]), and the writers that turn a
//! record into a CSV row or a JSON Lines object by that definition
//! ([`CsvRow`], [`JsonObject`]).
//!
//! A record type says its columns once, as a `const` [`Schema`], and writes
//! its values in column order through [`Cells`]; the writer of each format
//! takes the names from the schema. So the CSV header, the JSON keys, the
//! column lists of `--help` and `man/`, the tables of `docs/records.md`
//! and `pgnkit schema` all come from the same words, and a test holds the
//! documentation to them. The records: [`finding`] (validate),
//! [`outcome`] (annotate-outcome), [`game`] (convert).
//!
//! Columns a run adds (`--tags`) are declared as one [`Type::Map`] column,
//! whose CSV form is one column per tag named at run time.

pub mod arrow;
pub mod duplicate;
pub mod finding;
pub mod game;
pub mod outcome;
pub mod perft;
pub mod position;
pub mod standing;

use crate::rules::time_control::Period;
use std::fmt::Write as _;

/// A record format the schema writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Csv,
    Jsonl,
    /// The columnar form: Parquet, the Arrow IPC stream, the Python
    /// package ([`arrow`]).
    Arrow,
}

/// The type of a column.
#[derive(Debug, Clone, Copy)]
pub enum Type {
    Bool,
    /// An unsigned integer that fits 8 bits (NAGs).
    UInt8,
    /// An unsigned integer that fits 32 bits (plies, move numbers).
    UInt32,
    /// An unsigned integer that fits 64 bits (games, lines, offsets).
    UInt64,
    /// A 64-bit key (a Zobrist hash): an unsigned 64-bit integer whose
    /// every bit is used, so that a system without unsigned integers (Spark)
    /// holds its bits as a signed one rather than refusing half the values.
    Key64,
    /// A signed integer that fits 32 bits (centipawns, mate distances).
    Int32,
    /// A number with a fraction (a clock's seconds); in CSV and JSON
    /// written with exactly the digits it has (`298.5`).
    Float64,
    /// Text from the input or for people, UTF-8.
    Str,
    /// One word of a fixed vocabulary: the words, in their type's order.
    Vocab(fn() -> Vec<&'static str>),
    /// A list of values of one type; in CSV, separated by single spaces.
    List(&'static Type),
    /// A record of its own columns (a JSON object).
    Struct(&'static Schema),
    /// Tag names to values, in input order: a JSON object of strings, and
    /// in CSV one column per tag (the tags being chosen per run).
    Map,
    /// A calendar day (Arrow `date32`); only in the columnar form.
    Date,
    /// A time of day to the second (Arrow `time32[s]`); only in the
    /// columnar form.
    Time,
}

impl Type {
    /// The type's name in `docs/records.md` and `pgnkit schema`.
    pub fn name(&self) -> String {
        match self {
            Type::Bool => "bool".into(),
            Type::UInt8 => "uint8".into(),
            Type::UInt32 => "uint32".into(),
            Type::UInt64 => "uint64".into(),
            Type::Key64 => "key64".into(),
            Type::Int32 => "int32".into(),
            Type::Float64 => "float64".into(),
            Type::Str => "string".into(),
            Type::Vocab(_) => "vocabulary".into(),
            Type::List(item) => format!("list of {}", item.name()),
            Type::Struct(s) => format!("struct {}", s.name),
            Type::Map => "map of strings".into(),
            Type::Date => "date".into(),
            Type::Time => "time".into(),
        }
    }
}

/// How a column appears in a CSV row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InCsv {
    /// One cell.
    Cell,
    /// Not in CSV.
    No,
    /// One cell per tag chosen for the run (a [`Type::Map`]).
    PerTag,
}

/// Every record kind, for `pgnkit schema` and `docs/records.md`: the
/// records, then the structs they hold.
pub const ALL: [&Schema; 9] = [
    &finding::FINDING,
    &outcome::OUTCOME,
    &game::GAME,
    &position::POSITION,
    &duplicate::DUPLICATE,
    &standing::STANDING,
    &perft::PERFT,
    &game::MOVE,
    &finding::ERROR,
];

/// The record kind a subcommand writes.
pub fn of_command(command: crate::format::Subcommand) -> Option<&'static Schema> {
    use crate::format::Subcommand;
    match command {
        Subcommand::Validate => Some(&finding::FINDING),
        Subcommand::AnnotateOutcome => Some(&outcome::OUTCOME),
        Subcommand::Convert | Subcommand::Select => Some(&game::GAME),
        Subcommand::Dedupe => Some(&duplicate::DUPLICATE),
        Subcommand::Crosstable => Some(&standing::STANDING),
        _ => None,
    }
}

/// The generated part of `docs/records.md`: a heading and a table per
/// record kind.
pub fn markdown() -> String {
    let mut s = String::new();
    for schema in ALL {
        let _ = write!(
            s,
            "## `{}`\n\n{}\n\n{}\n",
            schema.name,
            schema.doc,
            schema.markdown()
        );
    }
    s
}

/// One column of a record.
#[derive(Debug, Clone, Copy)]
pub struct Column {
    pub name: &'static str,
    pub ty: Type,
    /// When the value is absent (JSON `null`, an empty CSV cell); `None`
    /// when it never is.
    pub null_when: Option<&'static str>,
    /// What the value means, for people.
    pub doc: &'static str,
    pub csv: InCsv,
    /// Whether JSON Lines records hold it: always (`Some("")`), never
    /// (`None`), or only with the flag named.
    pub jsonl: Option<&'static str>,
    /// Whether the columnar form (Parquet, Arrow) holds it.
    pub arrow: bool,
    /// Whether its values are nearly all distinct (FENs): Parquet writes
    /// them without a dictionary.
    pub distinct: bool,
}

impl Column {
    /// A column in both formats, never null.
    pub const fn new(name: &'static str, ty: Type, doc: &'static str) -> Column {
        Column {
            name,
            ty,
            null_when: None,
            doc,
            csv: InCsv::Cell,
            jsonl: Some(""),
            arrow: true,
            distinct: false,
        }
    }

    /// The column, whose values are nearly all distinct.
    pub const fn distinct(self) -> Column {
        Column {
            distinct: true,
            ..self
        }
    }

    /// The column with another type (a shared name whose form differs).
    pub const fn of_type(self, ty: Type) -> Column {
        Column { ty, ..self }
    }

    /// The column, not in the columnar form.
    pub const fn not_in_arrow(self) -> Column {
        Column {
            arrow: false,
            ..self
        }
    }

    /// The column, in the columnar form too.
    pub const fn in_arrow(self) -> Column {
        Column {
            arrow: true,
            ..self
        }
    }

    /// The column, only in the columnar form (a typed reading of a tag).
    pub const fn arrow_only(self) -> Column {
        Column {
            csv: InCsv::No,
            jsonl: None,
            arrow: true,
            ..self
        }
    }

    /// The column, null when `when` says.
    pub const fn null_when(self, when: &'static str) -> Column {
        Column {
            null_when: Some(when),
            ..self
        }
    }

    /// The column with another meaning (a shared name in another record).
    pub const fn doc(self, doc: &'static str) -> Column {
        Column { doc, ..self }
    }

    /// The column, never null.
    pub const fn never_null(self) -> Column {
        Column {
            null_when: None,
            ..self
        }
    }

    /// The column, only in CSV.
    pub const fn csv_only(self) -> Column {
        Column {
            jsonl: None,
            ..self
        }
    }

    /// The column, only in JSON Lines.
    pub const fn jsonl_only(self) -> Column {
        Column {
            csv: InCsv::No,
            ..self
        }
    }

    /// The column, one CSV cell per tag of the run.
    pub const fn per_tag(self) -> Column {
        Column {
            csv: InCsv::PerTag,
            ..self
        }
    }

    /// The column, in JSON Lines only when `flag` is given.
    pub const fn jsonl_with(self, flag: &'static str) -> Column {
        Column {
            jsonl: Some(flag),
            ..self
        }
    }

    /// Whether `format` writes the column (when asked for, for a flag).
    pub fn is_in(&self, format: Format) -> bool {
        match format {
            Format::Csv => self.csv != InCsv::No,
            Format::Jsonl => self.jsonl.is_some(),
            Format::Arrow => self.arrow,
        }
    }
}

/// Columns more than one record holds: where a record comes from, the players, the event and round, the result, the tags.
pub mod common {
    use super::{Column, Type};

    /// The input.
    pub const FILE: Column = Column::new(
        "file",
        Type::Str,
        "the input's name as given (`<stdin>` for standard input)",
    );

    /// The game's number in its input.
    pub const GAME: Column = Column::new(
        "game",
        Type::UInt64,
        "the 1-based number of the game (or record line) in its input; with `--byte-range` it counts from the range's start (`pgnkit merge` renumbers it)",
    );

    /// The game's byte offset.
    pub const OFFSET: Column = Column::new(
        "offset",
        Type::UInt64,
        "byte offset of the game's first byte in the uncompressed input, file-wide even with `--byte-range`",
    );

    /// The names of the players.
    pub const WHITE: Column = Column::new(
        "white",
        Type::Str,
        "the game's `White` tag (`?` when missing)",
    );
    pub const BLACK: Column = Column::new(
        "black",
        Type::Str,
        "the game's `Black` tag (`?` when missing)",
    );

    /// A game's result.
    pub const RESULT: Column = Column::new(
        "result",
        Type::Vocab(|| {
            crate::rules::game::GameResult::ALL
                .iter()
                .map(|r| r.as_str())
                .collect()
        }),
        "the recorded result: the `Result` tag, else the termination marker",
    );

    /// The plies of a game.
    pub const PLIES: Column = Column::new("plies", Type::UInt32, "plies replayed");

    /// A game's identity ([`crate::rules::identity`]), as text.
    pub const KEY: Column = Column::new(
        "key",
        Type::Str,
        "the game's identity: 32 hexadecimal digits of a 128-bit BLAKE3 hash of its start position (and whether it is Chess960) and its main line as moves, whatever the notation (`O-O` or `0-0`, `Nf3` or `Ngf3`, check marks, comments, tags and result do not count): equal keys are the same game; group or join by it",
    );

    /// A game's tags.
    pub const TAGS: Column = Column::new("tags", Type::Map, "the game's tags").per_tag();

    /// The tag columns `--tags` names (of findings and outcomes).
    pub const NAMED_TAGS: Column = TAGS
        .doc("each tag `--tags` names, in that order, and its value (null when the game lacks it); in CSV one column per tag, after the others")
        .jsonl_with("--tags");

    /// The `Event` tag (of findings and games).
    pub const EVENT: Column =
        Column::new("event", Type::Str, "the `Event` tag").null_when("the game has none");

    /// The `Site` tag (of games and standings).
    pub const SITE: Column =
        Column::new("site", Type::Str, "the `Site` tag").null_when("the game has none");

    /// The `Round` tag (of findings and games).
    pub const ROUND: Column =
        Column::new("round", Type::Str, "the `Round` tag").null_when("the game has none");
}

/// A record kind: its columns in order.
#[derive(Debug, Clone, Copy)]
pub struct Schema {
    /// The kind's name (`finding`, `outcome`, `game`, …).
    pub name: &'static str,
    /// What one record is, for people.
    pub doc: &'static str,
    pub columns: &'static [Column],
}

impl Schema {
    /// The column called `name`.
    ///
    /// # Panics
    ///
    /// When the schema has no such column: a bug in the caller.
    pub fn column(&self, name: &str) -> &'static Column {
        self.columns
            .iter()
            .find(|c| c.name == name)
            .unwrap_or_else(|| panic!("no column `{name}` in record `{}`", self.name))
    }

    /// The CSV column names, each [`InCsv::PerTag`] column replaced by
    /// `tags`.
    pub fn csv_names<'t>(&self, tags: &[&'t str]) -> Vec<&'t str> {
        let mut names = Vec::with_capacity(self.columns.len() + tags.len());
        for c in self.columns {
            match c.csv {
                InCsv::Cell => names.push(c.name),
                InCsv::No => {}
                InCsv::PerTag => names.extend_from_slice(tags),
            }
        }
        names
    }

    /// The names of the columns `format` writes, `…` standing for the
    /// per-tag columns of CSV (for help texts).
    pub fn names_in(&self, format: Format) -> Vec<&'static str> {
        self.columns
            .iter()
            .filter(|c| c.is_in(format))
            .map(|c| match (format, c.csv) {
                (Format::Csv, InCsv::PerTag) => "…",
                _ => c.name,
            })
            .collect()
    }

    /// The schema as a Markdown table (`docs/records.md`): one row per
    /// column, with its type, where each format has it, its meaning and
    /// when it is null.
    pub fn markdown(&self) -> String {
        let mut s = String::from(
            "| column | type | csv | jsonl | arrow | meaning | null when |\n|---|---|---|---|---|---|---|\n",
        );
        for c in self.columns {
            let ty = match &c.ty {
                Type::Vocab(words) => {
                    let words: Vec<String> = words().iter().map(|w| format!("`{w}`")).collect();
                    format!("one of {}", words.join(", "))
                }
                other => other.name(),
            };
            let csv = match c.csv {
                InCsv::Cell => "yes",
                InCsv::No => "no",
                InCsv::PerTag => "one column per tag",
            };
            let jsonl = match c.jsonl {
                None => "no".to_owned(),
                Some("") => "yes".to_owned(),
                Some(flag) => format!("with `{flag}`"),
            };
            let arrow = if c.arrow { "yes" } else { "no" };
            let _ = writeln!(
                s,
                "| `{}` | {ty} | {csv} | {jsonl} | {arrow} | {} | {} |",
                c.name,
                c.doc.replace('|', "\\|"),
                c.null_when.unwrap_or("never").replace('|', "\\|"),
            );
        }
        s
    }

    /// The schema as JSON (`pgnkit schema --json`): name, doc and, per
    /// column, name, type, nullability, formats and doc; nested structs
    /// and vocabularies written out.
    pub fn to_json(&self) -> String {
        let mut s = String::new();
        self.push_json(&mut s);
        s
    }

    fn push_json(&self, s: &mut String) {
        s.push_str("{\"name\":");
        push_json_str(s, self.name);
        s.push_str(",\"doc\":");
        push_json_str(s, self.doc);
        s.push_str(",\"columns\":[");
        for (i, c) in self.columns.iter().enumerate() {
            if i > 0 {
                s.push(',');
            }
            s.push_str("{\"name\":");
            push_json_str(s, c.name);
            s.push_str(",\"type\":");
            push_type_json(s, &c.ty);
            let _ = write!(s, ",\"nullable\":{}", c.null_when.is_some());
            s.push_str(",\"null_when\":");
            match c.null_when {
                Some(w) => push_json_str(s, w),
                None => s.push_str("null"),
            }
            let csv = match c.csv {
                InCsv::Cell => "cell",
                InCsv::No => "none",
                InCsv::PerTag => "per-tag",
            };
            let _ = write!(s, ",\"csv\":\"{csv}\",\"jsonl\":");
            match c.jsonl {
                None => s.push_str("false"),
                Some("") => s.push_str("true"),
                Some(flag) => push_json_str(s, flag),
            }
            let _ = write!(s, ",\"arrow\":{}", c.arrow);
            s.push_str(",\"doc\":");
            push_json_str(s, c.doc);
            s.push('}');
        }
        s.push_str("]}");
    }
}

fn push_type_json(s: &mut String, ty: &Type) {
    match ty {
        Type::Vocab(words) => {
            s.push_str("{\"kind\":\"vocabulary\",\"values\":[");
            for (i, w) in words().iter().enumerate() {
                if i > 0 {
                    s.push(',');
                }
                push_json_str(s, w);
            }
            s.push_str("]}");
        }
        Type::List(item) => {
            s.push_str("{\"kind\":\"list\",\"item\":");
            push_type_json(s, item);
            s.push('}');
        }
        Type::Struct(schema) => {
            s.push_str("{\"kind\":\"struct\",\"schema\":");
            schema.push_json(s);
            s.push('}');
        }
        other => {
            let _ = write!(s, "{{\"kind\":\"{}\"}}", other.name());
        }
    }
}

fn push_json_str(s: &mut String, text: &str) {
    let mut buf = Vec::new();
    json_str(&mut buf, text);
    s.push_str(std::str::from_utf8(&buf).expect("escaped UTF-8 is UTF-8"));
}

/// Appends `text` as a JSON string literal (RFC 8259 escapes).
pub fn json_str(out: &mut Vec<u8>, text: &str) {
    out.push(b'"');
    let bytes = text.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let escape: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0..=0x1f => b"",
            _ => continue,
        };
        out.extend_from_slice(&bytes[start..i]);
        if escape.is_empty() {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.extend_from_slice(b"\\u00");
            out.push(HEX[usize::from(b >> 4)]);
            out.push(HEX[usize::from(b & 15)]);
        } else {
            out.extend_from_slice(escape);
        }
        start = i + 1;
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

/// Writes `n` in decimal at the end of `buf`, which must have room for
/// its digits; returns where the digits start.
#[inline]
pub fn decimal(n: u64, buf: &mut [u8]) -> usize {
    let mut at = buf.len();
    let mut n = n;
    loop {
        at -= 1;
        buf[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    at
}

/// Appends `n` in decimal.
pub fn push_uint(out: &mut Vec<u8>, n: u64) {
    let mut digits = [0u8; 20];
    let at = decimal(n, &mut digits);
    out.extend_from_slice(&digits[at..]);
}

/// A value of a number column ([`Type::Int32`], [`Type::Float64`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Number {
    Int(i32),
    /// Milliseconds, written as seconds with their fraction (`298.5`).
    Millis(u64),
}

impl Number {
    /// Appends the number as CSV and JSON write it.
    pub fn append_to(self, out: &mut Vec<u8>) {
        match self {
            Number::Int(n) => {
                if n < 0 {
                    out.push(b'-');
                }
                push_uint(out, u64::from(n.unsigned_abs()));
            }
            Number::Millis(ms) => {
                push_uint(out, ms / 1000);
                let frac = ms % 1000;
                if frac > 0 {
                    let digits = [
                        b'0' + (frac / 100) as u8,
                        b'0' + (frac / 10 % 10) as u8,
                        b'0' + (frac % 10) as u8,
                    ];
                    let len = if frac % 100 == 0 {
                        1
                    } else if frac % 10 == 0 {
                        2
                    } else {
                        3
                    };
                    out.push(b'.');
                    out.extend_from_slice(&digits[..len]);
                }
            }
        }
    }

    /// The number as a float (seconds for [`Number::Millis`]).
    pub fn as_f64(self) -> f64 {
        match self {
            Number::Int(n) => f64::from(n),
            Number::Millis(ms) => ms as f64 / 1000.0,
        }
    }
}

/// What a record writes its values through, one call per column in the
/// schema's order (columns the format does not hold are skipped by the
/// writer: a record writes each format's columns only).
pub trait Cells {
    /// A string that is never null.
    fn str(&mut self, value: &str);
    /// A string or null.
    fn opt_str(&mut self, value: Option<&str>);
    /// A word of a vocabulary (ASCII, never escaped), or null.
    fn word(&mut self, value: Option<&str>);
    /// An integer or null.
    fn uint(&mut self, value: Option<u64>);
    fn bool(&mut self, value: bool);
    /// A list of ASCII words (UCI moves), each appended by `item`, or null
    /// (an empty list stays a list).
    fn words<T>(&mut self, items: Option<&[T]>, item: impl Fn(&T, &mut Vec<u8>));
    /// The per-tag values of a [`Type::Map`] column: the tags the run
    /// names, and each one's value in the record.
    fn tags(&mut self, names: &[String], values: &[Option<&str>]);
    /// A number or null.
    fn number(&mut self, value: Option<Number>);
    /// A list of numbers, each of which may be null (in CSV `-`), or null.
    fn numbers(&mut self, items: Option<&[Option<Number>]>);
    /// The periods of a time control ([`game::PERIOD`] structs), or null;
    /// in CSV each period as the tag writes it, space-separated, and `-`
    /// for none (no time control).
    fn periods(&mut self, items: Option<&[Period]>);
}

/// The fields of one [`game::PERIOD`], in its columns' order.
pub(crate) fn period_cells(p: &Period, cells: &mut impl Cells) {
    cells.uint(p.moves.map(u64::from));
    cells.number(Some(Number::Millis(seconds_to_ms(p.seconds))));
    cells.number(Some(Number::Millis(seconds_to_ms(p.increment))));
    cells.bool(p.sandclock);
}

/// Seconds (never negative, as [`crate::rules::time_control`] reads them)
/// as whole milliseconds.
fn seconds_to_ms(s: f64) -> u64 {
    (s * 1000.0).round() as u64
}

/// Whether a CSV cell must be quoted: it holds a comma, a quote or a line
/// end. A long cell (`uci` holds a whole game, about 400 bytes; a FEN about
/// 60) is searched with two vectorised searches, on the writer's thread that
/// every row passes through; a short one (most tags), whose searches would
/// cost more to call than to run, byte by byte.
#[inline]
fn needs_quotes(text: &[u8]) -> bool {
    let special = |b: &u8| matches!(b, b',' | b'"' | b'\r' | b'\n');
    if text.len() < 32 {
        text.iter().any(special)
    } else {
        memchr::memchr3(b',', b'"', b'\n', text).is_some() || memchr::memchr(b'\r', text).is_some()
    }
}

/// Writes one CSV row into a buffer, quoted as the `csv` crate quotes by
/// default ([`crate::output::write_csv_record`]'s rules).
pub struct CsvRow<'b> {
    out: &'b mut Vec<u8>,
    columns: &'static [Column],
    next: usize,
    cells: usize,
    start: usize,
}

impl<'b> CsvRow<'b> {
    /// A row of `schema` appended to `out`.
    pub fn new(out: &'b mut Vec<u8>, schema: &Schema) -> CsvRow<'b> {
        let start = out.len();
        CsvRow {
            out,
            columns: schema.columns,
            next: 0,
            cells: 0,
            start,
        }
    }

    /// Moves to the next column the row holds.
    fn advance(&mut self) {
        while self
            .columns
            .get(self.next)
            .is_some_and(|c| c.csv == InCsv::No)
        {
            self.next += 1;
        }
        debug_assert!(self.next < self.columns.len(), "more cells than columns");
        self.next += 1;
    }

    fn sep(&mut self) {
        if self.cells > 0 {
            self.out.push(b',');
        }
        self.cells += 1;
    }

    /// A cell whose text may need quoting.
    fn text(&mut self, text: &[u8]) {
        self.sep();
        if needs_quotes(text) {
            self.out.push(b'"');
            for &b in text {
                if b == b'"' {
                    self.out.push(b'"');
                }
                self.out.push(b);
            }
            self.out.push(b'"');
        } else {
            self.out.extend_from_slice(text);
        }
    }

    /// Ends the row.
    pub fn finish(self) {
        debug_assert!(
            self.columns[self.next..]
                .iter()
                .all(|c| c.csv != InCsv::Cell),
            "fewer cells than columns"
        );
        if self.out.len() == self.start {
            // A row of one empty cell is written `""`, so that the line is
            // not read as a blank one (as the `csv` crate writes it).
            self.out.extend_from_slice(b"\"\"");
        }
        self.out.push(b'\n');
    }
}

impl Cells for CsvRow<'_> {
    fn str(&mut self, value: &str) {
        self.advance();
        self.text(value.as_bytes());
    }

    fn opt_str(&mut self, value: Option<&str>) {
        self.str(value.unwrap_or(""));
    }

    fn word(&mut self, value: Option<&str>) {
        self.advance();
        self.sep();
        self.out.extend_from_slice(value.unwrap_or("").as_bytes());
    }

    fn uint(&mut self, value: Option<u64>) {
        self.advance();
        self.sep();
        if let Some(n) = value {
            push_uint(self.out, n);
        }
    }

    fn bool(&mut self, value: bool) {
        self.word(Some(if value { "true" } else { "false" }));
    }

    fn words<T>(&mut self, items: Option<&[T]>, item: impl Fn(&T, &mut Vec<u8>)) {
        self.advance();
        self.sep();
        for (i, x) in items.unwrap_or(&[]).iter().enumerate() {
            if i > 0 {
                self.out.push(b' ');
            }
            item(x, self.out);
        }
    }

    fn tags(&mut self, _names: &[String], values: &[Option<&str>]) {
        self.advance();
        for v in values {
            self.text(v.unwrap_or("").as_bytes());
        }
    }

    fn number(&mut self, value: Option<Number>) {
        self.advance();
        self.sep();
        if let Some(n) = value {
            n.append_to(self.out);
        }
    }

    fn numbers(&mut self, items: Option<&[Option<Number>]>) {
        self.advance();
        self.sep();
        for (i, x) in items.unwrap_or(&[]).iter().enumerate() {
            if i > 0 {
                self.out.push(b' ');
            }
            match x {
                Some(n) => n.append_to(self.out),
                None => self.out.push(b'-'),
            }
        }
    }

    fn periods(&mut self, items: Option<&[Period]>) {
        self.advance();
        self.sep();
        match items {
            Some([]) => self.out.push(b'-'),
            Some(items) => {
                for (i, p) in items.iter().enumerate() {
                    if i > 0 {
                        self.out.push(b' ');
                    }
                    self.out.extend_from_slice(p.to_string().as_bytes());
                }
            }
            None => {}
        }
    }
}

/// Writes one JSON object into a buffer: `{"name":value,…}`, every key of
/// the schema's JSON columns written, `null` for an absent value.
pub struct JsonObject<'b> {
    out: &'b mut Vec<u8>,
    columns: &'static [Column],
    next: usize,
    open: bool,
    /// Whether columns shown only with a flag are written.
    flagged: bool,
}

impl<'b> JsonObject<'b> {
    /// An object of `schema` appended to `out`; `flagged` says whether the
    /// columns written only with a flag (`--tags`) are.
    pub fn new(out: &'b mut Vec<u8>, schema: &Schema, flagged: bool) -> JsonObject<'b> {
        JsonObject {
            out,
            columns: schema.columns,
            next: 0,
            open: false,
            flagged,
        }
    }

    /// The rest of an object whose first `written` columns another writer
    /// wrote (the record's place, known only to the writer thread): the
    /// bytes start with a comma. See [`crate::output::convert::jsonl_head`].
    pub fn rest(out: &'b mut Vec<u8>, schema: &Schema, written: usize) -> JsonObject<'b> {
        JsonObject {
            out,
            columns: schema.columns,
            next: written,
            open: true,
            flagged: true,
        }
    }

    /// Writes the key of the next column the object holds.
    fn key(&mut self) {
        loop {
            let c = self
                .columns
                .get(self.next)
                .expect("more values than columns");
            self.next += 1;
            match c.jsonl {
                Some("") => break,
                Some(_) if self.flagged => break,
                _ => {}
            }
        }
        let name = self.columns[self.next - 1].name;
        self.out.push(if self.open { b',' } else { b'{' });
        self.open = true;
        self.out.push(b'"');
        self.out.extend_from_slice(name.as_bytes());
        self.out.extend_from_slice(b"\":");
    }

    /// The next value is a string that needs no escaping (SAN, UCI, FEN),
    /// appended by `text`.
    pub fn ascii(&mut self, text: impl FnOnce(&mut Vec<u8>)) {
        self.key();
        self.out.push(b'"');
        text(self.out);
        self.out.push(b'"');
    }

    /// The next value is a list of JSON values, each written by `item`
    /// (the buffer it appends to), or null when empty or absent.
    pub fn list<T>(&mut self, items: Option<&[T]>, item: impl FnMut(&T, &mut Vec<u8>)) {
        self.array(items.filter(|i| !i.is_empty()), item);
    }

    /// The next value is an object written by `inner` through its own
    /// schema, or null.
    pub fn object(&mut self, schema: &Schema, inner: Option<impl FnOnce(&mut JsonObject<'_>)>) {
        self.key();
        match inner {
            Some(inner) => {
                let mut o = JsonObject::new(self.out, schema, true);
                inner(&mut o);
                o.finish_inner();
            }
            None => self.out.extend_from_slice(b"null"),
        }
    }

    /// The next value is a list of objects of `schema`, one per item.
    pub fn objects<T>(
        &mut self,
        schema: &Schema,
        items: &[T],
        mut inner: impl FnMut(&T, &mut JsonObject<'_>),
    ) {
        self.key();
        self.out.push(b'[');
        for (i, x) in items.iter().enumerate() {
            if i > 0 {
                self.out.push(b',');
            }
            let mut o = JsonObject::new(self.out, schema, true);
            inner(x, &mut o);
            o.finish_inner();
        }
        self.out.push(b']');
    }

    /// The next value is a map of strings, entries in the given order.
    pub fn map<'a>(&mut self, entries: impl Iterator<Item = (&'a str, Option<&'a str>)>) {
        self.key();
        self.out.push(b'{');
        for (i, (name, value)) in entries.enumerate() {
            if i > 0 {
                self.out.push(b',');
            }
            json_str(self.out, name);
            self.out.push(b':');
            match value {
                Some(v) => json_str(self.out, v),
                None => self.out.extend_from_slice(b"null"),
            }
        }
        self.out.push(b'}');
    }

    /// The next value is a JSON array of `items`, each appended by `item`
    /// (an empty one stays an array), or `null`.
    fn array<T>(&mut self, items: Option<&[T]>, mut item: impl FnMut(&T, &mut Vec<u8>)) {
        self.key();
        let Some(items) = items else {
            self.out.extend_from_slice(b"null");
            return;
        };
        self.out.push(b'[');
        for (i, x) in items.iter().enumerate() {
            if i > 0 {
                self.out.push(b',');
            }
            item(x, self.out);
        }
        self.out.push(b']');
    }

    /// Closes the object and hands back its buffer.
    fn finish_inner(self) -> &'b mut Vec<u8> {
        debug_assert!(
            self.columns[self.next..]
                .iter()
                .all(|c| c.jsonl.is_none() || (c.jsonl != Some("") && !self.flagged)),
            "fewer values than columns"
        );
        let JsonObject { out, open, .. } = self;
        if !open {
            out.push(b'{');
        }
        out.push(b'}');
        out
    }

    /// Ends the object and the line.
    pub fn finish(self) {
        self.finish_inner().push(b'\n');
    }
}

impl Cells for JsonObject<'_> {
    fn str(&mut self, value: &str) {
        self.key();
        json_str(self.out, value);
    }

    fn opt_str(&mut self, value: Option<&str>) {
        match value {
            Some(v) => self.str(v),
            None => {
                self.key();
                self.out.extend_from_slice(b"null");
            }
        }
    }

    fn word(&mut self, value: Option<&str>) {
        self.key();
        match value {
            Some(w) => {
                self.out.push(b'"');
                self.out.extend_from_slice(w.as_bytes());
                self.out.push(b'"');
            }
            None => self.out.extend_from_slice(b"null"),
        }
    }

    fn uint(&mut self, value: Option<u64>) {
        self.key();
        match value {
            Some(n) => push_uint(self.out, n),
            None => self.out.extend_from_slice(b"null"),
        }
    }

    fn bool(&mut self, value: bool) {
        self.key();
        self.out
            .extend_from_slice(if value { b"true" } else { b"false" });
    }

    fn words<T>(&mut self, items: Option<&[T]>, item: impl Fn(&T, &mut Vec<u8>)) {
        self.array(items, |x, out| {
            out.push(b'"');
            item(x, out);
            out.push(b'"');
        });
    }

    fn tags(&mut self, names: &[String], values: &[Option<&str>]) {
        self.map(names.iter().map(String::as_str).zip(values.iter().copied()));
    }

    fn number(&mut self, value: Option<Number>) {
        self.key();
        match value {
            Some(n) => n.append_to(self.out),
            None => self.out.extend_from_slice(b"null"),
        }
    }

    fn numbers(&mut self, items: Option<&[Option<Number>]>) {
        self.array(items, |x, out| match x {
            Some(n) => n.append_to(out),
            None => out.extend_from_slice(b"null"),
        });
    }

    fn periods(&mut self, items: Option<&[Period]>) {
        match items {
            Some(items) => self.objects(&game::PERIOD, items, |p, o| period_cells(p, o)),
            None => {
                self.key();
                self.out.extend_from_slice(b"null");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::needs_quotes;

    /// The vectorised test says what a test of each byte says, for cells
    /// of every length up to past the searches' 32- and 64-byte blocks,
    /// with each special byte at every place, and for random bytes.
    #[test]
    fn needs_quotes_is_a_test_of_each_byte() {
        let by_byte = |t: &[u8]| t.iter().any(|&b| matches!(b, b',' | b'"' | b'\r' | b'\n'));
        for len in 0..140 {
            let plain = vec![b'a'; len];
            assert!(!needs_quotes(&plain));
            for at in 0..len {
                for special in [b',', b'"', b'\r', b'\n'] {
                    let mut t = plain.clone();
                    t[at] = special;
                    assert!(needs_quotes(&t), "{special} at {at} of {len}");
                }
            }
        }
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut quoted = 0;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let len = (x % 200) as usize;
            // About one special byte in 100, so that long and short cells
            // come both quoted and not.
            let mut t = Vec::with_capacity(len);
            let mut y = x;
            for _ in 0..len {
                y ^= y << 13;
                y ^= y >> 7;
                y ^= y << 17;
                t.push(if y.is_multiple_of(100) {
                    b",\"\r\n"[(y >> 8) as usize % 4]
                } else {
                    b"ae4 \t\xc3-"[(y >> 8) as usize % 7]
                });
            }
            assert_eq!(needs_quotes(&t), by_byte(&t), "{t:?}");
            quoted += usize::from(by_byte(&t));
        }
        assert!(quoted > 1_000 && quoted < 19_000, "{quoted}");
    }
}
