//! `pgnkit` for Python: each function runs one subcommand through the
//! library's typed API ([`pgnkit::api`]: options built from the keyword
//! arguments, never from an argument list) on its own thread, and returns
//! a [`RecordStream`] of its records, handed over batch by batch through
//! the Arrow C stream interface (`__arrow_c_stream__`) or a Python
//! iterator. The binding is glue only: arguments in, batches out, the GIL
//! released while the run works.

mod channel;
mod inputs;
mod perft_rows;
mod records;
mod run;

use std::collections::HashSet;
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use arrow_array::ffi::{FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{Array, RecordBatch, StructArray};
use arrow_schema::SchemaRef;
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyKeyboardInterrupt, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyTuple};

use crate::channel::Interrupted;
use crate::inputs::Inputs;
use crate::records::{CRecords, Failure, Records, Spec};
use crate::run::{Diag, Job};
use pgnkit::api::options::{
    AnnotateOutcomeOptions, ByteSize, ConvertOptions, CrosstableOptions, DedupeOptions, PerftOptions, Positions,
    RunOptions, ValidateOptions,
};
use pgnkit::api::{Format, Input, RecordSink};
use pgnkit::exit::ExitStatus;

create_exception!(
    pgnkit,
    PgnkitError,
    PyException,
    "A run that could not do its job: an input that could not be read (raised after \
     the records of everything read before), a failed run, a stream used twice. Its \
     message is the command line's."
);

/// mimalloc 2 (the crate's `v2` feature) for the library's allocations,
/// as the command line has mimalloc (`src/main.rs`): the pipeline frees on
/// the writer what the workers allocated, which glibc's malloc serialises.
/// Not mimalloc 3, the command line's: it held 190 MB on the 200 MB memory
/// test, over the package's 150 MB. Measured figures: `python/README.md`,
/// "The allocator". Python's, pyarrow's and polars' buffers keep their own
/// allocators.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const STREAM_CAPSULE: &std::ffi::CStr = c"arrow_array_stream";
const SCHEMA_CAPSULE: &std::ffi::CStr = c"arrow_schema";
const ARRAY_CAPSULE: &std::ffi::CStr = c"arrow_array";

fn to_pyerr(failure: Failure, interrupt: Option<PyErr>) -> PyErr {
    match failure {
        Failure::Interrupted => {
            interrupt.unwrap_or_else(|| PyKeyboardInterrupt::new_err("interrupted"))
        }
        Failure::Usage(m) => PyValueError::new_err(m),
        Failure::Run(m) => PgnkitError::new_err(m),
    }
}

/// The records of one call, produced batch by batch while the run
/// works. Read it once: with ``pyarrow.table(s)``, ``polars.DataFrame(s)``,
/// ``duckdb.sql("select * from s")`` (any Arrow PyCapsule consumer), or
/// by iterating it (each item is a batch implementing
/// ``__arrow_c_array__``). A second use raises ``PgnkitError``.
#[pyclass(module = "pgnkit", name = "RecordStream")]
pub struct RecordStream {
    records: Mutex<Option<Records>>,
    what: String,
}

/// Runs `f` on the stream's records, the GIL released, Ctrl-C heeded.
fn with_records<T: Send>(
    stream: &RecordStream,
    py: Python<'_>,
    f: impl FnOnce(&mut Records) -> Result<T, Failure> + Send,
) -> PyResult<T> {
    let mut guard = stream
        .records
        .try_lock()
        .map_err(|_| PgnkitError::new_err("the stream is being read by another thread"))?;
    let Some(records) = guard.as_mut() else {
        return Err(consumed(&stream.what));
    };
    let interrupt: Arc<Mutex<Option<PyErr>>> = Arc::default();
    let slot = Arc::clone(&interrupt);
    records.set_tick(Box::new(move || {
        Python::attach(|py| py.check_signals()).map_err(|e| {
            *slot.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
            Interrupted
        })
    }));
    let result = py.detach(|| f(records));
    result.map_err(|failure| {
        let interrupt = interrupt.lock().unwrap_or_else(|p| p.into_inner()).take();
        to_pyerr(failure, interrupt)
    })
}

fn consumed(what: &str) -> PyErr {
    PgnkitError::new_err(format!(
        "this stream of {what} was read already (a stream is read once): call the function again"
    ))
}

#[pymethods]
impl RecordStream {
    /// The Arrow C stream of the records not read yet, as a PyCapsule
    /// named ``arrow_array_stream``. ``requested_schema`` is ignored: the
    /// records have one schema.
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        let unread = self
            .records
            .try_lock()
            .map(|r| r.as_ref().is_some_and(|r| !r.is_done()))
            .unwrap_or(true);
        if !unread {
            return Err(consumed(&self.what));
        }
        let schema = with_records(self, py, Records::schema)?;
        let records = self
            .records
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
            .ok_or_else(|| consumed(&self.what))?;
        records::count_sigint();
        let stream = FFI_ArrowArrayStream::new(Box::new(CRecords::new(records, schema)));
        PyCapsule::new_with_value(py, stream, STREAM_CAPSULE)
    }

    /// The records' schema as a PyCapsule named ``arrow_schema``. It waits
    /// for the run's first batch (the stream's header comes with it).
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        let schema = self.arrow_schema(py)?;
        schema_capsule(py, &schema)
    }

    /// The records' schema (an object implementing ``__arrow_c_schema__``:
    /// ``pyarrow.schema(s.schema)``). It waits for the run's first batch.
    #[getter]
    fn schema(&self, py: Python<'_>) -> PyResult<Schema> {
        Ok(Schema(self.arrow_schema(py)?))
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<Option<Batch>> {
        let batch = with_records(self, py, Records::next_batch)?;
        Ok(batch.map(Batch))
    }

    /// Stops the run and drops what it has not handed out.
    fn close(&self) {
        if let Some(records) = self
            .records
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_mut()
        {
            records.close();
        }
    }

    fn __enter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    #[pyo3(signature = (*_args))]
    fn __exit__(&self, _args: &Bound<'_, PyTuple>) {
        self.close();
    }

    fn __repr__(&self) -> String {
        format!("<pgnkit.RecordStream of {}>", self.what)
    }
}

impl RecordStream {
    fn arrow_schema(&self, py: Python<'_>) -> PyResult<SchemaRef> {
        with_records(self, py, Records::schema)
    }
}

fn schema_capsule<'py>(py: Python<'py>, schema: &SchemaRef) -> PyResult<Bound<'py, PyCapsule>> {
    let ffi = FFI_ArrowSchema::try_from(schema.as_ref())
        .map_err(|e| PgnkitError::new_err(e.to_string()))?;
    PyCapsule::new_with_value(py, ffi, SCHEMA_CAPSULE)
}

/// The schema of a stream's records (``pyarrow.schema(s)`` reads it).
#[pyclass(module = "pgnkit", name = "Schema", frozen)]
pub struct Schema(SchemaRef);

#[pymethods]
impl Schema {
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        schema_capsule(py, &self.0)
    }

    /// The column names, in order.
    #[getter]
    fn names(&self) -> Vec<String> {
        self.0.fields().iter().map(|f| f.name().clone()).collect()
    }

    fn __repr__(&self) -> String {
        format!("<pgnkit.Schema {}>", self.names().join(", "))
    }
}

/// One batch of records (``pyarrow.record_batch(b)``,
/// ``polars.DataFrame(b)``; any consumer of ``__arrow_c_array__``).
#[pyclass(module = "pgnkit", name = "Batch", frozen)]
pub struct Batch(RecordBatch);

#[pymethods]
impl Batch {
    /// The batch as a struct array: a pair of PyCapsules (schema, array).
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_array__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<(Bound<'py, PyCapsule>, Bound<'py, PyCapsule>)> {
        let _ = requested_schema;
        let array = StructArray::from(self.0.clone());
        let schema = FFI_ArrowSchema::try_from(array.data_type())
            .map_err(|e| PgnkitError::new_err(e.to_string()))?;
        let array = FFI_ArrowArray::new(&array.to_data());
        Ok((
            PyCapsule::new_with_value(py, schema, SCHEMA_CAPSULE)?,
            PyCapsule::new_with_value(py, array, ARRAY_CAPSULE)?,
        ))
    }

    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        schema_capsule(py, &self.0.schema())
    }

    /// Rows in the batch.
    #[getter]
    fn num_rows(&self) -> usize {
        self.0.num_rows()
    }

    fn __len__(&self) -> usize {
        self.0.num_rows()
    }

    fn __repr__(&self) -> String {
        format!("<pgnkit.Batch of {} rows>", self.0.num_rows())
    }
}

/// A comma-separated `str` or an iterable of `str`, as a list.
fn names(arg: Option<&Bound<'_, PyAny>>, what: &str) -> PyResult<Vec<String>> {
    let Some(arg) = arg else {
        return Ok(Vec::new());
    };
    if let Ok(s) = arg.extract::<String>() {
        return Ok(s.split(',').map(str::to_owned).collect());
    }
    let mut out = Vec::new();
    for item in arg.try_iter()? {
        out.push(item?.extract::<String>().map_err(|_| {
            PyValueError::new_err(format!("{what}: give a str or an iterable of str"))
        })?);
    }
    Ok(out)
}

/// Refuses a name that is no finding code, as the command line does, at
/// call time.
fn check_codes(flag: &str, codes: &[String]) -> PyResult<()> {
    use pgnkit::rules::finding::Code;
    if let Some(bad) = codes.iter().find(|c| Code::from_name(c).is_none()) {
        let valid: Vec<&str> = Code::ALL.iter().map(|c| c.as_str()).collect();
        return Err(PyValueError::new_err(format!(
            "{flag}: unknown finding code `{bad}` (valid: {})",
            valid.join(", ")
        )));
    }
    Ok(())
}

/// `threads`: 1 to 65535 workers, `None` for every core; any other int
/// (negative, huge) is a `ValueError`, never an `OverflowError`.
fn threads(arg: Option<&Bound<'_, PyAny>>) -> PyResult<Option<u16>> {
    let Some(arg) = arg.filter(|a| !a.is_none()) else {
        return Ok(None);
    };
    let refused = || PyValueError::new_err("threads: give 1 to 65535 (None: every core)");
    if arg.is_instance_of::<pyo3::types::PyBool>() {
        return Err(refused());
    }
    let n: i128 = arg.extract().map_err(|_| refused())?;
    u16::try_from(n)
        .ok()
        .filter(|&n| n > 0)
        .map(Some)
        .ok_or_else(refused)
}

/// A value of the command line's syntax (`--laws`, `--byte-range`, …),
/// parsed as the command line parses it.
fn parsed<T: std::str::FromStr>(name: &str, value: Option<&str>) -> PyResult<Option<T>>
where
    T::Err: std::fmt::Display,
{
    value
        .map(|v| {
            v.parse()
                .map_err(|e| PyValueError::new_err(format!("{name}: {e}")))
        })
        .transpose()
}

/// One of the names of a value enum of the command line (`rules`, `from_`).
fn choice<T: clap::ValueEnum>(name: &str, value: &str) -> PyResult<T> {
    T::from_str(value, false).map_err(|_| {
        let valid: Vec<String> = T::value_variants()
            .iter()
            .filter_map(|v| v.to_possible_value().map(|p| p.get_name().to_owned()))
            .collect();
        PyValueError::new_err(format!(
            "{name}: `{value}` is not one of {}",
            valid.join(", ")
        ))
    })
}

/// `max_game_bytes`: a positive int of bytes, or a str as the command
/// line takes it (`"64M"`); `None` for the default.
fn max_game_bytes(arg: Option<&Bound<'_, PyAny>>) -> PyResult<ByteSize> {
    let Some(arg) = arg.filter(|a| !a.is_none()) else {
        return Ok(ByteSize::default());
    };
    if let Ok(text) = arg.extract::<String>() {
        return parsed("max_game_bytes", Some(&text)).map(Option::unwrap_or_default);
    }
    let refused = || {
        PyValueError::new_err(
            "max_game_bytes: give a positive int of bytes, or a str such as \"64M\"",
        )
    };
    if arg.is_instance_of::<pyo3::types::PyBool>() {
        return Err(refused());
    }
    let n: i128 = arg.extract().map_err(|_| refused())?;
    u64::try_from(n)
        .ok()
        .filter(|&n| n > 0)
        .map(ByteSize)
        .ok_or_else(refused)
}

/// `where=`: a dict of selection criteria, each key an option of `pgnkit
/// select` (`player`, `sub_fen`, …) and its value a str (a list of them
/// for "any of"), an int (`limit`, `elo`, `plies`) or `True` (`invert`),
/// read by the command line's parser.
fn selection(arg: Option<&Bound<'_, PyAny>>) -> PyResult<pgnkit::api::Selection> {
    use pyo3::types::{PyBool, PyDict, PyList, PyTuple};
    let Some(arg) = arg.filter(|a| !a.is_none()) else {
        return Ok(pgnkit::api::Selection::default());
    };
    let dict = arg
        .cast::<PyDict>()
        .map_err(|_| PyValueError::new_err("where: give a dict of criteria ({\"player\": \"carlsen\"})"))?;
    let mut pairs: Vec<(String, Option<String>)> = Vec::new();
    for (key, value) in dict.iter() {
        let key: String = key
            .extract()
            .map_err(|_| PyValueError::new_err("where: its keys are option names (str)"))?;
        let one = |v: &Bound<'_, PyAny>| -> PyResult<Option<String>> {
            if v.is_instance_of::<PyBool>() {
                return match v.extract::<bool>()? {
                    true => Ok(None),
                    false => Err(PyValueError::new_err(format!(
                        "where: {key}: give True, or leave it out"
                    ))),
                };
            }
            if let Ok(n) = v.extract::<i64>() {
                return Ok(Some(n.to_string()));
            }
            v.extract::<String>().map(Some).map_err(|_| {
                PyValueError::new_err(format!("where: {key}: give a str, an int or a list of them"))
            })
        };
        if value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>() {
            for v in value.try_iter()? {
                pairs.push((key.clone(), one(&v?)?));
            }
        } else if value.is_instance_of::<PyBool>() && !value.extract::<bool>()? {
            // `invert=False`: as if not given.
        } else {
            pairs.push((key.clone(), one(&value)?));
        }
    }
    pgnkit::api::Selection::from_pairs(pairs.iter().map(|(k, v)| (k.as_str(), v.as_deref())))
        .map_err(|e| PyValueError::new_err(format!("where: {e}")))
}

/// The options every streaming call shares.
fn run_options(
    threads_arg: Option<&Bound<'_, PyAny>>,
    byte_range: Option<&str>,
    stats: Option<PathBuf>,
    max_game_bytes_arg: Option<&Bound<'_, PyAny>>,
) -> PyResult<RunOptions> {
    Ok(RunOptions {
        threads: threads(threads_arg)?,
        quiet: true,
        byte_range: parsed("byte_range", byte_range)?,
        stats,
        max_game_bytes: max_game_bytes(max_game_bytes_arg)?,
        ..RunOptions::default()
    })
}

/// Starts `job` on `inputs`, reading `what`.
fn start(
    inputs: Inputs,
    what: &str,
    keep_tags: Option<HashSet<String>>,
    job: impl FnOnce(Vec<Input>, RecordSink<'_>, &Diag) -> Result<pgnkit::api::Summary, pgnkit::Error>
    + Send
    + 'static,
) -> PyResult<RecordStream> {
    let spec = Spec {
        names: inputs.names,
        keep_tags,
    };
    let list = inputs.inputs;
    let diag = Arc::new(Diag::default());
    let job: Job = Box::new(move |out, diag| {
        job(list, RecordSink::Batches(Box::new(out)), diag).map(|s| s.status)
    });
    let channel = run::spawn(job, Arc::clone(&diag))?;
    Ok(RecordStream {
        records: Mutex::new(Some(Records::new(channel, spec, diag))),
        what: what.to_owned(),
    })
}

/// validate(*paths, threads=None, only=None, ignore=None, enable=None, openings=None, tags=None, laws="date", bad_games=None, good_games=None, fix=None, byte_range=None, stats=None, max_game_bytes=None)
/// --
///
/// Replays every game and returns its findings, one row per finding
/// (``pgnkit validate -f arrow``; columns: ``docs/records.md``,
/// ``finding``). Findings are data: an illegal move is a row, never an
/// exception.
///
/// ``paths``: files (plain, .gz, .zst, .bz2), directories (their PGN
/// files), ``bytes`` of PGN (named ``<bytes>`` in ``file``) or binary
/// file objects. ``threads``: workers (default: every core). ``only`` /
/// ``ignore``: finding codes, a list or a comma-separated str; ``enable``:
/// the codes off by default to report too (``eco-mismatch``), with
/// ``openings`` the table it compares with (a TSV or PGN file; default:
/// lichess's). ``tags``:
/// tag names whose values fill each finding's ``tags`` map. ``laws``:
/// ``"date"``, ``"current"`` or a day ``"YYYY-MM-DD"``. ``bad_games`` /
/// ``good_games``: files to write the games with / without an error
/// finding to, byte for byte. ``fix``: a file to write every game to with
/// each full repair applied as a minimal edit (``--fix``).
/// ``byte_range`` (``"START..END"``) and
/// ``stats`` (a file): as the command line's, for shards.
/// ``max_game_bytes`` (an int, or a str such as ``"64M"``): a longer game,
/// or text with no game start, is skipped with a warning, not held.
///
/// >>> import polars as pl, pgnkit
/// >>> pl.DataFrame(pgnkit.validate("games.pgn", only=["illegal-move"]))
#[pyfunction]
#[pyo3(signature = (*paths, threads = None, only = None, ignore = None, enable = None, openings = None, tags = None, laws = "date", bad_games = None, good_games = None, fix = None, byte_range = None, stats = None, max_game_bytes = None))]
#[allow(clippy::too_many_arguments)]
fn validate(
    paths: &Bound<'_, PyTuple>,
    threads: Option<&Bound<'_, PyAny>>,
    only: Option<&Bound<'_, PyAny>>,
    ignore: Option<&Bound<'_, PyAny>>,
    enable: Option<&Bound<'_, PyAny>>,
    openings: Option<PathBuf>,
    tags: Option<&Bound<'_, PyAny>>,
    laws: &str,
    bad_games: Option<PathBuf>,
    good_games: Option<PathBuf>,
    fix: Option<PathBuf>,
    byte_range: Option<&str>,
    stats: Option<PathBuf>,
    max_game_bytes: Option<&Bound<'_, PyAny>>,
) -> PyResult<RecordStream> {
    let (only, ignore) = (names(only, "only")?, names(ignore, "ignore")?);
    check_codes("only", &only)?;
    check_codes("ignore", &ignore)?;
    let enable = names(enable, "enable")?;
    check_codes("enable", &enable)?;
    let tags = names(tags, "tags")?;
    let options = ValidateOptions {
        run: run_options(threads, byte_range, stats, max_game_bytes)?,
        format: Format::Arrow,
        only,
        ignore,
        enable,
        openings,
        tags: (!tags.is_empty()).then_some(tags),
        laws: parsed("laws", Some(laws))?.unwrap_or_default(),
        bad_games,
        good_games,
        fix,
        ..ValidateOptions::default()
    };
    let inputs = Inputs::from_args(paths)?;
    start(inputs, "findings", None, move |inputs, out, diag| {
        pgnkit::api::validate(&options, inputs, out, diag)
    })
}

/// annotate_outcome(*paths, rules="fide", tags=None, threads=None, laws="date", problems=False, openings=None, where=None, byte_range=None, stats=None, max_game_bytes=None)
/// --
///
/// Says what the Laws say happened in each game, one row per game
/// (``pgnkit annotate-outcome -f arrow``; columns: ``docs/records.md``,
/// ``outcome``).
///
/// ``rules``: ``"fide"``, ``"app"`` or ``"online"``. ``laws``: ``"date"``,
/// ``"current"`` or a day ``"YYYY-MM-DD"``. ``problems``: only the games
/// an arbiter must look at. ``tags``: tag names whose values fill the
/// ``tags`` map. ``openings``: the table the ``eco`` and ``opening``
/// columns come from (a TSV or PGN file; default: lichess's). ``where``:
/// only the games these criteria select, as for ``games``; inputs and the
/// rest as for ``validate``.
///
/// >>> import pyarrow as pa, pgnkit
/// >>> t = pa.table(pgnkit.annotate_outcome("games.pgn", tags=["Event"]))
#[pyfunction]
#[pyo3(signature = (*paths, rules = "fide", tags = None, threads = None, laws = "date", problems = false, openings = None, r#where = None, byte_range = None, stats = None, max_game_bytes = None))]
#[allow(clippy::too_many_arguments)]
fn annotate_outcome(
    paths: &Bound<'_, PyTuple>,
    rules: &str,
    tags: Option<&Bound<'_, PyAny>>,
    threads: Option<&Bound<'_, PyAny>>,
    laws: &str,
    problems: bool,
    openings: Option<PathBuf>,
    r#where: Option<&Bound<'_, PyAny>>,
    byte_range: Option<&str>,
    stats: Option<PathBuf>,
    max_game_bytes: Option<&Bound<'_, PyAny>>,
) -> PyResult<RecordStream> {
    let tags = names(tags, "tags")?;
    let selection = selection(r#where)?;
    let options = AnnotateOutcomeOptions {
        run: run_options(threads, byte_range, stats, max_game_bytes)?,
        format: Format::Arrow,
        rules: choice("rules", rules)?,
        laws: parsed("laws", Some(laws))?.unwrap_or_default(),
        tags: (!tags.is_empty()).then_some(tags),
        problems,
        openings,
        selection,
        ..AnnotateOutcomeOptions::default()
    };
    let inputs = Inputs::from_args(paths)?;
    start(inputs, "outcomes", None, move |inputs, out, diag| {
        pgnkit::api::annotate_outcome(&options, inputs, out, diag)
    })
}

/// The options of `convert -f arrow`.
fn convert_options(
    positions: Positions,
    san: bool,
    from: Option<&str>,
    run: RunOptions,
    openings: Option<PathBuf>,
    selection: pgnkit::api::Selection,
) -> PyResult<ConvertOptions> {
    Ok(ConvertOptions {
        run,
        format: Format::Arrow,
        from: from.map(|f| choice("from_", f)).transpose()?,
        positions,
        san,
        openings,
        selection,
        ..ConvertOptions::default()
    })
}

/// games(*paths, tags=None, san=False, threads=None, from_=None, openings=None, where=None, byte_range=None, stats=None, max_game_bytes=None)
/// --
///
/// Converts every game, one row per game (``pgnkit convert -f arrow``;
/// columns: ``docs/records.md``, ``game``): the Seven Tag Roster and
/// typed well-known tags as columns, every tag in the ``tags`` map, the
/// moves as a list of UCI strings (and SAN with ``san=True``), the
/// clock (seconds) and evaluation (``eval_cp``, ``eval_mate``) after each
/// move from its ``[%clk]`` and ``[%eval]`` comments, ``final_fen``,
/// ``plies`` and ``error``.
///
/// ``tags``: when given, the ``tags`` map keeps only these tags (the
/// columns are unchanged). ``from_``: ``"pgn"``, ``"fen"``, ``"epd"`` or
/// ``"uci"`` (default: told from each input's first bytes). ``openings``:
/// the table of the ``eco``, ``opening`` and ``opening_ply`` columns (a
/// TSV of lichess's columns or a PGN file as pgn-extract's ``eco.pgn``;
/// default: lichess's, embedded). ``where``: only the games these criteria
/// select (``pgnkit select``'s options as keys, underscores for dashes; a
/// list for "any of"): ``where={"player": "carlsen", "move": "black:O-O-O",
/// "sub_fen": "8/8/8/8/3PP3/8/8/8", "elo": "2500..", "limit": 100}``; the
/// ply that a position or move matched at is ``match_ply``. Inputs and the
/// rest as for ``validate``.
///
/// >>> import duckdb, pgnkit
/// >>> g = pgnkit.games("games.pgn", threads=2)
/// >>> duckdb.sql("select white, black, plies from g where plies > 200")
#[pyfunction]
#[pyo3(signature = (*paths, tags = None, san = false, threads = None, from_ = None, openings = None, r#where = None, byte_range = None, stats = None, max_game_bytes = None))]
#[allow(clippy::too_many_arguments)]
fn games(
    paths: &Bound<'_, PyTuple>,
    tags: Option<&Bound<'_, PyAny>>,
    san: bool,
    threads: Option<&Bound<'_, PyAny>>,
    from_: Option<&str>,
    openings: Option<PathBuf>,
    r#where: Option<&Bound<'_, PyAny>>,
    byte_range: Option<&str>,
    stats: Option<PathBuf>,
    max_game_bytes: Option<&Bound<'_, PyAny>>,
) -> PyResult<RecordStream> {
    let run = run_options(threads, byte_range, stats, max_game_bytes)?;
    let options =
        convert_options(Positions::Final, san, from_, run, openings, selection(r#where)?)?;
    let keep = tags.map(|t| names(Some(t), "tags")).transpose()?;
    let inputs = Inputs::from_args(paths)?;
    start(
        inputs,
        "games",
        keep.map(|k| k.into_iter().collect()),
        move |inputs, out, diag| pgnkit::api::convert(&options, inputs, out, diag),
    )
}

/// positions(*paths, threads=None, from_=None, where=None, byte_range=None, stats=None, max_game_bytes=None)
/// --
///
/// One row per position of every game, with the move that led to it and
/// that move's clock and evaluation (``pgnkit convert -f arrow
/// --positions all``; columns: ``docs/records.md``, ``position``): of
/// every game, or of the games ``where`` selects. Inputs and the rest as
/// for ``games``.
///
/// >>> import polars as pl, pgnkit
/// >>> pl.DataFrame(pgnkit.positions("games.pgn"))
#[pyfunction]
#[pyo3(signature = (*paths, threads = None, from_ = None, r#where = None, byte_range = None, stats = None, max_game_bytes = None))]
fn positions(
    paths: &Bound<'_, PyTuple>,
    threads: Option<&Bound<'_, PyAny>>,
    from_: Option<&str>,
    r#where: Option<&Bound<'_, PyAny>>,
    byte_range: Option<&str>,
    stats: Option<PathBuf>,
    max_game_bytes: Option<&Bound<'_, PyAny>>,
) -> PyResult<RecordStream> {
    let run = run_options(threads, byte_range, stats, max_game_bytes)?;
    let options = convert_options(Positions::All, false, from_, run, None, selection(r#where)?)?;
    let inputs = Inputs::from_args(paths)?;
    start(inputs, "positions", None, move |inputs, out, diag| {
        pgnkit::api::convert(&options, inputs, out, diag)
    })
}

/// perft(fen, depth, divide=False, threads=None, chess960=False, moves=None, hash=64, max_nodes=None)
/// --
///
/// Counts the leaf nodes of the legal move tree ``depth`` plies below
/// ``fen`` (``"startpos"`` for the standard start), after ``moves`` (UCI,
/// separated by spaces or commas) when given. Returns a stream of rows
/// ``move`` (the root move in UCI, with ``divide``; else null) and
/// ``nodes``: one row per root move with ``divide``, else one row of the
/// total. ``chess960``: the position is Chess960 (also told from the
/// FEN); ``hash``: the transposition table in MiB (0: none);
/// ``max_nodes``: a bound on the count, past which the run stops.
///
/// >>> import pyarrow as pa, pgnkit
/// >>> pa.table(pgnkit.perft("startpos", 3))["nodes"][0].as_py()
/// 8902
#[pyfunction]
#[pyo3(signature = (fen, depth, divide = false, threads = None, chess960 = false, moves = None, hash = pgnkit::api::options::DEFAULT_HASH_MIB, max_nodes = None))]
#[allow(clippy::too_many_arguments)]
fn perft(
    fen: &str,
    depth: u32,
    divide: bool,
    threads: Option<&Bound<'_, PyAny>>,
    chess960: bool,
    moves: Option<String>,
    hash: usize,
    max_nodes: Option<u64>,
) -> PyResult<RecordStream> {
    if depth > pgnkit::rules::perft::MAX_DEPTH {
        return Err(PyValueError::new_err(format!(
            "depth: at most {}",
            pgnkit::rules::perft::MAX_DEPTH
        )));
    }
    let options = PerftOptions {
        depth: Some(depth),
        divide,
        chess960,
        moves,
        threads: self::threads(threads)?,
        hash,
        max_nodes,
        quiet: true,
        ..PerftOptions::default()
    };
    let fen = fen.trim().to_owned();
    let spec = Spec {
        names: Vec::new(),
        keep_tags: None,
    };
    let diag = Arc::new(Diag::default());
    let job: Job = Box::new(move |mut out, diag| {
        let mut rows = perft_rows::Rows::new();
        let status = pgnkit::api::perft(&options, Some(&fen), &mut rows, diag)?;
        rows.finish(&mut out).map_err(pgnkit::Error::stdout)?;
        Ok(status)
    });
    let channel = run::spawn(job, Arc::clone(&diag))?;
    Ok(RecordStream {
        records: Mutex::new(Some(Records::new(channel, spec, diag))),
        what: "perft counts".to_owned(),
    })
}

/// crosstable(*paths, threads=None, max_game_bytes=None)
/// --
///
/// Each event's standings from its results (``pgnkit crosstable -f
/// arrow``; columns: ``docs/records.md``, ``standing``): one row per
/// player of each event, in the order of the standings, with ``points``,
/// the tie-break and ``results``, the player's row of the crosstable. A
/// repeat of a game counts once; byes, forfeits and games without moves
/// score as their result says and count as ``unplayed``.
///
/// >>> import polars as pl, pgnkit
/// >>> pl.DataFrame(pgnkit.crosstable("tournament.pgn")).filter(pl.col("rank") <= 3)
#[pyfunction]
#[pyo3(signature = (*paths, threads = None, max_game_bytes = None))]
fn crosstable(
    paths: &Bound<'_, PyTuple>,
    threads: Option<&Bound<'_, PyAny>>,
    max_game_bytes: Option<&Bound<'_, PyAny>>,
) -> PyResult<RecordStream> {
    let options = CrosstableOptions {
        run: run_options(threads, None, None, max_game_bytes)?,
        format: Format::Arrow,
    };
    let inputs = Inputs::from_args(paths)?;
    start(inputs, "standings", None, move |inputs, out, diag| {
        pgnkit::api::crosstable(&options, inputs, out, diag)
    })
}

/// dedupe(*paths, keep="first", transpositions=False, no_prefix=False, against=None, duplicates=None, unique=None, threads=None, max_game_bytes=None)
/// --
///
/// Groups the games that are one game (the same start position and moves,
/// however written: the ``key`` of ``games()``) and returns one row per
/// game of a group of repeats (``pgnkit dedupe -f arrow``; columns:
/// ``docs/records.md``, ``duplicate``): its group, ``role`` (``kept`` or
/// ``repeat``), ``kind`` (``exact``, ``tags-differ``, ``result-differs``)
/// and ``tags_differ``. ``keep``: ``"first"``, ``"longest"`` or
/// ``"most-tags"``. ``transpositions``: also group games that reach the
/// same final position in as many plies by another move order (kind
/// ``transposed``). ``no_prefix``: do not look for truncated copies (kind
/// ``prefix``). ``against``: archive paths; the inputs' games already
/// in them are the repeats. ``duplicates`` / ``unique``: files to write the
/// repeats / the games kept to, byte for byte. The inputs are read twice,
/// so they must be files (paths or directories), not bytes or streams.
///
/// >>> import polars as pl, pgnkit
/// >>> pl.DataFrame(pgnkit.dedupe("games.pgn")).filter(pl.col("kind") == "tags-differ")
#[pyfunction]
#[pyo3(signature = (*paths, keep = "first", transpositions = false, no_prefix = false, against = None, duplicates = None, unique = None, threads = None, max_game_bytes = None))]
#[allow(clippy::too_many_arguments)]
fn dedupe(
    paths: &Bound<'_, PyTuple>,
    keep: &str,
    transpositions: bool,
    no_prefix: bool,
    against: Option<Vec<PathBuf>>,
    duplicates: Option<PathBuf>,
    unique: Option<PathBuf>,
    threads: Option<&Bound<'_, PyAny>>,
    max_game_bytes: Option<&Bound<'_, PyAny>>,
) -> PyResult<RecordStream> {
    let options = DedupeOptions {
        run: run_options(threads, None, None, max_game_bytes)?,
        format: Format::Arrow,
        keep: choice("keep", keep)?,
        transpositions,
        no_prefix,
        against: against.unwrap_or_default(),
        duplicates,
        unique,
    };
    let inputs = Inputs::from_args(paths)?;
    start(inputs, "duplicates", None, move |inputs, out, diag| {
        pgnkit::api::dedupe(&options, inputs, out, diag)
    })
}

/// _run(argv)
/// --
///
/// Runs the command line `pgnkit *argv` in this process (the library's
/// own subcommands, its standard output into bytes) and gives its exit
/// code, standard output and error message: what the tests compare the
/// streams with, without a binary to build.
#[pyfunction]
fn _run(py: Python<'_>, argv: Vec<OsString>) -> PyResult<(u8, Vec<u8>, Option<String>)> {
    use clap::Parser;
    use pgnkit::cli::{Cli, Command};
    let argv = std::iter::once(OsString::from("pgnkit")).chain(argv);
    let cli = Cli::try_parse_from(argv)
        .map_err(|e| PyValueError::new_err(e.render().to_string().trim_end().to_owned()))?;
    Ok(py.detach(move || {
        let mut out = Vec::new();
        let stderr = pgnkit::api::Stderr;
        let result = match &cli.command {
            Command::Validate(a) => pgnkit::api::validate(
                &a.options,
                a.input.inputs(),
                RecordSink::Writer(&mut out),
                &stderr,
            )
            .map(|s| s.status),
            Command::AnnotateOutcome(a) => pgnkit::api::annotate_outcome(
                &a.options,
                a.input.inputs(),
                RecordSink::Writer(&mut out),
                &stderr,
            )
            .map(|s| s.status),
            Command::Convert(a) => pgnkit::api::convert(
                &a.options,
                a.input.inputs(),
                RecordSink::Writer(&mut out),
                &stderr,
            )
            .map(|s| s.status),
            Command::Dedupe(a) => pgnkit::api::dedupe(
                &a.options,
                a.input.inputs(),
                RecordSink::Writer(&mut out),
                &stderr,
            )
            .map(|s| s.status),
            Command::Crosstable(a) => pgnkit::api::crosstable(
                &a.options,
                a.input.inputs(),
                RecordSink::Writer(&mut out),
                &stderr,
            )
            .map(|s| s.status),
            Command::Perft(a) => pgnkit::cmd::perft::run(a, &mut out),
            _ => Err(pgnkit::Error::usage(
                "_run runs validate, annotate-outcome, convert, crosstable, dedupe and perft",
            )),
        };
        match result {
            Ok(status) => {
                let code = match status {
                    ExitStatus::Ok => 0,
                    ExitStatus::Problems => 1,
                    ExitStatus::Error => 2,
                };
                (code, out, None)
            }
            Err(e) => (2, out, Some(format!("{e:#}"))),
        }
    }))
}

/// _cli_options(subcommand)
/// --
///
/// The long names of the command line's options of `subcommand`, from the
/// same definitions as ``--help``: what the keyword test walks.
#[pyfunction]
fn _cli_options(subcommand: &str) -> PyResult<Vec<String>> {
    use clap::CommandFactory;
    let cli = pgnkit::cli::Cli::command();
    let sub = cli
        .find_subcommand(subcommand)
        .ok_or_else(|| PyValueError::new_err(format!("no subcommand `{subcommand}`")))?;
    Ok(sub
        .get_arguments()
        .filter(|a| !a.is_hide_set())
        .filter_map(|a| a.get_long().map(str::to_owned))
        .filter(|l| l != "help" && l != "version")
        .collect())
}

unsafe extern "C" {
    // mimalloc 2's own API, linked in with the allocator.
    fn mi_option_set(option: std::ffi::c_int, value: std::ffi::c_long);
    fn mi_arena_area(arena_id: std::ffi::c_int, size: *mut usize) -> *mut std::ffi::c_void;
}

/// `mi_option_allow_thp` in mimalloc 2's `mi_option_t`.
const MI_OPTION_ALLOW_THP: std::ffi::c_int = 37;
/// `MI_MAX_ARENAS` of mimalloc 2: arena ids are 1 to this.
const MI_MAX_ARENAS: std::ffi::c_int = 132;

/// No transparent huge pages in mimalloc's memory, unless
/// `MIMALLOC_ALLOW_THP` says otherwise. mimalloc 2 asks for them
/// (`madvise(MADV_HUGEPAGE)`) on its arenas, and the records a consumer
/// keeps (a DataFrame) grow into fresh memory batch after batch: each
/// fault then zeroes 2 MiB (in direct compaction when memory is fragmented),
/// and purged pages are faulted and zeroed again. `pl.DataFrame(games(
/// pgnmentor))` spent 1.3 to 4.8 s of system time so, 0.6 to 0.7 s
/// without (`python/README.md`, "The allocator"). Only mimalloc's own
/// memory is advised: not the process (mimalloc's option at start-up
/// would `prctl` THP off for it and its children), not Python's or polars'.
fn no_huge_pages() {
    if std::env::var_os("MIMALLOC_ALLOW_THP").is_some() {
        return;
    }
    // SAFETY: mimalloc's options are atomics; `mi_arena_area` reads an
    // arena's bounds (null past the last); `madvise` with
    // `MADV_NOHUGEPAGE` changes no content, only how the range is backed.
    unsafe {
        // Arenas reserved from now on: no `MADV_HUGEPAGE`.
        mi_option_set(MI_OPTION_ALLOW_THP, 0);
        // Those reserved before this module was initialised.
        for id in 1..=MI_MAX_ARENAS {
            let mut size = 0usize;
            let start = mi_arena_area(id, &raw mut size);
            if !start.is_null() && size > 0 {
                libc::madvise(start, size, libc::MADV_NOHUGEPAGE);
            }
        }
    }
}

#[pymodule]
fn _pgnkit(m: &Bound<'_, PyModule>) -> PyResult<()> {
    no_huge_pages();
    m.add("PgnkitError", m.py().get_type::<PgnkitError>())?;
    m.add_class::<RecordStream>()?;
    m.add_class::<Schema>()?;
    m.add_class::<Batch>()?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(annotate_outcome, m)?)?;
    m.add_function(wrap_pyfunction!(games, m)?)?;
    m.add_function(wrap_pyfunction!(positions, m)?)?;
    m.add_function(wrap_pyfunction!(dedupe, m)?)?;
    m.add_function(wrap_pyfunction!(crosstable, m)?)?;
    m.add_function(wrap_pyfunction!(perft, m)?)?;
    m.add_function(wrap_pyfunction!(_run, m)?)?;
    m.add_function(wrap_pyfunction!(_cli_options, m)?)?;
    m.add(
        "PERFT_COLUMNS",
        perft_rows::PERFT
            .columns
            .iter()
            .map(|c| c.name)
            .collect::<Vec<_>>(),
    )?;
    Ok(())
}
