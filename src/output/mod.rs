//! Bytes out: report writers (text, CSV, JSON Lines, PGN, the convert
//! formats) and diagnostics on standard error. Workers call these to render
//! results; the progress bar is [`crate::stream::progress`]'s.

pub mod annotate;
pub mod convert;
pub mod diag;
pub mod json;
pub mod pgn;
pub mod report;

use std::io::{self, Write};

/// Writes one CSV record (RFC 4180 quoting, as the `csv` crate does it).
///
/// The `csv` writer zeroes an 8 KB buffer when it is made; reports write a
/// record at a time from many places, so the writer here is made with a
/// buffer the size of a typical record instead.
///
/// # Errors
///
/// When writing fails.
pub fn write_csv_record<I, T>(out: &mut dyn Write, fields: I) -> io::Result<()>
where
    I: IntoIterator<Item = T>,
    T: AsRef<[u8]>,
{
    let mut w = csv::WriterBuilder::new()
        .has_headers(false)
        .buffer_capacity(512)
        .from_writer(out);
    w.write_record(fields)?;
    w.flush()
}
