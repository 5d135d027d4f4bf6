//! [`Records`]: the batches of one run, taken from its channel as they
//! come, with the run's end turned into the error it deserves: an
//! input that could not be read, a refused argument, a failure, or
//! Ctrl-C. It is the one reader behind both ways out: the Python iterator
//! and the Arrow C stream.

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use pyo3::prelude::*;

use arrow_array::cast::AsArray;
use arrow_array::{
    Array, ArrayRef, MapArray, RecordBatch, RecordBatchReader, StringArray, StructArray,
};
use arrow_schema::{ArrowError, SchemaRef};
use pgnkit::exit::ExitStatus;
use pgnkit::{Error, ErrorKind};

use crate::channel::{ChannelReader, Got, Interrupted, Tick};
use crate::run::Diag;

/// Why a run's records stopped short.
#[derive(Debug)]
pub enum Failure {
    /// Ctrl-C while waiting.
    Interrupted,
    /// The run refused its arguments.
    Usage(String),
    /// The run failed, or inputs could not be read (after every record
    /// of the others was delivered).
    Run(String),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Interrupted => f.write_str("interrupted (Ctrl-C)"),
            Failure::Usage(m) | Failure::Run(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for Failure {}

/// Signals of SIGINT counted since [`count_sigint`] was first called.
static SIGINTS: AtomicU64 = AtomicU64::new(0);

/// Counts SIGINT from now on, besides what the handler before (Python's)
/// does with it: a consumer that reads through the C stream interface may
/// hold no GIL, so the wait cannot ask Python about signals.
pub fn count_sigint() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // SAFETY: the action only adds to an atomic, which is
        // async-signal-safe. The previous handler still runs.
        let _ = unsafe {
            signal_hook::low_level::register(signal_hook::consts::SIGINT, || {
                SIGINTS.fetch_add(1, Ordering::Relaxed);
            })
        };
    });
}

/// What Python does with SIGINT, asked when one came.
enum OnSigint {
    /// `SIG_IGN`: nothing; the wait goes on.
    Ignore,
    /// The default handler: it raises `KeyboardInterrupt` at the next
    /// instruction the interpreter runs, so the stream may simply end.
    Raise,
    /// A handler of the user's, which may not raise: the stream ends with
    /// an error, lest a cut table pass for a whole one.
    Other,
}

fn on_sigint() -> OnSigint {
    // The GIL only now, when a signal came: a consumer may be reading on a
    // thread of its own, and every tick asking for it would be a cost.
    // `_signal`, not `signal`: its functions are C, so no Python code runs
    // (which would run the handler here, on the consumer's behalf).
    Python::attach(|py| {
        let asked = (|| {
            let signal = py.import("_signal")?;
            let handler = signal.call_method1("getsignal", (signal.getattr("SIGINT")?,))?;
            Ok::<_, PyErr>(if handler.eq(signal.getattr("SIG_IGN")?)? {
                OnSigint::Ignore
            } else if handler.is(&signal.getattr("default_int_handler")?) {
                OnSigint::Raise
            } else {
                OnSigint::Other
            })
        })();
        match asked {
            Ok(answer) => answer,
            Err(err) if err.is_instance_of::<pyo3::exceptions::PyKeyboardInterrupt>(py) => {
                // The handler ran all the same and raised: raise it again
                // where the consumer returns to Python.
                // SAFETY: called with the GIL held.
                unsafe { pyo3::ffi::PyErr_SetInterrupt() };
                OnSigint::Raise
            }
            Err(_) => OnSigint::Other,
        }
    })
}

/// A tick that stops the wait once a SIGINT has come since it was made;
/// `clean` says that the stream may end as if complete (Python raises
/// `KeyboardInterrupt` as soon as the consumer returns to it).
pub fn sigint_tick(clean: Arc<AtomicBool>) -> Tick {
    let mut seen = SIGINTS.load(Ordering::Relaxed);
    Box::new(move || {
        let now = SIGINTS.load(Ordering::Relaxed);
        if now == seen {
            return Ok(());
        }
        seen = now;
        match on_sigint() {
            OnSigint::Ignore => Ok(()),
            OnSigint::Raise => {
                clean.store(true, Ordering::Relaxed);
                Err(Interrupted)
            }
            OnSigint::Other => Err(Interrupted),
        }
    })
}

/// What a call's records are.
pub struct Spec {
    /// The inputs' names as the records show them (for the errors).
    pub names: Vec<String>,
    /// With `tags=`, the tags `games` keeps in its `tags` map.
    pub keep_tags: Option<HashSet<String>>,
}

enum State {
    /// The schema is not here yet.
    Unstarted,
    Reading,
    Done,
}

/// Where the records stopped short, besides the run's own end.
enum Stop {
    Interrupted,
    Damaged(&'static str),
    Arrow(ArrowError),
}

impl std::fmt::Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stop::Interrupted => f.write_str("interrupted"),
            Stop::Damaged(what) => f.write_str(what),
            Stop::Arrow(e) => write!(f, "{e}"),
        }
    }
}

/// The records of one run.
pub struct Records {
    channel: ChannelReader,
    state: State,
    schema: Option<SchemaRef>,
    spec: Spec,
    diag: Arc<Diag>,
}

impl Records {
    pub fn new(channel: ChannelReader, spec: Spec, diag: Arc<Diag>) -> Records {
        Records {
            channel,
            state: State::Unstarted,
            schema: None,
            spec,
            diag,
        }
    }

    /// What to do each tick of a wait.
    pub fn set_tick(&self, tick: Tick) {
        self.channel.set_tick(tick);
    }

    /// Whether every record was handed out (or the run stopped).
    pub fn is_done(&self) -> bool {
        matches!(self.state, State::Done)
    }

    /// Stops: the run sees a broken pipe at its next batch.
    pub fn close(&mut self) {
        self.state = State::Done;
        // A fresh channel with nothing on it stands for the old one.
        let (_, rx) = std::sync::mpsc::sync_channel(0);
        self.channel = ChannelReader::new(rx);
    }

    /// The schema, which the run sends with its first batch (or at its
    /// end, when it has none).
    ///
    /// # Errors
    ///
    /// When the run fails before it, or the wait is interrupted.
    pub fn schema(&mut self) -> Result<SchemaRef, Failure> {
        if let Some(schema) = &self.schema {
            return Ok(Arc::clone(schema));
        }
        if !matches!(self.state, State::Unstarted) {
            return Err(Failure::Run("the stream is closed".to_owned()));
        }
        match self.channel.recv() {
            Ok(Got::Schema(schema)) => {
                self.schema = Some(Arc::clone(&schema));
                self.state = State::Reading;
                Ok(schema)
            }
            Ok(Got::Batch(_)) => Err(self.stopped(Stop::Damaged("a batch came before the schema"))),
            Ok(Got::End) => Err(self.stopped(Stop::Damaged("the run ended without records"))),
            Err(Interrupted) => Err(self.stopped(Stop::Interrupted)),
        }
    }

    /// The next batch, `None` after the last.
    ///
    /// # Errors
    ///
    /// When the run fails (after every batch before the failure), or the
    /// wait is interrupted.
    pub fn next_batch(&mut self) -> Result<Option<RecordBatch>, Failure> {
        if matches!(self.state, State::Unstarted) {
            self.schema()?;
        }
        if !matches!(self.state, State::Reading) {
            return Ok(None);
        }
        match self.channel.recv() {
            Ok(Got::Batch(batch)) => self
                .relabel(batch)
                .map(Some)
                .map_err(|e| self.stopped(Stop::Arrow(e))),
            Ok(Got::Schema(_)) => Err(self.stopped(Stop::Damaged("a second schema came"))),
            Err(Interrupted) => Err(self.stopped(Stop::Interrupted)),
            Ok(Got::End) => {
                self.state = State::Done;
                match self.channel.take_end() {
                    None | Some(Ok(ExitStatus::Ok | ExitStatus::Problems)) => Ok(None),
                    Some(Ok(ExitStatus::Error)) => Err(Failure::Run(self.unread())),
                    Some(Err(e)) => Err(self.failure(&e)),
                }
            }
        }
    }

    /// Why the stream stopped at `stop`: the run's end when it came (a
    /// refused argument leaves no records at all), an interruption, or
    /// what went wrong with the records.
    fn stopped(&mut self, stop: Stop) -> Failure {
        let end = self.channel.take_end();
        self.close();
        if matches!(stop, Stop::Interrupted) {
            return Failure::Interrupted;
        }
        match end {
            Some(Err(e)) => self.failure(&e),
            Some(Ok(ExitStatus::Error)) => Failure::Run(self.unread()),
            _ => Failure::Run(format!("the record stream is damaged: {stop}")),
        }
    }

    fn failure(&self, err: &Error) -> Failure {
        let message = format!("{err:#}");
        match err.kind() {
            ErrorKind::Usage => Failure::Usage(message),
            _ => Failure::Run(message),
        }
    }

    /// The message of a run that could not read some inputs: the lines it
    /// printed about them.
    fn unread(&self) -> String {
        let lines = self.diag.errors();
        let ours: Vec<String> = lines
            .iter()
            .filter_map(|l| l.strip_prefix("pgnkit: "))
            .filter(|l| !l.starts_with("warning: "))
            .filter(|l| self.spec.names.iter().any(|n| is_input_line(l, n)))
            .map(str::to_owned)
            .collect();
        if ours.is_empty() {
            "an input could not be read (standard error says which)".to_owned()
        } else {
            ours.join("\n")
        }
    }

    /// `batch` with the `tags` map cut to the tags asked for.
    fn relabel(&self, batch: RecordBatch) -> Result<RecordBatch, ArrowError> {
        let Some(keep) = &self.spec.keep_tags else {
            return Ok(batch);
        };
        let schema = batch.schema();
        let mut columns: Vec<ArrayRef> = batch.columns().to_vec();
        for (i, field) in schema.fields().iter().enumerate() {
            if field.name() == "tags"
                && let Some(map) = columns[i].as_map_opt()
            {
                columns[i] = Arc::new(keep_tags(map, keep)?);
            }
        }
        RecordBatch::try_new(schema, columns)
    }
}

/// Whether `line` (a diagnostic without its `pgnkit: `) is about the input
/// `name`, or a file under it, as a whole (`x.pgn: …`), not one of its
/// games (`x.pgn:12: game 3 …`).
fn is_input_line(line: &str, name: &str) -> bool {
    let Some(rest) = line.strip_prefix(name) else {
        return false;
    };
    if rest.starts_with(": ") {
        return true;
    }
    let Some(under) = rest.strip_prefix('/') else {
        return false;
    };
    let Some((file, _)) = under.split_once(": ") else {
        return false;
    };
    // A game's line: `file:LINE`.
    !file
        .rsplit_once(':')
        .is_some_and(|(_, n)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// `map` with only the entries whose key is in `keep`.
fn keep_tags(map: &MapArray, keep: &HashSet<String>) -> Result<MapArray, ArrowError> {
    let entries = map.entries();
    let keys = entries.column(0).as_string::<i32>();
    let values = entries.column(1).as_string::<i32>();
    let mut offsets = vec![0i32];
    let (mut new_keys, mut new_values) = (Vec::new(), Vec::new());
    for row in 0..map.len() {
        let (start, end) = (map.value_offsets()[row], map.value_offsets()[row + 1]);
        for e in start as usize..end as usize {
            if keep.contains(keys.value(e)) {
                new_keys.push(Some(keys.value(e)));
                new_values.push(values.is_valid(e).then(|| values.value(e)));
            }
        }
        offsets
            .push(i32::try_from(new_keys.len()).map_err(|e| ArrowError::ExternalError(e.into()))?);
    }
    let arrow_schema::DataType::Map(field, ordered) = map.data_type() else {
        return Err(ArrowError::SchemaError("tags is not a map".to_owned()));
    };
    let arrow_schema::DataType::Struct(fields) = field.data_type() else {
        return Err(ArrowError::SchemaError(
            "tags' entries are not a struct".to_owned(),
        ));
    };
    let columns: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from(new_keys)),
        Arc::new(StringArray::from(new_values)),
    ];
    let entries = StructArray::try_new(fields.clone(), columns, None)?;
    MapArray::try_new(
        Arc::clone(field),
        arrow_buffer::OffsetBuffer::new(offsets.into()),
        entries,
        map.nulls().cloned(),
        *ordered,
    )
}

/// The records as the C stream interface wants them: an iterator of
/// batches with a schema. Its waits stop at SIGINT, whoever holds the GIL.
pub struct CRecords {
    records: Records,
    schema: SchemaRef,
    /// Set when the tick stopped a read at SIGINT under Python's default
    /// handler.
    clean: Arc<AtomicBool>,
}

impl CRecords {
    /// One tick for the whole stream, made now: a SIGINT that comes while a
    /// batch is decoded, between two reads, is still one the next read sees
    /// (a tick made per batch would start counting after it).
    pub fn new(records: Records, schema: SchemaRef) -> CRecords {
        let clean = Arc::new(AtomicBool::new(false));
        records.set_tick(sigint_tick(Arc::clone(&clean)));
        CRecords {
            records,
            schema,
            clean,
        }
    }
}

impl Iterator for CRecords {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        match self.records.next_batch() {
            Ok(batch) => batch.map(Ok),
            // Ctrl-C under the default handler: the consumer ends as if
            // the stream had, and Python raises `KeyboardInterrupt` the
            // moment it runs again (an error here would reach the user
            // first, as the consumer's own exception, e.g. polars').
            Err(Failure::Interrupted) if self.clean.load(Ordering::Relaxed) => None,
            Err(f) => Some(Err(ArrowError::ExternalError(Box::new(f)))),
        }
    }
}

impl RecordBatchReader for CRecords {
    fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }
}
