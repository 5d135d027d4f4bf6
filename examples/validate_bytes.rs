//! Validates a PGN held in memory through the library API and prints what
//! it found: the findings as text, the diagnostics a person would read
//! (each naming the input `<bytes>`), then the same findings as Arrow
//! record batches, counted.
//!
//! ```sh
//! cargo run --example validate_bytes
//! ```

// An example prints its results: the lint that keeps stdout to one writer
// in the library does not apply here.
#![allow(clippy::print_stdout)]

use std::io::Cursor;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use pgnkit::api::{self, BatchSink, Collected, Format, Input, RecordSink, ValidateOptions};

const PGN: &str = "\
[Event \"Club championship\"]
[Site \"?\"]
[Date \"2024.03.02\"]
[Round \"1\"]
[White \"Anna\"]
[Black \"Boris\"]
[Result \"1-0\"]

1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Bxc6 dxc6 5. Ke3 1-0
";

/// Counts the findings of the batches it is handed.
#[derive(Default)]
struct CountRows(usize);

impl BatchSink for &mut CountRows {
    fn schema(&mut self, _schema: SchemaRef) -> std::io::Result<()> {
        Ok(())
    }

    fn batch(&mut self, batch: RecordBatch) -> std::io::Result<()> {
        self.0 += batch.num_rows();
        Ok(())
    }
}

fn main() -> Result<(), pgnkit::Error> {
    // The report as text, into memory.
    let mut report = Vec::new();
    let diagnostics = Collected::default();
    let summary = api::validate(
        &ValidateOptions::default(),
        vec![Input::reader("<bytes>", Cursor::new(PGN))],
        RecordSink::Writer(&mut report),
        &diagnostics,
    )?;
    print!("{}", String::from_utf8_lossy(&report));
    for (_, line) in diagnostics.lines() {
        println!("{line}");
    }
    println!("exit status {:?}", summary.status);

    // The same findings as typed Arrow batches, handed over unencoded.
    let options = ValidateOptions {
        format: Format::Arrow,
        ..ValidateOptions::default()
    };
    let mut rows = CountRows::default();
    api::validate(
        &options,
        vec![Input::reader("<bytes>", Cursor::new(PGN))],
        RecordSink::Batches(Box::new(&mut rows)),
        &Collected::default(),
    )?;
    println!("{} findings in the Arrow batches", rows.0);
    Ok(())
}
