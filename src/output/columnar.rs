//! Records in their columnar form, out: Parquet (`-f parquet`) or the Arrow
//! IPC stream format (`-f arrow`), written batch by batch in input order
//! from the records' one definition ([`crate::schema::arrow`]).
//!
//! Memory stays flat: a batch holds at most [`BATCH_ROWS`] records and a
//! Parquet row group at most [`ROW_GROUP_ROWS`]; each is written out as it
//! fills. The bytes depend on the records alone (no clock, no thread
//! count), so any `--threads` writes the same file.

use std::io::{self, IsTerminal, Write};
use std::sync::{Arc, Mutex};

use arrow_ipc::writer::StreamWriter;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;

use crate::schema::Schema;
use crate::schema::arrow::ArrowRows;

/// Records per record batch.
pub const BATCH_ROWS: usize = 8192;

/// Records per Parquet row group.
pub const ROW_GROUP_ROWS: usize = 65_536;

/// The zstd level of Parquet pages: as `zstd -3`.
const ZSTD_LEVEL: i32 = 3;

/// A columnar output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Columnar {
    Parquet,
    /// The Arrow IPC stream format.
    Arrow,
}

impl Columnar {
    /// The format's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Columnar::Parquet => "parquet",
            Columnar::Arrow => "arrow",
        }
    }
}

/// What a binary format says when standard output is a terminal.
///
/// # Errors
///
/// When standard output is a terminal and the output goes there.
pub fn refuse_terminal(format: Columnar, to_stdout: bool) -> Result<(), String> {
    if to_stdout && !crate::embed::is_embedded() && io::stdout().is_terminal() {
        return Err(format!(
            "refusing to write {} to a terminal: it is binary; give -o FILE or redirect standard output",
            format.name()
        ));
    }
    Ok(())
}

/// The bytes the format writers produce, taken out after each write (the
/// Parquet writer wants a `Send` sink; the product writer is not one).
#[derive(Clone, Default)]
struct Pending(Arc<Mutex<Vec<u8>>>);

impl Write for Pending {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0
            .lock()
            .map_err(|_| io::Error::other("poisoned"))?
            .extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Pending {
    /// Moves what was written to `out`.
    fn drain_to(&self, out: &mut dyn Write) -> io::Result<()> {
        let mut bytes = self.0.lock().map_err(|_| io::Error::other("poisoned"))?;
        out.write_all(&bytes)?;
        bytes.clear();
        Ok(())
    }
}

enum Encoder {
    Parquet(Box<ArrowWriter<Pending>>),
    Arrow(Box<StreamWriter<Pending>>),
}

/// Records of one schema written as Parquet or an Arrow stream.
pub struct ColumnarSink {
    rows: ArrowRows,
    encoder: Encoder,
    pending: Pending,
}

fn other(e: impl std::error::Error + Send + Sync + 'static) -> io::Error {
    io::Error::other(e)
}

impl ColumnarSink {
    /// A writer of `schema`'s records in `format`; the stream's header is
    /// written out at the first batch.
    ///
    /// # Errors
    ///
    /// When the encoder refuses the schema (a bug).
    pub fn new(format: Columnar, schema: &Schema) -> io::Result<ColumnarSink> {
        let rows = ArrowRows::new(schema);
        let pending = Pending::default();
        let encoder = match format {
            Columnar::Parquet => {
                let props = WriterProperties::builder()
                    .set_compression(Compression::ZSTD(
                        ZstdLevel::try_new(ZSTD_LEVEL).map_err(other)?,
                    ))
                    .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
                    .build();
                Encoder::Parquet(Box::new(
                    ArrowWriter::try_new(pending.clone(), Arc::clone(rows.schema()), Some(props))
                        .map_err(other)?,
                ))
            }
            Columnar::Arrow => Encoder::Arrow(Box::new(
                StreamWriter::try_new(pending.clone(), rows.schema()).map_err(other)?,
            )),
        };
        Ok(ColumnarSink {
            rows,
            encoder,
            pending,
        })
    }

    /// Where the next record goes.
    pub fn rows(&mut self) -> &mut ArrowRows {
        &mut self.rows
    }

    /// Writes the records gathered as a batch to `out` once there are
    /// [`BATCH_ROWS`] of them.
    ///
    /// # Errors
    ///
    /// When encoding or writing fails.
    pub fn flush_full(&mut self, out: &mut dyn Write) -> io::Result<()> {
        if self.rows.len() >= BATCH_ROWS {
            self.write_batch(out)?;
        }
        Ok(())
    }

    fn write_batch(&mut self, out: &mut dyn Write) -> io::Result<()> {
        let batch = self.rows.batch().map_err(other)?;
        match &mut self.encoder {
            Encoder::Parquet(w) => w.write(&batch).map_err(other)?,
            Encoder::Arrow(w) => w.write(&batch).map_err(other)?,
        }
        self.pending.drain_to(out)
    }

    /// Writes what is left and the format's end (Parquet's footer, the
    /// stream's end marker) to `out`.
    ///
    /// # Errors
    ///
    /// When encoding or writing fails.
    pub fn finish(mut self, out: &mut dyn Write) -> io::Result<()> {
        if !self.rows.is_empty() {
            self.write_batch(out)?;
        }
        match self.encoder {
            Encoder::Parquet(w) => {
                w.close().map_err(other)?;
            }
            Encoder::Arrow(mut w) => w.finish().map_err(other)?,
        }
        self.pending.drain_to(out)
    }
}
