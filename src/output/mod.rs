//! Bytes out: report writers (text, CSV, JSON Lines, PGN, the convert
//! formats, perft's lines) and diagnostics on standard error. Workers call
//! these to render results; the progress bar is [`crate::stream::progress`]'s.

pub mod annotate;
pub mod atomic;
pub mod columnar;
pub mod convert;
pub mod crosstable;
pub mod diag;
pub mod html;
pub mod perft;
pub mod pgn;
pub mod problem_games;
pub mod report;
pub mod stats;
pub mod tally;

use std::io::{self, Write};

/// Writes one CSV record, quoted as the `csv` crate's writer quotes by
/// default: a field holding a comma, a double quote, a carriage return or a
/// line feed is enclosed in double quotes, with its double quotes doubled;
/// a record made of one empty field is written `""`; the record ends with a
/// line feed.
///
/// Reports write a record at a time from many places; a `csv` writer per
/// record cost more than the rest of `annotate-outcome`'s table output, so
/// the record is put together here and written with one call (the tests
/// hold it to the `csv` writer's bytes).
///
/// # Errors
///
/// When writing fails.
pub fn write_csv_record<I, T>(out: &mut dyn Write, fields: I) -> io::Result<()>
where
    I: IntoIterator<Item = T>,
    T: AsRef<[u8]>,
{
    let mut record = Vec::with_capacity(256);
    for (i, field) in fields.into_iter().enumerate() {
        let field = field.as_ref();
        if i > 0 {
            record.push(b',');
        }
        if field
            .iter()
            .any(|&b| matches!(b, b',' | b'"' | b'\r' | b'\n'))
        {
            record.push(b'"');
            for &b in field {
                if b == b'"' {
                    record.push(b'"');
                }
                record.push(b);
            }
            record.push(b'"');
        } else {
            record.extend_from_slice(field);
        }
    }
    if record.is_empty() {
        // Nothing written for the record: `csv` writes an empty field as
        // `""` so that the line is not read as a blank one.
        record.extend_from_slice(b"\"\"");
    }
    record.push(b'\n');
    out.write_all(&record)
}

#[cfg(test)]
mod tests {
    use super::write_csv_record;

    /// The record as the `csv` crate's writer writes it.
    fn by_csv(fields: &[&[u8]]) -> Vec<u8> {
        let mut w = csv::WriterBuilder::new()
            .has_headers(false)
            .from_writer(Vec::new());
        w.write_record(fields).unwrap();
        w.into_inner().unwrap()
    }

    #[test]
    fn records_are_the_csv_crates_bytes() {
        let samples: [&[u8]; 12] = [
            b"",
            b"plain",
            b"Alekhine, Alexander",
            b"say \"hi\"",
            b"\"",
            b"two\nlines",
            b"cr\rhere",
            b" spaced ",
            b"#hash",
            b"caf\xc3\xa9",
            b"\xff\x00bytes",
            b"e2e4 e7e5",
        ];
        let mut records: Vec<Vec<&[u8]>> = vec![vec![b""], vec![b"", b""], vec![b"", b"x"]];
        for a in samples {
            records.push(vec![a]);
            for b in samples {
                records.push(vec![a, b, b"9"]);
            }
        }
        for record in records {
            let mut ours = Vec::new();
            write_csv_record(&mut ours, &record).unwrap();
            assert_eq!(ours, by_csv(&record), "{record:?}");
        }
    }
}
