//! Records in their columnar form, out: Parquet (`-f parquet`) or the Arrow
//! IPC stream format (`-f arrow`), written batch by batch in input order
//! from the records' one definition ([`crate::schema::arrow`]).
//!
//! Memory stays flat: a batch holds at most [`BATCH_ROWS`] records and a
//! Parquet row group at most [`ROW_GROUP_ROWS`]; each is written out as it
//! fills. The bytes depend on the records alone (no clock, no thread
//! count), so any `--threads` writes the same file.

use std::io::{self, IsTerminal, Write};
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use arrow_array::RecordBatch;

use arrow_ipc::writer::StreamWriter;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::schema::types::ColumnPath;

use crate::schema::Schema;
use crate::schema::arrow::ArrowRows;

/// Records per record batch.
pub const BATCH_ROWS: usize = 8192;

/// Records per Parquet row group.
pub const ROW_GROUP_ROWS: usize = 65_536;

/// The zstd level of Parquet pages: 1, the fastest (level 3 made the
/// file 3 % smaller for 3 % more instructions in all).
const ZSTD_LEVEL: i32 = 1;

/// A columnar output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Columnar {
    Parquet,
    /// The Arrow IPC stream format.
    Arrow,
}

impl Columnar {
    /// The columnar format `format` is, if it is one.
    pub fn of(format: crate::format::Format) -> Option<Columnar> {
        match format {
            crate::format::Format::Parquet => Some(Columnar::Parquet),
            crate::format::Format::Arrow => Some(Columnar::Arrow),
            _ => None,
        }
    }

    /// The format's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Columnar::Parquet => "parquet",
            Columnar::Arrow => "arrow",
        }
    }
}

/// What a binary format says when its output is a terminal
/// (`onto_terminal`: standard output or an `-o` that is one, see
/// [`names_a_terminal`]).
///
/// # Errors
///
/// When the output is a terminal.
pub fn refuse_terminal(format: Columnar, onto_terminal: bool) -> Result<(), String> {
    if onto_terminal {
        return Err(format!(
            "refusing to write {} to a terminal: it is binary; give -o FILE or redirect standard output",
            format.name()
        ));
    }
    Ok(())
}

/// Whether `path` names a terminal (`/dev/tty`, `/dev/stdout` on a
/// terminal, a pty), opened without becoming its controlling terminal; `-`
/// is standard output.
pub fn names_a_terminal(path: &std::path::Path) -> bool {
    use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
    if path == std::path::Path::new("-") {
        return io::stdout().is_terminal();
    }
    std::fs::metadata(path).is_ok_and(|m| m.file_type().is_char_device())
        && std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NOCTTY | libc::O_NONBLOCK)
            .open(path)
            .is_ok_and(|f| f.is_terminal())
}

/// Where the Arrow record batches of a run go ([`crate::api::RecordSink::Batches`]).
/// The schema comes first, once: at the first batch, or at the end of a
/// run that has none. A call that fails stops the run as a failed write
/// would.
pub trait BatchSink {
    /// The records' schema.
    ///
    /// # Errors
    ///
    /// When the sink takes no more (the run then stops).
    fn schema(&mut self, schema: arrow_schema::SchemaRef) -> std::io::Result<()>;

    /// The next batch, in input order.
    ///
    /// # Errors
    ///
    /// When the sink takes no more (the run then stops).
    fn batch(&mut self, batch: arrow_array::RecordBatch) -> std::io::Result<()>;
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

enum Encoder {
    Parquet(Box<ArrowWriter<Pending>>),
    Arrow(Box<StreamWriter<Pending>>),
}

impl Encoder {
    fn write(&mut self, batch: &RecordBatch) -> io::Result<()> {
        match self {
            Encoder::Parquet(w) => w.write(batch).map_err(other),
            Encoder::Arrow(w) => w.write(batch).map_err(other),
        }
    }

    fn close(self) -> io::Result<()> {
        match self {
            Encoder::Parquet(w) => w.close().map(drop).map_err(other),
            Encoder::Arrow(mut w) => w.finish().map_err(other),
        }
    }
}

/// Batches encoded on a thread of their own, so that the compression of
/// one batch overlaps the gathering of the next (the writer thread also
/// reads and scans the input). The encoded bytes come back to the writer
/// thread, which alone writes the product.
struct Encoding {
    batches: Option<SyncSender<RecordBatch>>,
    bytes: Receiver<io::Result<Vec<u8>>>,
    thread: Option<JoinHandle<()>>,
}

impl Encoding {
    fn start(mut encoder: Encoder, pending: Pending) -> io::Result<Encoding> {
        let (batches, inbox) = mpsc::sync_channel::<RecordBatch>(2);
        let (outbox, bytes) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("pgnkit-encode".into())
            .spawn(move || {
                let take = |pending: &Pending| -> io::Result<Vec<u8>> {
                    let mut b = pending.0.lock().map_err(|_| io::Error::other("poisoned"))?;
                    Ok(std::mem::take(&mut *b))
                };
                for batch in inbox {
                    let done = encoder.write(&batch).and_then(|()| take(&pending));
                    let failed = done.is_err();
                    if outbox.send(done).is_err() || failed {
                        return;
                    }
                }
                let _ = outbox.send(encoder.close().and_then(|()| take(&pending)));
            })?;
        Ok(Encoding {
            batches: Some(batches),
            bytes,
            thread: Some(thread),
        })
    }

    /// Writes to `out` what the encoder has made so far.
    fn drain(&self, out: &mut dyn Write) -> io::Result<()> {
        while let Ok(bytes) = self.bytes.try_recv() {
            out.write_all(&bytes?)?;
        }
        Ok(())
    }

    fn send(&mut self, batch: RecordBatch, out: &mut dyn Write) -> io::Result<()> {
        let sent = self.batches.as_ref().is_some_and(|b| b.send(batch).is_ok());
        if !sent {
            // The encoder stopped: its error says why.
            return self
                .end(out)
                .and(Err(io::Error::other("the encoder stopped")));
        }
        self.drain(out)
    }

    /// Ends the encoding and writes everything left to `out`.
    fn end(&mut self, out: &mut dyn Write) -> io::Result<()> {
        self.batches = None;
        let mut result = Ok(());
        for bytes in self.bytes.iter() {
            match bytes {
                Ok(b) if result.is_ok() => result = out.write_all(&b),
                Ok(_) => {}
                Err(e) => {
                    if result.is_ok() {
                        result = Err(e);
                    }
                }
            }
        }
        if let Some(t) = self.thread.take()
            && t.join().is_err()
            && result.is_ok()
        {
            result = Err(io::Error::other("the encoder panicked"));
        }
        result
    }
}

impl Drop for Encoding {
    fn drop(&mut self) {
        // An abandoned run: stop the thread, dropping what it made.
        self.batches = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Where the batches go.
enum Out<'a> {
    /// Encoded, and the bytes written to the product.
    Encoded(Encoding),
    /// Handed to the caller's [`BatchSink`]; `schema` until it
    /// was handed over.
    Handed {
        to: Box<dyn BatchSink + 'a>,
        schema: Option<arrow_schema::SchemaRef>,
    },
}

/// Records of one schema written as Parquet or an Arrow stream.
pub struct ColumnarSink<'a> {
    rows: ArrowRows,
    out: Out<'a>,
}

fn other(e: impl std::error::Error + Send + Sync + 'static) -> io::Error {
    io::Error::other(e)
}

/// The Parquet path of the items of `column` when it is a list: Parquet's
/// `LIST` group holds a repeated `list` group of Arrow's item field.
fn list_item_path(column: &crate::schema::Column) -> Option<ColumnPath> {
    matches!(column.ty, crate::schema::Type::List(_)).then(|| {
        ColumnPath::new(vec![
            column.name.to_owned(),
            "list".to_owned(),
            arrow_schema::Field::LIST_FIELD_DEFAULT_NAME.to_owned(),
        ])
    })
}

impl<'a> ColumnarSink<'a> {
    /// A writer of `schema`'s records in `format`; the stream's header is
    /// written out at the first batch. With `batches` (and the Arrow
    /// format), the batches go there instead, unencoded.
    ///
    /// # Errors
    ///
    /// When the encoder refuses the schema (a bug).
    pub fn new(
        format: Columnar,
        schema: &Schema,
        batches: Option<Box<dyn BatchSink + 'a>>,
    ) -> io::Result<ColumnarSink<'a>> {
        let rows = ArrowRows::new(schema);
        if format == Columnar::Arrow
            && let Some(to) = batches
        {
            let schema = Some(Arc::clone(rows.schema()));
            return Ok(ColumnarSink {
                rows,
                out: Out::Handed { to, schema },
            });
        }
        let pending = Pending::default();
        let encoder = match format {
            Columnar::Parquet => {
                let mut props = WriterProperties::builder()
                    .set_compression(Compression::ZSTD(
                        ZstdLevel::try_new(ZSTD_LEVEL).map_err(other)?,
                    ))
                    .set_max_row_group_row_count(Some(ROW_GROUP_ROWS));
                // FEN columns are nearly all distinct: a dictionary only
                // costs the time to find that out.
                for c in schema.columns.iter().filter(|c| c.distinct && c.arrow) {
                    props = props.set_column_dictionary_enabled(ColumnPath::from(c.name), false);
                }
                // The items of a list (moves, clocks, evaluations) get no
                // minimum and maximum: no reader skips a page on the least
                // move of a game, and comparing every item cost 6% of
                // `--to parquet` (99 M of 1,732 M instructions on the 8 MB
                // slice). Every other column keeps its statistics.
                for c in schema.columns.iter().filter(|c| c.arrow) {
                    if let Some(path) = list_item_path(c) {
                        props = props.set_column_statistics_enabled(path, EnabledStatistics::None);
                    }
                }
                let props = props.build();
                Encoder::Parquet(Box::new(
                    ArrowWriter::try_new(pending.clone(), Arc::clone(rows.schema()), Some(props))
                        .map_err(other)?,
                ))
            }
            Columnar::Arrow => Encoder::Arrow(Box::new(
                StreamWriter::try_new(pending.clone(), rows.schema()).map_err(other)?,
            )),
        };
        // The header the encoder wrote goes out with the first bytes.
        Ok(ColumnarSink {
            rows,
            out: Out::Encoded(Encoding::start(encoder, pending)?),
        })
    }

    /// Where the next record goes.
    pub fn rows(&mut self) -> &mut ArrowRows {
        &mut self.rows
    }

    /// Writes the records gathered as a batch to `out` once there are
    /// [`BATCH_ROWS`] of them. Called after every record, so that every
    /// batch but the last has exactly that many (the bytes then depend on
    /// the records alone, not on how they came: `pgnkit merge` rebuilds
    /// one run's file).
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
        match &mut self.out {
            Out::Encoded(encoding) => encoding.send(batch, out),
            Out::Handed { to, schema } => {
                if let Some(schema) = schema.take() {
                    to.schema(schema)?;
                }
                to.batch(batch)
            }
        }
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
        match &mut self.out {
            Out::Encoded(encoding) => encoding.end(out),
            Out::Handed { to, schema } => match schema.take() {
                Some(schema) => to.schema(schema),
                None => Ok(()),
            },
        }
    }
}
