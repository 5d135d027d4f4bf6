//! A shard's records as the merged output holds them: `game` and `line`
//! shifted by the games and lines of the shards of its file before it, and
//! `file` renamed where a rerun named the file otherwise. Only pgnkit's own
//! top-level `game` and `line` change: a tag column or key of that name
//! keeps its value.

use std::borrow::Cow;
use std::io::Write;
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, bail};
use arrow_array::cast::AsArray;
use arrow_array::types::UInt64Type;
use arrow_array::{RecordBatch, StringArray, UInt64Array};

use crate::error::Error;
use crate::schema;

/// What is added to a shard's records, and the name its file gets.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Shift<'a> {
    /// Added to `game`: the games of the shards of the file before it.
    pub games: u64,
    /// Added to `line` (validate's findings): their lines.
    pub lines: u64,
    /// The name the records give their file, when it is not theirs.
    pub file: Option<&'a str>,
}

/// Where every CSV row of pgnkit names its file.
pub const FILE_COLUMN: usize = 0;

/// Where pgnkit's own `game` and `line` columns are in a CSV row of
/// `command` (tags come after them, or after pgnkit's leading columns).
pub fn own_columns(command: &str) -> (usize, Option<usize>) {
    let schema = crate::format::Subcommand::from_name(command)
        .and_then(schema::of_command)
        .unwrap_or(&schema::game::GAME);
    // The tag columns come after pgnkit's leading ones, so positions in
    // the header without tags hold in any run.
    let fixed = schema.csv_names(&[]);
    let game = fixed
        .iter()
        .position(|c| *c == schema::common::GAME.name)
        .expect("a game column");
    let line = fixed.iter().position(|c| *c == schema::finding::LINE.name);
    (game, line)
}

/// Which top-level keys of a JSON Lines record of `command` are shifted:
/// `game` always, `line` for validate's findings.
pub fn json_keys(command: &str) -> [bool; 2] {
    match crate::format::Subcommand::from_name(command) {
        Some(crate::format::Subcommand::Validate) => [true, true],
        _ => [true, false],
    }
}

/// `field` (digits, or empty) with `by` added.
///
/// # Errors
///
/// When it is not a number, or the sum overflows.
pub fn shift(field: &[u8], by: u64) -> anyhow::Result<String> {
    if field.is_empty() {
        return Ok(String::new());
    }
    let text = std::str::from_utf8(field)
        .ok()
        .filter(|t| t.bytes().all(|b| b.is_ascii_digit()));
    let n: u64 = text.and_then(|t| t.parse().ok()).with_context(|| {
        format!(
            "`{}` is not a game or line number",
            String::from_utf8_lossy(field)
        )
    })?;
    Ok(n.checked_add(by)
        .context("a game or line number overflows")?
        .to_string())
}

/// A CSV row's fields with its `game` (and `line`) columns, at `columns`
/// ([`own_columns`]), shifted and its file renamed.
///
/// # Errors
///
/// When a number is not one or overflows.
pub fn csv_fields<'r>(
    row: &'r csv::ByteRecord,
    columns: (usize, Option<usize>),
    by: &Shift<'_>,
) -> anyhow::Result<Vec<Cow<'r, [u8]>>> {
    let mut fields: Vec<Cow<'_, [u8]>> = row.iter().map(Cow::Borrowed).collect();
    if let Some(file) = by.file {
        fields[FILE_COLUMN] = file.as_bytes().to_vec().into();
    }
    for (column, n) in [(Some(columns.0), by.games), (columns.1, by.lines)] {
        if let Some(c) = column {
            fields[c] = shift(&fields[c], n)?.into_bytes().into();
        }
    }
    Ok(fields)
}

/// Writes one JSON record with its top-level `game` (and, for `keys[1]`,
/// `line`) numbers shifted and its `file` renamed, and a newline.
///
/// # Errors
///
/// When the record is not one JSON object or a number cannot be shifted,
/// or writing fails (an [`Error`] naming `to`).
pub fn write_json(
    out: &mut dyn Write,
    record: &[u8],
    keys: [bool; 2],
    by: &Shift<'_>,
    to: &Path,
) -> anyhow::Result<()> {
    let [game, line, file_place] = json_places(record)?;
    let mut edits: Vec<(Range<usize>, String)> = Vec::new();
    for ((place, n), wanted) in [game, line].into_iter().zip([by.games, by.lines]).zip(keys) {
        if let (Some(place), true) = (place, wanted) {
            let value = &record[place.clone()];
            if value != b"null" {
                edits.push((place, shift(value, n)?));
            }
        }
    }
    if let (Some(name), Some(place)) = (by.file, file_place) {
        let mut quoted = Vec::new();
        crate::schema::json_str(&mut quoted, name);
        edits.push((place, String::from_utf8(quoted).expect("JSON is UTF-8")));
    }
    edits.sort_by_key(|(r, _)| r.start);
    let mut at = 0;
    let write = |out: &mut dyn Write, b: &[u8]| -> anyhow::Result<()> {
        out.write_all(b)
            .map_err(|e| Error::output(to, "failed to write the merged output", e).into())
    };
    for (range, value) in edits {
        write(out, &record[at..range.start])?;
        write(out, value.as_bytes())?;
        at = range.end;
    }
    write(out, &record[at..])?;
    write(out, b"\n")
}

/// The byte ranges of the numbers (or `null`s) of the top-level `game` and
/// `line` keys of one JSON object, and of its `file` string, checking that
/// the record is one object.
///
/// # Errors
///
/// When it is not one JSON object on its line.
pub fn json_places(record: &[u8]) -> anyhow::Result<[Option<Range<usize>>; 3]> {
    let mut places = [None, None, None];
    if record.first() != Some(&b'{') || record.last() != Some(&b'}') {
        bail!("it is not one JSON object on its line");
    }
    let mut depth = 0usize;
    let mut i = 0;
    // The last string at depth 1 and where it ended, to tell a key.
    let mut key: Option<Range<usize>> = None;
    while i < record.len() {
        match record[i] {
            b'"' => {
                let string = string_at(record, i)?;
                key = (depth == 1).then_some(string.start + 1..string.end - 1);
                i = string.end;
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.checked_sub(1).context("unbalanced brackets")?;
                if depth == 0 && i + 1 != record.len() {
                    bail!("text after the object");
                }
            }
            b':' if depth == 1 => {
                if let Some(k) = key.take() {
                    place_value(record, &record[k], i + 1, &mut places)?;
                }
            }
            _ => {}
        }
        i += 1;
    }
    if depth != 0 {
        bail!("unbalanced brackets");
    }
    Ok(places)
}

/// Records in `places` where the value of the top-level key `name`, at
/// `start`, is, when it is `game`, `line` or `file`.
fn place_value(
    record: &[u8],
    name: &[u8],
    start: usize,
    places: &mut [Option<Range<usize>>; 3],
) -> anyhow::Result<()> {
    if name == schema::common::FILE.name.as_bytes() {
        if record.get(start) != Some(&b'"') {
            bail!("a `file` that is not a string");
        }
        places[2] = Some(string_at(record, start)?);
    }
    let slot = if name == schema::common::GAME.name.as_bytes() {
        0
    } else if name == schema::finding::LINE.name.as_bytes() {
        1
    } else {
        return Ok(());
    };
    let len = record[start..]
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric())
        .count();
    places[slot] = Some(start..start + len);
    Ok(())
}

/// The byte range of the JSON string (quotes included) that starts at
/// `at`, a `"`.
fn string_at(record: &[u8], at: usize) -> anyhow::Result<Range<usize>> {
    let mut i = at + 1;
    loop {
        match record.get(i) {
            None => bail!("a string that does not end"),
            Some(b'\\') => i += 2,
            Some(b'"') => return Ok(at..i + 1),
            Some(_) => i += 1,
        }
    }
}

/// `batch` with its `game` and `line` columns shifted and its `file`
/// column renamed.
///
/// # Errors
///
/// When a column is not what pgnkit writes, or a number overflows.
pub fn batch(batch: &RecordBatch, by: &Shift<'_>) -> anyhow::Result<RecordBatch> {
    let mut batch = shift_column(batch.clone(), schema::common::GAME.name, by.games)?;
    batch = shift_column(batch, schema::finding::LINE.name, by.lines)?;
    if let Some(file) = by.file {
        batch = rename_file(batch, file)?;
    }
    Ok(batch)
}

/// `batch` with `by` added to its `column` (`game`, `line`).
fn shift_column(batch: RecordBatch, column: &str, by: u64) -> anyhow::Result<RecordBatch> {
    let Ok(at) = batch.schema_ref().index_of(column) else {
        return Ok(batch);
    };
    if by == 0 {
        return Ok(batch);
    }
    let values = batch
        .column(at)
        .as_primitive_opt::<UInt64Type>()
        .with_context(|| format!("`{column}` is not an unsigned integer"))?;
    let shifted = values
        .iter()
        .map(|v| {
            v.map(|v| {
                v.checked_add(by)
                    .with_context(|| format!("`{column}` {v} cannot be shifted by {by}"))
            })
            .transpose()
        })
        .collect::<anyhow::Result<UInt64Array>>()?;
    let mut columns = batch.columns().to_vec();
    columns[at] = Arc::new(shifted);
    Ok(RecordBatch::try_new(batch.schema(), columns)?)
}

/// `batch` with every `file` value `file`.
fn rename_file(batch: RecordBatch, file: &str) -> anyhow::Result<RecordBatch> {
    let at = batch.schema_ref().index_of(schema::common::FILE.name)?;
    let mut columns = batch.columns().to_vec();
    columns[at] = Arc::new(StringArray::from(vec![file; batch.num_rows()]));
    Ok(RecordBatch::try_new(batch.schema(), columns)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::Array;
    use arrow_schema::{DataType, Field, Schema};

    fn json(record: &[u8], keys: [bool; 2], by: Shift<'_>) -> Vec<u8> {
        let mut out = Vec::new();
        write_json(&mut out, record, keys, &by, Path::new("-")).unwrap();
        out
    }

    #[test]
    fn only_top_level_numbers_are_found() {
        let r = br#"{"file":"x\"game\":7","game":3,"offset":9,"line":12,"x":{"game":1,"line":2}}"#;
        let [g, l, f] = json_places(r).unwrap();
        assert_eq!(&r[g.unwrap()], b"3");
        assert_eq!(&r[l.unwrap()], b"12");
        assert_eq!(&r[f.unwrap()], br#""x\"game\":7""#);
        let by = Shift {
            games: 10,
            lines: 100,
            file: None,
        };
        assert_eq!(
            json(r, [true, true], by),
            b"{\"file\":\"x\\\"game\\\":7\",\"game\":13,\"offset\":9,\"line\":112,\"x\":{\"game\":1,\"line\":2}}\n"
        );
        let by = Shift {
            games: 1,
            lines: 1,
            file: Some("a\"b"),
        };
        assert!(json(r, [true, false], by).starts_with(b"{\"file\":\"a\\\"b\",\"game\":4,"));
        let n = br#"{"game":null,"line":5}"#;
        let by = Shift {
            games: 10,
            lines: 10,
            file: None,
        };
        assert_eq!(json(n, [true, false], by), b"{\"game\":null,\"line\":5}\n");
        for bad in [
            &br#"{"game":1"#[..],
            br#"{"a":"b}"#,
            br#"{"a":1}}"#,
            b"",
            br#"{"a":[}"#,
            br#"{"file":3}"#,
        ] {
            assert!(
                json_places(bad).is_err(),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
    }

    #[test]
    fn fields_shift_and_refuse_what_is_no_number() {
        assert_eq!(shift(b"41", 1).unwrap(), "42");
        assert_eq!(shift(b"", 5).unwrap(), "");
        assert!(shift(b"x", 1).is_err());
        assert!(shift(b"-1", 1).is_err());
        assert!(shift(b"18446744073709551615", 1).is_err());
    }

    #[test]
    fn csv_rows_shift_their_own_columns_only() {
        let columns = own_columns("validate");
        assert_eq!(columns.0, 1);
        let line = columns.1.expect("validate has a line column");
        let mut fields = vec!["f.pgn"; line + 3];
        fields[1] = "2";
        fields[line] = "40";
        fields[line + 2] = "7"; // a tag after pgnkit's own columns
        let row = csv::ByteRecord::from(fields.clone());
        let by = Shift {
            games: 3,
            lines: 100,
            file: Some("g.pgn"),
        };
        let out = csv_fields(&row, columns, &by).unwrap();
        assert_eq!(&*out[FILE_COLUMN], b"g.pgn");
        assert_eq!(&*out[1], b"5");
        assert_eq!(&*out[line], b"140");
        assert_eq!(&*out[line + 2], b"7");
        assert_eq!(own_columns("annotate-outcome").1, None);
        let mut bad = fields;
        bad[1] = "two";
        let row = csv::ByteRecord::from(bad);
        assert!(csv_fields(&row, columns, &by).is_err());
    }

    #[test]
    fn batches_shift_game_and_line_and_rename_file() {
        let schema = Arc::new(Schema::new(vec![
            Field::new("file", DataType::Utf8, false),
            Field::new("game", DataType::UInt64, false),
            Field::new("line", DataType::UInt64, true),
        ]));
        let b = RecordBatch::try_new(
            schema.clone(),
            vec![
                Arc::new(StringArray::from(vec!["/abs/f.pgn", "/abs/f.pgn"])),
                Arc::new(UInt64Array::from(vec![1, 2])),
                Arc::new(UInt64Array::from(vec![Some(5), None])),
            ],
        )
        .unwrap();
        let by = Shift {
            games: 10,
            lines: 50,
            file: Some("f.pgn"),
        };
        let out = batch(&b, &by).unwrap();
        let col = |i: usize| out.column(i).as_primitive::<UInt64Type>().clone();
        assert_eq!(col(1).values().to_vec(), vec![11, 12]);
        assert_eq!(col(2).value(0), 55);
        assert!(col(2).is_null(1));
        assert_eq!(out.column(0).as_string::<i32>().value(1), "f.pgn");
        // Nothing to add: the batch as it was.
        assert_eq!(batch(&b, &Shift::default()).unwrap(), b);
        let top = RecordBatch::try_new(
            schema,
            vec![
                Arc::new(StringArray::from(vec!["f"])),
                Arc::new(UInt64Array::from(vec![u64::MAX])),
                Arc::new(UInt64Array::from(vec![Some(0)])),
            ],
        )
        .unwrap();
        assert!(batch(&top, &by).is_err());
    }
}
